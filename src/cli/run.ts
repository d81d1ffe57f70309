/**
 * `airlock run`: the whole flow for a person at their own terminal, without sudo:
 * preview; approval (by the policy, by this person with their factor where the rules
 * allow it, or by another approver while this waits); execute as the requester.
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { isRecorded, type PreviewResult, type ResultEnvelope } from '../protocol/messages.js';
import { approveInteractively, recordedLine } from './approve.js';
import { awaitApproval } from './wait.js';
import { renderPolicyNotes } from './render.js';
import { autoApprovedBy, renderPreview } from '../client/render-preview.js';
import { executeShown, exitFor, status } from './executing.js';
import { escapeText } from '../protocol/escape-text.js';
import { withClient } from './connect.js';
import { buildParams } from './params-arg.js';
import { c, printJson } from './ui.js';
import { withMatchCode } from './with-match-code.js';

export async function runFlow(cl: AirlockClient, action: string, params: Record<string, unknown>, o: { json: boolean; proposal?: string; verbose?: boolean }): Promise<ResultEnvelope> {
  status(o.json, `previewing ${escapeText(action)}...`);
  const p = await cl.preview(action, params, o.proposal);
  const r = await approveAndExecute(cl, p, o);
  if (o.json) printJson({ preview: withMatchCode(p), result: r });
  return r;
}

/**
 * The flow from a fresh preview on: its approval, by the policy, by this person with their
 * factor, or by another approver while this waits; then execute, its output streamed and
 * its result printed (stdout). Also `airlock do`'s, for a plan as one or each step alone.
 */
export async function approveAndExecute(cl: AirlockClient, p: PreviewResult, o: { json: boolean; verbose?: boolean; shown?: boolean }): Promise<ResultEnvelope> {
  const tx = p.auto_approval || p.unattended ? null : await cl.transaction(p.transaction_id);
  // Printed once: where this person approves it themselves, the approval shows it (after checking its digest); `shown`: the caller showed it.
  if (!tx?.your_approval.may_approve && !o.shown) process.stderr.write(renderPreview(p, { verbose: o.verbose === true }) + renderPolicyNotes(p.policy_notes));
  let receipt: string;
  if (p.auto_approval) {
    receipt = p.auto_approval.receipt;
    process.stderr.write(c.green(`\n${autoApprovedBy(p.auto_approval)}\n`));
  } else if (p.unattended || !tx) {
    throw new AirlockError('authorization', 'unattended_proposal', `you are unattended in the policy, so ${p.transaction_id} waits in the inbox and is never approved as it stands`, `a person runs \`airlock inbox run ${p.transaction_id}\``);
  } else if (tx.your_approval.may_approve) {
    const grant = await approveInteractively(cl, p.transaction_id, true, { verbose: o.verbose === true });
    if (isRecorded(grant)) {
      // The policy has another person approve it too: this person's approval counts, and the receipt comes with the other's.
      process.stderr.write(`\n${recordedLine(grant)}\n  they run: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
      receipt = await waitForReceipt(cl, p.transaction_id, p.expires_at, o.json);
    } else receipt = grant.receipt;
  } else {
    const why = tx.your_approval.refusal?.message ?? 'you may not approve it';
    process.stderr.write(c.cyan(`\nwaiting for another approver (${escapeText(why)}).\n`) + `  they run: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
    receipt = await waitForReceipt(cl, p.transaction_id, p.expires_at, o.json);
  }
  return executeShown(cl, p, receipt, o.json);
}

/** Waits until an approver approves (the daemon hands the requester the receipt), or it is denied, canceled or expires (a typed error). */
async function waitForReceipt(cl: AirlockClient, id: string, expiresAt: string, json: boolean): Promise<string> {
  const ok = await awaitApproval(cl, id, { quiet: json, expiresAt });
  process.stderr.write(c.green(`approved by ${escapeText(ok.approved_by)}\n`));
  return ok.receipt;
}

/** `airlock run ACTION`: the command. */
export async function run(name: string, opts: { param: string[]; params?: string; json?: boolean; verbose?: boolean }, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => exitFor(await runFlow(cl, name, buildParams(opts.param, opts.params), { json: Boolean(opts.json), verbose: Boolean(opts.verbose) })));
}
