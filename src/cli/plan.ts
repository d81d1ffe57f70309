/**
 * `airlock plan "INTENT"` and `airlock do "INTENT"`: a sentence turned into catalogue steps
 * by a planner (an LLM when one is configured, else the offline one), each step previewed
 * by the daemon (src/planner/door.ts). Two or more changes are previewed as ONE plan (one
 * transaction, one approval, executed as one: src/client/proposal.ts); else each step alone.
 * `plan` shows the plan and leaves it waiting; `do` shows it (a plan whole: each step's
 * change, the steps computed after another, the aggregated effects), asks once, then runs it
 * as `airlock run` does (approval by the policy, by you with your code, or by another
 * approver while it waits): a plan as one, else each step in turn, stopping at the first
 * step that fails, is refused or denied, and canceling the steps it did not reach.
 */
import type { Command } from 'commander';
import { AirlockClient } from '../client/client.js';
import { eachHost } from '../client/fleet.js';
import { propose, type Proposal } from '../client/proposal.js';
import { checkHostName } from '../protocol/relay.js';
import { maskText } from '../mask/mask.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { PreviewResult, ResultEnvelope } from '../protocol/messages.js';
import { matchCode } from '../protocol/match-code.js';
import { plannerFor } from '../planner/choose.js';
import { DEFAULT_LIMITS, type Planner } from '../planner/contract.js';
import { checkIntent, planIntent, type Planned, type PlanView, type StepPreview } from '../planner/door.js';
import { renderPreview } from '../client/render-preview.js';
import { withClient } from './connect.js';
import { approveAndExecute } from './run.js';
import { Terminal } from './terminal.js';
import { c, EXIT, printJson, riskColour } from './ui.js';

export interface PlanOptions {
  json?: boolean;
  /** Comma-separated host names: planned once (on the first), previewed on each through the relay. */
  hosts?: string;
  provider?: string;
  model?: string;
  yes?: boolean;
}

/** `airlock plan INTENT`: the command. */
export async function plan(intent: string, opts: PlanOptions, cmd: Command): Promise<number> {
  checkIntent(intent, DEFAULT_LIMITS); // before the daemon is reached too: a secret goes nowhere
  const planner = plannerFor(opts);
  if (opts.hosts !== undefined) return planFleet(opts.hosts.split(',').map((h) => checkHostName(h.trim())), planner, intent, opts);
  return withClient(cmd, (cl) => planFlow(cl, planner, intent, opts));
}

/**
 * `airlock plan INTENT --hosts a,b,c`: the planner plans once, against the first host (its
 * catalogue, its reads); the same steps are then proposed on every other host, each previewing
 * them against its own state as its own transaction (src/client/fleet.ts). Each host's answer is
 * its own: one that is unreachable or refuses does not stop the others.
 */
async function planFleet(hosts: string[], planner: Planner, intent: string, o: PlanOptions): Promise<number> {
  if (hosts.length === 0 || new Set(hosts).size !== hosts.length) throw new AirlockError('validation', 'bad_hosts', '--hosts names each host once: --hosts web1,web2');
  const connect = (host: string) => AirlockClient.connect(undefined, { client: 'airlock-cli/0.1', host });
  const first = await connect(hosts[0]!);
  let planned: Planned;
  try {
    planned = await planIntent(intent, { client: first, planner });
  } finally {
    first.close();
  }
  const { view } = planned;
  const others = view.verdict === 'plan' && view.proposal.length ? await eachHost(hosts.slice(1), async (h) => {
    const cl = await connect(h);
    try {
      return await propose(cl, view.proposal);
    } finally {
      cl.close();
    }
  }) : [];
  if (o.json) {
    printJson({ plan: { host: hosts[0], ...view }, hosts: others.map((a) => (a.ok ? { host: a.host, ok: true, proposal: a.value } : { host: a.host, ok: false, error: a.error })) });
  } else {
    process.stdout.write(`${c.bold(`=== ${hosts[0]} (planned here) ===`)}\n${renderPlan(view, planned.previews)}`);
    for (const a of others) process.stdout.write(`\n${c.bold(`=== ${a.host} ===`)}\n${a.ok ? proposalLines(a.value) : `${c.red('not proposed')}: ${escapeText(a.error.message, 'line')}\n`}`);
    process.stdout.write(renderNext(view));
  }
  const failed = others.some((a) => !a.ok || (a.value.kind === 'plan' ? !a.value.result.ok : a.value.results.some((r) => !r.ok)));
  return failed ? EXIT.failed : exitOf(view);
}

