/**
 * airlock_revert: propose the undo of a finished change (or of a whole plan, its steps in
 * reverse order) from the pre-state it kept: the action RevertTransaction, previewed by the
 * daemon at the risk of the change it reverts and approved by a person like any change. The
 * daemon refuses it when the host has drifted from what that change left, naming what changed.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { PreviewResult } from '../../protocol/messages.js';
import { withDaemon } from '../daemon.js';
import { hostIn } from '../schemas.js';
import { hints, type ToolDeps } from '../deps.js';
import { answer, failure } from '../tool-result.js';
import { ON_A_CHANGE } from '../workflow.js';
import { previewedStep, proposalText, stepOut } from './propose.js';

export function registerRevert(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_revert',
    {
      title: 'Propose the revert of a finished change',
      description:
        'Propose undoing a change that succeeded (a transaction id from airlock_history or an earlier answer): each file it wrote put back as it was, each command undone, last step first; a plan is reverted whole, in reverse order. ' +
        'The daemon refuses when the host changed since in what that change touched (it names what), or when the change cannot be undone (its action says why). ' +
        'The answer is a preview like airlock_propose gives, waiting for a person at the risk of the change it reverts. ' +
        ON_A_CHANGE,
      inputSchema: z.strictObject({
        transaction_id: z.string().regex(/^tx_[0-9a-f]{24}$/, 'a transaction id such as tx_0123456789abcdef01234567').describe('the change to undo'),
        reason: z.string().max(500).optional().describe('why, in a sentence, for the person (returned to you to show them; the daemon does not record it)'),
        host: hostIn,
      }),
      outputSchema: z.object({ steps: z.array(stepOut), reason: z.string().nullable() }),
      annotations: hints({ readOnly: false, destructive: false, idempotent: false }),
    },
    async ({ transaction_id, reason, host }) => {
      try {
        const { p, policy, self } = await withDaemon(deps.target, async (cl) => ({ p: (await cl.preview('RevertTransaction', { transaction_id })) as PreviewResult, policy: await cl.call('policy.show').catch(() => null), self: cl.welcome.principal }), host);
        const steps = [host ? { ...previewedStep(p, policy), host } : previewedStep(p, policy)];
        return answer({ steps, reason: reason ?? null }, proposalText(steps, new Map([[p.transaction_id, p]]), reason, self), false);
      } catch (e) {
        return failure(e);
      }
    },
  );
}
