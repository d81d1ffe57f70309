/**
 * A plan executed as one (docs/protocol.md section 6.21), once execute.ts has checked its
 * receipt as any transaction's, under the change lock:
 * 1. the whole plan is projected again from the host as it is now (plan-steps.ts): a step that
 *    would differ from the approved one stops it before anything runs, the receipt unspent;
 * 2. the receipt is spent, with its entries;
 * 3. the steps run in order, each re-reading the real host and rebuilding its mechanism, which
 *    must hash as the approved one did (a step computed after an earlier one: its risk must be the
 *    one approved and it must carry no warning, which nobody read; its mechanism is bound now, its
 *    digest in the step's entry);
 * 4. at the first failure or difference, the steps done are rolled back last first where their
 *    undo allows; the result says what ran, what was rolled back and what never ran, and each
 *    step's fate and the plan's outcome are signed entries linked to the plan's transaction.
 */
import { bootForChange } from '../reboots.js';
import { receiptCommitment } from '../../audit/receipt.js';
import type { EntryDraft } from '../../audit/entry.js';
import type { EntryDetails } from '../../audit/entry-details.js';
import { AirlockError, fail } from '../../protocol/errors.js';
import type { PreviewEnvelope, ResultEnvelope } from '../../protocol/messages.js';
import type { JobState } from '../../protocol/risk.js';
import type { PlanStep } from '../../protocol/wire/preview.js';
import { countsForLog } from '../../mask/mask.js';
import type { TxRecord } from '../../store/store.js';
import type { Caller } from '../authz.js';
import { OutputStream, type NoticeSink } from '../output-stream.js';
import { errorForClient, maskForClient, releaseOutput } from '../output.js';
import { buildChange } from '../plan.js';
import { previewSteps, type BuiltStep, type StepRequest } from '../plan-steps.js';
import { planTitle } from '../../protocol/plan.js';
import { riskOf } from './catalogue.js';
import type { VerbContext } from './context.js';
import { refuseIfExpired } from './expiry.js';
import { changeProbes, type KeptStep } from '../../catalogue/change-record.js';
import { stateDigest, uniqueProbes, type ProbedState } from '../../catalogue/lib/state-probes.js';
import { probeLabel, type StateProbe } from '../../catalogue/rollback.js';
import { keptRevert, probeAfter, probeBefore, stateCheck, undoneLine } from '../kept-change.js';

type StepState = NonNullable<ResultEnvelope['plan_steps']>[number]['state'];

/** A step that ran to its end: how to reverse it, if anything can. */
interface Done {
  n: number;
  b: BuiltStep;
  changed: boolean;
  undo: (() => Promise<boolean>) | null;
  digest: string;
  /** What a revert of the plan needs of this step (null: nothing reverses it all). */
  kept: KeptStep[] | null;
}

