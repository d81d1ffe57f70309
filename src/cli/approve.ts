/**
 * Interactive approval, by a person at their own terminal, as themselves (no sudo).
 * The daemon says first whether this person may approve and with which factor, so a
 * refusal comes at once (exit 3) instead of after a question. Answers come from the
 * controlling terminal (/dev/tty), never stdin, so a pipe from an agent cannot answer;
 * the stored preview is shown after checking its digest; the code is asked first and
 * not echoed; High risk then needs the action name typed.
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { isRecorded, type ApprovalRecorded, type ApproveResult, type TransactionDetail } from '../protocol/messages.js';
import { escapeText } from '../protocol/escape-text.js';
import { previewDigestMatches } from './render.js';
import { renderPreview } from '../client/render-preview.js';
import { Terminal } from './terminal.js';
import { withClient } from './connect.js';
import { c, printJson } from './ui.js';
import { livePreview } from '../protocol/compacted.js';

/** Wrong codes the terminal lets a person retype before giving up (the daemon counts them too). */
const CODE_ATTEMPTS = 3;

/** The transaction, checked: its preview matches its digest, it waits for approval, and this caller may approve it. */
export async function approvable(cl: AirlockClient, id: string): Promise<TransactionDetail> {
  const tx = await cl.transaction(id);
  if (!previewDigestMatches(livePreview(tx))) {
    throw new AirlockError('integrity', 'preview_digest', 'the preview the daemon returned does not match its own digest; refusing to show or approve it');
  }
  if (tx.state !== 'Previewed') throw new AirlockError('stale_approval', 'not_pending', `${id} is ${tx.state}, not waiting for approval`);
  const r = tx.your_approval.refusal;
  if (!tx.your_approval.may_approve) throw r ? AirlockError.fromWire(r) : new AirlockError('authorization', 'not_an_approver', `you may not approve ${id}`);
  // A terminal cannot make a passkey assertion: say so before showing anything or asking for a code.
  if (tx.your_approval.passkey_required) {
    throw new AirlockError('authorization', 'passkey_required', `the policy accepts only a passkey for approving ${id} (${tx.risk} risk): a code typed here does not approve it`, 'approve it with your passkey through the console (docs/security.md, "Passkeys"); `airlock deny` still refuses it from here');
  }
  return tx;
}

/** `verbose` (-v): the preview with its JSON and whole digests, as `airlock preview -v` shows it. */
export async function approveInteractively(cl: AirlockClient, id: string, quietStdout: boolean, o: { verbose?: boolean } = {}): Promise<ApproveResult> {
  const tx = await approvable(cl, id);
  const term = Terminal.open();
  try {
    const show = (text: string) => (quietStdout ? term.write(text) : process.stdout.write(text));
    const p = livePreview(tx);
    show('\n' + renderPreview(p, { verbose: o.verbose === true }) + '\n');
    const count = tx.your_approval.approvals;
    if (count) show(c.cyan(`${count.have} of ${count.needed} approvals${count.by.length ? ` (${count.by.map((b) => escapeText(b)).join(', ')})` : ''}: the policy has ${count.needed} different persons approve it\n`));
    if (tx.your_approval.self_approval) show(c.yellow(`note: this was requested under your own account; your authenticator code is what shows it is you, not the agent.\n`));
    let code = tx.your_approval.second_factor ? await askCode(term) : undefined;
    if (p.risk === 'high') {
      const typed = term.ask(`${c.red('High risk.')} Type the action name (${p.action_name}) to approve, anything else to refuse: `);
      if (typed !== p.action_name) throw new AirlockError('authorization', 'not_confirmed', 'not approved: the action name was not typed');
    } else {
      const yes = term.ask(`Approve ${p.action_name} (${p.risk} risk)? [y/N] `).toLowerCase();
      if (yes !== 'y' && yes !== 'yes') throw new AirlockError('authorization', 'not_confirmed', 'not approved');
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await cl.approve(id, p.preview_digest, code);
      } catch (e) {
        // The daemon may still ask for a code (the policy changed meanwhile), or one was mistyped.
        const again = e instanceof AirlockError && (e.code === 'totp_required' || ((e.code === 'totp_invalid' || e.code === 'totp_spent') && attempt < CODE_ATTEMPTS));
        if (!again) throw e;
        if (e.code !== 'totp_required') term.write(c.yellow(`${e.message}\n`));
        code = await askCode(term);
      }
    }
  } finally {
    term.close();
  }
}

/** What a person is told when their approval counts but mints nothing yet (wire/approval.ts ApprovalRecorded). */
export const recordedLine = (r: ApprovalRecorded) =>
  `${c.green('your approval is recorded')} (${r.approvals.have} of ${r.approvals.needed}): another approver must approve ${r.transaction_id}`;

const askCode = (term: Terminal) => term.askHidden('Code from your authenticator app (not shown): ').replace(/\s+/g, '');

/** `airlock approve TRANSACTION`: the command; prints the receipt and what the requester runs with it. */
export async function approve(id: string, opts: { json: boolean; verbose?: boolean }, cmd: Command): Promise<void> {
  await withClient(cmd, async (cl) => {
    const grant = await approveInteractively(cl, id, opts.json, { verbose: Boolean(opts.verbose) });
    if (opts.json) return printJson(grant);
    if (isRecorded(grant)) return void process.stdout.write(`\n${recordedLine(grant)}\n`);
    process.stdout.write(`\n${c.green('approved')} ${grant.transaction_id} by ${grant.approved_by}; valid until ${grant.expires_at}\n`);
    process.stdout.write(`${c.dim('receipt')} ${grant.receipt}\n${c.cyan('next')}  ${grant.executor} runs: airlock execute ${grant.transaction_id} --receipt ${grant.receipt}\n`);
  });
}
