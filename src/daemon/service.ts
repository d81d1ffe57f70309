/**
 * The one door (invariant 2): every action, reads included, goes preview ->
 * approve -> execute here, and each step lands in the signed log in the same
 * store operation that changes the transaction's state. Role checks come first in
 * every method, before any parameter is looked at.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AnyAction, Host } from '../catalogue/action.js';
import { CATALOGUE } from '../catalogue/index.js';
import { exhaustedNote, laneNotes } from './policy-notes.js';
import { unknownActionError } from '../protocol/catalogue-metadata.js';
import { actionMetadata, warmActionMetadata } from '../catalogue/metadata.js';
import { canonicalize } from '../protocol/canonical.js';
import { AirlockError, fail, textOfWireValue } from '../protocol/errors.js';
import { escapeDeep, escapeText } from '../protocol/escape-text.js';
import { previewDigestInput, requestHash, sha256Hex } from '../protocol/hash.js';
import type { ActionDescription, ApprovalAdvice, CompactedPreview, ApprovalGrant, AuditEntriesPage, KeyRotated, AutoApprovalGrant, PolicyReloaded, PolicyView, PreviewEnvelope, ResultEnvelope, TransactionDetail, TransactionView, WaitOutcome } from '../protocol/messages.js';
import { STORE_CHECK_MAX_LINES, type StoreCheck } from '../protocol/messages.js';
import { minRoleForRisk, type JobState, type Risk, type TxState } from '../protocol/risk.js';
import { DAEMON_ACT, entryDraft, type EntryDraft, type EntryKind, type EntryPrincipal } from '../audit/entry.js';
import { approvalGrantedDetails, type EntryDetails } from '../audit/entry-details.js';
import type { SigningKey } from '../audit/keys.js';
import type { KeyObject } from 'node:crypto';
import type { KeyRotator } from './key-rotation.js';
import { mintReceipt, receiptCommitment, verifyReceipt } from '../audit/receipt.js';
import type { Store, TxRecord } from '../store/store.js';
import type { Executor } from './executor.js';
import { principalName, type Identity } from './identity.js';
import { autoApprovalLane, mayUnmask, isRequester, mayApprove, type ApprovalDecision, mayCall, mayDeny, mayEnrol, mayCancel, mayExecute, mayPreview, mayRead, mayWait, selfApprovalNeedsFactor, enforce, type Caller, type TxFacts } from './authz.js';
import type { Method } from '../protocol/methods.js';
import { OutputStream, type NoticeSink } from './output-stream.js';
import { errorForClient, maskForClient, masksForClient, maskValueForClient, releaseOutput, usePseudonyms } from './output.js';
import { shownParams, shownValue } from './secret-params.js';
import { parseActionParams } from './request-params.js';
import { countsForLog, type MaskCounts } from '../mask/mask.js';
import { bindMechanism } from './mechanism-binding.js';
import { planOf } from './plan.js';
import { isUnattendedProposal, previewForStore, storedFlags, storedPreview } from './stored-preview.js';
import { Slots } from './slots.js';
import { inLane } from './run-context.js';
import { refuseSpentCode, type SecondFactor } from './second-factor.js';
import { matchingRule, NO_CHANGE_RULE, READS_RULE, type Policy, type Rule } from '../policy/policy.js';
import { loadPolicyFile } from './policy-file.js';
import { RefusalLog } from './refusals.js';
import { TokenTable } from './tokens.js';
import type { NotifyEvent } from './notify.js';
import { TotpEnrolment } from './totp-enrolment.js';
import { Waiters } from './waiters.js';
import { denialOf, waitOutcome, waitTimeout, type DenialResult } from './wait-outcome.js';
import { auditPage } from './audit-page.js';
import type { DiskSpace } from './disk-space.js';

/** The approval key as rotation changes it (key-files.ts). */
export interface ApprovalKeys {
  readonly current: SigningKey;
  /** The public keys it had before the current one (read when a receipt fails: rare). */
  retired(): KeyObject[];
}

export interface ServiceOptions {
  store: Store;
  host: Host;
  executor: Executor;
  /** The approval key, or (the daemon) its rotating files: the current key and the ones it replaced. */
  approvalKey: SigningKey | ApprovalKeys;
  /** Serves `keys.rotate` (the daemon; absent in tests that build a service alone). */
  rotator?: KeyRotator;
  /** The policy in force at start; `reloadPolicy` replaces it (root only). */
  policy: Policy;
  /** Where the policy is re-read from on reload. */
  policyPath: string;
  /** The token file, read at start and re-read with the policy. */
  tokensPath: string;
  /** Tells people about a pending approval, a proposal or a reset second factor (fire and forget). */
  notify?: (policy: Policy, event: NotifyEvent) => void;
  /** How long a preview waits for approval, and a receipt for execution. */
  approvalTtlMs: number;
  receiptTtlMs: number;
  secondFactor: SecondFactor;
  /** The key of the policy's pseudonyms (mask.key). */
  pseudonymKey: Buffer;
  now?: () => number;
  /** The daemon's own log (stderr / journal). */
  log?: (msg: string) => void;
  /** Free space in the state directory (the daemon; absent in tests that build a service alone). */
  space?: DiskSpace;
}

const iso = (ms: number) => new Date(ms).toISOString();

type AutoApproval = AutoApprovalGrant;
/** A preview a person can review (and that fits a frame many times over). */
export const MAX_PREVIEW_BYTES = 256 * 1024;
/** The key a person's second factor is stored under: alice(uid 1001), whichever way they connect. */
const personKey = (p: { uid: number; user: string }) => `${p.user}(uid ${p.uid})`;
/** Receipts kept for their requester to fetch (`airlock run` waiting for another approver), at most this many. */
const MAX_HELD_RECEIPTS = 4096;
/** The longest reason a person may give for a denial, in UTF-16 code units (the string's length). */
export const MAX_DENY_REASON = 500;
/** Whose waits count together: the principal, and for root the person behind it (as isRequester tells requesters apart). */
const waitKey = (who: Identity) => (who.uid === 0 && who.via !== 'token' ? `0/${who.person?.uid ?? 'none'}` : String(who.uid));

/** What authz.ts needs to know about a stored transaction. */
function facts(tx: TxRecord): TxFacts {
  return { id: tx.id, risk: tx.risk, requesterUid: tx.requesterUid, requesterName: tx.requesterName, requesterPersonUid: tx.requesterPersonUid, ...storedFlags(tx) };
}

