/**
 * `preview`: the first step of the one door (invariant 2). Every action, reads included, is
 * previewed here: its parameters checked by the action's schema, the host read, the change and
 * the mechanism built and bound, host and agent text masked and escaped, and the transaction
 * stored with its signed `preview` entry in one store operation. The policy's lane may approve
 * it at once (autoApprove); anything else waits for a person, who is told.
 */
import { randomBytes } from 'node:crypto';
import type { AnyAction } from '../../catalogue/action.js';
import { rollbackAvailable, shownRollback } from '../../catalogue/rollback.js';
import { fail } from '../../protocol/errors.js';
import { escapeText } from '../../protocol/escape-text.js';
import { previewDigestInput, requestHash, sha256Hex } from '../../protocol/hash.js';
import type { AutoApprovalGrant, PreviewEnvelope, PreviewResult } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { minRoleForRisk, riskRank, type Risk } from '../../protocol/risk.js';
import { entryDraft } from '../../audit/entry.js';
import { approvalGrantedDetails, type ApprovalLane } from '../../audit/entry-details.js';
import { mintReceipt } from '../../audit/receipt.js';
import { countsForLog, type MaskCounts } from '../../mask/mask.js';
import { matchingRule, NO_CHANGE_RULE, READS_RULE, RULE_MAX_RISK, SESSION_RULE, type Rule } from '../../policy/policy.js';
import type { TxRecord } from '../../store/store.js';
import { autoApprovalLane, enforce, mayCall, mayPreview, mayRead, mayUnmask, type Caller } from '../authz.js';
import { principalName } from '../identity.js';
import { buildChange } from '../plan.js';
import { exhaustedNote, laneNotes } from '../policy-notes.js';
import { parseActionParams } from '../request-params.js';
import { shownParams, shownValue } from '../secret-params.js';
import { shownPreview } from '../shown-preview.js';
import { facts, previewedTransaction, storedFlags } from '../stored-preview.js';
import { action, platformProblem, riskOf } from './catalogue.js';
import { iso, type Request, type VerbContext } from './context.js';

/** A preview a person can review (and that fits a frame many times over). */
export const MAX_PREVIEW_BYTES = 256 * 1024;

