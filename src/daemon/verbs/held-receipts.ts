/**
 * The receipt of each approved transaction, a person's or the policy's, held for its requester
 * (`airlock run` waiting for another approver, the MCP server executing what the policy
 * approved: each fetches it with `transaction.get` or `transaction.wait`). In memory: a
 * restart forgets them, and the approver still has theirs.
 */

/** Receipts kept for their requester to fetch, at most this many. */
export const MAX_HELD_RECEIPTS = 4096;

export class HeldReceipts {
  private readonly held = new Map<string, { receipt: string; expiresAt: number }>();

  hold(id: string, receipt: string, expiresAt: number): void {
    // Oldest first out: a flood of approvals cannot grow the map past its bound (the sweep drops expired ones).
    while (this.held.size >= MAX_HELD_RECEIPTS) this.held.delete(this.held.keys().next().value!);
    this.held.set(id, { receipt, expiresAt });
  }

  /** The receipt held for `id`, unless it has expired by `now`. */
  get(id: string, now: number): string | undefined {
    const h = this.held.get(id);
    return h && h.expiresAt > now ? h.receipt : undefined;
  }

  /** Spent (execute): it serves nobody any more. */
  drop(id: string): void {
    this.held.delete(id);
  }

  /** Drops every receipt past its deadline (the sweep). */
  dropExpired(now: number): void {
    for (const [id, h] of this.held) if (h.expiresAt <= now) this.held.delete(id);
  }
}
