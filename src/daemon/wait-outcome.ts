/**
 * What `transaction.wait` answers for a stored transaction, as a pure function of the record
 * and the receipt the daemon holds for its requester; and the bounds of a wait. The verb
 * expires a transaction past its deadline (with its signed entry) before asking, so a
 * deadline here has not passed. `null`: it still waits for a person. (The timeout's bounds are
 * checked by the method's schema, src/protocol/param-schemas.ts.)
 */
import { fail } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { WaitOutcome } from '../protocol/messages.js';
import { WAIT_DEFAULT_MS, WAIT_MAX_MS } from '../protocol/param-schemas.js';
import type { TxRecord } from '../store/store.js';

/** How long a wait lasts when the request does not say, and the most it may ask for (the protocol's numbers). */
export const DEFAULT_WAIT_MS = WAIT_DEFAULT_MS;
export const MAX_WAIT_MS = WAIT_MAX_MS;

/** What a denial stores as the transaction's result: `deny` writes it, the view and the wait read it. */
export interface DenialResult {
  state: 'Canceled';
  summary: string;
  denied_by: string;
  reason: string | null;
}

export function denialOf(tx: TxRecord): DenialResult | null {
  const r = tx.result as Partial<DenialResult> | null;
  // A compacted result keeps who denied it, not the reason they gave (compaction.ts).
  return tx.state === 'Canceled' && r && typeof r.denied_by === 'string' ? { ...(r as DenialResult), reason: typeof r.reason === 'string' ? r.reason : null } : null;
}

export function waitOutcome(tx: TxRecord, heldReceipt: string | undefined): WaitOutcome | null {
  const base = { transaction_id: tx.id };
  switch (tx.state) {
    case 'Previewed':
      return null;
    case 'Queued': {
      const approver = escapeText(tx.approvedBy ?? 'unknown');
      if (heldReceipt === undefined) {
        // Approved, but a restart forgot the copy the daemon held for the requester (a policy
        // rule's receipt also came with the preview itself, for a client that kept it).
        const byPolicy = tx.approvedBy?.startsWith('policy:') === true;
        fail(
          'stale_approval',
          'receipt_not_held',
          `${tx.id} was approved by ${approver}, but the daemon holds no receipt for it: the daemon restarted since`,
          byPolicy ? `execute with the preview's auto_approval receipt: \`airlock execute ${tx.id} --receipt RECEIPT\`` : `ask ${approver} for the receipt and run \`airlock execute ${tx.id} --receipt RECEIPT\``,
        );
      }
      return { ...base, outcome: 'approved', receipt: heldReceipt!, approved_by: approver, expires_at: new Date(tx.expiresAt).toISOString() };
    }
    case 'Canceled': {
      const denial = denialOf(tx);
      if (denial) return { ...base, outcome: 'denied', denied_by: denial.denied_by, reason: denial.reason };
      const expired = (tx.result as { expired?: unknown } | null)?.expired;
      return expired === 'preview' || expired === 'receipt' ? { ...base, outcome: 'expired' } : { ...base, outcome: 'canceled' };
    }
    default:
      // Running or done: the receipt was used, and `transaction.get` has the result.
      return { ...base, outcome: 'finished', state: tx.state };
  }
}
