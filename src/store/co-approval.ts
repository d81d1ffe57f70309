/**
 * Approvals by more than one person ([approval] high = 2): each person's approval before the
 * last is a row of `co_approvals` (never a column of `transactions`, whose PostgreSQL rows carry
 * a MAC over a fixed column list, row-mac.ts), and the last approval reads them inside its own
 * store transaction, so counting and minting cannot be split by another approval. Both stores
 * serialize their writes (SQLite's IMMEDIATE transaction, PostgreSQL's per-log row lock), so two
 * persons approving at once end with one receipt, and one person twice never counts twice.
 */
import type { EntryDraft } from '../audit/entry.js';
import type { PasskeyUse, SpentStep } from './store.js';

/** One person's approval recorded while the transaction waits for another (a co_approvals row). */
export interface CoApproval {
  txId: string;
  /** The person key (`alice(uid 1001)`, protocol/person-key.ts): who counts once. */
  approver: string;
  /** Who approved, as the log names them (`alice(uid 1001) via sudo`): what approval_granted lists. */
  principal: string;
  /** The preview digest approved: only approvals of the same preview count together. */
  previewDigest: string;
  at: number;
}

/** A co_approvals row as both stores hold it (PostgreSQL adds log_id and its MAC). */
export interface CoApprovalRow {
  tx_id: string;
  approver: string;
  principal: string;
  preview_digest: string;
  at: number;
}

export const coApprovalOfRow = (r: CoApprovalRow): CoApproval => ({ txId: r.tx_id, approver: r.approver, principal: r.principal, previewDigest: r.preview_digest, at: r.at });
export const rowOfCoApproval = (a: CoApproval): CoApprovalRow => ({ tx_id: a.txId, approver: a.approver, principal: a.principal, preview_digest: a.previewDigest, at: a.at });

/** A person's approval where `needed` persons must approve. */
export interface QuorumApproval {
  /** The principal name (the receipt's approver and the entries' principal). */
  approvedBy: string;
  /** The person key: the same person approving again is refused when needed > 1. */
  person: string;
  /** The digest the person was shown: it must still be the transaction's. */
  previewDigest: string;
  /** Distinct persons needed, read from the policy in force at this approval. */
  needed: number;
  /** The receipt minted if this approval is the last one needed (unused otherwise). */
  commitment: string;
  expiresAt: number;
  now: number;
  spend?: SpentStep;
  passkey?: PasskeyUse;
}

/**
 * `recorded`: this approval is stored (have of needed) and nothing was minted. `approved`: it
 * was the last needed; the receipt is recorded and `coApprovers` are the earlier principals.
 * The rest change nothing: `same_approver` (this person approved already), `not_pending`
 * (denied, canceled, expired or approved meanwhile), `digest_mismatch`, `step_spent`,
 * `passkey_replayed`.
 */
export type QuorumOutcome =
  | { recorded: number }
  | { approved: string[] }
  | 'same_approver'
  | 'not_pending'
  | 'digest_mismatch'
  | 'step_spent'
  | 'passkey_replayed';

/** The entries a quorum approval appends: one for a recorded approval, one for the grant. */
export interface QuorumEntries {
  recorded: (have: number) => EntryDraft;
  granted: (coApprovers: string[]) => EntryDraft;
}

/** The entry the outcome appends (none when it changed nothing). */
export function quorumEntries(o: QuorumOutcome, e: QuorumEntries): EntryDraft[] {
  if (typeof o !== 'object') return [];
  return 'recorded' in o ? [e.recorded(o.recorded)] : [e.granted(o.approved)];
}
