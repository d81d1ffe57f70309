/**
 * `approve`: a person approves a preview they were shown. Who may, and with which factor, the
 * door decided (authz.ts mayApprove, the `approver` rule); here: a self-approval needs a
 * factor enrolled, then the deadline, the state, the digest of what they saw, their code, and
 * the receipt minted and recorded with its signed `approval_granted` entry in one store
 * operation. The receipt is held for the requester, whose wait is woken.
 *
 * Where the policy has two persons approve a High transaction ([approval] high = 2), every
 * check above still applies to each of them; the first approval is recorded (its factor spent
 * with its signed `approval_recorded` entry) and mints nothing, and the second, by another
 * person, mints the receipt (store/co-approval.ts). The count is read from the policy in force
 * at each approval: a reload between the two applies to the second.
 */
import { approvalGrantedDetails, approvalRecordedDetails, type FleetApproval } from '../../audit/entry-details.js';
import { mintReceipt } from '../../audit/receipt.js';
import { AirlockError, fail } from '../../protocol/errors.js';
import type { ApprovalAdvice, ApproveResult } from '../../protocol/messages.js';
import { approvalsNeeded } from '../../policy/policy.js';
import type { QuorumOutcome } from '../../store/co-approval.js';
import type { ParsedParams } from '../../protocol/methods.js';
import type { TxRecord } from '../../store/store.js';
import { enforce, mayApprove, selfApprovalNeedsFactor, type Approval, type Caller, type Refusal } from '../authz.js';
import { principalName } from '../identity.js';
import { personKey } from '../../protocol/person-key.js';
import { refuseSpentCode } from '../second-factor.js';
import { facts, storedFlags, storedPreview } from '../stored-preview.js';
import { SessionGrants, type Reservation } from '../session-grants.js';
import { PLAN_ACTION } from '../../protocol/plan.js';
import { iso, type TxRequest, type VerbContext } from './context.js';
import { refuseIfExpired } from './expiry.js';
import { passkeyRequired } from './passkey.js';

/**
 * `fleet`: the approval is the person's share of one passkey assertion over a fleet plan
 * (approve-fleet.ts, which checked this transaction's entry in it): the assertion is verified
 * over the fleet's challenge, and the entry records it; every other rule holds as written here.
 */
export async function approve(ctx: VerbContext, r: TxRequest<ParsedParams<'approve'>>, fleet?: FleetApproval): Promise<ApproveResult> {
  let reservation: Reservation | undefined;
  try {
    return await approveOnce(ctx, r, (key) => (reservation = ctx.sessionGrants.reserve(key)), fleet);
  } finally {
    // A session's place is given back whatever happened (a grant that started counts as itself).
    if (reservation) ctx.sessionGrants.release(reservation);
  }
}

