/**
 * How previews, results and transactions look to a person. The daemon has escaped every
 * host and agent text already; everything printed here goes through the same escapeText
 * again (defence in depth: a daemon of another version, or a bug, must not reach the
 * terminal with a control character), before any colour is added.
 */
import { catalogueMetadata } from '../protocol/catalogue-metadata.js';
import { escapeText } from '../protocol/escape-text.js';
import type { CommandEntry, MechanismEntry, PreviewEnvelope, ResultEnvelope, ShownDiff, TransactionView } from '../protocol/messages.js';
import { c, riskColour, stateColour, table } from './ui.js';

/** Recomputes the digest of what we are about to show, so the approver approves exactly what is on screen. */
export { previewDigestMatches } from '../protocol/hash.js';

/** One line of text, safe to print. */
const t = (s: unknown) => escapeText(String(s));
/** A multi-line block, safe to print (newlines and tabs kept). */
const block = (s: string) => escapeText(s, 'block');
const indent = (s: string, n = 4) => s.split('\n').map((l) => ' '.repeat(n) + l).join('\n');
const show = (v: unknown) => block(typeof v === 'string' ? v : JSON.stringify(v, null, 2));

export function renderPreview(p: PreviewEnvelope): string {
  const out: string[] = [];
  out.push(`${c.bold(t(p.summary))}`);
  out.push(`  ${c.dim('transaction')} ${t(p.transaction_id)}   ${c.dim('action')} ${t(p.action_name)}   ${c.dim('risk')} ${riskColour(t(p.risk))} ${c.dim(`(needs ${t(p.min_role)})`)}`);
  out.push(`  ${c.dim('requested by')} ${t(p.requested_by)}   ${c.dim('expires')} ${t(p.expires_at)}`);
  out.push(`  ${c.dim('parameters')}\n${indent(show(p.params))}`);
  if (p.current_state !== null) out.push(`  ${c.dim('current state (read from the host now)')}\n${indent(show(p.current_state))}`);
  const pc = p.proposed_change;
  if (pc.change !== null) out.push(`  ${c.dim('proposed change')}\n${indent(show(pc.change))}`);
  if (p.no_change) out.push(`  ${c.green('no change')} ${c.dim('the desired state already holds: nothing would run')}`);
  else out.push(`  ${c.dim('mechanism (no shell)')}\n${pc.mechanism.map((m) => indent(renderStep(m))).join('\n')}`);
  out.push(`  ${c.dim('mechanism digest')} ${t(pc.digest)}`);
  for (const s of p.side_effects) out.push(`  ${c.yellow('side effect')} ${t(s)}`);
  for (const w of p.warnings) out.push(`  ${c.red('warning')} ${t(w)}`);
  out.push(`  ${c.dim('reboot required')} ${p.reboot_required ? c.red('yes') : 'no'}   ${c.dim('rollback available')} ${p.rollback_available ? 'yes' : 'no'}`);
  out.push(`  ${c.dim('request hash')} ${t(p.request_hash)}`);
  return out.join('\n') + '\n';
}

