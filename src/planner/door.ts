/**
 * The one way from a sentence to a plan, shared by `airlock plan`, `airlock do` and the MCP
 * tool `airlock_plan`. It runs in the client, unprivileged:
 *
 *   1. refuses an intent that holds a secret (before any planner or provider sees it), one
 *      longer than the limit, and one with control characters;
 *   2. builds the HostContext: the distribution from /etc/os-release (parsed strictly) and
 *      the daemon's own catalogue, only the actions supported here;
 *   3. runs the planner, whose only way to look at the host is `daemonQueries` (below);
 *   4. checks the plan is complete: every part of the request carried out by a step or
 *      named as missing (parts.ts; a part the planner passed over is added as missing);
 *   5. previews EVERY proposed step through the daemon, by the rule every client follows
 *      (src/client/proposal.ts): two or more changes as ONE plan (`plan.preview`: each step
 *      previewed against the host the steps before it leave, one approval), else each step
 *      alone. The daemon's preview is the truth: the risk in the view is the preview's, a
 *      step the daemon refuses is shown refused, and nothing the planner says about a step
 *      but its name, parameters and reason is kept.
 */
import { MAX_PLAN_STEPS } from '../protocol/plan.js';
import { readFileSync } from 'node:fs';
import { secretSpans } from '../mask/mask.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText, hasUnsafeText } from '../protocol/escape-text.js';
import type { ActionDescription, PreviewResult } from '../protocol/messages.js';
import { propose, type DaemonCalls, type ProposalStep } from '../client/proposal.js';
import { assignments, parseOsRelease } from '../protocol/os-release.js';
import type { Risk, Role } from '../protocol/risk.js';
import { DEFAULT_LIMITS, type HostContext, type MissingPart, type Planner, type PlannerLimits, type PlannerReport, type PlanStep, type QueryRecord, type QueryRunner } from './contract.js';
import { MAX_PART_CHARS, uncoveredParts } from './parts.js';

export type { DaemonCalls, ProposalStep } from '../client/proposal.js';

/** A plan a person can still read through step by step: the daemon's bound on a plan (plan.preview). */
export { MAX_PLAN_STEPS };
/** The planner's words kept in a view: its notes, and characters of one summary, reason or note. */
export const MAX_NOTES = 20;
export const MAX_WORDS_CHARS = 1000;
const words = (t: unknown) => {
  const s = String(t ?? '');
  return s.length > MAX_WORDS_CHARS ? `${s.slice(0, MAX_WORDS_CHARS)}…` : s;
};

/** Reads one planning session may ask for (refused ones count): each one run is a transaction in the log. */
export const MAX_QUERIES = 16;

/** A step as the daemon previewed it: its facts, never the planner's claims (and never a receipt). */
export interface StepPreview {
  transaction_id: string;
  summary: string;
  risk: Risk;
  min_role: Role;
  expires_at: string;
  warnings: string[];
  reboot_required: boolean;
  /** The policy approved it: it can run at once. */
  auto_approval: { rule: string; approved_by: string; expires_at: string } | null;
  /** The requester is unattended: a proposal for the inbox. */
  unattended: boolean;
  /** A step of a plan that cannot be previewed before step N has run (its change is built then). */
  computed_after?: number;
}

/**
 * The plan's one transaction, when the steps went as one plan: its id, risk, the role that
 * approves it, its aggregated effects and digest; or the daemon's refusal (its message starts
 * `step N (Action):`).
 */
export type PlanPreview =
  | { ok: true; transaction_id: string; risk: Risk; min_role: Role; expires_at: string; digest: string; reboot_required: boolean; services_interrupted: string[]; computed_at_execution: number[] }
  | { ok: false; error: WireError };

export type PlannedStep = { step: PlanStep } & ({ ok: true; preview: StepPreview } | { ok: false; error: WireError });


/** Missing parts kept in a view. */
export const MAX_MISSING = 20;

export interface PlanView {
  intent: string;
  planner: PlannerReport['planner'];
  /** `plan`: steps follow; `refusal`: the planner declined, with its reason. */
  verdict: 'plan' | 'refusal';
  summary: string;
  notes: string[];
  usage: PlannerReport['usage'];
  /** The reads the planner asked for, as this door recorded them (not as the planner reports them). */
  queries: QueryRecord[];
  steps: PlannedStep[];
  /** The steps went as one plan (two or more changes): its transaction, or its refusal; null: each step alone. */
  plan: PlanPreview | null;
  /** The steps in dependency order as one list, ready to be proposed as one plan. */
  proposal: ProposalStep[];
  /** A plan with steps and no missing part. An incomplete plan is shown, never run as it stands. */
  complete: boolean;
  /** Each part of the request no step carries out, and why (the planner's, and those it passed over). */
  missing: MissingPart[];
}

export interface Planned {
  view: PlanView;
  /** The daemon's full previews, by transaction id (with any receipt the policy minted: for the requester's own use, never shown). */
  previews: Map<string, PreviewResult>;
}

export interface DoorOptions {
  client: DaemonCalls;
  planner: Planner;
  limits?: PlannerLimits;
  /** The text of /etc/os-release (tests); absent: read from the file. null: there is none. */
  osRelease?: string | null;
}