async function approveOnce(ctx: VerbContext, r: TxRequest<ParsedParams<'approve'>>, reserve: (personKey: string) => Reservation, fleet: FleetApproval | undefined): Promise<ApproveResult> {
  const { caller: who, params: req, tx } = r;
  // The risk the approver was shown, fixed at preview (a later policy reload does not re-derive it).
  const risk = tx.risk;
  const d = await withFactorEnrolled(ctx, who, tx, r.approval!);
  if (!d.ok) return enforce(d) as never;
  const now = ctx.now();
  await refuseIfExpired(ctx, tx, now);
  if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`);
  if (req.preview_digest !== tx.previewDigest) {
    fail('stale_approval', 'digest_mismatch', 'the preview you were shown is not the one stored for this transaction', 'fetch the transaction again and approve what it shows');
  }
  const approver = principalName(who);
  // A passkey's assertion is the stronger factor (signed over this very preview, with user
  // verification); where the policy asks for one, a TOTP code approves nothing.
  if (req.assertion && req.totp_code !== undefined) fail('validation', 'two_factors', 'give a passkey assertion or a TOTP code, not both', 'approve with your passkey alone');
  const person = { key: personKey(d.person), user: d.person.user };
  const needed = personsNeeded(ctx, tx);
  // Refused before any factor is asked or spent; the store checks again in the approval's own transaction.
  if (needed > 1 && (await ctx.store.coApprovals(tx.id)).some((a) => a.approver === person.key)) refuseSameApprover(tx.id, needed);
  const sessionMinutes = req.session_minutes;
  // Refused, or its place held, before any factor is looked at or spent.
  const reservation = sessionMinutes !== undefined ? (refuseSession(tx, req.assertion !== undefined), reserve(person.key)) : undefined;
  if (fleet && (sessionMinutes !== undefined || !req.assertion)) fail('integrity', 'internal', 'a fleet approval is one passkey assertion and grants no session'); // approve-fleet.ts sends neither: fails closed
  const passkey = req.assertion ? await ctx.passkeys.verifyApproval(person, req.assertion, tx, { ...(sessionMinutes !== undefined ? { sessionMinutes } : {}), ...(fleet ? { fleet } : {}) }) : undefined;
  if (!passkey && passkeyRequired(ctx, d.selfApproval, risk)) {
    fail('authorization', 'passkey_required', `approving ${tx.id} (${risk} risk${d.selfApproval ? ', requested under your own account' : ''}) needs your passkey: the policy does not accept a TOTP code for it`, `approve it in the console (\`airlock console\`) with your passkey`);
  }
  const spend = d.secondFactor && !passkey
    ? await ctx.secondFactor.check(person.key, d.person.user, req.totp_code, tx.id, (details) => ctx.entry('totp_lockout', who, tx.actionName, risk, tx.requestHash, tx.id, details))
    : undefined;
  const expiresAt = now + ctx.receiptTtlMs;
  const claims = { transactionId: tx.id, requestHash: tx.requestHash, approver, executor: principalName({ uid: tx.requesterUid, user: tx.requesterName }), expiresAt: iso(expiresAt) };
  const { receipt, commitment } = mintReceipt(ctx.approvalKey, claims);
  const grantId = sessionMinutes !== undefined ? SessionGrants.newId() : undefined;
  const factor = { totp: spend !== undefined, ...(passkey ? { passkeyId: passkey.passkeyId } : {}), selfApproval: d.selfApproval, ...(grantId ? { sessionGrant: grantId } : {}), ...(fleet ? { fleet } : {}) };
  const granted = (coApprovers?: readonly string[]) =>
    ctx.entry('approval_granted', who, tx.actionName, risk, tx.requestHash, tx.id, approvalGrantedDetails({ previewDigest: tx.previewDigest, commitment, executor: claims.executor, expiresAt: claims.expiresAt }, { person: { ...factor, coApprovers } }));
  let recorded: { have: number; by: string[] } | undefined;
  await ctx.heldReceipts.approving(tx.id, async () => {
    // High goes through the count even when one person suffices: after a reload lowered it, the earlier approver is still named.
    const outcome: QuorumOutcome | Awaited<ReturnType<typeof ctx.store.recordApproval>> =
      risk === 'high'
        ? await ctx.store.recordQuorumApproval(
            tx.id,
            { approvedBy: claims.approver, person: person.key, previewDigest: req.preview_digest, needed, commitment, expiresAt, now, spend, ...(passkey ? { passkey } : {}) },
            {
              recorded: (have) => ctx.entry('approval_recorded', who, tx.actionName, risk, tx.requestHash, tx.id, approvalRecordedDetails({ previewDigest: tx.previewDigest, approver: claims.approver, needed, have }, factor)),
              granted: (co) => granted(co),
            },
          )
        : await ctx.store.recordApproval(tx.id, { approvedBy: claims.approver, commitment, expiresAt, now, spend, ...(passkey ? { passkey } : {}) }, granted());
    if (outcome === 'not_pending') await refuseIfExpired(ctx, await ctx.transaction(tx.id), now);
    if (outcome === 'not_pending') fail('stale_approval', 'not_pending', `transaction ${tx.id} is no longer waiting for approval`);
    if (outcome === 'digest_mismatch') fail('stale_approval', 'digest_mismatch', 'the preview you were shown is not the one stored for this transaction', 'fetch the transaction again and approve what it shows');
    if (outcome === 'same_approver') refuseSameApprover(tx.id, needed);
    if (outcome === 'step_spent') refuseSpentCode(spend!.step, now);
    if (outcome === 'passkey_replayed') fail('authorization', 'passkey_replayed', `that passkey assertion was used already, or its authenticator's counter went back (a cloned passkey?): ${tx.id} is not approved`, 'approve again with a fresh assertion; if this repeats, the passkey may be cloned: an admin approver deletes your passkeys (`sudo airlock totp reset --user YOU --passkeys`) and you register new ones');
    if (typeof outcome === 'object' && 'recorded' in outcome) {
      recorded = { have: outcome.recorded, by: (await ctx.store.coApprovals(tx.id)).map((a) => a.principal) };
      return;
    }
    if (outcome === 'rule_exhausted') fail('integrity', 'internal', 'a person\'s approval met a rule limit'); // no rule here: unreachable, fails closed
    ctx.heldReceipts.hold(tx.id, tx, receipt, expiresAt);
  });
  if (recorded) {
    // No receipt: the requester's wait goes on; the next approver's `transaction.get` shows this one.
    return { transaction_id: tx.id, recorded: true, approved_by: claims.approver, approvals: { needed, have: recorded.have, by: recorded.by } };
  }
  ctx.changed(tx.id); // a requester waiting for it gets the receipt now
  const session = grantId ? await startSession(ctx, who, tx, reservation!, { id: grantId, minutes: sessionMinutes!, now, passkeyId: passkey!.passkeyId, approverKey: person.key, approverUid: d.person.uid }, claims) : undefined;
  return { transaction_id: tx.id, request_hash: tx.requestHash, receipt, approved_by: claims.approver, executor: claims.executor, expires_at: claims.expiresAt, ...(session ? { session_grant: session } : {}) };
}