/** One host's previews of the planned steps, a line each: transaction, risk and summary, or the refusal. */
function proposalLines(p: Proposal): string {
  const results = p.kind === 'plan' ? [p.result] : p.results;
  return results
    .map((r) => (r.ok ? `  ${r.preview.transaction_id}  ${riskColour(r.preview.risk)}  ${escapeText(r.preview.summary, 'line')}  match code ${matchCode(r.preview.preview_digest)}\n` : `  ${c.red('refused')}: ${escapeText(r.error.message, 'line')}\n`))
    .join('');
}

/** `airlock do INTENT`: the command. */
export async function doIntent(intent: string, opts: PlanOptions, cmd: Command): Promise<number> {
  checkIntent(intent, DEFAULT_LIMITS);
  const planner = plannerFor(opts);
  return withClient(cmd, (cl) => doFlow(cl, planner, intent, opts));
}

/** Plans and shows the plan; 0 when the daemon previewed every step of a complete plan, 11 when a part of the request has no step, 1 when there is no plan to run as it stands. */
export async function planFlow(cl: AirlockClient, planner: Planner, intent: string, o: PlanOptions): Promise<number> {
  const { view, previews } = await planIntent(intent, { client: cl, planner });
  if (o.json) printJson(view);
  else process.stdout.write(renderPlan(view, previews) + renderNext(view));
  return exitOf(view);
}

/** An incomplete plan first: it is not the request, whatever the daemon made of its steps. */
const exitOf = (v: PlanView) => (incomplete(v) ? EXIT.incomplete : runnable(v) ? EXIT.ok : EXIT.failed);

/** The planner planned steps but a part of the request has none. */
const incomplete = (v: PlanView) => v.verdict === 'plan' && v.steps.length > 0 && v.missing.length > 0;

/** Plans, asks once, runs every step in order; the exit code of the first step that did not succeed. */
export async function doFlow(cl: AirlockClient, planner: Planner, intent: string, o: PlanOptions): Promise<number> {
  const planned = await planIntent(intent, { client: cl, planner });
  const { view } = planned;
  // A plan's steps share its one transaction.
  const ids = [...new Set(view.steps.flatMap((s) => (s.ok ? [s.preview.transaction_id] : [])))];
  const done = (results: ResultEnvelope[], stopped: { step: number; error: WireError } | null, code: number) => {
    if (o.json) printJson({ plan: view, results, stopped });
    return code;
  };
  process.stderr.write(renderPlan(view, planned.previews));
  if (incomplete(view)) {
    await cancelAll(cl, ids);
    process.stderr.write(c.red('\nnothing ran: the plan is incomplete') + ' (a part of the request has no step; the previewed steps were canceled). Say the missing part differently, or run it as its own step: airlock run ACTION --param k=v\n');
    return done([], null, EXIT.incomplete);
  }
  if (!runnable(view)) {
    await cancelAll(cl, ids);
    process.stderr.write(c.red('\nnothing ran: ') + (view.verdict === 'refusal' || view.steps.length === 0 ? 'there is no plan to run.\n' : 'the daemon refused a step, so no step runs (the others were canceled).\n'));
    return done([], null, EXIT.failed);
  }
  if (view.plan?.ok) return done(...(await runPlan(cl, planned, o)));
  if (!o.yes) await confirm(`Run these ${ids.length} step${ids.length === 1 ? '' : 's'}?`, ids, cl);
  const results: ResultEnvelope[] = [];
  for (const [i, id] of ids.entries()) {
    process.stderr.write(c.bold(`\nstep ${i + 1} of ${ids.length}\n`));
    let r: ResultEnvelope;
    try {
      r = await approveAndExecute(cl, planned.previews.get(id)!, { json: Boolean(o.json) });
    } catch (e) {
      const err = AirlockError.of(e);
      await cancelAll(cl, ids.slice(i));
      process.stderr.write(stopLine(i, ids.length, `[${err.category}/${err.code}] ${escapeText(err.message)}`));
      if (!o.json) throw err;
      return done(results, { step: i + 1, error: err.toWire() }, EXIT[err.category]);
    }
    results.push(r);
    if (r.state !== 'Succeeded' && r.state !== 'NeedsReboot') {
      await cancelAll(cl, ids.slice(i + 1));
      process.stderr.write(stopLine(i, ids.length, `it ended ${r.state}`));
      return done(results, { step: i + 1, error: r.error ?? { category: 'execution', code: 'step_failed', message: `${r.action_name} ended ${r.state}` } }, EXIT.failed);
    }
  }
  process.stderr.write(c.green(`\nall ${ids.length} step${ids.length === 1 ? '' : 's'} done\n`));
  return done(results, null, EXIT.ok);
}

