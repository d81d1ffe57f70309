/**
 * `transaction.wait`: only the requester (the door's `waiter` rule) waits for a decision on
 * its transaction; the timeout was checked by the method's schema.
 */
import type { WaitOutcome } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import type { TxRecord } from '../../store/store.js';
import { requesterKey } from '../authz.js';
import { principalName } from '../identity.js';
import { DEFAULT_WAIT_MS, waitOutcome } from '../wait-outcome.js';
import type { TxRequest, VerbContext } from './context.js';
import { expiredEntry } from './expiry.js';
import { pending } from './views.js';

/**
 * The requester waits for a person to decide on its transaction: it returns the held receipt
 * once someone approves, the reason once someone denies, and says so when the transaction is
 * canceled, expired or already ran; at once when that is so already, else when it happens,
 * or `pending` after timeout_ms. A wait holds one of its principal's few slots (waiters.ts)
 * and lets go of it when it ends or its connection closes (`signal`).
 */
export async function wait(ctx: VerbContext, r: TxRequest<ParsedParams<'transaction.wait'>>): Promise<WaitOutcome> {
  const { caller: who, tx: first, signal } = r;
  const timeoutMs = r.params.timeout_ms ?? DEFAULT_WAIT_MS;
  const settled = await decided(ctx, first);
  if (settled.outcome || timeoutMs === 0) return settled.outcome ?? pending(settled.tx);
  const end = Date.now() + timeoutMs;
  // Whose waits count together: the requester's, as isRequester tells them apart (the door let only the requester wait).
  const w = ctx.waiters.open(requesterKey(first), principalName(who), first.id, signal);
  try {
    for (;;) {
      // Read again after registering: a decision made meanwhile is seen here, or wakes the sleep below.
      const { tx, outcome } = await decided(ctx, await ctx.transaction(first.id));
      if (outcome) return outcome;
      const left = end - Date.now();
      if (left <= 0 || w.aborted) return pending(tx);
      // Wake at the preview's deadline too, to expire it (with its entry) rather than wait for the sweep.
      await w.sleep(Math.min(left, tx.expiresAt - ctx.now()));
      // Nobody reads the answer of a closed connection (and at a stop the store may be closing): no further read.
      if (w.aborted) return pending(tx);
    }
  } finally {
    w.close();
  }
}

/** The outcome of a wait on tx as it stands, expiring it first when its deadline has passed (null: still pending). */
async function decided(ctx: VerbContext, tx: TxRecord): Promise<{ tx: TxRecord; outcome: WaitOutcome | null }> {
  const now = ctx.now();
  if ((tx.state === 'Previewed' || tx.state === 'Queued') && tx.expiresAt <= now) {
    if (await ctx.store.expire(tx.id, now, (t) => expiredEntry(ctx, t))) ctx.changed(tx.id);
    tx = await ctx.transaction(tx.id);
  }
  const held = tx.state === 'Queued' ? ctx.heldReceipts.get(tx.id, now) : undefined;
  // Approved, its receipt not yet held: the approval's commit is on its way to disk, and its end wakes this wait.
  if (tx.state === 'Queued' && held === undefined && ctx.heldReceipts.coming(tx.id)) return { tx, outcome: null };
  return { tx, outcome: waitOutcome(tx, held) };
}
