/** How previews, results and transactions look to a person. */
import { canonicalize } from '../protocol/canonical.js';
import { sha256Hex } from '../protocol/hash.js';
import type { PreviewEnvelope, ResultEnvelope, TransactionView } from '../protocol/messages.js';
import { c, riskColour, stateColour, table } from './ui.js';

/** Recomputes the digest of what we are about to show, so the approver approves exactly what is on screen. */
export function previewDigestMatches(p: PreviewEnvelope): boolean {
  const { preview_digest, ...body } = p;
  return sha256Hex(canonicalize(body)) === preview_digest;
}

const indent = (s: string, n = 4) => s.split('\n').map((l) => ' '.repeat(n) + l).join('\n');
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

export function renderPreview(p: PreviewEnvelope): string {
  const out: string[] = [];
  out.push(`${c.bold(p.summary)}`);
  out.push(`  ${c.dim('transaction')} ${p.transaction_id}   ${c.dim('action')} ${p.action_name}   ${c.dim('risk')} ${riskColour(p.risk)} ${c.dim(`(needs ${p.min_role})`)}`);
  out.push(`  ${c.dim('requested by')} ${p.requested_by}   ${c.dim('expires')} ${p.expires_at}`);
  out.push(`  ${c.dim('parameters')}\n${indent(show(p.params))}`);
  if (p.current_state !== null) out.push(`  ${c.dim('current state (read from the host now)')}\n${indent(show(p.current_state))}`);
  const pc = p.proposed_change as { change: unknown; mechanism: unknown[] };
  if (pc.change !== null) out.push(`  ${c.dim('proposed change')}\n${indent(show(pc.change))}`);
  out.push(`  ${c.dim('mechanism (no shell)')}\n${indent(pc.mechanism.map((m) => show(m).replace(/\s*\n\s*/g, ' ')).join('\n'))}`);
  for (const s of p.side_effects) out.push(`  ${c.yellow('side effect')} ${s}`);
  for (const w of p.warnings) out.push(`  ${c.red('warning')} ${w}`);
  out.push(`  ${c.dim('reboot required')} ${p.reboot_required ? c.red('yes') : 'no'}   ${c.dim('rollback available')} ${p.rollback_available ? 'yes' : 'no'}`);
  out.push(`  ${c.dim('request hash')} ${p.request_hash}`);
  return out.join('\n') + '\n';
}

export function renderResult(r: ResultEnvelope): string {
  const out = [`${stateColour(r.state)} ${r.summary}  ${c.dim(r.transaction_id)}`];
  if (r.needs_reboot) out.push(c.yellow('  the host needs a reboot for this to take effect'));
  if (r.rollback_ref) out.push(c.yellow(`  changes were rolled back (ref ${r.rollback_ref})`));
  if (r.output.length) out.push(c.dim('  output:'), ...r.output.map((l) => '  ' + l));
  if (r.output_truncated) out.push(c.dim('  (output truncated)'));
  return out.join('\n') + '\n';
}

export function renderHistory(rows: TransactionView[]): string {
  if (rows.length === 0) return c.dim('no transactions match\n');
  return table(
    rows.map((t) => [t.created_at.replace('T', ' ').slice(0, 19), t.transaction_id, t.action_name, riskColour(t.risk), stateColour(t.state), t.requested_by, t.approved_by ?? '-']),
    ['created (UTC)', 'transaction', 'action', 'risk', 'state', 'requested by', 'approved by'],
  );
}