export async function planIntent(intent: string, o: DoorOptions): Promise<Planned> {
  const limits = o.limits ?? DEFAULT_LIMITS;
  checkIntent(intent, limits);
  const all = await o.client.call('actions.list', {});
  const host: HostContext = { distribution: distributionOf(o.osRelease === undefined ? readOsRelease() : o.osRelease), actions: all.filter((a) => a.supported_here) };
  const queries: QueryRecord[] = [];
  const report = await withinBudget(o.planner.plan(intent, host, daemonQueries(o.client, all, queries), limits), limits.wallClockMs);
  const steps = report.verdict.kind === 'plan' ? report.verdict.steps : [];
  if (steps.length > MAX_PLAN_STEPS) throw new AirlockError('validation', 'plan_too_long', `the planner proposed ${steps.length} steps; a plan has at most ${MAX_PLAN_STEPS}`, 'ask for less at a time');
  const said = report.verdict.kind === 'plan' ? (report.verdict.missing ?? []) : [];
  const missing = report.verdict.kind === 'plan' ? [...said, ...uncoveredParts(intent, steps, said)].slice(0, MAX_MISSING).map(missingWords) : [];
  // Only these fields of the planner's step are kept; a risk it claims is dropped here.
  const kept: PlanStep[] = steps.map((s) => ({ action_name: String(s.action_name), params: s.params, reason: words(s.reason), ...(s.part !== undefined ? { part: words(s.part) } : {}) }));
  const { planned, plan, previews } = kept.length ? await previewAll(o.client, kept, all) : { planned: [], plan: null, previews: new Map<string, PreviewResult>() };
  const v = report.verdict;
  return {
    view: {
      intent,
      planner: report.planner,
      verdict: v.kind,
      summary: words(v.kind === 'plan' ? v.summary : v.reason),
      notes: report.notes.slice(0, MAX_NOTES).map(words),
      usage: report.usage,
      queries,
      steps: planned,
      plan,
      proposal: planned.map((p) => ({ action_name: p.step.action_name, params: p.step.params })),
      complete: v.kind === 'plan' && planned.length > 0 && missing.length === 0,
      missing,
    },
    previews,
  };
}

/** The steps previewed by the one rule (src/client/proposal.ts): as one plan, or each alone. */
async function previewAll(client: DaemonCalls, steps: PlanStep[], actions: ActionDescription[]): Promise<{ planned: PlannedStep[]; plan: PlanPreview | null; previews: Map<string, PreviewResult> }> {
  const previews = new Map<string, PreviewResult>();
  const proposal = await propose(client, steps.map((s) => ({ action_name: s.action_name, params: s.params })), actions);
  if (proposal.kind === 'steps') {
    const planned = proposal.results.map((r, i): PlannedStep => {
      if (!r.ok) return { step: steps[i]!, ok: false, error: r.error };
      previews.set(r.preview.transaction_id, r.preview);
      return { step: steps[i]!, ok: true, preview: stepPreview(r.preview) };
    });
    return { planned, plan: null, previews };
  }
  const r = proposal.result;
  // A refused plan: no step has a preview of its own; each carries the plan's refusal, which names the step.
  if (!r.ok) return { planned: steps.map((step) => ({ step, ok: false, error: r.error })), plan: { ok: false, error: r.error }, previews };
  const p = r.preview;
  previews.set(p.transaction_id, p);
  const shown = p.plan?.steps ?? [];
  if (shown.length !== steps.length) throw new AirlockError('integrity', 'plan_mismatch', `the daemon previewed ${shown.length} steps of a plan of ${steps.length}`);
  const planned = steps.map((step, i): PlannedStep => {
    const s = shown[i]!;
    const preview: StepPreview = { transaction_id: p.transaction_id, summary: s.summary, risk: s.risk, min_role: p.min_role, expires_at: p.expires_at, warnings: s.warnings, reboot_required: s.reboot_required, auto_approval: null, unattended: false, ...(s.computed_after !== undefined ? { computed_after: s.computed_after } : {}) };
    return { step, ok: true, preview };
  });
  const plan: PlanPreview = { ok: true, transaction_id: p.transaction_id, risk: p.risk, min_role: p.min_role, expires_at: p.expires_at, digest: p.plan!.digest, reboot_required: p.reboot_required, services_interrupted: p.plan!.services_interrupted, computed_at_execution: p.plan!.computed_at_execution };
  return { planned, plan, previews };
}

/** A missing part as the planner said it: two strings, capped (shown escaped, as the planner's words). */
const missingWords = (m: MissingPart): MissingPart => ({ part: String(m.part).slice(0, MAX_PART_CHARS), why: words(m.why) });

