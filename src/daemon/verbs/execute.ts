/**
 * `execute`: only the requester, with the role the transaction's risk needs (the door's
 * `requester` rule), runs what was approved, and only that: the compacted, the action, the
 * parameters (their request hash), the deadline, the state and the receipt are checked here in
 * this order, the host is read again and the change rebuilt must hash as the approved one did
 * (mechanism-binding.ts), and the receipt is spent with its entries in one store operation
 * before anything runs.
 */
import type { AnyAction } from '../../catalogue/action.js';
import { receiptCommitment, verifyReceipt } from '../../audit/receipt.js';
import { CanonicalizationError, canonicalize } from '../../protocol/canonical.js';
import { fail, textOfWireValue } from '../../protocol/errors.js';
import { requestHash } from '../../protocol/hash.js';
import { PLAN_ACTION } from '../../protocol/plan.js';
import type { PreviewEnvelope, ResultEnvelope } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import type { JobState, Risk } from '../../protocol/risk.js';
import { countsForLog } from '../../mask/mask.js';
import type { TxRecord } from '../../store/store.js';
import type { Caller } from '../authz.js';
import { principalName } from '../identity.js';
import { OutputStream, type NoticeSink } from '../output-stream.js';
import { errorForClient, maskForClient, releaseOutput } from '../output.js';
import { buildChange } from '../plan.js';
import { parseActionParams } from '../request-params.js';
import { inLane } from '../run-context.js';
import { storedPreview } from '../stored-preview.js';
import { action } from './catalogue.js';
import { executePlan } from './plan-execute.js';
import { iso, type TxRequest, type VerbContext } from './context.js';
import { refuseIfExpired } from './expiry.js';
import { changeProbes } from '../../catalogue/change-record.js';
import { stateDigest } from '../../catalogue/lib/state-probes.js';
import { keptRevert, probeAfter, probeBefore, stateCheck, undoneLine } from '../kept-change.js';
import { bootForChange } from '../reboots.js';
import { executeHostDown } from './host-down.js';

/** `r.notice`: where output notices go while it runs (the requesting connection; output-stream.ts). */
export async function execute(ctx: VerbContext, r: TxRequest<ParsedParams<'execute'>>): Promise<ResultEnvelope> {
  const { caller: who, params: req, tx } = r;
  // A plan (plan-preview.ts) is approved and checked as any transaction, then runs its steps as one (plan-execute.ts).
  const a = tx.actionName === PLAN_ACTION ? null : action(tx.actionName);
  const risk = tx.risk;
  // Finished long ago (compaction takes only finished ones): its preview is gone, not altered.
  if (tx.compactedAt !== null) fail('stale_approval', 'transaction_compacted', `${tx.id} is ${tx.state} and was compacted at ${iso(tx.compactedAt)}: its preview and parameters are no longer stored`, 'preview the action again');
  if (req.action_name !== tx.actionName) fail('stale_approval', 'request_mismatch', `the receipt is for ${tx.actionName}, not ${textOfWireValue(req.action_name, 64)}`);
  // A client sends back the parameters as the preview showed them; a declared secret shows
  // masked, and then the stored value is the one the approval covers.
  const stored = storedPreview(tx); // checked against its digest once, for the parameters shown and the change approved
  // A plan's steps are sent back as shown too, each step's declared secrets masked.
  const sent = a === null || a.secretParams?.length ? canonicalOrNull(req.params ?? {}) : undefined;
  const asShown = typeof sent === 'string' && sent === canonicalize(stored.params);
  const params = asShown ? tx.params : a === null ? (req.params ?? {}) : parseActionParams(a, req.params);
  // A plan's steps as sent are not parsed here: values no request hash can cover are another request.
  if ((a === null && sent === null) || requestHash(tx.actionName, params) !== tx.requestHash) {
    fail('stale_approval', 'request_mismatch', 'these parameters differ from the approved preview; the receipt was not used', 'preview the new parameters and have them approved');
  }
  const receipt = req.receipt;
  await refuseIfExpired(ctx, tx, ctx.now());
  if (tx.state !== 'Queued' || !tx.approvedBy) {
    if (tx.receiptCommitment !== null && tx.receiptCommitment === receiptCommitment(receipt)) {
      fail('stale_approval', 'receipt_already_consumed', `this receipt can no longer be used: ${tx.id} is ${tx.state}`, 'preview again and ask for a new approval');
    }
    fail('stale_approval', tx.state === 'Previewed' ? 'not_approved' : 'not_queued', `transaction ${tx.id} is ${tx.state === 'Previewed' ? 'not approved yet' : tx.state}`);
  }
  const claims = { transactionId: tx.id, requestHash: tx.requestHash, approver: tx.approvedBy!, executor: principalName({ uid: tx.requesterUid, user: tx.requesterName }), expiresAt: iso(tx.expiresAt) };
  if (!verifyReceipt(ctx.approvalKey, claims, receipt)) {
    // Signed for exactly this approval, by a key rotated out since: a clear word, not "invalid".
    if (ctx.retiredApprovalKeys().some((publicKey) => verifyReceipt({ publicKey }, claims, receipt))) {
      fail('stale_approval', 'key_rotated', `the approval key was rotated after this approval of ${tx.id}: its receipt no longer counts`, 'approve it again: preview the action again and have the new preview approved');
    }
    fail('stale_approval', 'bad_receipt', `the receipt is not a valid approval of ${tx.id}`, 'use the receipt printed by `airlock approve` for this transaction');
  }
  // Changes run one at a time: each re-reads the host after the previous one finished,
  // so two approved edits of one file cannot both build on the same old content.
  const unlock = a?.readOnly ? () => {} : await ctx.changeLane.take();
  try {
    // A change's programs (state readers and steps) take the change lane's slots, which reads cannot fill.
    if (a === null) return await inLane('change', () => executePlan(ctx, who, tx, stored, receipt, r.notice));
    return await inLane(a.readOnly ? 'read' : 'change', () => executeLocked(ctx, who, tx, stored, a, risk, params, receipt, r.notice));
  } finally {
    unlock();
  }
}

