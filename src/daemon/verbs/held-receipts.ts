/**
 * The receipt of each approved transaction, a person's or the policy's, held for its requester
 * (`airlock run` waiting for another approver, the MCP server executing what the policy
 * approved: each fetches it with `transaction.get` or `transaction.wait`). In memory: a
 * restart forgets them, and the approver still has theirs.
 *
 * Bounded per requester first: the policy mints receipts with no person in the way (every read
 * the reads lane approves is one), so one principal previewing reads in a loop must lose its
 * own oldest receipts, never another requester's, which a person may have approved.
 */

import { requesterKey } from '../authz.js';

/** Receipts kept for one requester, at most this many (its oldest go first). */
export const MAX_HELD_PER_REQUESTER = 1024;
/** Receipts kept for all requesters together, at most this many (the requester holding most loses its oldest). */
export const MAX_HELD_RECEIPTS = 4096;

/** Who a receipt is held for: the requester's account, and for root the person behind it (as isRequester tells requesters apart). */
export interface Requester {
  requesterUid: number;
  requesterPersonUid: number | null;
}

export class HeldReceipts {
  private readonly held = new Map<string, { owner: string; receipt: string; expiresAt: number }>();
  /** Each requester's transaction ids, oldest first (a Set keeps insertion order). */
  private readonly byOwner = new Map<string, Set<string>>();
  /** Approvals being committed, by transaction (two approvers may race on one): see approving(). */
  private readonly committing = new Map<string, number>();

  /**
   * Runs an approval's commit and the hold() after it. Others read the transaction approved
   * once its commit is in the database, before the commit is on disk and approve() holds the
   * receipt: while this runs, a transaction read approved without a receipt is one whose
   * receipt is coming (coming()), not one a restart forgot.
   */
  async approving<T>(id: string, commitAndHold: () => Promise<T>): Promise<T> {
    this.committing.set(id, (this.committing.get(id) ?? 0) + 1);
    try {
      return await commitAndHold();
    } finally {
      const n = this.committing.get(id)! - 1;
      if (n === 0) this.committing.delete(id);
      else this.committing.set(id, n);
    }
  }

  /** Whether an approval of `id` is being committed: its receipt is held when that ends, and its waiters woken. */
  coming(id: string): boolean {
    return this.committing.has(id);
  }

  hold(id: string, requester: Requester, receipt: string, expiresAt: number): void {
    const owner = requesterKey(requester);
    this.drop(id);
    const own = this.byOwner.get(owner);
    while (own && own.size >= MAX_HELD_PER_REQUESTER) this.drop(own.values().next().value!);
    while (this.held.size >= MAX_HELD_RECEIPTS) this.drop(this.largestHolder().values().next().value!);
    this.held.set(id, { owner, receipt, expiresAt });
    this.byOwner.set(owner, (this.byOwner.get(owner) ?? new Set()).add(id));
  }

  /** The receipt held for `id`, unless it has expired by `now`. */
  get(id: string, now: number): string | undefined {
    const h = this.held.get(id);
    return h && h.expiresAt > now ? h.receipt : undefined;
  }

  /** Spent (execute): it serves nobody any more. */
  drop(id: string): void {
    const h = this.held.get(id);
    if (!h) return;
    this.held.delete(id);
    const own = this.byOwner.get(h.owner)!;
    own.delete(id);
    if (own.size === 0) this.byOwner.delete(h.owner);
  }

  /** Drops every receipt past its deadline (the sweep). */
  dropExpired(now: number): void {
    for (const [id, h] of this.held) if (h.expiresAt <= now) this.drop(id);
  }

  private largestHolder(): Set<string> {
    let most: Set<string> | undefined;
    for (const own of this.byOwner.values()) if (!most || own.size > most.size) most = own;
    return most!;
  }
}