/**
 * A plan of dependent steps, as one: the whole plan shown (each step's change, the steps
 * computed after another, the aggregated effects), one question, one approval, one execution;
 * the result says each step's fate.
 */
async function runPlan(cl: AirlockClient, planned: Planned, o: PlanOptions): Promise<[ResultEnvelope[], { step: number; error: WireError } | null, number]> {
  const p = planned.previews.get((planned.view.plan as { transaction_id: string }).transaction_id)!;
  const n = p.plan?.steps.length ?? 0;
  process.stderr.write('\n' + renderPreview(p) + '\n');
  if (!o.yes) await confirm(`Run this plan of ${n} steps (one approval for all of them)?`, [p.transaction_id], cl);
  let r: ResultEnvelope;
  try {
    r = await approveAndExecute(cl, p, { json: Boolean(o.json), shown: true });
  } catch (e) {
    const err = AirlockError.of(e);
    await cancelAll(cl, [p.transaction_id]);
    process.stderr.write(c.red(`\nnothing ran: [${err.category}/${err.code}] ${escapeText(err.message)}\n`));
    if (!o.json) throw err;
    return [[], { step: 1, error: err.toWire() }, EXIT[err.category]];
  }
  if (r.state === 'Succeeded' || r.state === 'NeedsReboot') {
    process.stderr.write(c.green(`\nthe plan is done: all ${n} steps\n`));
    return [[r], null, EXIT.ok];
  }
  const failed = r.plan_steps?.find((s) => s.state === 'failed' || s.state === 'stopped');
  process.stderr.write(c.red(`\nthe plan ended ${r.state}`) + (failed ? ` at step ${failed.step} (${escapeText(failed.action_name)})` : '') + '\n');
  return [[r], { step: failed?.step ?? 1, error: r.error ?? { category: 'execution', code: 'step_failed', message: `the plan ended ${r.state}` } }, EXIT.failed];
}

/** A plan that can run as it stands: complete, and the daemon previewed every step. */
const runnable = (v: PlanView) => v.complete && v.steps.every((s) => s.ok);

/** Asks the person at the terminal (never stdin: a pipe from an agent cannot answer). No terminal, or a no, cancels every step. */
async function confirm(question: string, ids: string[], cl: AirlockClient): Promise<void> {
  let yes = '';
  try {
    const term = Terminal.open('running a plan', 'read the plan, then add --yes to run it without this question (each step is still approved as `airlock run` approves it)');
    try {
      yes = term.ask(`\n${question} [y/N] `).toLowerCase();
    } finally {
      term.close();
    }
  } catch (e) {
    await cancelAll(cl, ids);
    throw e;
  }
  if (yes === 'y' || yes === 'yes') return;
  await cancelAll(cl, ids);
  throw new AirlockError('authorization', 'not_confirmed', 'nothing ran: you did not say yes (the previewed steps were canceled)');
}