async function executeLocked(ctx: VerbContext, who: Caller, tx: TxRecord, stored: PreviewEnvelope, a: AnyAction, risk: Risk, params: Record<string, unknown>, receipt: string, stream?: NoticeSink): Promise<ResultEnvelope> {
  // Re-read the host: the mechanism is built from the state at execution time, and a
  // check that no longer holds refuses before the receipt is spent.
  // What runs must be what was approved: the change and every byte of the mechanism rebuilt
  // from the host as it is now must hash as the previewed ones did (LACS §5,
  // mechanism-binding.ts), or the receipt stays unspent. An approved "no change" that
  // would now change something is stale too: nobody approved that change.
  const { current, plan, bound } = await buildChange(a, params, ctx.host, who);
  const { steps } = plan;
  const approved = stored.proposed_change.digest;
  if (bound.proposed.digest !== approved || plan.changed !== (stored.no_change !== true)) {
    fail('stale_approval', 'state_changed', `the host changed since ${tx.id} was previewed, so the change would differ from the approved one; the receipt was not used`, 'preview again and have the new preview approved');
  }
  // Checks of the request's own text run on the approved text alone, and refuse before the receipt is spent.
  if (plan.changed) await a.verify?.(params, current, ctx.host);
  const release = ctx.executor.claim(steps);
  try {
    // The state the change touches, read before anything runs: what a rollback must bring back and a revert starts from.
    const probes = changeProbes(a, params, current, steps);
    const before = await probeBefore(probes, ctx.host);
    const now = ctx.now();
    const base = { preview_digest: tx.previewDigest, receipt_commitment: receiptCommitment(receipt) };
    // A change that needs a reboot names the boot it runs in: the daemon reconciles it once started in another (reboots.ts).
    const boot = bootForChange(a.reboot && plan.changed);
    ctx.heldReceipts.drop(tx.id);
    ctx.space?.ensureMargin(); // a full disk releases the reserve before this execute writes
    const outcome = await ctx.durably(() =>
      ctx.store.consumeReceipt(tx.id, receiptCommitment(receipt), now, [
        ctx.entry('approval_consumed', who, a.name, risk, tx.requestHash, tx.id, base),
        ctx.entry('execution_started', who, a.name, risk, tx.requestHash, tx.id, { steps: steps.length, ...(boot ? { boot_id: boot } : {}) }),
      ]),
    );
    if (outcome === 'expired') await refuseIfExpired(ctx, (await ctx.store.getTransaction(tx.id)) ?? tx, now);
    if (outcome === 'consumed') ctx.changed(tx.id);
    if (outcome !== 'consumed') {
      const why = { already_consumed: 'was already used', expired: 'has expired', not_queued: 'is no longer valid', not_found: 'is unknown', mismatch: 'does not match', consumed: '' }[outcome];
      fail('stale_approval', `receipt_${outcome}`, `the receipt for ${tx.id} ${why}`, 'preview again and ask for a new approval');
    }
    // Its step stops the daemon with the host: NeedsReboot is written before it starts (host-down.ts).
    if (a.takesHostDown && plan.changed) return await executeHostDown(ctx, who, tx, a, risk, steps, boot);
    const unmasked = stored.unmask === true;
    // Clear output (an unmasking approval) comes in the result alone, never streamed.
    const live = stream && !unmasked ? new OutputStream(tx.id, stream) : undefined;
    const run = await ctx.executor.runSteps(steps, a.filesFrom?.(current) ?? a.files, bound.filesAsRead, live, { failAfterLast: !a.readOnly && ctx.injectFailure() });
    await live?.finish();
    const after = await probeAfter(probes, ctx.host);
    // A rollback is verified: the state must read as it did before the first step. A revert must leave the state before the change it reverts.
    const check = !run.ok && run.rolledBack && typeof before !== 'string' ? stateCheck('before', probes, before, after) : run.ok && a.restores ? stateCheck('reverted', probes, a.restores(params, current), after) : undefined;
    // Rolled back only when verified: with state probes, they must have been read before and read the same now.
    const rolledBack = run.rolledBack && (probes.length === 0 || check?.matches === true);
    const state: JobState = run.ok ? (a.reboot && plan.changed ? 'NeedsReboot' : 'Succeeded') : rolledBack ? 'RolledBack' : 'Failed';
    // Whether the host was (or, for a failed job, may have been) changed: a read and a no-change change nothing.
    const changed = plan.changed && !a.readOnly;
    const out = await releaseOutput(run.output, undefined, unmasked);
    out.truncated ||= run.truncated;
    const undoneNote = !run.rolledBack
      ? ''
      : rolledBack
        ? ' (changes rolled back)'
        : check
          ? ` (changes undone, but these no longer read as before: ${check.differs.join(', ')})`
          : ' (changes undone, but not verified: the state they touched could not be read before them)';
    const summary = run.ok ? (plan.changed ? await outcomeSummary(ctx, a, params, tx.summary) : tx.summary) : `${tx.summary}: failed: ${await maskForClient(run.error!.message)}${undoneNote}`;
    const error = run.error ? await errorForClient(run.error) : null;
    const result: ResultEnvelope = {
      transaction_id: tx.id,
      action_name: a.name,
      request_hash: tx.requestHash,
      state,
      summary,
      needs_reboot: state === 'NeedsReboot',
      changed,
      rollback_ref: rolledBack ? tx.id : null,
      output: out.lines,
      output_truncated: out.truncated,
      ...(error ? { error } : {}),
      ...(check ? { state_check: check } : {}),
    };
    // What a revert needs, kept with the result (kept-change.ts); a read and a no-change keep nothing.
    const revert = run.ok && steps.length > 0 && !a.readOnly ? keptRevert(a, run.kept, probes, before, after) : undefined;
    await ctx.durably(() => ctx.store.finish(
      tx.id,
      state,
      { state, summary, needs_reboot: result.needs_reboot, changed, rollback_ref: result.rollback_ref, error, ...(check ? { state_check: check } : {}), ...(revert ? { revert } : {}), ...(state === 'NeedsReboot' ? { boot_id_before: boot ?? null } : {}) },
      ctx.now(),
      ctx.entry('outcome', who, a.name, risk, tx.requestHash, tx.id, {
        state,
        changed,
        error_category: run.error?.category ?? null,
        error_code: run.error?.code ?? null,
        rolled_back: rolledBack,
        ...(run.undone?.length ? { undone: run.undone.map(undoneLine) } : {}),
        ...(probes.length && typeof before !== 'string' ? { state_before: stateDigest(before), state_after: stateDigest(after) } : {}),
        ...(check ? { state_matches: check.matches } : {}),
        output_lines: out.lines.length,
        // What masking replaced (counts per kind, never the values); for an unmasking approval, what the clear output held.
        masked: countsForLog(out.masked),
        ...(unmasked ? { unmasked: true } : {}),
      }),
    ));
    return result;
  } finally {
    release();
  }
}

/**
 * The summary of a change that succeeded: the action's statement of the state it left
 * (read from the host again now), or the preview's summary when it has none or the read
 * fails (the change is done either way; a failed read changes nothing of the outcome).
 */
async function outcomeSummary(ctx: VerbContext, a: AnyAction, params: Record<string, unknown>, previewed: string): Promise<string> {
  if (!a.outcome) return previewed;
  try {
    return await maskForClient(a.outcome(params, await a.current(params, ctx.host)));
  } catch {
    return previewed;
  }
}

/** JCS of a value a client sent, or null when it has none (a lone surrogate, nesting too deep): it then matches nothing approved. */
function canonicalOrNull(v: unknown): string | null {
  try {
    return canonicalize(v);
  } catch (e) {
    if (e instanceof CanonicalizationError) return null;
    throw e;
  }
}
