/**
 * Deadlines: a preview waits approvalTtlMs for approval, a receipt receiptTtlMs for execution.
 * The sweep cancels what ran out, one signed entry each; a verb that meets a transaction past
 * its deadline refuses it as expired at once (refuseIfExpired), whether the sweep came by yet
 * or not. The daemon's own entries for it (expired, reconciled) are built here.
 */
import { fail } from '../../protocol/errors.js';
import type { EntryDraft } from '../../audit/entry.js';
import type { TxRecord } from '../../store/store.js';
import { iso, type VerbContext } from './context.js';

/**
 * Expiry is exact: a preview or receipt past its deadline is refused as expired, whether the
 * sweep canceled it already or not; if not, it is canceled with its `expired` entry now, in
 * one store operation, rather than at the next sweep. Returns when `tx` has not expired.
 */
export async function refuseIfExpired(ctx: VerbContext, tx: TxRecord, now: number): Promise<void> {
  let stage = expiredStage(tx);
  if (!stage && (tx.state === 'Previewed' || tx.state === 'Queued') && tx.expiresAt <= now) {
    const expired = await ctx.store.expire(tx.id, now, (t) => expiredEntry(ctx, t));
    if (expired) ctx.changed(tx.id);
    stage = expired ? (expired.state === 'Previewed' ? 'preview' : 'receipt') : expiredStage((await ctx.store.getTransaction(tx.id)) ?? tx);
  }
  if (stage === 'preview') fail('stale_approval', 'preview_expired', `the preview of ${tx.id} expired at ${iso(tx.expiresAt)} before anyone approved it; it is canceled`, 'preview the action again');
  if (stage === 'receipt') fail('stale_approval', 'receipt_expired', `the receipt for ${tx.id} expired at ${iso(tx.expiresAt)} before it was used; the transaction is canceled`, 'preview again and ask for a new approval');
}

export function expiredEntry(ctx: VerbContext, tx: TxRecord): EntryDraft {
  return ctx.systemEntry('expired', tx, { previous_state: tx.state, deadline: iso(tx.expiresAt) });
}

/** Which stage ran out, for a transaction the store canceled as expired (its result says so). */
function expiredStage(tx: TxRecord): 'preview' | 'receipt' | null {
  const stage = tx.state === 'Canceled' ? (tx.result as { expired?: unknown } | null)?.expired : undefined;
  return stage === 'preview' || stage === 'receipt' ? stage : null;
}

/** Sweep: cancels previews and receipts past their deadline, one signed entry each, and forgets expired held receipts. */
export async function expireDue(ctx: VerbContext): Promise<string[]> {
  ctx.heldReceipts.dropExpired(ctx.now());
  const expired = await ctx.store.expireDue(ctx.now(), (tx) => expiredEntry(ctx, tx));
  for (const id of expired) ctx.changed(id);
  return expired;
}

/** At start: jobs a stop interrupted while they ran are Failed, effect unknown, one signed entry each. */
export function reconcile(ctx: VerbContext): Promise<string[]> {
  return ctx.store.reconcileInterrupted(ctx.now(), (tx) => ctx.systemEntry('reconciled', tx, { previous_state: 'Running', new_state: 'Failed', reason: 'daemon restarted while the job ran; effect unknown' }));
}