/** Refuses, before anything is sent anywhere, an intent no planner may see. */
export function checkIntent(intent: string, limits: PlannerLimits): void {
  if (!intent.trim()) throw new AirlockError('validation', 'empty_intent', 'say what you want done', 'for example: airlock plan "restart nginx"');
  if (intent.length > limits.maxIntentChars) throw new AirlockError('validation', 'intent_too_long', `the intent is ${intent.length} characters; at most ${limits.maxIntentChars}`, 'say it in fewer words, or plan it in parts');
  const secrets = secretSpans(intent);
  if (secrets.length) {
    const kinds = [...new Set(secrets.map((s) => s.kind))].join(', ');
    throw new AirlockError('validation', 'secret_in_intent', `the intent holds a secret (${kinds}); it was not sent to any planner`, 'say it without the secret (a planner never needs one); give a secret value as a parameter in `airlock run` instead');
  }
  if (hasUnsafeText(intent, 'line')) throw new AirlockError('validation', 'intent_control_characters', 'the intent holds control or invisible characters', 'type it as plain text on one line');
}

function readOsRelease(): string | null {
  for (const path of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return readFileSync(path, 'utf8');
    } catch {}
  }
  return null;
}

/** The distribution as os-release states it, strictly: anything ambiguous or malformed is `unknown` (its text escaped and capped: it goes into a prompt). */
export function distributionOf(text: string | null): HostContext['distribution'] {
  const unknown = { id: 'unknown', version_id: '', pretty_name: 'an unrecognised distribution' };
  if (text === null || assignments(text, 'ID') !== 1) return unknown;
  const f = parseOsRelease(text);
  if (!f.ID || !/^[a-z0-9][a-z0-9._-]{0,31}$/.test(f.ID)) return unknown;
  const version = f.VERSION_ID !== undefined && /^[A-Za-z0-9._~-]{1,32}$/.test(f.VERSION_ID) ? f.VERSION_ID : '';
  return { id: f.ID, version_id: version, pretty_name: escapeText(f.PRETTY_NAME ?? f.ID).slice(0, 80) };
}

function stepPreview(p: PreviewResult): StepPreview {
  const a = p.auto_approval;
  return {
    transaction_id: p.transaction_id,
    summary: p.summary,
    risk: p.risk,
    min_role: p.min_role,
    expires_at: p.expires_at,
    warnings: p.warnings,
    reboot_required: p.reboot_required,
    auto_approval: a ? { rule: a.rule, approved_by: a.approved_by, expires_at: a.expires_at } : null,
    unattended: p.unattended === true,
  };
}

/** The planner's wall-clock budget, enforced here too: a planner that overruns it is stopped waiting for. */
async function withinBudget<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AirlockError('transient', 'planner_timeout', `the planner did not finish within ${Math.round(ms / 1000)} s`, 'try again, or ask for less at a time')), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const wireOf = (e: unknown): WireError => AirlockError.of(e).toWire();

const errorLine = (w: WireError) => `[${w.category}/${w.code}] ${w.message}`;

/**
 * The planner's only look at the host: a Low, read-only, non-sensitive action (as the
 * daemon's actions.list describes it), through the one door: preview, the policy's
 * auto-approval receipt, execute. Recorded like any other transaction. Anything else is
 * refused before the daemon is asked; a read the policy does not approve is canceled,
 * not run (a person is not asked to approve a planner's look). The output is the
 * daemon's, masked as it sent it.
 */
export function daemonQueries(client: DaemonCalls, actions: ActionDescription[], record: QueryRecord[] = []): QueryRunner {
  const byName = new Map(actions.map((a) => [a.name, a]));
  return async (action_name, params) => {
    if (record.length >= MAX_QUERIES) return { ok: false, error: `at most ${MAX_QUERIES} reads per plan: propose the plan with what you know`, transaction_id: null };
    const answer = await runQuery(client, byName.get(action_name), action_name, params);
    record.push({ action_name, params, transaction_id: answer.transaction_id, ok: answer.ok });
    return answer;
  };
}

async function runQuery(client: DaemonCalls, a: ActionDescription | undefined, action_name: string, params: Record<string, unknown>): ReturnType<QueryRunner> {
  if (!a || !a.supported_here) return { ok: false, error: `${action_name} is not an action of this host's catalogue`, transaction_id: null };
  if (!a.read_only || a.risk !== 'low' || a.sensitive) {
    return { ok: false, error: `${action_name} is not a Low, non-sensitive read (it is ${a.read_only ? 'a read' : 'a change'}, ${a.risk} risk${a.sensitive ? ', sensitive' : ''}): a planner may not run it; propose it as a step for a person to approve`, transaction_id: null };
  }
  let id: string | null = null;
  try {
    const p = await client.call('preview', { action_name, params });
    id = p.transaction_id;
    if (!p.auto_approval) {
      await client.call('cancel', { transaction_id: id }).catch(() => {});
      return { ok: false, error: `the host's policy does not approve ${action_name} on its own, so it was not run (canceled): propose it as a step instead`, transaction_id: id };
    }
    const r = await client.call('execute', { transaction_id: id, action_name, params: p.params, receipt: p.auto_approval.receipt });
    if (r.state !== 'Succeeded') return { ok: false, error: r.error ? errorLine(r.error) : `${action_name} ended ${r.state}`, transaction_id: id };
    return { ok: true, output: r.output, transaction_id: id };
  } catch (e) {
    return { ok: false, error: errorLine(wireOf(e)), transaction_id: id };
  }
}