/** How long one store check's answer is reused (doctor runs it; a loop of calls costs one pass a minute). */
export const STORE_CHECK_REUSE_MS = 60_000;

export class AirlockService {
  private readonly now: () => number;
  private readonly changes = new Slots(1);
  private policy: Policy;
  private tokenTable: TokenTable;
  /** The receipt of each approved transaction, for its requester (in memory: a restart forgets them, the approver still has theirs). */
  private readonly heldReceipts = new Map<string, { receipt: string; expiresAt: number }>();
  /** Signed, coalesced entries for refused requests (the server records them; the sweep flushes their counts). */
  readonly refusals: RefusalLog;
  private readonly enrolment: TotpEnrolment;
  /** Requesters waiting for a decision on their transactions (`transaction.wait`). */
  readonly waiters = new Waiters();
  constructor(private readonly o: ServiceOptions) {
    this.now = o.now ?? Date.now;
    this.refusals = new RefusalLog(async (entries) => void (await o.store.appendEntries(entries)), this.now, o.log ?? (() => {}));
    this.policy = o.policy;
    usePseudonyms(o.pseudonymKey, o.policy.pseudonyms);
    this.tokenTable = TokenTable.load(o.tokensPath);
    this.enrolment = new TotpEnrolment({ store: o.store, factor: o.secondFactor, host: o.host, now: this.now, name: principalName, principal: entryPrincipal });
  }

  /** The approval key new receipts are signed with (the one a rotation made current). */
  private get approvalKey(): SigningKey {
    const k = this.o.approvalKey;
    return 'privateKey' in k ? k : k.current;
  }

  private retiredApprovalKeys(): KeyObject[] {
    const k = this.o.approvalKey;
    return 'privateKey' in k ? [] : k.retired();
  }

  /** `keys.rotate` (admin persons only: authz.ts): the rotation entry is signed under their name. */
  async rotateKey(who: Identity, req: { key?: unknown }): Promise<KeyRotated> {
    if (!this.o.rotator) fail('integrity', 'internal', 'this daemon cannot rotate keys');
    return this.o.rotator!.rotate(entryPrincipal(who), req.key);
  }

  get tokens(): TokenTable {
    return this.tokenTable;
  }

  get currentPolicy(): Policy {
    return this.policy;
  }

  riskOf(action: AnyAction): Risk {
    return this.policy.riskOverrides.get(action.name) ?? action.risk;
  }

  /**
   * An admin approver, through sudo and with their own code, has the daemon re-read the
   * policy file. A file that fails its checks changes nothing (and spends no code); a good
   * one takes effect at once and the signed log records the old and new digests.
   */
  async reloadPolicy(who: Identity, req: { totp_code?: unknown }): Promise<PolicyReloaded> {
    const next = loadPolicyFile(this.o.policyPath);
    const nextTokens = TokenTable.load(this.o.tokensPath);
    const old = this.policy;
    const how = 'run `sudo airlock policy reload` in a terminal: it asks for your code';
    const spend = await this.enrolment.ownCode(who, req.totp_code, { what: 'reloading the policy', how });
    const appended = await this.o.store.appendEntries(
      [entryDraft('policy_reloaded', { ...DAEMON_ACT, principal: entryPrincipal(who) }, { old_digest: old.digest, new_digest: next.digest, source: next.source, tokens: nextTokens.size })],
      spend,
    );
    if (appended === 'step_spent') refuseSpentCode(spend.step, this.now());
    this.policy = next;
    usePseudonyms(this.o.pseudonymKey, next.pseudonyms);
    this.tokenTable = nextTokens;
    return { old_digest: old.digest, new_digest: next.digest, source: next.source };
  }

  /** The policy's digest and settings, for `airlock policy show` (any principal: it holds no secret). */
  showPolicy(): PolicyView {
    const p = this.policy;
    return { digest: p.digest, source: p.source, path: this.o.policyPath, reads: p.reads, second_factor_from: p.secondFactorFrom, unattended: p.unattended, rules: p.rules.map((r) => r.id), risk_overrides: Object.fromEntries(p.riskOverrides), pseudonyms: p.pseudonyms };
  }

  /** The caller as authz.ts judges it. */
  caller(who: Identity): Caller {
    return { ...who, unattended: this.isUnattended(who) };
  }

  /** The person whose factor this caller enrols (authz.ts). */
  private enrolling(who: Identity): { uid: number; user: string } {
    const d = mayEnrol(this.caller(who));
    if (!d.ok) return enforce(d) as never;
    return d.person;
  }

  /** The method table of authz.ts, before any handler runs. */
  authorize(who: Identity, method: Method): void {
    enforce(mayCall(this.caller(who), method));
  }

  isUnattended(who: Identity): boolean {
    // Through sudo, the person behind it: an unattended user's sudo stays unattended.
    const user = who.uid === 0 ? who.person?.user : who.user;
    return who.unattended === true || (who.via !== 'token' && user !== undefined && this.policy.unattended.includes(user));
  }

  /**
   * The catalogue as clients see it, built once per policy (risks come from the policy's
   * [risk] table, and a reload replaces the policy object) from each action's metadata.
   */
  private listing: { policy: Policy; actions: ActionDescription[] } | null = null;
  /**
   * Every action's metadata (its schema as JSON Schema), made one action per turn as the daemon
   * starts: made all at once by the first actions.list, it held the event loop for hundreds of ms.
   */
  private readonly metadataReady = warmActionMetadata(CATALOGUE.values());

  async listActions(who: Identity): Promise<ActionDescription[]> {
    await this.metadataReady;
    if (this.listing?.policy !== this.policy) this.listing = { policy: this.policy, actions: [...CATALOGUE.values()].map((a) => this.describe(who, a.name)) };
    return this.listing.actions;
  }

  describe(_who: Identity, name: unknown): ActionDescription {
    const a = this.action(name);
    const risk = this.riskOf(a);
    // The declaration's own description (src/catalogue/metadata.ts, also what clients read with
    // no daemon), with what only the daemon knows: the policy's risk and this host's support.
    return { ...actionMetadata(a), risk, min_role: minRoleForRisk(risk), supported_here: this.platformProblem(a) === null };
  }

