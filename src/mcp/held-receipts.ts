/**
 * Receipts the daemon handed this very process: the ones its policy minted when it
 * approved a proposed step itself (`auto_approval` of a preview). They are the agent's own
 * (bound to its principal), so airlock_execute uses them without waiting; they are never
 * shown to the agent, which has no use for them and should never handle one. In memory
 * only: after a restart the daemon hands them out again through transaction.wait.
 */

/** More than any proposal holds; the oldest go first, so the map cannot grow without bound. */
const MAX_HELD = 256;

export class HeldReceipts {
  private readonly byTx = new Map<string, { receipt: string; expiresAt: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  hold(transactionId: string, receipt: string, expiresAt: string): void {
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    this.byTx.delete(transactionId);
    while (this.byTx.size >= MAX_HELD) this.byTx.delete(this.byTx.keys().next().value!);
    this.byTx.set(transactionId, { receipt, expiresAt: at });
  }

  /** The receipt, while it is still valid. */
  get(transactionId: string): string | undefined {
    const h = this.byTx.get(transactionId);
    if (h && h.expiresAt <= this.now()) this.byTx.delete(transactionId);
    return h && h.expiresAt > this.now() ? h.receipt : undefined;
  }

  /** Once execute has used it (whatever the outcome), or the daemon refused it for good. */
  drop(transactionId: string): void {
    this.byTx.delete(transactionId);
  }

  get size(): number {
    return this.byTx.size;
  }
}