export async function executePlan(ctx: VerbContext, who: Caller, tx: TxRecord, stored: PreviewEnvelope, receipt: string, stream?: NoticeSink): Promise<ResultEnvelope> {
  const approved = stored.plan ?? fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} holds no plan`, 'preview the plan again');
  const requests = (tx.params as { steps: StepRequest[] }).steps;
  // 1. Projected again from the host as it is now: the host changed since the approval if any step differs.
  const rebuilt = await previewSteps(ctx, who, requests, {});
  const k = rebuilt.findIndex((b, i) => !sameStep(approved.steps[i], b.shown));
  if (k >= 0 || rebuilt.length !== approved.steps.length) {
    const b = rebuilt[k] ?? rebuilt[rebuilt.length - 1]!;
    fail('stale_approval', 'state_changed', `the host changed since ${tx.id} was approved: step ${k + 1} (${b.a.name}) would differ from the approved one; nothing ran and the receipt was not used`, 'preview the plan again and have it approved');
  }
  // 2. The receipt, spent with its entries before anything runs.
  const now = ctx.now();
  const commitment = receiptCommitment(receipt);
  // A plan with a step that needs a reboot names the boot it runs in (reboots.ts).
  const boot = bootForChange(rebuilt.some((b) => b.a.reboot));
  ctx.heldReceipts.drop(tx.id);
  ctx.space?.ensureMargin();
  const outcome = await ctx.durably(() =>
    ctx.store.consumeReceipt(tx.id, commitment, now, [
      ctx.entry('approval_consumed', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { preview_digest: tx.previewDigest, receipt_commitment: commitment }),
      ctx.entry('execution_started', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { steps: rebuilt.length, ...(boot ? { boot_id: boot } : {}) }),
    ]),
  );
  if (outcome === 'expired') await refuseIfExpired(ctx, (await ctx.store.getTransaction(tx.id)) ?? tx, now);
  if (outcome === 'consumed') ctx.changed(tx.id);
  if (outcome !== 'consumed') fail('stale_approval', `receipt_${outcome}`, `the receipt for ${tx.id} can no longer be used (${outcome.replace(/_/g, ' ')})`, 'preview the plan again and ask for a new approval');

  // 3. The steps, in order.
  const stepEntry = (n: number, b: BuiltStep, state: StepState, digest: string | null, code: string | null): EntryDraft =>
    ctx.entry('plan_step', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { step: n, step_action: b.a.name, step_request_hash: b.shown.request_hash, state: entryState(state), mechanism_digest: digest, error_code: code });
  const fates: StepState[] = rebuilt.map(() => 'not_run');
  /** Each undo of the rollback, for the signed log. */
  const undone: string[] = [];
  const done: Done[] = [];
  const live = stream ? new OutputStream(tx.id, stream) : undefined;
  const output: string[] = [];
  let truncated = false;
  /** The step that failed or stopped; `leftChanges`: its programs ran and their changes were not all undone. */
  let failure: { n: number; error: AirlockError; leftChanges: boolean } | null = null;
  // The state the steps touch, each label as first read (before the step that first touches it): the plan's pre-state.
  const probes: StateProbe[] = [];
  const before: ProbedState = {};
  let unreadable: string | null = null;
  const faulty = ctx.injectFailure();
  for (const [i, b] of rebuilt.entries()) {
    const n = i + 1;
    let release = () => {};
    try {
      const { current, plan, bound } = await buildChange(b.a, b.params, ctx.host, who);
      differs(n, b, approved.steps[i]!, plan.changed, bound.proposed.digest, riskOf(ctx, b.a), [...(plan.parts.warnings ?? []), ...bound.notes]);
      await ctx.executor.checkPaths(plan.steps); // a step computed now passes the preview's path rule now
      release = ctx.executor.claim(plan.steps);
      const stepProbes = changeProbes(b.a, b.params, current, plan.steps);
      const read = await probeBefore(stepProbes.filter((p) => !(probeLabel(p) in before)), ctx.host);
      if (typeof read === 'string') unreadable ??= read;
      else Object.assign(before, read);
      probes.push(...stepProbes);
      const run = await ctx.executor.runSteps(plan.steps, b.a.files, bound.filesAsRead, live, { failAfterLast: faulty && n === rebuilt.length && !b.a.readOnly });
      output.push(...run.output);
      truncated ||= run.truncated;
      if (!run.ok) {
        fates[i] = run.rolledBack ? 'rolled_back' : 'failed';
        failure = { n, error: run.error!, leftChanges: !run.rolledBack };
        undone.push(...(run.undone ?? []).map((u) => `${undoneLine(u)} (plan step ${n})`));
        await append(ctx, stepEntry(n, b, 'failed', bound.proposed.digest, run.error!.code));
        break;
      }
      fates[i] = plan.changed && !b.a.readOnly ? 'succeeded' : 'no_change';
      done.push({ n, b, changed: fates[i] === 'succeeded', undo: run.undo ?? null, digest: bound.proposed.digest, kept: fates[i] === 'succeeded' ? (run.kept ?? null) : [] });
      await append(ctx, stepEntry(n, b, fates[i]!, bound.proposed.digest, null));
    } catch (e) {
      const error = e instanceof AirlockError ? e : new AirlockError('execution', 'step_failed', (e as Error).message);
      // A difference from what was approved stops the plan for a new approval; a refusal fails it.
      fates[i] = error.category === 'stale_approval' ? 'stopped' : 'failed';
      failure = { n, error, leftChanges: false };
      await append(ctx, stepEntry(n, b, fates[i]!, null, error.code));
      break;
    } finally {
      release();
    }
  }
  await live?.finish();

  // 4. At a failure, the steps done are reversed, last first, where their undo allows.
  let allReversed = true;
  if (failure) {
    for (const d of [...done].reverse()) {
      if (!d.changed) continue;
      const back = d.undo ? await d.undo() : false;
      undone.push(`plan step ${d.n} ${back ? 'ok' : 'FAILED'}: its undos`);
      allReversed &&= back;
      fates[d.n - 1] = back ? 'rolled_back' : 'not_rolled_back';
      await append(ctx, stepEntry(d.n, d.b, fates[d.n - 1]!, d.digest, null));
    }
  }
  // Whether the host was (or, after a failure, may have been) changed.
  const changedAny = fates.some((f) => f === 'succeeded' || f === 'not_rolled_back') || failure?.leftChanges === true;
  const reversedAny = fates.includes('rolled_back');
  const after = await probeAfter(uniqueProbes(probes), ctx.host);
  // A rollback is verified: every probe must read as it did before the step that first touched it.
  const undoneAll = reversedAny && allReversed && failure !== null && !failure.leftChanges;
  const check = undoneAll && unreadable === null ? stateCheck('before', uniqueProbes(probes), before, after) : undefined;
  const state: JobState = !failure
    ? done.some((d) => d.changed && d.b.a.reboot) ? 'NeedsReboot' : 'Succeeded'
    : undoneAll && (probes.length === 0 || check?.matches === true) ? 'RolledBack' : 'Failed';
  // What a revert of the whole plan needs: every changed step's kept steps, in the order they ran.
  const keptAll = done.every((d) => d.kept !== null) ? done.flatMap((d) => d.kept!) : null;
  const blocked = done.find((d) => d.changed && !d.b.a.readOnly && d.b.a.rollback.class === 'none');
  const revert = !failure && changedAny ? keptRevert(blocked?.b.a ?? null, keptAll, uniqueProbes(probes), unreadable ?? before, after) : undefined;
  const out = await releaseOutput(output);
  out.truncated ||= truncated;
  const error = failure ? await errorForClient(new AirlockError(failure.error.category, failure.error.code, `step ${failure.n} (${rebuilt[failure.n - 1]!.a.name}): ${failure.error.message}`, failure.error.hint)) : null;
  const title = planTitle(rebuilt.length);
  const summary = failure ? `${title}: ${await maskForClient(error!.message)}; ${fateText(fates)}` : `${title} done: ${fateText(fates)}`;
  const result: ResultEnvelope = {
    transaction_id: tx.id,
    action_name: tx.actionName,
    request_hash: tx.requestHash,
    state,
    summary,
    needs_reboot: state === 'NeedsReboot',
    changed: changedAny,
    rollback_ref: reversedAny ? tx.id : null,
    output: out.lines,
    output_truncated: out.truncated,
    ...(error ? { error } : {}),
    ...(check ? { state_check: check } : {}),
    plan_steps: rebuilt.map((b, i) => ({ step: i + 1, action_name: b.a.name, state: fates[i]! })),
  };
  await ctx.durably(() =>
    ctx.store.finish(
      tx.id,
      state,
      { state, summary, needs_reboot: result.needs_reboot, changed: changedAny, rollback_ref: result.rollback_ref, error, plan_steps: result.plan_steps, ...(check ? { state_check: check } : {}), ...(revert ? { revert } : {}), ...(state === 'NeedsReboot' ? { boot_id_before: boot ?? null } : {}) },
      ctx.now(),
      ctx.entry('outcome', who, tx.actionName, tx.risk, tx.requestHash, tx.id, {
        state,
        changed: changedAny,
        error_category: failure?.error.category ?? null,
        error_code: failure?.error.code ?? null,
        rolled_back: reversedAny,
        ...(undone.length ? { undone } : {}),
        ...(probes.length && unreadable === null ? { state_before: stateDigest(before), state_after: stateDigest(after) } : {}),
        ...(check ? { state_matches: check.matches } : {}),
        output_lines: out.lines.length,
        masked: countsForLog(out.masked),
      }),
    ),
  );
  return result;
}

/** Whether a step rebuilt now is the step approved: the same mechanism digest and no-change flag, or computed after the same step. */
function sameStep(approved: PlanStep | undefined, now: PlanStep): boolean {
  if (!approved || approved.request_hash !== now.request_hash || approved.computed_after !== now.computed_after) return false;
  if (approved.proposed_change === null || now.proposed_change === null) return approved.proposed_change === now.proposed_change;
  return approved.proposed_change.digest === now.proposed_change.digest && approved.no_change === now.no_change;
}

/** Refuses (stale_approval) a step whose change, rebuilt from the real host now, is not the one approved. */
function differs(n: number, b: BuiltStep, approved: PlanStep, changed: boolean, digest: string, risk: string, warnings: string[]): void {
  const hint = 'preview the plan again and have it approved';
  if (approved.proposed_change === null) {
    // Computed after an earlier step: its action and parameters are bound by the plan's request hash, its risk here.
    if (risk !== approved.risk) fail('stale_approval', 'state_changed', `step ${n} (${b.a.name}) is now ${risk} risk, not the ${approved.risk} approved`, hint);
    // A warning (a root login granted, packages upgraded) is what a person must read before it happens: nobody read this one.
    if (warnings.length) fail('stale_approval', 'state_changed', `step ${n} (${b.a.name}) now warns, and its approver never saw it: ${warnings.join('; ')}`, hint);
    return;
  }
  if (digest !== approved.proposed_change.digest || changed !== (approved.no_change !== true)) {
    fail('stale_approval', 'state_changed', `step ${n} (${b.a.name}) would differ from the approved one: the host is not as the steps before it were to leave it`, hint);
  }
}

/** A step's fate in its entry: a step never run has no entry. */
function entryState(s: StepState): EntryDetails['plan_step']['state'] {
  if (s === 'not_run') throw new Error('a step that did not run has no plan_step entry');
  return s;
}

async function append(ctx: VerbContext, e: EntryDraft): Promise<void> {
  await ctx.durably(() => ctx.store.appendEntries([e]));
}

/** "ran 1, 2; rolled back 2, 1; not run 3": exactly what became of the steps. */
function fateText(fates: StepState[]): string {
  const by = (s: StepState) => fates.flatMap((f, i) => (f === s ? [i + 1] : []));
  const parts: Array<[StepState, string]> = [
    ['succeeded', 'done'],
    ['no_change', 'no change needed'],
    ['rolled_back', 'rolled back'],
    ['not_rolled_back', 'NOT rolled back (nothing undoes all it did, or its undo failed)'],
    ['failed', 'failed'],
    ['stopped', 'stopped for a new approval'],
    ['not_run', 'not run'],
  ];
  return parts.flatMap(([s, label]) => (by(s).length ? [`${label}: step ${by(s).join(', ')}`] : [])).join('; ');
}
