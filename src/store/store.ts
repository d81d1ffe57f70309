/**
 * The store interface. Every method is one atomic operation that changes
 * transaction state and appends the matching signed audit entries together, so
 * the log and the state can never disagree. SQLite implements it now; a
 * PostgreSQL backend implements the same interface.
 */
import type { CoApproval, QuorumApproval, QuorumEntries, QuorumOutcome } from './co-approval.js';
import type { EntryDraft, SealedEntry } from '../audit/entry.js';
import type { NodeReader } from '../audit/merkle.js';
import type { LogRow } from '../audit/verify.js';
import type { Risk, Role, TxState } from '../protocol/risk.js';

export type Sealer = (draft: EntryDraft, seq: number, prevHash: string) => SealedEntry;

export interface TxRecord {
  id: string;
  actionName: string;
  params: Record<string, unknown>;
  requestHash: string;
  risk: Risk;
  state: TxState;
  requesterUid: number;
  requesterName: string;
  requesterRole: Role;
  /** The person behind a root requester (sudo or login session), or the requester itself; null for none. */
  requesterPersonUid: number | null;
  preview: Record<string, unknown>;
  previewDigest: string;
  summary: string;
  createdAt: number;
  updatedAt: number;
  /** Deadline for the current stage: approval for Previewed, execution for Queued. */
  expiresAt: number;
  approvedBy: string | null;
  receiptCommitment: string | null;
  result: Record<string, unknown> | null;
  /** When its details were compacted (src/store/compaction.ts); null while they are whole. */
  compactedAt: number | null;
}

export type ConsumeOutcome = 'consumed' | 'not_found' | 'not_queued' | 'already_consumed' | 'expired' | 'mismatch';

export interface HistoryFilter {
  state?: TxState;
  action?: string;
  sinceMs?: number;
  limit: number;
}

/** An approver's confirmed second factor: the secret and what guards it against guessing and replay. */
export interface TotpRecord {
  approver: string;
  /** The base32 secret sealed under the daemon's totp.key (src/daemon/totp-seal.ts): never in clear in the store. */
  sealedSecret: string;
  enrolledAt: number;
  /** The last time step a code was accepted for: a step is spent once. */
  lastStep: number;
  /** Wrong codes since the last accepted one (or since the lockout ended). */
  failures: number;
  lockedUntil: number;
}

/** A secret issued by `totp.enroll` and not yet confirmed by a first code: it approves nothing. */
export interface PendingTotp {
  approver: string;
  sealedSecret: string;
  issuedAt: number;
  expiresAt: number;
  /** Wrong confirmation codes so far. */
  failures: number;
  /**
   * The step of the person's first valid code, once they gave it for a first enrolment on a host
   * that already has an approver: the secret is proven, and waits for another approver's
   * `totp.approve` (null: still waiting for that first code).
   */
  confirmedStep: number | null;
}

/** A proven pending secret another approver vouches for, and the totp_enrolled entry that says so. */
export interface ApprovedEnrolment {
  approver: string;
  sealedSecret: string;
  entry: EntryDraft;
}

/** What a second-factor approval spends: this step of this approver's codes. */
export interface SpentStep {
  approver: string;
  step: number;
}

/** A policy rule's limits, checked and counted with the approval it would grant. */
export interface RuleLimit {
  id: string;
  /** Approvals the rule may grant in any 24 hours. */
  dailyCap: number;
  /** The least time between two of its approvals. */
  cooldownMs: number;
}

export type ApprovalOutcome = 'approved' | 'not_pending' | 'step_spent' | 'rule_exhausted' | 'passkey_replayed';

/**
 * A person's passkey (WebAuthn credential): its public key, and the signature counter its
 * authenticator last reported. Rows are written only by `passkey.register` (with the person's
 * current factor, and a signed passkey_registered entry) and updated only by an approval.
 */
