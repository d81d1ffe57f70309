/**
 * A plan's steps previewed in sequence (docs/protocol.md section 6.21): each against the host
 * as the steps before it leave it (ProjectedHost), with the same parameter checks, role check,
 * refusals, mechanism binding, masking and escaping as a single preview. The one way
 * `plan.preview` builds a plan and `execute` rebuilds it to compare with the approved one.
 * A step whose state cannot be projected is "computed after" the step it waits for: its
 * action, parameters and risk are fixed now, its mechanism is built and bound when it runs.
 */
import type { AnyAction } from '../catalogue/action.js';
import type { Effect } from '../catalogue/effects.js';
import { reversibleWhenDone } from '../catalogue/mechanism.js';
import { rollbackAvailable } from '../catalogue/rollback.js';
import { AirlockError, fail } from '../protocol/errors.js';
import { requestHash } from '../protocol/hash.js';
import { planStepDigest } from '../protocol/plan.js';
import type { Risk } from '../protocol/risk.js';
import type { PlanStep } from '../protocol/wire/preview.js';
import type { MaskCounts } from '../mask/mask.js';
import { enforce, mayPreview, type Caller } from './authz.js';
import { cutAt, masksForClient } from './output.js';
import { buildChange } from './plan.js';
import { ComputedAfter, ProjectedHost } from './projected-host.js';
import { parseActionParams } from './request-params.js';
import { shownParams } from './secret-params.js';
import { shownPreview } from './shown-preview.js';
import { action, platformProblem, riskOf } from './verbs/catalogue.js';
import type { VerbContext } from './verbs/context.js';

/** A computed-after step's summary names its parameters up to this many characters (its `params` holds them whole). */
export const MAX_SUMMARY_PARAMS = 600;

/** One step as a client asks for it. */
export interface StepRequest {
  action_name: string;
  params?: Record<string, unknown>;
}

/** A step previewed: the action and its validated parameters, and the step as the approver sees it. */
export interface BuiltStep {
  a: AnyAction;
  params: Record<string, unknown>;
  risk: Risk;
  /** What it leaves on the host, as declared; null when unknown (no declaration, or computed after an earlier step). */
  effects: Effect[] | null;
  shown: PlanStep;
}

/** Every step in order; a refused step refuses the plan, saying which step. */
export async function previewSteps(ctx: VerbContext, who: Caller, requests: readonly StepRequest[], masked: MaskCounts): Promise<BuiltStep[]> {
  const host = new ProjectedHost(ctx.host);
  const built: BuiltStep[] = [];
  for (const [i, req] of requests.entries()) {
    const n = i + 1;
    try {
      built.push(await previewStep(ctx, who, host, n, req, masked));
    } catch (e) {
      if (e instanceof AirlockError) throw new AirlockError(e.category, e.code, `step ${n} (${String(req.action_name).slice(0, 64)}): ${e.message}`, e.hint, e.more);
      throw e;
    }
  }
  return built;
}

async function previewStep(ctx: VerbContext, who: Caller, host: ProjectedHost, n: number, req: StepRequest, masked: MaskCounts): Promise<BuiltStep> {
  const a = action(req.action_name);
  // Its risk is read from the state, which a plan's projection cannot vouch for; and a plan is reverted whole, on its own.
  // Checks run on a request's own text (verify) run on the host as it is, which a plan's projection is not.
  if (a.riskFrom || a.verify) fail('validation', 'not_a_plan_step', `${a.name} cannot be a step of a plan`, 'run it on its own, as a single request (a revert: airlock revert TX; a plan is reverted as a whole, its steps in reverse order)');
  // It takes the daemon down with the host: nothing after it would run, and its outcome is written before it starts.
  if (a.takesHostDown) fail('validation', 'not_a_plan_step', `${a.name} cannot be a step of a plan`, `run it on its own, after the plan: it takes the host and the daemon down`);
  const risk = riskOf(ctx, a);
  enforce(mayPreview(who, a.name, risk));
  const problem = platformProblem(ctx, a);
  if (problem) fail('unsupported_platform', 'platform', problem);
  const params = parseActionParams(a, req.params ?? {});
  const fixed = { step: n, action_name: a.name, params: shownParams(a, params, masked), request_hash: requestHash(a.name, params), risk, reboot_required: a.reboot, rollback_available: rollbackAvailable(a) };
  let body: Omit<PlanStep, 'preview_digest'>;
  let effects: Effect[] | null = null;
  try {
    const { current, plan, bound } = await buildChange(a, params, host, who);
    await ctx.executor.checkPaths(plan.steps);
    const s = await shownPreview(a, current, plan.parts, bound, masked);
    // A step's rollback is what a later step's failure can reverse: its action's, and only when its undos cover everything it runs.
    body = { ...fixed, rollback_available: rollbackAvailable(a) && reversibleWhenDone(plan.steps), summary: s.summary, current_state: s.currentState, proposed_change: s.proposedChange, side_effects: s.sideEffects, warnings: s.warnings, ...(plan.changed ? {} : { no_change: true as const }) };
    effects = a.readOnly ? [] : (a.effects?.(params, current) ?? null);
    await host.apply(n, effects ?? undefined);
  } catch (e) {
    if (!(e instanceof ComputedAfter)) throw e;
    // Its state is known only once step e.step has run: what it does is fixed now, how is bound then.
    // Nothing else shows what it will do, so its summary names its parameters (as shown: declared secrets masked).
    const [summary = ''] = await masksForClient([`${a.name} ${paramsText(fixed.params)}: computed after step ${e.step}`], masked);
    body = { ...fixed, summary, current_state: null, proposed_change: null, computed_after: e.step, side_effects: [], warnings: [`its change and mechanism are built and bound when step ${e.step} has run; a refusal then stops the plan and rolls back the steps before it`] };
    // What it leaves is unknown until it runs: nothing after it is projected.
    await host.apply(n, a.readOnly ? [] : undefined);
  }
  return { a, params, risk, effects, shown: { ...body, preview_digest: planStepDigest(body) } };
}

/** The parameters as one line of JSON, cut to MAX_SUMMARY_PARAMS characters. */
function paramsText(params: Record<string, unknown>): string {
  const text = JSON.stringify(params);
  return text.length > MAX_SUMMARY_PARAMS ? `${cutAt(text, MAX_SUMMARY_PARAMS)}…` : text;
}