  async preview(who: Identity, req: { action_name?: unknown; params?: unknown; proposal_id?: unknown; unmask?: unknown }): Promise<PreviewEnvelope & { auto_approval?: AutoApproval; policy_notes?: string[] }> {
    const a = this.action(req.action_name);
    const unmask = req.unmask === true;
    if (req.unmask !== undefined && typeof req.unmask !== 'boolean') fail('validation', 'bad_unmask', 'unmask must be true or false');
    // Clear output is High whatever the read's own risk: only a person with their factor sees it (mayUnmask).
    const risk: Risk = unmask ? 'high' : this.riskOf(a);
    if (unmask) enforce(mayUnmask(this.caller(who), a));
    enforce(mayPreview(this.caller(who), a.name, risk));
    this.o.space?.refuseNewWork(); // new work waits for disk space; what is approved already still runs
    const problem = this.platformProblem(a);
    if (problem) fail('unsupported_platform', 'platform', problem);
    const params = parseActionParams(a, req.params);
    const hash = requestHash(a.name, params);
    const proposal = req.proposal_id === undefined ? null : await this.proposal(who, req.proposal_id, a.name);
    const current = await a.current(params, this.o.host);
    const plan = planOf(a, params, current);
    const { parts, steps } = plan;
    await this.o.executor.checkPaths(steps); // a path handed to a program by name must be safe before anyone is asked
    const bound = await bindMechanism(a, parts.change, steps, this.o.host);
    const created = this.now();
    const id = 'tx_' + randomBytes(12).toString('hex');
    // Host and agent text is masked and escaped here, before the digest: every client gets the
    // same safe text, and the digest covers what is shown (the approver approves what they saw).
    // `bound.proposed.digest` covers the raw bytes, so what runs is still bound byte for byte.
    const masked: MaskCounts = {};
    const [summary = '', ...warnings] = await masksForClient([parts.summary, ...(parts.warnings ?? []), ...bound.notes], masked);
    const sideEffects = await masksForClient(parts.sideEffects ?? [], masked);
    const currentState = escapeDeep(await maskValueForClient(jsonSafe(a.shown ? a.shown(current) : current), masked));
    const proposedChange = escapeDeep(await maskValueForClient(bound.proposed, masked));
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
      rollback_available: a.rollback,
      warnings,
      requested_by: escapeText(principalName(who)),
      ...(plan.changed ? {} : { no_change: true as const }),
      ...(this.isUnattended(who) ? { unattended: true as const } : {}),
      ...(unmask ? { unmask: true as const } : {}),
      ...(proposal ? { from_proposal: proposal.id } : {}),
      created_at: iso(created),
      expires_at: iso(created + this.o.approvalTtlMs),
    };
    const canonical = previewDigestInput(body);
    const size = Buffer.byteLength(canonical, 'utf8');
    if (size > MAX_PREVIEW_BYTES) {
      fail('validation', 'preview_too_large', `the preview of ${a.name} would be ${size} bytes, over the ${MAX_PREVIEW_BYTES}-byte limit`, 'the file or state it shows is too large to review; fix it by hand');
    }
    const digest = sha256Hex(canonical);
    const envelope: PreviewEnvelope = { ...body, preview_digest: digest };
    await this.o.store.createTransaction(
      {
        id,
        actionName: a.name,
        params,
        requestHash: hash,
        risk,
        state: 'Previewed',
        requesterUid: who.uid,
        requesterName: who.user,
        requesterRole: who.role,
        requesterPersonUid: who.person?.uid ?? null,
        preview: previewForStore(envelope),
        previewDigest: digest,
        summary,
        createdAt: created,
        updatedAt: created,
        expiresAt: created + this.o.approvalTtlMs,
        approvedBy: null,
        receiptCommitment: null,
        result: null,
        compactedAt: null,
      },
      this.entry('preview', who, a.name, risk, hash, id, { preview_digest: digest, summary, warnings, masked: countsForLog(masked), ...(unmask ? { unmask: true } : {}), ...(proposal ? { from_proposal: proposal.id } : {}) }),
    );
    // The proposal is answered by this new transaction: it leaves the inbox, and the log says by which.
    if (proposal) {
      await this.o.store.cancel(proposal.id, created, this.entry('canceled', who, proposal.actionName, proposal.risk, proposal.requestHash, proposal.id, { by: principalName(who), superseded_by: id }));
      this.changed(proposal.id);
    }
    const auto = unmask ? null : await this.autoApprove(who, a, risk, envelope, created);
    if (auto && 'grant' in auto) return { ...envelope, auto_approval: auto.grant };
    this.o.notify?.(this.policy, { event: envelope.unattended ? 'proposal' : 'pending_approval', transaction_id: id, action: a.name, risk, summary, requested_by: envelope.requested_by, expires_at: envelope.expires_at });
    return auto?.notes.length ? { ...envelope, policy_notes: auto.notes } : envelope;
  }

  /**
   * The policy's lane: a non-sensitive read (rule "reads"), or a request a rule covers
   * exactly, within its cooldown and daily cap, gets a real receipt minted by the daemon,
   * logged with the rule id and the policy digest. Unattended principals get the reads
   * lane only. Anything else, or a rule at its limit, waits for a person.
   */
  private async autoApprove(who: Identity, a: AnyAction, risk: Risk, p: PreviewEnvelope, now: number): Promise<{ grant: AutoApproval } | { notes: string[] }> {
    const policy = this.policy;
    const caller = this.caller(who);
    const lane = autoApprovalLane(caller, a, risk, policy.reads, p.no_change === true);
    const rule: Rule | null = lane === 'rules' ? matchingRule(policy, a.name, p.params) : null;
    // Not for the policy to approve: the preview says which rules came close, and why not.
    if (!lane || (lane === 'rules' && !rule)) return { notes: laneNotes(policy, caller, a, risk, lane, p.params, (n, v) => shownValue(a, n, v)) };
    const ruleId = rule?.id ?? (lane === 'no_change' ? NO_CHANGE_RULE : READS_RULE);
    const approver = `policy:${ruleId}`;
    const claims = { transactionId: p.transaction_id, requestHash: p.request_hash, approver, executor: principalName(who), expiresAt: iso(now + this.o.receiptTtlMs) };
    const { receipt, commitment } = mintReceipt(this.approvalKey, claims);
    const outcome = await this.o.store.recordApproval(
      p.transaction_id,
      // The rule's cap and cooldown are checked and counted by the store, with the approval, atomically.
      { approvedBy: approver, commitment, expiresAt: now + this.o.receiptTtlMs, now, ...(rule ? { rule: { id: rule.id, dailyCap: rule.dailyCap, cooldownMs: rule.cooldownMs } } : {}) },
      entryDraft('approval_granted', { transaction_id: p.transaction_id, action_name: a.name, risk, request_hash: p.request_hash, principal: null }, approvalGrantedDetails({ previewDigest: p.preview_digest, commitment, executor: claims.executor, expiresAt: claims.expiresAt }, { policy: { ruleId, policyDigest: policy.digest } })),
    );
    // At its cap or cooldown (or no longer pending): a person decides, and the preview says why the rule did not.
    if (outcome === 'rule_exhausted') return { notes: [exhaustedNote(rule!, await this.o.store.ruleUsage(rule!.id, now), now)] };
    if (outcome !== 'approved') return { notes: [] };
    return { grant: { transaction_id: p.transaction_id, request_hash: p.request_hash, receipt, approved_by: approver, executor: claims.executor, expires_at: claims.expiresAt, rule: ruleId, policy_digest: policy.digest } };
  }

  /** The unattended proposal a re-preview answers: still pending, of the same action, and the caller may work the inbox. */
  private async proposal(who: Identity, id: unknown, action: string): Promise<TxRecord> {
    enforce(mayCall(this.caller(who), 'inbox'));
    const tx = await this.tx(id);
    if (!facts(tx).unattended) fail('validation', 'not_a_proposal', `${tx.id} is not a proposal of an unattended principal`, 'preview the action without --proposal');
    if (tx.actionName !== action) fail('validation', 'not_a_proposal', `${tx.id} proposes ${tx.actionName}, not ${action}`);
    if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `the proposal ${tx.id} is ${tx.state}`, 'see `airlock inbox`');
    return tx;
  }

  /** Proposals by unattended principals, newest first, for a person to re-preview (`airlock inbox run`). */
  async inbox(who: Identity): Promise<TransactionView[]> {
    const rows = await this.o.store.history({ limit: 1000 });
    return rows.filter(isUnattendedProposal).slice(0, 200).map(view);
  }

  async transaction(who: Identity, req: { transaction_id?: unknown }): Promise<TransactionDetail> {
    const tx = await this.tx(req.transaction_id);
    // The preview shows host state (key lines, account flags): only the requester, approvers and admins see it.
    enforce(mayRead(this.caller(who), facts(tx)));
    const held = isRequester(who, facts(tx)) && tx.state === 'Queued' ? this.heldReceipts.get(tx.id) : undefined;
    return { ...view(tx), preview: tx.compactedAt !== null ? compactedPreview(tx) : storedPreview(tx), result: tx.result, your_approval: await this.approvalAdvice(who, tx), ...(held && held.expiresAt > this.now() ? { receipt: held.receipt } : {}) };
  }

  /**
   * Whether the caller may approve tx, and with which factor: the same decision approve()
   * makes, so `airlock approve` refuses at once instead of asking first.
   */
  private async approvalAdvice(who: Identity, tx: TxRecord): Promise<ApprovalAdvice> {
    const d = await this.approvalDecision(who, tx);
    if (d.ok) return { may_approve: true, second_factor: d.secondFactor, self_approval: d.selfApproval };
    const self = d.refusal.code === 'self_approval_needs_factor';
    return { may_approve: false, second_factor: self, self_approval: self, refusal: d.refusal };
  }

  /** mayApprove, with a self-approval refused (saying how to get a factor) when the person has none enrolled. */
  private async approvalDecision(who: Identity, tx: TxRecord): Promise<ApprovalDecision> {
    const d = mayApprove(this.caller(who), facts(tx), this.policy.secondFactorFrom);
    if (d.ok && d.selfApproval && !(await this.o.secondFactor.enrolled(personKey(d.person)))) return { ok: false, refusal: selfApprovalNeedsFactor(this.caller(who), facts(tx)) };
    return d;
  }

  async approve(who: Identity, req: { transaction_id?: unknown; preview_digest?: unknown; totp_code?: unknown }): Promise<ApprovalGrant> {
    const tx = await this.tx(req.transaction_id);
    const a = this.action(tx.actionName);
    // The risk the approver was shown, fixed at preview (a later policy reload does not re-derive it).
    const risk = tx.risk;
    const d = await this.approvalDecision(who, tx);
    if (!d.ok) return enforce(d) as never;
    const now = this.now();
    await this.refuseIfExpired(tx, now);
    if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`);
    if (typeof req.preview_digest !== 'string' || req.preview_digest !== tx.previewDigest) {
      fail('stale_approval', 'digest_mismatch', 'the preview you were shown is not the one stored for this transaction', 'fetch the transaction again and approve what it shows');
    }
    const approver = principalName(who);
    const spend = d.secondFactor
      ? await this.o.secondFactor.check(personKey(d.person), d.person.user, req.totp_code, tx.id, (details) => this.entry('totp_lockout', who, a.name, risk, tx.requestHash, tx.id, details))
      : undefined;
    const expiresAt = now + this.o.receiptTtlMs;
    const claims = { transactionId: tx.id, requestHash: tx.requestHash, approver, executor: principalName({ uid: tx.requesterUid, user: tx.requesterName }), expiresAt: iso(expiresAt) };
    const { receipt, commitment } = mintReceipt(this.approvalKey, claims);
    const outcome = await this.o.store.recordApproval(
      tx.id,
      { approvedBy: claims.approver, commitment, expiresAt, now, spend },
      this.entry('approval_granted', who, a.name, risk, tx.requestHash, tx.id, approvalGrantedDetails({ previewDigest: tx.previewDigest, commitment, executor: claims.executor, expiresAt: claims.expiresAt }, { person: { totp: spend !== undefined, selfApproval: d.selfApproval } })),
    );
    if (outcome === 'not_pending') await this.refuseIfExpired(await this.tx(tx.id), now);
    if (outcome === 'not_pending') fail('stale_approval', 'not_pending', `transaction ${tx.id} is no longer waiting for approval`);
    if (outcome === 'step_spent') refuseSpentCode(spend!.step, now);
    this.holdReceipt(tx.id, receipt, expiresAt);
    this.changed(tx.id); // a requester waiting for it gets the receipt now
    return { transaction_id: tx.id, request_hash: tx.requestHash, receipt, approved_by: claims.approver, executor: claims.executor, expires_at: claims.expiresAt };
  }

  private holdReceipt(id: string, receipt: string, expiresAt: number): void {
    // Oldest first out: a flood of approvals cannot grow the map past its bound (the sweep drops expired ones).
    while (this.heldReceipts.size >= MAX_HELD_RECEIPTS) this.heldReceipts.delete(this.heldReceipts.keys().next().value!);
    this.heldReceipts.set(id, { receipt, expiresAt });
  }

  /** A person enrols their own second factor: a pending secret, returned to this connection only (totp-enrolment.ts). */
  async totpEnroll(who: Identity, req: Record<string, unknown>) {
    return this.enrolment.issue(who, this.enrolling(who), req);
  }

  /** The person's first code makes their pending secret their factor. */
  async totpConfirm(who: Identity, req: Record<string, unknown>) {
    const r = await this.enrolment.confirm(this.caller(who), this.enrolling(who), req);
    const event = r.state === 'confirmed' ? 'totp_enrolled' : 'totp_awaiting_approval';
    this.o.notify?.(this.policy, { event, approver: r.approver, by: principalName(who), at: iso(this.now()) });
    return r;
  }

  /** Another approver, with their own code, vouches for a person's proven first enrolment; whoever the policy names is told. */
  async totpApprove(who: Identity, req: Record<string, unknown>) {
    const r = await this.enrolment.approve(this.caller(who), req);
    for (const a of r.approved) this.o.notify?.(this.policy, { event: 'totp_enrolled', approver: a.approver, by: principalName(who), at: iso(this.now()) });
    return r;
  }

  /** An admin approver (through sudo, with their own code) deletes another person's factor, logged; whoever the policy names is told. */
  async totpReset(who: Identity, req: Record<string, unknown>) {
    const r = await this.enrolment.reset(this.caller(who), req);
    this.o.notify?.(this.policy, { event: 'totp_reset', approver: r.approver, by: principalName(who), at: iso(this.now()) });
    return r;
  }

  /** `stream`: where output notices go while it runs (the requesting connection; output-stream.ts). */
  async execute(who: Identity, req: { transaction_id?: unknown; action_name?: unknown; params?: unknown; receipt?: unknown }, stream?: NoticeSink): Promise<ResultEnvelope> {
    const tx = await this.tx(req.transaction_id);
    const a = this.action(tx.actionName);
    const risk = tx.risk;
    enforce(mayExecute(this.caller(who), facts(tx), a.name));
    // Finished long ago (compaction takes only finished ones): its preview is gone, not altered.
    if (tx.compactedAt !== null) fail('stale_approval', 'transaction_compacted', `${tx.id} is ${tx.state} and was compacted at ${iso(tx.compactedAt)}: its preview and parameters are no longer stored`, 'preview the action again');
    if (req.action_name !== tx.actionName) fail('stale_approval', 'request_mismatch', `the receipt is for ${tx.actionName}, not ${textOfWireValue(req.action_name, 64)}`);
    // A client sends back the parameters as the preview showed them; a declared secret shows
    // masked, and then the stored value is the one the approval covers.
    const stored = storedPreview(tx); // checked against its digest once, for the parameters shown and the change approved
    const params = a.secretParams?.length && canonicalize(req.params ?? {}) === canonicalize(stored.params) ? tx.params : parseActionParams(a, req.params);
    if (requestHash(a.name, params) !== tx.requestHash) {
      fail('stale_approval', 'request_mismatch', 'these parameters differ from the approved preview; the receipt was not used', 'preview the new parameters and have them approved');
    }
    const receipt = typeof req.receipt === 'string' ? req.receipt : '';
    await this.refuseIfExpired(tx, this.now());
    if (tx.state !== 'Queued' || !tx.approvedBy) {
      if (tx.receiptCommitment !== null && tx.receiptCommitment === receiptCommitment(receipt)) {
        fail('stale_approval', 'receipt_already_consumed', `this receipt can no longer be used: ${tx.id} is ${tx.state}`, 'preview again and ask for a new approval');
      }
      fail('stale_approval', tx.state === 'Previewed' ? 'not_approved' : 'not_queued', `transaction ${tx.id} is ${tx.state === 'Previewed' ? 'not approved yet' : tx.state}`);
    }
    const claims = { transactionId: tx.id, requestHash: tx.requestHash, approver: tx.approvedBy!, executor: principalName({ uid: tx.requesterUid, user: tx.requesterName }), expiresAt: iso(tx.expiresAt) };
    if (!verifyReceipt(this.approvalKey, claims, receipt)) {
      // Signed for exactly this approval, by a key rotated out since: a clear word, not "invalid".
      if (this.retiredApprovalKeys().some((publicKey) => verifyReceipt({ publicKey }, claims, receipt))) {
        fail('stale_approval', 'key_rotated', `the approval key was rotated after this approval of ${tx.id}: its receipt no longer counts`, 'approve it again: preview the action again and have the new preview approved');
      }
      fail('stale_approval', 'bad_receipt', `the receipt is not a valid approval of ${tx.id}`, 'use the receipt printed by `airlock approve` for this transaction');
    }
    // Changes run one at a time: each re-reads the host after the previous one finished,
    // so two approved edits of one file cannot both build on the same old content.
    const unlock = a.readOnly ? () => {} : await this.changes.take();
    try {
      // A change's programs (state readers and steps) take the change lane's slots, which reads cannot fill.
      return await inLane(a.readOnly ? 'read' : 'change', () => this.executeLocked(who, tx, stored, a, risk, params, receipt, stream));
    } finally {
      unlock();
    }
  }

  private async executeLocked(who: Identity, tx: TxRecord, stored: PreviewEnvelope, a: AnyAction, risk: Risk, params: Record<string, unknown>, receipt: string, stream?: NoticeSink): Promise<ResultEnvelope> {
    // Re-read the host: the mechanism is built from the state at execution time, and a
    // check that no longer holds refuses before the receipt is spent.
    const current = await a.current(params, this.o.host);
    const plan = planOf(a, params, current);
    const { steps } = plan;
    // What runs must be what was approved: the change and every byte of the mechanism rebuilt
    // from the host as it is now must hash as the previewed ones did (LACS §5,
    // mechanism-binding.ts), or the receipt stays unspent. An approved "no change" that
    // would now change something is stale too: nobody approved that change.
    const approved = stored.proposed_change.digest;
    const bound = await bindMechanism(a, plan.parts.change, steps, this.o.host);
    if (bound.proposed.digest !== approved || plan.changed !== (stored.no_change !== true)) {
      fail('stale_approval', 'state_changed', `the host changed since ${tx.id} was previewed, so the change would differ from the approved one; the receipt was not used`, 'preview again and have the new preview approved');
    }
    const release = this.o.executor.claim(steps);
    try {
      const now = this.now();
      const base = { preview_digest: tx.previewDigest, receipt_commitment: receiptCommitment(receipt) };
      this.heldReceipts.delete(tx.id);
      this.o.space?.ensureMargin(); // a full disk releases the reserve before this execute writes
      const outcome = await this.durably(() =>
        this.o.store.consumeReceipt(tx.id, receiptCommitment(receipt), now, [
          this.entry('approval_consumed', who, a.name, risk, tx.requestHash, tx.id, base),
          this.entry('execution_started', who, a.name, risk, tx.requestHash, tx.id, { steps: steps.length }),
        ]),
      );
      if (outcome === 'expired') await this.refuseIfExpired((await this.o.store.getTransaction(tx.id)) ?? tx, now);
      if (outcome === 'consumed') this.changed(tx.id);
      if (outcome !== 'consumed') {
        const why = { already_consumed: 'was already used', expired: 'has expired', not_queued: 'is no longer valid', not_found: 'is unknown', mismatch: 'does not match', consumed: '' }[outcome];
        fail('stale_approval', `receipt_${outcome}`, `the receipt for ${tx.id} ${why}`, 'preview again and ask for a new approval');
      }
      const unmasked = stored.unmask === true;
      // Clear output (an unmasking approval) comes in the result alone, never streamed.
      const live = stream && !unmasked ? new OutputStream(tx.id, stream) : undefined;
      const run = await this.o.executor.runSteps(steps, a.files, bound.filesAsRead, live);
      await live?.finish();
      const state: JobState = run.ok ? (a.reboot && plan.changed ? 'NeedsReboot' : 'Succeeded') : run.rolledBack ? 'RolledBack' : 'Failed';
      // Whether the host was (or, for a failed job, may have been) changed: a read and a no-change change nothing.
      const changed = plan.changed && !a.readOnly;
      const out = await releaseOutput(run.output, undefined, unmasked);
      out.truncated ||= run.truncated;
      const summary = run.ok ? (plan.changed ? await this.outcomeSummary(a, params, tx.summary) : tx.summary) : `${tx.summary}: failed: ${await maskForClient(run.error!.message)}${run.rolledBack ? ' (changes rolled back)' : ''}`;
      const error = run.error ? await errorForClient(run.error) : null;
      const result: ResultEnvelope = {
        transaction_id: tx.id,
        action_name: a.name,
        request_hash: tx.requestHash,
        state,
        summary,
        needs_reboot: state === 'NeedsReboot',
        changed,
        rollback_ref: run.rolledBack ? tx.id : null,
        output: out.lines,
        output_truncated: out.truncated,
        ...(error ? { error } : {}),
      };
      await this.durably(() => this.o.store.finish(
        tx.id,
        state,
        { state, summary, needs_reboot: result.needs_reboot, changed, rollback_ref: result.rollback_ref, error },
        this.now(),
        this.entry('outcome', who, a.name, risk, tx.requestHash, tx.id, {
          state,
          changed,
          error_category: run.error?.category ?? null,
          error_code: run.error?.code ?? null,
          rolled_back: run.rolledBack,
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
  private async outcomeSummary(a: AnyAction, params: Record<string, unknown>, previewed: string): Promise<string> {
    if (!a.outcome) return previewed;
    try {
      return await maskForClient(a.outcome(params, await a.current(params, this.o.host)));
    } catch {
      return previewed;
    }
  }

  async cancel(who: Identity, req: { transaction_id?: unknown }): Promise<TransactionView> {
    const tx = await this.tx(req.transaction_id);
    enforce(mayCancel(this.caller(who), facts(tx)));
    const a = this.action(tx.actionName);
    const ok = await this.o.store.cancel(tx.id, this.now(), this.entry('canceled', who, a.name, tx.risk, tx.requestHash, tx.id, { by: principalName(who) }));
    if (!ok) fail('conflict', 'not_cancelable', `transaction ${tx.id} is ${tx.state}; only Previewed or Queued transactions can be canceled`);
    this.changed(tx.id);
    return view((await this.o.store.getTransaction(tx.id))!);
  }

  /**
   * A person who may approve the transaction refuses it instead, with a reason the requester
   * is shown: it is canceled, with a signed `denied` entry (who and why) in the same store
   * operation, and a requester waiting for it is told at once. Only a transaction still
   * waiting for approval can be denied; an approved one is canceled (`cancel`).
   */
  async deny(who: Identity, req: { transaction_id?: unknown; reason?: unknown }): Promise<TransactionView> {
    const tx = await this.tx(req.transaction_id);
    enforce(mayDeny(this.caller(who), facts(tx)));
    if (req.reason !== undefined && (typeof req.reason !== 'string' || req.reason.length > MAX_DENY_REASON)) {
      fail('validation', 'bad_reason', `reason must be text of at most ${MAX_DENY_REASON} UTF-16 code units (an emoji counts two)`);
    }
    // Shown to the requester and to anyone reading the log: masked and escaped like all text, never refused for it.
    const reason = typeof req.reason === 'string' && req.reason.trim() !== '' ? await maskForClient(req.reason.trim()) : null;
    const now = this.now();
    await this.refuseIfExpired(tx, now);
    if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`, tx.state === 'Queued' ? `it is approved already: an admin approver or its requester cancels it (\`airlock cancel ${tx.id}\`)` : undefined);
    const by = principalName(who);
    const result: DenialResult = { state: 'Canceled', summary: `denied by ${by}${reason ? `: ${reason}` : ''}`, denied_by: by, reason };
    const ok = await this.o.store.cancel(tx.id, now, this.entry('denied', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { by, reason, preview_digest: tx.previewDigest }), { result: { ...result }, onlyFrom: 'Previewed' });
    if (!ok) {
      await this.refuseIfExpired(await this.tx(tx.id), now);
      fail('stale_approval', 'not_pending', `transaction ${tx.id} is no longer waiting for approval`);
    }
    this.changed(tx.id);
    return view((await this.o.store.getTransaction(tx.id))!);
  }

  /**
   * The requester waits for a person to decide on its transaction: it returns the held receipt
   * once someone approves, the reason once someone denies, and says so when the transaction is
   * canceled, expired or already ran; at once when that is so already, else when it happens,
   * or `pending` after timeout_ms. A wait holds one of its principal's few slots (waiters.ts)
   * and lets go of it when it ends or its connection closes (`signal`).
   */
  async wait(who: Identity, req: { transaction_id?: unknown; timeout_ms?: unknown }, signal?: AbortSignal): Promise<WaitOutcome> {
    const first = await this.tx(req.transaction_id);
    enforce(mayWait(this.caller(who), facts(first)));
    const timeoutMs = waitTimeout(req.timeout_ms);
    const settled = await this.decided(first);
    if (settled.outcome || timeoutMs === 0) return settled.outcome ?? pending(settled.tx);
    const end = Date.now() + timeoutMs;
    const w = this.waiters.open(waitKey(who), principalName(who), first.id, signal);
    try {
      for (;;) {
        // Read again after registering: a decision made meanwhile is seen here, or wakes the sleep below.
        const { tx, outcome } = await this.decided(await this.tx(first.id));
        if (outcome) return outcome;
        const left = end - Date.now();
        if (left <= 0 || w.aborted) return pending(tx);
        // Wake at the preview's deadline too, to expire it (with its entry) rather than wait for the sweep.
        await w.sleep(Math.min(left, tx.expiresAt - this.now()));
        // Nobody reads the answer of a closed connection (and at a stop the store may be closing): no further read.
        if (w.aborted) return pending(tx);
      }
    } finally {
      w.close();
    }
  }

  /** The outcome of a wait on tx as it stands, expiring it first when its deadline has passed (null: still pending). */
  private async decided(tx: TxRecord): Promise<{ tx: TxRecord; outcome: WaitOutcome | null }> {
    const now = this.now();
    if ((tx.state === 'Previewed' || tx.state === 'Queued') && tx.expiresAt <= now) {
      if (await this.o.store.expire(tx.id, now, (t) => this.expiredEntry(t))) this.changed(tx.id);
      tx = await this.tx(tx.id);
    }
    const held = tx.state === 'Queued' ? this.heldReceipts.get(tx.id) : undefined;
    return { tx, outcome: waitOutcome(tx, held && held.expiresAt > now ? held.receipt : undefined) };
  }

  /** A page of the signed log as stored, for any principal with a role: the client verifies it with the public key. */
  async auditEntries(_who: Identity, req: { after_seq?: unknown; limit?: unknown }): Promise<AuditEntriesPage> {
    return auditPage(this.o.store, req);
  }

  /**
   * The store's own consistency check, for `airlock doctor` (approvers and admins). It blocks the daemon for a pass over the database, so one runs at a
   * time and its answer is kept for STORE_CHECK_REUSE_MS: a loop of calls costs one pass a minute.
   */
  async storeCheck(): Promise<StoreCheck> {
    const now = this.now();
    const space = this.o.space ? { space: this.o.space.sample(true) } : {}; // measured now: it is cheap, and it changes
    if (this.lastStoreCheck && now - this.lastStoreCheck.at < STORE_CHECK_REUSE_MS) return { ...this.lastStoreCheck.check, ...space };
    this.storeCheckRunning ??= (async () => {
      const result = (await this.o.store.integrityCheck(STORE_CHECK_MAX_LINES)).slice(0, STORE_CHECK_MAX_LINES);
      const check = { ok: result.length === 1 && result[0] === 'ok', result };
      this.lastStoreCheck = { at: this.now(), check };
      return check;
    })().finally(() => (this.storeCheckRunning = null));
    return { ...(await this.storeCheckRunning), ...space };
  }
  private lastStoreCheck: { at: number; check: StoreCheck } | null = null;
  private storeCheckRunning: Promise<StoreCheck> | null = null;

  /**
   * An approved execute's write, kept: refused for want of space, it is tried once more after
   * the reserve is released (the store kept nothing of the failed one, so trying again is safe).
   */
  private async durably<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (!this.o.space?.writeFailed(e)?.retry) throw e;
      return write();
    }
  }

  /** A write the store refused for want of space, as the request's typed error (null: another failure). */
  writeFailed(e: unknown): AirlockError | null {
    return this.o.space?.writeFailed(e)?.error ?? null;
  }

  /** Wakes the requester's waits on this transaction: it changed in the store. */
  private changed(id: string): void {
    this.waiters.changed(id);
  }

  async history(_who: Identity, req: { state?: unknown; action?: unknown; since?: unknown; limit?: unknown }): Promise<TransactionView[]> {
    const q = HistoryQuery.safeParse(req);
    if (!q.success) fail('validation', 'bad_history_query', z.prettifyError(q.error).replace(/\n/g, '; '));
    const { state, action, since, limit } = q.data!;
    const rows = await this.o.store.history({ state: state as TxState | undefined, action, sinceMs: since ? Date.parse(since) : undefined, limit: limit ?? 50 });
    return rows.map(view);
  }

  /** Sweep: cancels previews and receipts past their deadline, one signed entry each. */
  async sweep(): Promise<string[]> {
    await this.refusals.flush();
    const now = this.now();
    for (const [id, held] of this.heldReceipts) if (held.expiresAt <= now) this.heldReceipts.delete(id);
    const expired = await this.o.store.expireDue(this.now(), (tx) => this.expiredEntry(tx));
    for (const id of expired) this.changed(id);
    return expired;
  }

  /**
   * Expiry is exact: a preview or receipt past its deadline is refused as expired, whether the
   * sweep canceled it already or not; if not, it is canceled with its `expired` entry now, in
   * one store operation, rather than at the next sweep. Returns when `tx` has not expired.
   */
  private async refuseIfExpired(tx: TxRecord, now: number): Promise<void> {
    let stage = expiredStage(tx);
    if (!stage && (tx.state === 'Previewed' || tx.state === 'Queued') && tx.expiresAt <= now) {
      const expired = await this.o.store.expire(tx.id, now, (t) => this.expiredEntry(t));
      if (expired) this.changed(tx.id);
      stage = expired ? (expired.state === 'Previewed' ? 'preview' : 'receipt') : expiredStage((await this.o.store.getTransaction(tx.id)) ?? tx);
    }
    if (stage === 'preview') fail('stale_approval', 'preview_expired', `the preview of ${tx.id} expired at ${iso(tx.expiresAt)} before anyone approved it; it is canceled`, 'preview the action again');
    if (stage === 'receipt') fail('stale_approval', 'receipt_expired', `the receipt for ${tx.id} expired at ${iso(tx.expiresAt)} before it was used; the transaction is canceled`, 'preview again and ask for a new approval');
  }

  private expiredEntry(tx: TxRecord): EntryDraft {
    return this.systemEntry('expired', tx, { previous_state: tx.state, deadline: iso(tx.expiresAt) });
  }

  async reconcile(): Promise<string[]> {
    return this.o.store.reconcileInterrupted(this.now(), (tx) => this.systemEntry('reconciled', tx, { previous_state: 'Running', new_state: 'Failed', reason: 'daemon restarted while the job ran; effect unknown' }));
  }

  // --- helpers ---------------------------------------------------------------

  private action(name: unknown): AnyAction {
    const a = typeof name === 'string' ? CATALOGUE.get(name) : undefined;
    if (!a) throw unknownActionError(name, [...CATALOGUE.keys()]);
    return a;
  }

  private platformProblem(a: AnyAction): string | null {
    const p = this.o.host.platform;
    if (p !== null && a.platforms.includes(p)) return null;
    // Low-risk reads are offered everywhere: at worst a file or program is missing, which is a typed error.
    if (a.readOnly && this.riskOf(a) === 'low') return null;
    return p === null
      ? 'this distribution is not recognised (/etc/os-release): only low-risk read-only actions are available'
      : `${a.name} supports ${a.platforms.join(', ')}, not ${p}`;
  }

  private async tx(id: unknown): Promise<TxRecord> {
    if (typeof id !== 'string' || !/^tx_[0-9a-f]{24}$/.test(id)) fail('validation', 'bad_transaction_id', 'transaction_id must look like tx_ followed by 24 hex digits');
    const tx = await this.o.store.getTransaction(id as string);
    if (!tx) fail('validation', 'no_such_transaction', `there is no transaction ${id}`, 'see `airlock history`');
    return tx!;
  }

  private entry<K extends EntryKind>(kind: K, who: Identity, action: string, risk: Risk, hash: string, txId: string, details: EntryDetails[K]): EntryDraft {
    return entryDraft(kind, { transaction_id: txId, action_name: action, risk, request_hash: hash, principal: entryPrincipal(who) }, details);
  }

  private systemEntry<K extends EntryKind>(kind: K, tx: TxRecord, details: EntryDetails[K]): EntryDraft {
    return entryDraft(kind, { transaction_id: tx.id, action_name: tx.actionName, risk: tx.risk, request_hash: tx.requestHash, principal: null }, details);
  }
}

