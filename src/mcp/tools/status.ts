/**
 * airlock_status and airlock_cancel: one transaction as the daemon keeps it, and
 * withdrawing one that has not run. The status never carries a receipt, even the caller's
 * own: an agent has no use for one (airlock_execute picks it up from the daemon).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TransactionDetail } from '../../protocol/messages.js';
import type { WireError } from '../../protocol/errors.js';
import { forAgent } from '../agent-hints.js';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { pickView, transactionId, transactionView, wireError, hostIn } from '../schemas.js';
import { answer, errorText, failure } from '../tool-result.js';
import { isCompactedPreview } from '../../protocol/compacted.js';

const result = z
  .object({
    state: z.string(),
    summary: z.string(),
    needs_reboot: z.boolean().optional(),
    rollback_ref: z.string().nullable().optional(),
    error: wireError.nullable().optional(),
    expired: z.enum(['preview', 'receipt']).optional(),
  })
  .nullable();

const statusOut = transactionView.extend({
  result,
  waiting_for: z.string().nullable(),
});

/** The stored outcome, reduced to the fields the schema promises (the daemon never stores command output). */
function resultOf(r: unknown): z.infer<typeof result> {
  if (r === null || typeof r !== 'object') return null;
  const o = r as Record<string, unknown>;
  return {
    state: String(o.state ?? ''),
    summary: String(o.summary ?? ''),
    ...(typeof o.needs_reboot === 'boolean' ? { needs_reboot: o.needs_reboot } : {}),
    ...(o.rollback_ref === null || typeof o.rollback_ref === 'string' ? { rollback_ref: o.rollback_ref as string | null } : {}),
    ...(o.error !== undefined ? { error: o.error ? forAgent(o.error as WireError) : null } : {}),
    ...(o.expired === 'preview' || o.expired === 'receipt' ? { expired: o.expired } : {}),
  };
}

export function statusOf(t: TransactionDetail): z.infer<typeof statusOut> {
  const waiting = t.state === 'Previewed' ? (!isCompactedPreview(t.preview) && t.preview.unattended ? `a person to run \`airlock inbox run ${t.transaction_id}\`` : `a person to approve it: \`airlock approve ${t.transaction_id}\``) : null;
  return { ...pickView(t), result: resultOf(t.result), waiting_for: waiting };
}

export function registerStatus(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_status',
    {
      title: 'Airlock transaction status',
      description: 'One transaction: its state, risk, who requested, approved or denied it (and why), when it expires, and its result once it ran. Nothing changes.',
      inputSchema: z.strictObject({ transaction_id: transactionId, host: hostIn }),
      outputSchema: statusOut,
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async ({ transaction_id, host }) => {
      try {
        const s = statusOf(await withDaemon(deps.target, (cl) => cl.transaction(transaction_id), host));
        const lines = [
          `${host ? `on ${host}: ` : ''}${s.transaction_id} (${s.action_name}, ${s.risk} risk): ${s.state}: ${s.summary}`,
          `requested by ${s.requested_by} at ${s.created_at}; ${s.approved_by ? `approved by ${s.approved_by}` : 'not approved'}${s.denied_by ? `; denied by ${s.denied_by}${s.deny_reason ? `: "${s.deny_reason}"` : ''}` : ''}; ${s.state === 'Previewed' || s.state === 'Queued' ? `expires ${s.expires_at}` : `last change ${s.updated_at}`}`,
          ...(s.waiting_for ? [`waiting for ${s.waiting_for}`] : []),
          ...(s.result ? [`result: ${s.result.state}: ${s.result.summary}${s.result.needs_reboot ? ' (needs a reboot)' : ''}${s.result.expired ? ` (the ${s.result.expired} expired)` : ''}`] : []),
          ...(s.result?.error ? [errorText(s.result.error)] : []),
        ];
        return answer(s, lines.join('\n'));
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'airlock_cancel',
    {
      title: 'Cancel an Airlock transaction',
      description: 'Withdraw a step that has not run (Previewed or Queued): it can then never run, and the signed log records the cancellation. Nothing on the host changes. Only your own transactions (or, for an admin approver, any).',
      inputSchema: z.strictObject({ transaction_id: transactionId, host: hostIn }),
      outputSchema: transactionView,
      // Not destructive: it touches no host state, only withdraws a request; a second cancel changes nothing more.
      annotations: hints({ readOnly: false, destructive: false, idempotent: true }),
    },
    async ({ transaction_id, host }) => {
      try {
        const v = pickView(await withDaemon(deps.target, (cl) => cl.call('cancel', { transaction_id }), host));
        return answer(v, `${host ? `on ${host}: ` : ''}${v.transaction_id} (${v.action_name}) is ${v.state}`);
      } catch (e) {
        return failure(e);
      }
    },
  );
}
