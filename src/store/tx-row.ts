/**
 * A transaction as both stores keep it: one row of the transactions table (the same columns in
 * SQLite and PostgreSQL), read back into a TxRecord, and the results an expiry stores.
 */
import type { TxState } from '../protocol/risk.js';
import type { ConsumeOutcome, TxRecord } from './store.js';
import { decodeStored } from '../audit/entry-encoding.js';

/** What an expired transaction's result says: which stage ran out. */
export const EXPIRED_PREVIEW = JSON.stringify({ state: 'Canceled', summary: 'expired: not approved before its deadline', expired: 'preview' });
export const EXPIRED_RECEIPT = JSON.stringify({ state: 'Canceled', summary: 'expired: the receipt was not used before its deadline', expired: 'receipt' });
/** What a transaction a crash left Running says once reconciled. */
export const INTERRUPTED = JSON.stringify({ state: 'Failed', summary: 'interrupted: the daemon stopped while this ran; its effect is unknown' });

export interface Row {
  id: string;
  action_name: string;
  params_json: string;
  request_hash: string;
  risk: string;
  state: string;
  requester_uid: number;
  requester_name: string;
  requester_role: string;
  requester_person_uid: number | null;
  /** JSON text; in SQLite, encoded (src/audit/entry-encoding.ts) since schema 2. */
  preview_json: string | Buffer;
  preview_digest: string;
  summary: string;
  created_at: number;
  updated_at: number;
  expires_at: number;
  approved_by: string | null;
  receipt_commitment: string | null;
  /** Like preview_json. */
  result_json: string | Buffer | null;
  compacted_at: number | null;
}

/** The columns a new (Previewed) transaction is inserted with; the rest start NULL. */
export function newRow(tx: TxRecord): Omit<Row, 'approved_by' | 'receipt_commitment' | 'result_json' | 'compacted_at'> {
  return {
    id: tx.id,
    action_name: tx.actionName,
    params_json: JSON.stringify(tx.params),
    request_hash: tx.requestHash,
    risk: tx.risk,
    state: tx.state,
    requester_uid: tx.requesterUid,
    requester_name: tx.requesterName,
    requester_role: tx.requesterRole,
    requester_person_uid: tx.requesterPersonUid,
    preview_json: JSON.stringify(tx.preview),
    preview_digest: tx.previewDigest,
    summary: tx.summary,
    created_at: tx.createdAt,
    updated_at: tx.updatedAt,
    expires_at: tx.expiresAt,
  };
}
export type NewRow = ReturnType<typeof newRow>;

export const toRecord = (r: Row): TxRecord => ({
  id: r.id,
  actionName: r.action_name,
  params: JSON.parse(r.params_json),
  requestHash: r.request_hash,
  risk: r.risk as TxRecord['risk'],
  state: r.state as TxState,
  requesterUid: r.requester_uid,
  requesterName: r.requester_name,
  requesterRole: r.requester_role as TxRecord['requesterRole'],
  requesterPersonUid: r.requester_person_uid ?? null,
  preview: JSON.parse(decodeStored(r.preview_json)),
  previewDigest: r.preview_digest,
  summary: r.summary,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  expiresAt: r.expires_at,
  approvedBy: r.approved_by,
  receiptCommitment: r.receipt_commitment,
  result: r.result_json ? JSON.parse(decodeStored(r.result_json)) : null,
  compactedAt: r.compacted_at ?? null,
});

/**
 * Why a receipt was not consumed, from the transaction as it is after the failed update (null:
 * there is none): both stores answer `consumeReceipt` with the same outcome for the same state.
 */
export function consumeRefusal(p: { state: string; consumed_at: number | null; receipt_commitment: string | null } | undefined, commitment: string): Exclude<ConsumeOutcome, 'consumed'> {
  if (!p) return 'not_found';
  if (p.consumed_at !== null) return 'already_consumed';
  if (p.state !== 'Queued') return 'not_queued';
  if (p.receipt_commitment !== commitment) return 'mismatch';
  return 'expired';
}