/** Withdraws previews that will not run, so none waits in anyone's inbox; one already gone is left as it is. */
async function cancelAll(cl: AirlockClient, ids: string[]): Promise<void> {
  for (const id of ids) await cl.call('cancel', { transaction_id: id }).catch(() => {});
}

const stopLine = (i: number, n: number, why: string) => c.red(`\nstopped at step ${i + 1} of ${n}: ${why}`) + (i + 1 < n ? `\nthe ${n - i - 1} step${n - i - 1 === 1 ? '' : 's'} after it did not run (canceled)\n` : '\n');

/** A planner's words (or the daemon's): escaped for the terminal and masked, whoever wrote them. */
const said = (text: string) => escapeText(maskText(text).text);

const plannerLine = (v: PlanView) =>
  v.planner.kind === 'offline' ? 'the offline planner (no model, no network)' : `${v.planner.kind}${v.planner.model ? `, model ${said(v.planner.model)}` : ''}`;

/**
 * The plan as a person reads it: who planned it, each step with the daemon's risk, summary,
 * transaction and approval; notes; what was looked at. `previews` (the daemon's, by
 * transaction id) give each transaction waiting for a person its match code, the one the
 * approver's prompt shows (src/protocol/match-code.ts).
 */
export function renderPlan(v: PlanView, previews?: ReadonlyMap<string, PreviewResult>): string {
  const code = (id: string) => {
    const p = previews?.get(id);
    return p ? `, match code ${c.bold(matchCode(p.preview_digest))}` : '';
  };
  const out: string[] = [];
  out.push(`${c.bold('Plan')} for "${said(v.intent)}"`, `  planned by ${plannerLine(v)}; every risk below is the daemon's, from its preview`);
  if (v.verdict === 'refusal') out.push('', `${c.yellow('The planner made no plan:')} ${said(v.summary)}`);
  else if (v.summary) out.push('', said(v.summary));
  if (v.verdict === 'plan' && v.steps.length === 0) out.push('', c.yellow('The planner proposed no step.'));
  // A refused plan names its step (`step N (Action): ...`): the refusal is shown there, once.
  const refusedAt = v.plan && !v.plan.ok ? Number(/^step (\d+) \(/.exec(v.plan.error.message)?.[1] ?? 0) : 0;
  v.steps.forEach((s, i) => {
    out.push('');
    const name = c.bold(said(s.step.action_name));
    if (!s.ok && v.plan && i + 1 !== refusedAt) out.push(`  ${i + 1}. ${name}  ${c.dim(`shown with the plan, which the daemon refused at step ${refusedAt}`)}`);
    else if (!s.ok) {
      out.push(`  ${i + 1}. ${name}  ${c.red('REFUSED by the daemon')} (nothing recorded)`, `     error [${s.error.category}/${s.error.code}] ${said(s.error.message)}`);
      if (s.error.hint) out.push(`     next: ${said(s.error.hint)}`);
    } else {
      const p = s.preview;
      out.push(`  ${i + 1}. ${name}  ${riskColour(p.risk)}  ${said(p.summary)}`);
      if (!v.plan) out.push(`     ${c.dim(p.transaction_id)}`);
      for (const w of p.warnings) out.push(`     ${c.yellow('warning')} ${said(w)}`);
      if (p.reboot_required) out.push(`     ${c.yellow('needs a reboot')}`);
      if (!v.plan) out.push(`     approval: ${approvalText(s.preview)}${s.preview.auto_approval || s.preview.unattended ? '' : code(p.transaction_id)}`);
    }
    if (s.step.reason) out.push(`     why (the planner's words): ${said(s.step.reason)}`);
  });
  if (v.plan?.ok) {
    const p = v.plan;
    out.push('', `  ${c.bold('One plan, one approval')} for all ${v.steps.length} steps (each previewed against the host the steps before it leave): ${c.dim(p.transaction_id)}  ${riskColour(p.risk)}`);
    if (p.computed_at_execution.length) out.push(`     computed when the step before runs: step ${p.computed_at_execution.join(', ')}`);
    out.push(`     reboot ${p.reboot_required ? c.red('required') : 'no'}, services interrupted: ${p.services_interrupted.length ? said(p.services_interrupted.join(', ')) : 'none'}`);
    out.push(`     approval: waiting for a person (role ${p.min_role} or above): ${c.bold(`airlock approve ${p.transaction_id}`)}${code(p.transaction_id)}`);
  } else if (v.plan && refusedAt === 0) {
    out.push('', `  ${c.red('the plan was REFUSED by the daemon')} (nothing recorded)`, `     error [${v.plan.error.category}/${v.plan.error.code}] ${said(v.plan.error.message)}`);
    if (v.plan.error.hint) out.push(`     next: ${said(v.plan.error.hint)}`);
  }
  if (v.missing.length) {
    const n = v.missing.length;
    out.push('', c.red(`INCOMPLETE: ${n} part${n === 1 ? '' : 's'} of the request ${n === 1 ? 'has' : 'have'} no step`) + ' (the plan is not what was asked; it does not run as it stands):');
    for (const m of v.missing) out.push(`  missing: ${said(m.part)}: ${said(m.why)}`);
  }
  if (v.queries.length) {
    out.push('', 'The planner looked at (reads through the daemon, in the log):');
    for (const q of v.queries) out.push(`  ${said(q.action_name)} ${q.transaction_id ?? '(not run)'}${q.ok ? '' : c.yellow(' refused')}`);
  }
  if (v.notes.length) {
    out.push('', 'Notes from the planner:');
    for (const n of v.notes) out.push(`  - ${said(n)}`);
  }
  const u = v.usage;
  out.push('', c.dim(`planning: ${u.turns} turn${u.turns === 1 ? '' : 's'}, ${u.input_tokens} tokens in, ${u.output_tokens} out, ${(u.elapsed_ms / 1000).toFixed(1)} s`));
  return out.join('\n') + '\n';
}

function approvalText(p: StepPreview): string {
  if (p.auto_approval) return c.green(`approved by the host's policy (rule ${p.auto_approval.rule})`);
  if (p.unattended) return `a proposal for the inbox: a person runs ${c.bold(`airlock inbox run ${p.transaction_id}`)}`;
  return `waiting for a person (role ${p.min_role} or above): ${c.bold(`airlock approve ${p.transaction_id}`)}`;
}

/** What to do with a plan that stays on the table. */
function renderNext(v: PlanView): string {
  if (incomplete(v)) return `\n${c.yellow('Nothing to run as it stands: the plan is incomplete.')} Say the missing part differently, or propose it yourself: airlock run ACTION --param k=v\n`;
  if (!runnable(v)) return `\n${c.yellow('Nothing to run as it stands.')} Say it differently, or propose steps yourself: airlock run ACTION --param k=v\n`;
  if (v.plan?.ok) {
    const id = v.plan.transaction_id;
    return ['', 'Next:', `  a person approves the whole plan, once: airlock approve ${id}`, `  then you run it, as one: airlock execute ${id} --wait`, `  or plan and run it in one go (it asks first): airlock do "${said(v.intent)}"`].join('\n') + '\n';
  }
  const waiting = v.steps.flatMap((s) => (s.ok && !s.preview.auto_approval && !s.preview.unattended ? [s.preview.transaction_id] : []));
  const lines = ['', 'Next:'];
  if (waiting.length) lines.push(`  a person approves each waiting step: ${waiting.map((id) => `airlock approve ${id}`).join('; ')}`);
  lines.push(`  then you run each step, in order: airlock execute ID --wait`, `  or plan and run it in one go (it asks first): airlock do "${said(v.intent)}"`);
  return lines.join('\n') + '\n';
}