/** Who an entry is by: the peer, and for a root peer the person behind it (or that there is none). */
export function entryPrincipal(who: Identity): EntryPrincipal {
  const base = { uid: who.uid, user: who.user, role: who.role };
  if (who.uid !== 0 || who.via === 'token') return base;
  return { ...base, person: who.person ? principalName(who) : `none: ${who.rootPeer?.noPerson ?? 'unknown'}`, sudo_uid: who.rootPeer?.sudoUid ?? null, login_uid: who.rootPeer?.loginUid ?? null };
}

const HistoryQuery = z.strictObject({
  state: z.enum(['Previewed', 'Queued', 'Running', 'Succeeded', 'Failed', 'Canceled', 'RolledBack', 'NeedsReboot']).optional(),
  action: z.string().max(64).regex(/^[A-Za-z0-9]+$/).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});

/** Which stage ran out, for a transaction the store canceled as expired (its result says so). */
function expiredStage(tx: TxRecord): 'preview' | 'receipt' | null {
  const stage = tx.state === 'Canceled' ? (tx.result as { expired?: unknown } | null)?.expired : undefined;
  return stage === 'preview' || stage === 'receipt' ? stage : null;
}

function view(tx: TxRecord): TransactionView {
  return {
    transaction_id: tx.id,
    action_name: tx.actionName,
    risk: tx.risk,
    state: tx.state,
    request_hash: tx.requestHash,
    requested_by: escapeText(principalName({ uid: tx.requesterUid, user: tx.requesterName })),
    approved_by: tx.approvedBy === null ? null : escapeText(tx.approvedBy),
    created_at: iso(tx.createdAt),
    updated_at: iso(tx.updatedAt),
    expires_at: iso(tx.expiresAt),
    summary: escapeText(tx.summary),
    ...denialFields(tx),
    ...(tx.compactedAt !== null ? { compacted_at: iso(tx.compactedAt) } : {}),
  };
}

/** In place of the preview of a compacted transaction: which one it was, and that the rest is gone. */
function compactedPreview(tx: TxRecord): CompactedPreview {
  return {
    compacted: true,
    transaction_id: tx.id,
    action_name: tx.actionName,
    request_hash: tx.requestHash,
    preview_digest: tx.previewDigest,
    // The view's compacted_at says when; this says what that means.
    statement: 'its preview, parameters and result messages are no longer stored; the signed log keeps its entries, which carry this preview digest',
  };
}

/** Who denied a transaction and why, for its view (the reason was escaped when it was given). */
function denialFields(tx: TxRecord): Pick<TransactionView, 'denied_by' | 'deny_reason'> {
  const d = denialOf(tx);
  if (!d) return {};
  return { denied_by: escapeText(d.denied_by), ...(d.reason !== null ? { deny_reason: escapeText(d.reason) } : {}) };
}

/** A wait that ended before anyone decided. */
function pending(tx: TxRecord): WaitOutcome {
  return { transaction_id: tx.id, outcome: 'pending', expires_at: iso(tx.expiresAt) };
}

function jsonSafe(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}
