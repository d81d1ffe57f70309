/**
 * How a preview looks to a person: at the CLI (`airlock approve`, `preview`, `run`, `show`)
 * and in the MCP server's answers, which an agent shows the person. The daemon has escaped
 * every host and agent text already; everything printed here goes through the same
 * escapeText again (defence in depth: a daemon of another version, or a bug, must not reach
 * the terminal with a control character), before any colour is added.
 */
import { escapeText } from '../protocol/escape-text.js';
import type { AutoApprovalGrant, PreviewEnvelope } from '../protocol/messages.js';
import type { Plan } from '../protocol/wire/preview.js';
import { changeLines, fileDiff, stepLine, t } from './preview-plan.js';
import { c, riskColour } from './colour.js';
import { matchCode } from '../protocol/match-code.js';

/** A multi-line block, safe to print (newlines and tabs kept). */
export const block = (s: string) => escapeText(s, 'block');
const indent = (s: string, n = 4) => s.split('\n').map((l) => ' '.repeat(n) + l).join('\n');
const json = (v: unknown) => block(typeof v === 'string' ? v : JSON.stringify(v, null, 2));
const FILE_STEPS = new Set(['fileWrite', 'filePatch', 'fileDelete']);

/**
 * A preview as a plan: one line saying what, which action, its risk and the role it needs;
 * then what changes (the action's statement of it, each file as a unified diff), side effects
 * and warnings, how (the mechanism, one line per step, never a shell), and what the approval
 * binds, and its match code. `verbose` (-v) adds the parameters, the state read from the host
 * and the change as JSON, and whole digests; --json prints the envelope itself instead.
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
  if (p.plan) {
    out.push(...planLines(p.plan, verbose));
    for (const s of p.side_effects) out.push(`  ${c.yellow('side effect')} ${t(s)}`);
    for (const w of p.warnings) out.push(`  ${c.red('warning')} ${t(w)}`);
    const interrupted = p.plan.services_interrupted.length ? t(p.plan.services_interrupted.join(', ')) : 'none';
    out.push('', `  ${c.dim(`reboot ${p.reboot_required ? c.red('required') : 'no'}, services interrupted: ${interrupted}, rollback ${p.rollback_available ? 'yes' : 'not for every step'}; one approval binds every step, plan digest ${verbose ? t(p.plan.digest) : `${t(p.plan.digest.slice(0, 12))}…`}`)}`);
    out.push(...matchLine(p));
    if (verbose) out.push(`  ${c.dim(`request hash ${t(p.request_hash)}, preview digest ${t(p.preview_digest)}`)}`);
    return out.join('\n') + '\n';
  }
  const changes = [...changeLines(pc.change), ...pc.mechanism.filter((m) => FILE_STEPS.has(m.kind)).flatMap((m) => fileDiff(m))];
  const nothing = p.no_change ? `${c.green('no change')} ${c.dim('the desired state already holds: nothing would run')}` : c.dim(pc.mechanism.every((m) => m.kind === 'fileScan') ? 'nothing: it only reads' : 'nothing beyond the steps below');
  out.push('', `  ${c.bold('what changes')}`, ...(changes.length ? changes : [`    ${nothing}`]));
  for (const s of p.side_effects) out.push(`  ${c.yellow('side effect')} ${t(s)}`);
  for (const w of p.warnings) out.push(`  ${c.red('warning')} ${t(w)}`);
  out.push('', `  ${c.bold('how')} ${c.dim('(no shell)')}`, ...pc.mechanism.map((m) => `    ${stepLine(m, verbose)}`));
  // A change that cannot be undone says so, and why, before anyone approves it.
  if (p.rollback?.class === 'none') out.push(`  ${c.red('cannot be undone')} ${t(p.rollback.reason ?? '')}`);
  const facts = `reboot ${p.reboot_required ? c.red('required') : 'no'}, rollback ${rollbackWord(p)}`;
  out.push('', `  ${c.dim(`${facts}; the approval binds mechanism digest ${verbose ? t(pc.digest) : `${t(pc.digest.slice(0, 12))}…`}`)}`);
  out.push(...matchLine(p));
  if (verbose) out.push(`  ${c.dim(`request hash ${t(p.request_hash)}, preview digest ${t(p.preview_digest)}`)}`);
  return out.join('\n') + '\n';
}

/** How the change is undone, in a word or three: exact, compensating (by its inverse), none; yes/no for a read. */
function rollbackWord(p: Pick<PreviewEnvelope, 'rollback' | 'rollback_available'>): string {
  if (!p.rollback) return p.rollback_available ? 'yes' : 'no';
  if (p.rollback.class === 'compensating') return `compensating (by ${t(p.rollback.inverse ?? '')})`;
  return p.rollback.class === 'exact' ? 'exact (the pre-state is kept: airlock revert undoes it)' : c.red('none');
}

/**
 * The match code (src/protocol/match-code.ts), the same at both ends: the requester's preview
 * (and the MCP answer an agent relays) and the approver's prompt. None for an unattended
 * proposal: nobody approves that preview; `airlock inbox run` previews it again, with a code of
 * its own. A digest not in the wire's form throws (integrity/preview_digest): no code to show.
 */
export function matchLine(p: Pick<PreviewEnvelope, 'preview_digest' | 'unattended'>): string[] {
  if (p.unattended) return [];
  return [`  match code: ${c.bold(matchCode(p.preview_digest))} ${c.dim("(the requester's preview and the approver's prompt show the same code)")}`];
}

/**
 * A plan's steps, in order, each as a preview of its own is read: what it does, its risk, what
 * changes and how; a step computed after an earlier one says so, and that its mechanism is
 * bound when it runs.
 */
function planLines(plan: Plan, verbose: boolean): string[] {
  const out: string[] = [];
  for (const s of plan.steps) {
    out.push('', `  ${c.bold(`step ${s.step}`)} ${c.bold(t(s.summary))}   ${c.dim(`${t(s.action_name)}, ${t(s.risk)} risk`)}`);
    const pc = s.proposed_change;
    // A step computed after an earlier one shows nothing else of what it will do: its parameters are always shown.
    if (verbose || pc === null) out.push(`    ${c.dim('parameters')}\n${indent(json(s.params), 6)}`);
    if (pc === null) {
      out.push(`    ${c.yellow(`computed after step ${t(s.computed_after)}`)} ${c.dim('its change and mechanism are built and bound when that step has run')}`);
      continue;
    }
    const changes = [...changeLines(pc.change, '      '), ...pc.mechanism.filter((m) => FILE_STEPS.has(m.kind)).flatMap((m) => fileDiff(m).map((l) => `  ${l}`))];
    out.push(...(changes.length ? changes : [`      ${s.no_change ? c.green('no change: the desired state already holds') : c.dim('nothing beyond the steps below')}`]));
    for (const e of s.side_effects) out.push(`    ${c.yellow('side effect')} ${t(e)}`);
    out.push(...pc.mechanism.map((m) => `    ${c.dim('how')} ${stepLine(m, verbose)}`));
  }
  return out;
}

/** Who approved a preview at once, in words: the policy's rule, or a person's session grant (escaped: names come from the host). */
export function autoApprovedBy(a: AutoApprovalGrant): string {
  return a.session_grant
    ? `approved under ${escapeText(a.approved_by)}'s session grant ${escapeText(a.session_grant.grant_id)} (identical requests until ${escapeText(a.session_grant.until)})`
    : `approved by the policy (rule ${escapeText(a.rule)})`;
}
