/**
 * How results and transactions look to a person (a preview: src/client/render-preview.ts,
 * which the MCP server shows the agent too). The daemon has escaped every
 * host and agent text already; everything printed here goes through the same escapeText
 * again (defence in depth: a daemon of another version, or a bug, must not reach the
 * terminal with a control character), before any colour is added.
 */
import { catalogueMetadata } from '../protocol/catalogue-metadata.js';
import type { ResultEnvelope, SessionGrantView, TransactionView } from '../protocol/messages.js';
import { t } from '../client/preview-plan.js';
import { block } from '../client/render-preview.js';
import { c, riskColour, stateColour, table } from './ui.js';

/** Recomputes the digest of what we are about to show, so the approver approves exactly what is on screen. */
export { previewDigestMatches } from '../protocol/hash.js';


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

/** A plan, or an action whose rollback is exact or compensating (a revert of a revert is the change again: no hint). */
const revertible = (name: string) => name === 'Plan' || ['exact', 'compensating'].includes(catalogueMetadata().actions.find((a) => a.name === name && a.name !== 'RevertTransaction')?.rollback?.class ?? 'none');

/** `outputShown`: the output was printed already as it streamed, so only the rest of the result. */
export function renderResult(r: ResultEnvelope, o: { outputShown?: boolean } = {}): string {
  const head = noChange(r) ? c.green('ok (no change)') : stateColour(t(r.state));
  const out = [`${head} ${t(r.summary)}  ${c.dim(t(r.transaction_id))}`];
  if (r.needs_reboot) out.push(c.yellow('  the host needs a reboot for this to take effect'));
  // A plan: each step's fate, in order (what ran, what was rolled back, what never ran).
  for (const s of r.plan_steps ?? []) out.push(`  step ${s.step} ${t(s.action_name)}: ${s.state === 'succeeded' ? c.green(s.state) : s.state === 'no_change' ? s.state : c.yellow(t(s.state))}`);
  if (r.rollback_ref) out.push(c.yellow(`  changes were rolled back (ref ${t(r.rollback_ref)})`));
  // The state the change touched, read again after its rollback or a revert: as it must be, or what is not.
  const sc = r.state_check;
  if (sc) {
    const against = sc.expected === 'before' ? 'as before the change' : 'as before the change it reverts';
    out.push(sc.matches ? c.green(`  verified: the ${sc.probes.length} things it touched read ${against}`) : c.red(`  NOT as before: ${t(sc.differs.join(', '))} read otherwise than ${against}`));
  }
  if (r.state === 'Succeeded' && r.changed && revertible(r.action_name)) out.push(c.dim(`  to undo it: airlock revert ${t(r.transaction_id)}`));
  if (r.output.length && !o.outputShown) out.push(c.dim('  output:'), ...r.output.map(outputLine));
  if (r.output_truncated) out.push(c.dim('  (output truncated)'));
  return out.join('\n') + '\n';
}

/** The longest "what" a history row shows; the whole summary is in `airlock show ID` and --json. */
const WHAT_WIDTH = 60;
const short = (s: string) => (s.length > WHAT_WIDTH ? s.slice(0, WHAT_WIDTH - 1) + '…' : s);

/** One row per session grant in force: whose requests, which request (its parameters as the preview showed them), until when, used how often. */
export function renderSessionGrants(grants: SessionGrantView[]): string {
  return table(
    grants.map((g) => [t(g.grant_id), t(g.approver), t(g.requester), t(g.action_name), riskColour(t(g.risk)), short(t(JSON.stringify(g.params))), t(g.until.replace('T', ' ').slice(0, 19)), String(g.uses)]),
    ['grant', 'granted by', 'for requests of', 'action', 'risk', 'parameters', 'until (UTC)', 'uses'],
  );
}

/** One row per transaction; "what" is its summary (what changed: "Restart nginx.service", "Authorize ssh-ed25519 key SHA256:…"). */
export function renderHistory(rows: TransactionView[]): string {
  if (rows.length === 0) return c.dim('no transactions match\n');
  return table(
    rows.map((r) => [t(r.created_at.replace('T', ' ').slice(0, 19)), t(r.transaction_id), t(r.action_name), riskColour(t(r.risk)), stateColour(t(r.state)), t(r.requested_by), t(r.approved_by ?? '-'), short(t(r.summary)) + (r.compacted_at ? c.dim(' (compacted)') : '')]),
    ['created (UTC)', 'transaction', 'action', 'risk', 'state', 'requested by', 'approved by', 'what'],
  );
}
