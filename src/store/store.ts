/**
 * The store interface. Every method is one atomic operation that changes
 * transaction state and appends the matching signed audit entries together, so
 * the log and the state can never disagree. SQLite implements it now; a
 * PostgreSQL backend implements the same interface.
 */
import type { EntryDraft, SealedEntry } from '../audit/entry.js';
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
}

export type ConsumeOutcome = 'consumed' | 'not_found' | 'not_queued' | 'already_consumed' | 'expired' | 'mismatch';

export interface HistoryFilter {
  state?: TxState;
  action?: string;
  sinceMs?: number;
  limit: number;
}

/** An approver's second factor: the secret and what guards it against guessing and replay. */
export interface TotpRecord {
  approver: string;
  /** Base32 secret; the store's file is readable by root only. */
  secret: string;
  enrolledAt: number;
  /** The last time step a code was accepted for: a step is spent once. */
  lastStep: number;
  /** Wrong codes since the last accepted one (or since the lockout ended). */
  failures: number;
  lockedUntil: number;
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

export type ApprovalOutcome = 'approved' | 'not_pending' | 'step_spent' | 'rule_exhausted';

export interface LogHead {
  size: number;
  hash: string;
}

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
  recordApproval(id: string, approval: { approvedBy: string; commitment: string; expiresAt: number; now: number; spend?: SpentStep; rule?: RuleLimit }, entry: EntryDraft): Promise<ApprovalOutcome>;
  /** Stores (or replaces) an approver's TOTP secret, with its log entry. */
  enrollTotp(approver: string, secret: string, now: number, entry: EntryDraft): Promise<void>;
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
  /** Previewed/Queued -> Canceled, for an explicit cancel. */
  cancel(id: string, now: number, entry: EntryDraft): Promise<boolean>;
  /** Cancels every Previewed/Queued transaction past its deadline; one entry each. Returns their ids. */
  expireDue(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]>;
  /** Marks transactions left Running by a crash as Failed; one entry each. */
  reconcileInterrupted(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]>;
  history(filter: HistoryFilter): Promise<TxRecord[]>;
  /** Appends free-standing entries (daemon start). */
  appendEntries(entries: EntryDraft[]): Promise<void>;
  logHead(): LogHead;
  close(): Promise<void>;
}