/**
 * Where a session was asked for, refused before any factor is spent unless it may be granted:
 * with a passkey (whose assertion signs the session's length too), never at High risk, never
 * for a plan (its steps are approved together, once) or an unattended proposal (those principals
 * get the reads lane only), within the bounds of grants in force.
 */
function refuseSession(tx: TxRecord, withPasskey: boolean): void {
  if (!withPasskey) fail('authorization', 'session_needs_passkey', 'a session is granted with a passkey, which signs its length', 'approve it in the console with your passkey, choosing the session there');
  const why = sessionRefusal(tx);
  if (why) throw why;
}

/** Why an approval of tx cannot grant a session, or null when it can. */
function sessionRefusal(tx: TxRecord): AirlockError | null {
  if (tx.risk === 'high') return new AirlockError('authorization', 'session_not_for_high', `${tx.id} is High risk: each High change is approved on its own`, 'approve it without a session');
  if (tx.actionName === PLAN_ACTION) return new AirlockError('authorization', 'session_not_for_plans', `${tx.id} is a plan: its steps are approved together, once`, 'approve it without a session');
  // Root's requests (through sudo or with nobody behind it) could be anyone's on the host: each is approved on its own.
  if (tx.requesterUid === 0) return new AirlockError('authorization', 'session_not_for_root', `${tx.id} was requested as root: root's requests are approved one at a time`, 'approve it without a session');
  if (storedFlags(tx).unattended) return new AirlockError('authorization', 'session_not_for_proposals', `${tx.id} is an unattended principal's proposal: those get the reads lane only`, 'approve it without a session');
  return null;
}

/**
 * Puts the session grant of an approval in force once its signed `session_granted` entry is
 * written, in the place reserved before the approval. When the entry cannot be written, or a
 * policy reload came meanwhile, the approval stands (its receipt is held already) without a
 * grant: the result has no `session_grant`, and identical requests wait for a person.
 */