export interface PasskeyRecord {
  /** The credential id, base64url, as the authenticator chose it. */
  credentialId: string;
  /** Whose it is: the person key of approve.ts (alice(uid 1001)). */
  approver: string;
  /** The COSE public key. */
  publicKey: Buffer;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** What a reset deleted: the confirmed TOTP factor, a pending one, and (when asked) how many passkeys. */
export type FactorsReset = {
  factor: boolean;
  pending: boolean;
  passkeys?: number;
};

/** An approval made with a passkey: its counter moves to `counter` with the approval, or neither happens. */
export interface PasskeyUse {
  credentialId: string;
  approver: string;
  /** The counter the assertion reported (0 for an authenticator that keeps none). */
  counter: number;
}

/** How a policy rule has been used, as its cooldown and daily cap count it (the last 24 hours). */
export interface RuleUsage {
  /** Approvals in the last 24 hours. */
  lastDay: number;
  /** The last approval (ms), ever; null when none. */
  last: number | null;
  /** The oldest approval of the last 24 hours (ms): the cap frees a place 24 hours after it. */
  firstInDay: number | null;
}

export interface LogHead {
  size: number;
  /** Hex hash of the last entry (the per-entry chain); GENESIS_HASH for an empty log. */
  hash: string;
  /** Hex RFC 9162 Merkle root of the first `size` entries' bodies; EMPTY_ROOT for size 0. */
  root: string;
}

export { NO_BASE, type LogBase } from '../audit/log-base.js';
import type { LogBase } from '../audit/log-base.js';

export interface Store {
  /** Persists a previewed transaction and its preview entry. */
  createTransaction(tx: TxRecord, entry: EntryDraft): Promise<void>;
  getTransaction(id: string): Promise<TxRecord | null>;
  /**
   * Previewed -> Queued with the receipt commitment, only while still Previewed and unexpired.
   * With `spend`, marks that TOTP step spent in the same transaction (`step_spent` when it
   * already is). With `rule`, counts the rule's approvals of the last 24 hours and its last one
   * in the same transaction, refuses with `rule_exhausted` at its daily cap or inside its
   * cooldown, and otherwise records this approval against it: check and count cannot be
   * separated by another request, however the store's calls interleave.
   */
  /** How `ruleId` has been used as of `now`: what a preview says when the rule is at its cooldown or cap. */
  ruleUsage(ruleId: string, now: number): Promise<RuleUsage>;
  recordApproval(id: string, approval: { approvedBy: string; commitment: string; expiresAt: number; now: number; spend?: SpentStep; passkey?: PasskeyUse; rule?: RuleLimit }, entry: EntryDraft): Promise<ApprovalOutcome>;
  /**
   * A person's approval of a transaction the policy has more than one person approve
   * (co-approval.ts): before the last it is recorded (a co_approvals row, the factor spent, an
   * approval_recorded entry) and nothing is minted; the last one, read against the earlier ones
   * in the same store transaction, records the receipt as recordApproval does.
   */
  recordQuorumApproval(id: string, approval: QuorumApproval, entries: QuorumEntries): Promise<QuorumOutcome>;
  /** The approvals recorded so far for a transaction that waits for another person, oldest first. */
  coApprovals(id: string): Promise<CoApproval[]>;
  /** An approver's passkeys, oldest first. */
  passkeys(approver: string): Promise<PasskeyRecord[]>;
  /** The passkey with this credential id, whoever holds it (a console sign-in learns whose it is from it). */
  passkeyByCredential(credentialId: string): Promise<PasskeyRecord | null>;
  /**
   * Stores a new passkey with its entry, in the same transaction as its proof: the person's TOTP
   * step spent ('step_spent' when it was already), or a passkey they hold moved to its
   * assertion's counter ('passkey_replayed' when it does not move forward); 'exists' when the
   * credential id is known (for anyone). Nothing is stored unless 'added'.
   */
  addPasskey(p: PasskeyRecord, proof: SpentStep | PasskeyUse, entry: EntryDraft): Promise<'added' | 'step_spent' | 'passkey_replayed' | 'exists'>;
  /** Whether the second-factor secrets are sealed (meta totp_secrets = 'sealed-v1'); false for a new store or one from before sealing. */
  totpSecretsSealed(): Promise<boolean>;
  /**
   * Seals every clear-text secret in place and marks the store sealed, in one transaction
   * (erasing the clear text from the file, not just from the rows); returns how many it sealed.
   */
  sealTotpSecrets(seal: (approver: string, secret: string) => string): Promise<number>;
  /**
   * Stores a pending secret for an approver, replacing only a pending one (a confirmed factor
   * stays in force until the new one is confirmed). With `spend`, that step of the approver's
   * confirmed factor is spent in the same transaction ('step_spent' when it already was).
   */
  issueTotp(approver: string, sealedSecret: string, now: number, expiresAt: number, spend: SpentStep | undefined, entry: EntryDraft): Promise<'issued' | 'step_spent'>;
  pendingTotp(approver: string): Promise<PendingTotp | null>;
  /**
   * The pending secret `sealedSecret` (still there and unexpired) becomes the approver's factor,
   * replacing any confirmed one, with `step` spent; false when it is gone (replaced, expired, reset).
   */
  confirmTotp(approver: string, sealedSecret: string, step: number, now: number, entry: EntryDraft): Promise<boolean>;
  /** Whether any approver of this log has a confirmed factor (when none has, the first is enrolled through sudo at the installing terminal). */
  anyTotp(): Promise<boolean>;
  /**
   * The pending secret `sealedSecret` (still there, unexpired, not yet proven) is proven by a first
   * code of `step`: it now waits, until `expiresAt`, for another approver's approval; false when it is gone.
   */
  awaitTotpApproval(approver: string, sealedSecret: string, step: number, now: number, expiresAt: number, entry: EntryDraft): Promise<boolean>;
  /**
   * Another approver approves these proven pending secrets: each becomes its approver's factor
   * (its proving step spent, its entry appended), and the approving person's `spend` is spent,
   * all in one transaction. 'gone' (and nothing changed) when one was replaced, reset or expired meanwhile.
   */
  approveTotp(enrolments: readonly ApprovedEnrolment[], now: number, spend: SpentStep): Promise<'approved' | 'gone' | 'step_spent'>;
  /** Counts a wrong confirmation code; at `maxFailures` the pending secret is dropped. Returns the tries left. */
  recordPendingTotpFailure(approver: string, maxFailures: number): Promise<number>;
  /**
   * Deletes an approver's factor and pending secret, with the entry, when there was either; says
   * which there were. `spend` (the resetting person's code) is spent in the same transaction.
   */
  resetTotp(approver: string, entryFor: (had: FactorsReset) => EntryDraft, spend?: SpentStep, opts?: { passkeys?: boolean }): Promise<FactorsReset | 'step_spent'>;
  totp(approver: string): Promise<TotpRecord | null>;
  /**
   * Counts a wrong code. At `maxFailures` the approver is locked until now + lockMs and
   * `lockoutEntry` is appended in the same transaction. Returns the updated record.
   */
  recordTotpFailure(approver: string, now: number, limits: { maxFailures: number; lockMs: number }, lockoutEntry: EntryDraft): Promise<TotpRecord>;
  /** Verify-and-consume in one atomic step: Queued + matching commitment + unexpired -> Running. */
  consumeReceipt(id: string, commitment: string, now: number, entries: EntryDraft[]): Promise<ConsumeOutcome>;
  /** Running -> terminal state with the outcome entry. */
  finish(id: string, state: TxState, result: Record<string, unknown>, now: number, entry: EntryDraft): Promise<void>;
  /**
   * Previewed/Queued -> Canceled, for an explicit cancel; with `onlyFrom`, only from that
   * state. With `result`, stored as the transaction's result (a denial records who and why).
   */
  cancel(id: string, now: number, entry: EntryDraft, opts?: { result?: Record<string, unknown>; onlyFrom?: 'Previewed' }): Promise<boolean>;
  /**
   * Cancels every Previewed/Queued transaction past its deadline; one entry each. Returns their ids.
   * An expired transaction's result records which stage ran out: {expired: 'preview' | 'receipt'}.
   */
  expireDue(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]>;
  /** The same for one transaction, at the moment it is used: returns it as it was, or null when it was not due. */
  expire(id: string, now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<TxRecord | null>;
  /** Marks transactions left Running by a crash as Failed; one entry each. */
  reconcileInterrupted(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]>;
  /** The oldest `limit` transactions in state NeedsReboot, oldest first (src/daemon/reboots.ts). */
  awaitingReboot(limit: number): Promise<TxRecord[]>;
  /** NeedsReboot -> Succeeded or Failed, with its result and reboot_reconciled entry; false (nothing written) when it is no longer NeedsReboot. */
  reconcileReboot(id: string, to: 'Succeeded' | 'Failed', result: Record<string, unknown>, now: number, entry: EntryDraft): Promise<boolean>;
  history(filter: HistoryFilter): Promise<TxRecord[]>;
  /**
   * Retention, step one (src/store/compaction.ts): in one transaction, up to `limit` finished
   * (TERMINAL_STATES) transactions updated before `cutoffMs` and not yet compacted lose their
   * parameters, preview, receipt commitment and result messages (compactedResult), with one
   * `compacted` entry from entryFor(count, idsSha256). Returns the count; 0 appends nothing.
   */
  compactFinished(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number>;
  /**
   * Retention, step two: deletes up to `limit` compacted transactions updated before `cutoffMs`,
   * with one `history_pruned` entry (0: none and no entry), and the rule uses a daily cap no
   * longer counts (RULE_USE_KEEP_MS; each rule's last use stays, for its cooldown).
   */
  pruneHistory(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number>;
  /** Up to `limit` log rows with seq above `afterSeq`, in seq order, as stored (the signed bytes); archived rows are not there. */
  logRows(afterSeq: number, limit: number): Promise<LogRow[]>;
  /** The log rows of one transaction (entries whose transaction_id is `id`), in seq order, at most `limit`. */
  transactionEntries(id: string, limit: number): Promise<LogRow[]>;
  /** Appends free-standing entries (daemon start); with `spend`, that step is spent in the same transaction. */
  appendEntries(entries: EntryDraft[], spend?: SpentStep): Promise<'appended' | 'step_spent'>;
  logHead(): LogHead;
  /** Where the live log starts (NO_BASE until a segment was archived). */
  logBase(): LogBase;
  /**
   * Removes the archived segment base.seq+1..upTo from the live store, in one transaction with
   * `entry` (the signed `archived` entry naming the segment's file): its rows, and the Merkle
   * nodes no proof of a later entry needs (all but the frontier at upTo); the base moves to
   * upTo with `treeHead` (the signed head of size upTo). The caller has written the segment's
   * file first. Refuses (conflict/archive_range) unless base.seq < upTo <= the head's size.
   */
  archiveSegment(upTo: number, treeHead: string, entry: EntryDraft): Promise<LogBase>;
  /**
   * Reads stored Merkle nodes (complete subtrees, src/audit/merkle.ts) for proofs; throws
   * AirlockError('integrity', 'merkle_node_missing') for one that is not there.
   */
  readonly merkleNodes: NodeReader;
  /** The database's own consistency check: ["ok"], or at most `max` lines saying what is wrong. */
  integrityCheck(max: number): Promise<string[]>;
  close(): Promise<void>;
}