export async function preview(ctx: VerbContext, r: Request<ParsedParams<'preview'>>): Promise<PreviewResult> {
  const { caller: who, params: req } = r;
  const a = action(req.action_name);
  const unmask = req.unmask === true;
  // Clear output is High whatever the read's own risk: only a person with their factor sees it (mayUnmask).
  const declaredRisk: Risk = unmask ? 'high' : riskOf(ctx, a);
  if (unmask) enforce(mayUnmask(who, a));
  enforce(mayPreview(who, a.name, declaredRisk));
  ctx.space?.refuseNewWork(); // new work waits for disk space; what is approved already still runs
  const problem = platformProblem(ctx, a);
  if (problem) fail('unsupported_platform', 'platform', problem);
  const params = parseActionParams(a, req.params);
  // A revert shows what another transaction kept: only its readers may ask for one (an unknown id is the action's to refuse).
  const named = a.readsTransaction?.(params);
  const namedTx = named === undefined ? null : await ctx.store.getTransaction(named);
  if (namedTx) enforce(mayRead(who, facts(namedTx)));
  const hash = requestHash(a.name, params);
  const proposal = req.proposal_id === undefined ? null : await answeredProposal(ctx, who, req.proposal_id, a.name);
  // A risk read from the state (a revert's: the reverted change's) only ever raises the declared one,
  // and is enforced before the action's check says anything more of that state (a drift, say).
  let risk = declaredRisk;
  const { current, plan, bound } = await buildChange(a, params, ctx.host, who, (cur) => {
    const read = a.riskFrom?.(cur);
    if (read && riskRank(read) > riskRank(risk)) risk = read;
    if (risk !== declaredRisk) enforce(mayPreview(who, a.name, risk));
  });
  const { parts, steps } = plan;
  await ctx.executor.checkPaths(steps); // a path handed to a program by name must be safe before anyone is asked
  // Checks run on the request's own text (a configuration on a staged copy) once the caller is known to be allowed.
  if (plan.changed) await a.verify?.(params, current, ctx.host);
  const created = ctx.now();
  const id = 'tx_' + randomBytes(12).toString('hex');
  // Host and agent text is masked and escaped here, before the digest: every client gets the
  // same safe text, and the digest covers what is shown (the approver approves what they saw).
  const masked: MaskCounts = {};
  const { summary, warnings, sideEffects, currentState, proposedChange } = await shownPreview(a, current, parts, bound, masked);
  const body: Omit<PreviewEnvelope, 'preview_digest'> = {
    transaction_id: id,
    action_name: a.name,
    params: shownParams(a, params, masked),
    request_hash: hash,
    summary,
    risk,
    min_role: minRoleForRisk(risk),
    current_state: currentState,
    proposed_change: proposedChange,
    side_effects: sideEffects,
    reboot_required: a.reboot,
    rollback_available: rollbackAvailable(a),
    ...(a.readOnly ? {} : { rollback: shownRollback(a.rollback) }),
    warnings,
    requested_by: escapeText(principalName(who)),
    ...(plan.changed ? {} : { no_change: true as const }),
    ...(who.unattended ? { unattended: true as const } : {}),
    ...(unmask ? { unmask: true as const } : {}),
    ...(proposal ? { from_proposal: proposal.id } : {}),
    created_at: iso(created),
    expires_at: iso(created + ctx.approvalTtlMs),
  };
  const canonical = previewDigestInput(body);
  const size = Buffer.byteLength(canonical, 'utf8');
  if (size > MAX_PREVIEW_BYTES) {
    fail('validation', 'preview_too_large', `the preview of ${a.name} would be ${size} bytes, over the ${MAX_PREVIEW_BYTES}-byte limit`, 'the file or state it shows is too large to review; fix it by hand');
  }
  const digest = sha256Hex(canonical);
  const envelope: PreviewEnvelope = { ...body, preview_digest: digest };
  await ctx.store.createTransaction(
    previewedTransaction(envelope, params, who, created, created + ctx.approvalTtlMs),
    ctx.entry('preview', who, a.name, risk, hash, id, { preview_digest: digest, summary, warnings, masked: countsForLog(masked), ...(unmask ? { unmask: true } : {}), ...(proposal ? { from_proposal: proposal.id } : {}) }),
  );
  // The proposal is answered by this new transaction: it leaves the inbox, and the log says by which.
  if (proposal) {
    await ctx.store.cancel(proposal.id, created, ctx.entry('canceled', who, proposal.actionName, proposal.risk, proposal.requestHash, proposal.id, { by: principalName(who), superseded_by: id }));
    ctx.changed(proposal.id);
  }
  const auto = unmask ? null : await autoApprove(ctx, who, a, risk, envelope, created);
  if (auto && 'grant' in auto) return { ...envelope, auto_approval: auto.grant };
  ctx.notify({ event: envelope.unattended ? 'proposal' : 'pending_approval', transaction_id: id, action: a.name, risk, summary, requested_by: envelope.requested_by, expires_at: envelope.expires_at });
  return auto?.notes.length ? { ...envelope, policy_notes: auto.notes } : envelope;
}

/**
 * The policy's lane: a non-sensitive read (rule "reads"), or a request a rule covers
 * exactly, within its cooldown and daily cap, gets a real receipt minted by the daemon,
 * logged with the rule id and the policy digest. Else the "this session" lane: a request
 * identical to one a person approved with a session grant (same requester, action and
 * parameters; never High) gets one logged with the grant. Unattended principals get the reads
 * lane only. Anything else, or a rule at its limit, waits for a person.
 */