async function startSession(ctx: VerbContext, who: Caller, tx: TxRecord, reservation: Reservation, s: { id: string; minutes: number; now: number; passkeyId: string; approverKey: string; approverUid: number }, claims: { approver: string; executor: string }) {
  const until = s.now + s.minutes * 60_000;
  const shown = storedPreview(tx);
  const grant = { id: s.id, approver: claims.approver, approverKey: s.approverKey, approverUid: s.approverUid, requester: claims.executor, actionName: tx.actionName, requestHash: tx.requestHash, risk: tx.risk, warnings: shown.warnings, shownParams: shown.params, firstTransaction: tx.id, grantedAt: s.now, expiresAt: until };
  const entry = ctx.entry('session_granted', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { grant_id: s.id, approver: claims.approver, requester: claims.executor, preview_digest: tx.previewDigest, passkey_id: s.passkeyId, until: iso(until) });
  try {
    const started = await ctx.sessionGrants.activate(reservation, grant, async () => void (await ctx.store.appendEntries([entry])));
    if (!started) ctx.log(`session grant ${s.id} of ${claims.approver} not started: the policy was reloaded meanwhile`);
    return started ? { grant_id: s.id, until: iso(until) } : undefined;
  } catch (e) {
    ctx.log(`session grant ${s.id} of ${claims.approver} not started: its entry could not be written (${(e as Error).message})`);
    return undefined;
  }
}

/** The same person again where the policy asks for distinct persons: refused, nothing spent. */
function refuseSameApprover(id: string, needed: number): never {
  return fail('authorization', 'same_approver', `you approved ${id} already: the policy asks ${needed} different persons to approve a High change ([approval] high = ${needed})`, `another approver must approve it (\`airlock approve ${id}\` from their own account)`);
}

/**
 * Whether the caller may approve tx, and with which factor: the same decision approve()
 * makes, so `airlock approve` refuses at once instead of asking first.
 */
export async function approvalAdvice(ctx: VerbContext, who: Caller, tx: TxRecord): Promise<ApprovalAdvice> {
  const d = mayApprove(who, facts(tx), ctx.policy.secondFactorFrom);
  const e = d.ok ? await withFactorEnrolled(ctx, who, tx, d) : d;
  const count = await approvalCount(ctx, tx);
  const approvals = count ? { approvals: { needed: count.needed, have: count.have.length, by: count.have.map((a) => a.principal) } } : {};
  if (e.ok && count?.have.some((a) => a.approver === personKey(e.person))) {
    const refusal = { category: 'authorization', code: 'same_approver', message: `you approved ${tx.id} already: the policy asks ${count.needed} different persons to approve a High change`, hint: `another approver must approve it (\`airlock approve ${tx.id}\` from their own account)` } as const;
    return { may_approve: false, second_factor: e.secondFactor, self_approval: e.selfApproval, ...approvals, refusal };
  }
  if (e.ok) {
    const session = tx.state === 'Previewed' && sessionRefusal(tx) === null ? { session_allowed: true as const } : {};
    return { may_approve: true, second_factor: e.secondFactor, self_approval: e.selfApproval, ...(passkeyRequired(ctx, e.selfApproval, tx.risk) ? { passkey_required: true } : {}), ...session, ...approvals };
  }
  const self = e.refusal.code === 'self_approval_needs_factor';
  return { may_approve: false, second_factor: self, self_approval: self, ...approvals, refusal: e.refusal };
}

/**
 * How many distinct persons must approve tx under the policy in force now. An unmasking preview
 * (High so that it takes a factor) is approved by its requester alone, by design (authz.ts): a
 * second person could never approve it, and what it releases goes to that person only.
 */
function personsNeeded(ctx: VerbContext, tx: TxRecord): number {
  return facts(tx).unmask ? 1 : approvalsNeeded(ctx.policy, tx.risk);
}

/** Where more than one person must approve tx (still waiting): how many, and who approved already; null otherwise. */
async function approvalCount(ctx: VerbContext, tx: TxRecord) {
  const needed = personsNeeded(ctx, tx);
  if (needed < 2 || tx.state !== 'Previewed') return null;
  return { needed, have: (await ctx.store.coApprovals(tx.id)).filter((a) => a.previewDigest === tx.previewDigest) };
}

/** An approval the door allowed (mayApprove), with a self-approval refused (saying how to get a factor) when the person has none enrolled. */
async function withFactorEnrolled(ctx: VerbContext, who: Caller, tx: TxRecord, d: Approval): Promise<{ ok: true } & Approval | { ok: false; refusal: Refusal }> {
  const key = personKey(d.person);
  if (d.selfApproval && !(await ctx.secondFactor.enrolled(key)) && (await ctx.store.passkeys(key)).length === 0) return { ok: false, refusal: selfApprovalNeedsFactor(who, facts(tx)) };
  return { ok: true, ...d };
}
