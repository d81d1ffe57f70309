/**
 * How previews, results and transactions look to a person. The daemon has escaped every
 * host and agent text already; everything printed here goes through the same escapeText
 * again (defence in depth: a daemon of another version, or a bug, must not reach the
 * terminal with a control character), before any colour is added.
 */
import { catalogueMetadata } from '../protocol/catalogue-metadata.js';
import { escapeText } from '../protocol/escape-text.js';
import type { PreviewEnvelope, ResultEnvelope, TransactionView } from '../protocol/messages.js';
import { changeLines, fileDiff, stepLine, t } from './preview-plan.js';
import { c, riskColour, stateColour, table } from './ui.js';

/** Recomputes the digest of what we are about to show, so the approver approves exactly what is on screen. */
export { previewDigestMatches } from '../protocol/hash.js';

/** A multi-line block, safe to print (newlines and tabs kept). */
const block = (s: string) => escapeText(s, 'block');
const indent = (s: string, n = 4) => s.split('\n').map((l) => ' '.repeat(n) + l).join('\n');
const json = (v: unknown) => block(typeof v === 'string' ? v : JSON.stringify(v, null, 2));
const FILE_STEPS = new Set(['fileWrite', 'filePatch', 'fileDelete']);

/**
 * A preview as a plan: one line saying what, which action, its risk and the role it needs;
 * then what changes (the action's statement of it, each file as a unified diff), side effects
 * and warnings, how (the mechanism, one line per step, never a shell), and what the approval
 * binds. `verbose` (-v) adds the parameters, the state read from the host and the change as
 * JSON, and whole digests; --json prints the envelope itself instead.
 */
export function renderPreview(p: PreviewEnvelope, o: { verbose?: boolean } = {}): string {
  const verbose = o.verbose === true;
  const pc = p.proposed_change;
  const out: string[] = [];
  out.push(`${c.bold(t(p.summary))}`);
  out.push(`  ${t(p.action_name)}, ${riskColour(t(p.risk))} risk, needs ${t(p.min_role)}   ${c.dim(`${t(p.transaction_id)}, requested by ${t(p.requested_by)}, expires ${t(p.expires_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'))}`)}`);
  if (verbose) {
    out.push(`  ${c.dim('parameters')}\n${indent(json(p.params))}`);
    if (p.current_state !== null) out.push(`  ${c.dim('current state (read from the host now)')}\n${indent(json(p.current_state))}`);
    if (pc.change !== null) out.push(`  ${c.dim('proposed change')}\n${indent(json(pc.change))}`);
  }
  const changes = [...changeLines(pc.change), ...pc.mechanism.filter((m) => FILE_STEPS.has(m.kind)).flatMap((m) => fileDiff(m))];
  const nothing = p.no_change ? `${c.green('no change')} ${c.dim('the desired state already holds: nothing would run')}` : c.dim(pc.mechanism.every((m) => m.kind === 'fileScan') ? 'nothing: it only reads' : 'nothing beyond the steps below');
  out.push('', `  ${c.bold('what changes')}`, ...(changes.length ? changes : [`    ${nothing}`]));
  for (const s of p.side_effects) out.push(`  ${c.yellow('side effect')} ${t(s)}`);
  for (const w of p.warnings) out.push(`  ${c.red('warning')} ${t(w)}`);
  out.push('', `  ${c.bold('how')} ${c.dim('(no shell)')}`, ...pc.mechanism.map((m) => `    ${stepLine(m, verbose)}`));
  const facts = `reboot ${p.reboot_required ? c.red('required') : 'no'}, rollback ${p.rollback_available ? 'yes' : 'no'}`;
  out.push('', `  ${c.dim(`${facts}; the approval binds mechanism digest ${verbose ? t(pc.digest) : `${t(pc.digest.slice(0, 12))}…`}`)}`);
  if (verbose) out.push(`  ${c.dim(`request hash ${t(p.request_hash)}, preview digest ${t(p.preview_digest)}`)}`);
  return out.join('\n') + '\n';
}

/** A line of output as the daemon sent it (escaped again), indented under the result. */
export const outputLine = (l: string) => '  ' + block(l);

/**
 * Why the policy did not approve a preview, one line per note ("policy: rule `restart-web`
 * does not approve this: cooldown, ..."), or "" when it says nothing. Printed after the
 * preview by preview, run and --wait: kept apart from renderPreview on purpose.
 */
export function renderPolicyNotes(notes: readonly string[] | undefined): string {
  if (!notes?.length) return '';
  return '\n' + notes.map((n) => `${c.yellow('note')}  ${t(n)}\n`).join('');
}

/** A change that found its desired state in place: "ok (no change)", as ansible says ok. A read changes nothing either, but is shown as it ran. */
const noChange = (r: ResultEnvelope) => r.changed === false && r.state === 'Succeeded' && catalogueMetadata().actions.find((a) => a.name === r.action_name)?.read_only === false;

/** `outputShown`: the output was printed already as it streamed, so only the rest of the result. */
export function renderResult(r: ResultEnvelope, o: { outputShown?: boolean } = {}): string {
  const head = noChange(r) ? c.green('ok (no change)') : stateColour(t(r.state));
  const out = [`${head} ${t(r.summary)}  ${c.dim(t(r.transaction_id))}`];
  if (r.needs_reboot) out.push(c.yellow('  the host needs a reboot for this to take effect'));
  if (r.rollback_ref) out.push(c.yellow(`  changes were rolled back (ref ${t(r.rollback_ref)})`));
  if (r.output.length && !o.outputShown) out.push(c.dim('  output:'), ...r.output.map(outputLine));
  if (r.output_truncated) out.push(c.dim('  (output truncated)'));
  return out.join('\n') + '\n';
}

/** The longest "what" a history row shows; the whole summary is in `airlock show ID` and --json. */
const WHAT_WIDTH = 60;
const short = (s: string) => (s.length > WHAT_WIDTH ? s.slice(0, WHAT_WIDTH - 1) + '…' : s);

/** One row per transaction; "what" is its summary (what changed: "Restart nginx.service", "Authorize ssh-ed25519 key SHA256:…"). */
export function renderHistory(rows: TransactionView[]): string {
  if (rows.length === 0) return c.dim('no transactions match\n');
  return table(
    rows.map((r) => [t(r.created_at.replace('T', ' ').slice(0, 19)), t(r.transaction_id), t(r.action_name), riskColour(t(r.risk)), stateColour(t(r.state)), t(r.requested_by), t(r.approved_by ?? '-'), short(t(r.summary)) + (r.compacted_at ? c.dim(' (compacted)') : '')]),
    ['created (UTC)', 'transaction', 'action', 'risk', 'state', 'requested by', 'approved by', 'what'],
  );
}
