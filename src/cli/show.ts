/** `airlock show TRANSACTION`: its stored preview, state and approver (for a compacted one, what is left of it). */
import type { Command } from 'commander';
import { isCompactedPreview } from '../protocol/compacted.js';
import { escapeText } from '../protocol/escape-text.js';
import type { TransactionDetail } from '../protocol/messages.js';
import { withClient } from './connect.js';
import { matchLine, renderPreview } from '../client/render-preview.js';
import { c, printJson } from './ui.js';
import { withMatchCode } from './with-match-code.js';

export async function show(id: string, opts: { json?: boolean; verbose?: boolean }, cmd: Command): Promise<void> {
  await withClient(cmd, async (cl) => {
    const t = await cl.transaction(id);
    if (opts.json) return printJson({ ...t, preview: withMatchCode(t.preview) });
    const head = isCompactedPreview(t.preview) ? renderCompacted(t) : renderPreview(t.preview, { verbose: Boolean(opts.verbose) });
    const count = t.your_approval.approvals;
    // Where two persons must approve: how far it is, and whom the next approver follows.
    const pending = count ? `   ${c.dim(`${count.have} of ${count.needed} approvals`)}${count.by.length ? ` (${count.by.map((b) => escapeText(b)).join(', ')})` : ''}` : '';
    process.stdout.write(head + `  ${c.dim('state')} ${escapeText(t.state)}${pending}${t.approved_by ? `   ${c.dim('approved by')} ${escapeText(t.approved_by)}` : ''}\n`);
  });
}

/** A compacted transaction: what history keeps, and the statement, digest and match code in place of its preview. */
function renderCompacted(t: TransactionDetail): string {
  const p = t.preview as { statement: string; preview_digest: string };
  return [
    `${c.bold(escapeText(t.action_name))} ${escapeText(t.transaction_id)} (${escapeText(t.risk)} risk)`,
    `  ${escapeText(t.summary)}`,
    `  ${c.dim('requested by')} ${escapeText(t.requested_by)}   ${c.dim('created')} ${escapeText(t.created_at)}   ${c.dim('finished')} ${escapeText(t.updated_at)}`,
    `  ${c.dim('compacted')} ${escapeText(t.compacted_at ?? '')}: ${escapeText(p.statement)}`,
    `  ${c.dim('preview digest')} ${escapeText(p.preview_digest)}`,
    ...matchLine(p),
    '',
  ].join('\n');
}