async function autoApprove(ctx: VerbContext, caller: Caller, a: AnyAction, risk: Risk, p: PreviewEnvelope, now: number): Promise<{ grant: AutoApprovalGrant } | { notes: string[] }> {
  const policy = ctx.policy;
  const lane = autoApprovalLane(caller, a, risk, policy.reads, p.no_change === true);
  // A rule was checked against the action's declared risk; a risk read from the state (a revert of a High change) is over what rules approve.
  const rule: Rule | null = lane === 'rules' && riskRank(risk) <= riskRank(RULE_MAX_RISK) ? matchingRule(policy, a.name, p.params) : null;
  const forPerson = !lane || (lane === 'rules' && !rule);
  // A person's session grant, for a request the rules leave to a person: never a re-previewed proposal (a person works the inbox).
  const session = forPerson && !caller.unattended && p.from_proposal === undefined ? ctx.sessionGrants.match(principalName(caller), p.request_hash, risk, p.warnings) : undefined;
  if (session) {
    ctx.sessionGrants.used(session.id);
    const grant = await mintForLane(ctx, caller, a, risk, p, now, session.approver, { session: { grantId: session.id } });
    if (!grant || typeof grant === 'string') return { notes: [] };
    return { grant: { ...grant, rule: SESSION_RULE, policy_digest: policy.digest, session_grant: { grant_id: session.id, until: iso(session.expiresAt) } } };
  }
  // Not for the policy to approve: the preview says which rules came close, and why not.
  if (forPerson) return { notes: laneNotes(policy, caller, a, risk, lane, p.params, (n, v) => shownValue(a, n, v)) };
  const ruleId = rule?.id ?? (lane === 'no_change' ? NO_CHANGE_RULE : READS_RULE);
  // The rule's cap and cooldown are checked and counted by the store, with the approval, atomically.
  const grant = await mintForLane(ctx, caller, a, risk, p, now, `policy:${ruleId}`, { policy: { ruleId, policyDigest: policy.digest } }, rule ? { id: rule.id, dailyCap: rule.dailyCap, cooldownMs: rule.cooldownMs } : undefined);
  // At its cap or cooldown (or no longer pending): a person decides, and the preview says why the rule did not.
  if (grant === 'rule_exhausted') return { notes: [exhaustedNote(rule!, await ctx.store.ruleUsage(rule!.id, now), now)] };
  if (!grant) return { notes: [] };
  return { grant: { ...grant, rule: ruleId, policy_digest: policy.digest } };
}

/**
 * A receipt minted by the daemon for a lane (a policy rule's, or a session grant's), recorded
 * with its signed `approval_granted` entry (principal null: nobody approved it just now) and held
 * for the requester as a person's approval's is. 'rule_exhausted', or null when it is no longer pending.
 */
async function mintForLane(ctx: VerbContext, who: Caller, a: AnyAction, risk: Risk, p: PreviewEnvelope, now: number, approver: string, lane: ApprovalLane, rule?: { id: string; dailyCap: number; cooldownMs: number }) {
  const claims = { transactionId: p.transaction_id, requestHash: p.request_hash, approver, executor: principalName(who), expiresAt: iso(now + ctx.receiptTtlMs) };
  const { receipt, commitment } = mintReceipt(ctx.approvalKey, claims);
  const outcome = await ctx.store.recordApproval(
    p.transaction_id,
    { approvedBy: approver, commitment, expiresAt: now + ctx.receiptTtlMs, now, ...(rule ? { rule } : {}) },
    entryDraft('approval_granted', { transaction_id: p.transaction_id, action_name: a.name, risk, request_hash: p.request_hash, principal: null }, approvalGrantedDetails({ previewDigest: p.preview_digest, commitment, executor: claims.executor, expiresAt: claims.expiresAt }, lane)),
  );
  if (outcome === 'rule_exhausted') return outcome;
  if (outcome !== 'approved') return null;
  ctx.heldReceipts.hold(p.transaction_id, { requesterUid: who.uid, requesterPersonUid: who.person?.uid ?? null }, receipt, now + ctx.receiptTtlMs);
  return { transaction_id: p.transaction_id, request_hash: p.request_hash, receipt, approved_by: approver, executor: claims.executor, expires_at: claims.expiresAt };
}

/** The unattended proposal a re-preview answers: still pending, of the same action, and the caller may work the inbox. */
async function answeredProposal(ctx: VerbContext, who: Caller, id: string, action: string): Promise<TxRecord> {
  // Re-previewing a proposal works the inbox: the inbox's access (the door's `reviewer`).
  enforce(mayCall(who, 'reviewer', 'inbox'));
  const tx = await ctx.transaction(id);
  if (!storedFlags(tx).unattended) fail('validation', 'not_a_proposal', `${tx.id} is not a proposal of an unattended principal`, 'preview the action without --proposal');
  if (tx.actionName !== action) fail('validation', 'not_a_proposal', `${tx.id} proposes ${tx.actionName}, not ${action}`);
  if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `the proposal ${tx.id} is ${tx.state}`, 'see `airlock inbox`');
  return tx;
}