/** A command as a person reads argv: words, with the quoting only where a word needs it. */
const word = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : JSON.stringify(s));
function commandLine(m: CommandEntry): string {
  const extras = [
    m.env ? `env ${Object.entries(m.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : '',
    m.ok_codes ? `ok exit ${m.ok_codes.join(',')}` : '',
    m.timeout_ms !== undefined ? `limit ${Math.round(m.timeout_ms / 1000)}s` : '',
    m.resource ? `needs ${m.resource}` : '',
    m.unprivileged ? 'as nobody' : '',
    m.paths?.length ? `paths checked ${m.paths.join(' ')}` : '',
    m.file ? `fd 3 = ${m.file.path}${m.file.create ? ` (new, ${m.file.create.mode})` : ''}` : '',
    m.expect ? `${m.expect.path} must still be that file` : '',
    m.verdict ? `passes only with "${m.verdict.success}"` : '',
  ].filter(Boolean);
  return t([m.program, ...m.args].map(word).join(' ')) + (extras.length ? c.dim(`  (${t(extras.join('; '))})`) : '');
}

/** A mechanism step like `ansible --check --diff`: what it does, its digest, then its lines. */
function renderStep(m: MechanismEntry): string {
  switch (m.kind) {
    case 'command':
      return `${c.cyan('run')} ${commandLine(m)}${m.undo ? `\n  ${c.dim('undo')} ${commandLine(m.undo)}` : ''}`;
    case 'fileScan':
      return `${c.cyan('read')} ${t(m.path)}`;
    case 'fileDelete':
      return `${c.cyan('delete')} ${t(m.path)}${m.before ? c.dim(`  (${m.before.bytes} bytes, sha256 ${t(m.before.sha256)})`) : c.dim('  (absent now)')}`;
    case 'filePatch':
      return `${c.cyan('patch')} ${t(m.path)}${c.dim(`  (replaces the text below exactly once; sha256 ${t(m.sha256)})`)}\n${renderDiff(m.diff)}`;
    case 'fileWrite': {
      const attrs = `new-file mode ${t(m.mode)}${m.owner ? ` owner ${m.owner.uid}:${m.owner.gid}` : ''}${m.parent ? `, creates its directory (mode ${t(m.parent.mode)}${m.parent.owner ? ` owner ${m.parent.owner.uid}:${m.parent.owner.gid}` : ''})` : ''}`;
      if (m.binds === 'own_lines') {
        return `${c.cyan('edit')} ${t(m.path)}${c.dim(`  (keeps the lines other programs change meanwhile; approved are these lines: sha256 ${t(m.sha256)}; ${attrs})`)}\n${renderDiff(m.diff)}`;
      }
      const was = m.before ? `replaces ${m.before.bytes} bytes (sha256 ${t(m.before.sha256)})` : 'creates it';
      const diff = m.diff ? renderDiff(m.diff) : `  ${c.dim('(too different from the current file to show line by line)')}`;
      return `${c.cyan('write')} ${t(m.path)}${c.dim(`  (${m.bytes} bytes, sha256 ${t(m.sha256)}; ${was}; ${attrs})`)}\n${diff}`;
    }
    default: // a step this client does not know: shown whole rather than not at all
      return t(JSON.stringify(m));
  }
}

/** A line of a file: tabs kept as they are, everything else escaped, and never a line break. */
const fileLine = (s: string) => block(s).replace(/\n/g, '\\x0a');

function renderDiff(d: ShownDiff): string {
  const lines = [...d.removed.map((l) => c.red(`- ${fileLine(l)}`)), ...d.added.map((l) => c.green(`+ ${fileLine(l)}`))];
  if (d.not_shown > 0) lines.push(c.dim(`… ${d.not_shown} more lines, covered by the digest`));
  if (lines.length === 0) lines.push(c.dim('(no line changes)'));
  return lines.map((l) => `  ${l}`).join('\n');
}

/** A change that found its desired state in place: "ok (no change)", as ansible says ok. A read changes nothing either, but is shown as it ran. */
const noChange = (r: ResultEnvelope) => r.changed === false && r.state === 'Succeeded' && catalogueMetadata().actions.find((a) => a.name === r.action_name)?.read_only === false;

export function renderResult(r: ResultEnvelope): string {
  const head = noChange(r) ? c.green('ok (no change)') : stateColour(t(r.state));
  const out = [`${head} ${t(r.summary)}  ${c.dim(t(r.transaction_id))}`];
  if (r.needs_reboot) out.push(c.yellow('  the host needs a reboot for this to take effect'));
  if (r.rollback_ref) out.push(c.yellow(`  changes were rolled back (ref ${t(r.rollback_ref)})`));
  if (r.output.length) out.push(c.dim('  output:'), ...r.output.map((l) => '  ' + block(l)));
  if (r.output_truncated) out.push(c.dim('  (output truncated)'));
  return out.join('\n') + '\n';
}

export function renderHistory(rows: TransactionView[]): string {
  if (rows.length === 0) return c.dim('no transactions match\n');
  return table(
    rows.map((r) => [t(r.created_at.replace('T', ' ').slice(0, 19)), t(r.transaction_id), t(r.action_name), riskColour(t(r.risk)), stateColour(t(r.state)), t(r.requested_by), t(r.approved_by ?? '-')]),
    ['created (UTC)', 'transaction', 'action', 'risk', 'state', 'requested by', 'approved by'],
  );
}
