/**
 * How a stored transaction is shown to a client: its view (every text from the host or an
 * agent escaped), the statement that stands in for a compacted preview, who denied it and
 * why, and a wait that ended before anyone decided.
 */
import { escapeText } from '../../protocol/escape-text.js';
import type { CompactedPreview, TransactionView, WaitOutcome } from '../../protocol/messages.js';
import type { TxRecord } from '../../store/store.js';
import { principalName } from '../identity.js';
import { denialOf } from '../wait-outcome.js';
import { iso } from './context.js';

export function view(tx: TxRecord): TransactionView {
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
export function compactedPreview(tx: TxRecord): CompactedPreview {
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
export function pending(tx: TxRecord): WaitOutcome {
  return { transaction_id: tx.id, outcome: 'pending', expires_at: iso(tx.expiresAt) };
}
