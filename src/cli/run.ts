/**
 * `airlock run`: the whole flow for a person at their own terminal, without sudo:
 * preview; approval (by the policy, by this person with their factor where the rules
 * allow it, or by another approver while this waits); execute as the requester.
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { ApprovalGrant, PreviewResult, ResultEnvelope } from '../protocol/messages.js';
import { approveInteractively } from './approve.js';
import { awaitApproval } from './wait.js';
import { renderPolicyNotes, renderPreview, renderResult } from './render.js';
import { withClient } from './connect.js';
import { buildParams } from './params-arg.js';
import { c, EXIT, printJson } from './ui.js';

export async function runFlow(cl: AirlockClient, action: string, params: Record<string, unknown>, o: { json: boolean; proposal?: string }): Promise<ResultEnvelope> {
  const p = await cl.preview(action, params, o.proposal);
  const r = await approveAndExecute(cl, p, o);
  if (o.json) printJson({ preview: p, result: r });
  else process.stdout.write(renderResult(r));
  return r;
}

/**
 * The flow from a fresh preview on (shown on stderr): its approval, by the policy, by this
 * person with their factor, or by another approver while this waits; then execute. Also
 * `airlock do`'s, for each step of a plan.
 */
export async function approveAndExecute(cl: AirlockClient, p: PreviewResult, o: { json: boolean }): Promise<ResultEnvelope> {
  process.stderr.write(renderPreview(p) + renderPolicyNotes(p.policy_notes));
  let receipt: string;
  if (p.auto_approval) {
    receipt = p.auto_approval.receipt;
    process.stderr.write(c.green(`\napproved by the policy (rule ${p.auto_approval.rule})\n`));
  } else if (p.unattended) {
    throw new AirlockError('authorization', 'unattended_proposal', `you are unattended in the policy, so ${p.transaction_id} waits in the inbox and is never approved as it stands`, `a person runs \`airlock inbox run ${p.transaction_id}\``);
  } else {
    const tx = await cl.transaction(p.transaction_id);
    if (tx.your_approval.may_approve) {
      const grant: ApprovalGrant = await approveInteractively(cl, p.transaction_id, true);
      receipt = grant.receipt;
    } else {
      const why = tx.your_approval.refusal?.message ?? 'you may not approve it';
      process.stderr.write(c.cyan(`\nwaiting for another approver (${why}).\n`) + `  they run: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
      receipt = await waitForReceipt(cl, p.transaction_id, p.expires_at, o.json);
    }
  }
  return cl.execute(p.transaction_id, p.action_name, p.params, receipt);
}

/** Waits until an approver approves (the daemon hands the requester the receipt), or it is denied, canceled or expires (a typed error). */
async function waitForReceipt(cl: AirlockClient, id: string, expiresAt: string, json: boolean): Promise<string> {
  const ok = await awaitApproval(cl, id, { quiet: json, expiresAt });
  process.stderr.write(c.green(`approved by ${ok.approved_by}\n`));
  return ok.receipt;
}

/** `airlock run ACTION`: the command. */
export async function run(name: string, opts: { param: string[]; params?: string; json?: boolean }, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => {
    const r = await runFlow(cl, name, buildParams(opts.param, opts.params), { json: Boolean(opts.json) });
    return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
  });
}
