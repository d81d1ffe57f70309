/**
 * Requesters waiting for their transactions to be decided (`transaction.wait`). A wait holds
 * a slot: at most MAX_WAITS_PER_PRINCIPAL per principal and MAX_WAITS in all, so waits cannot
 * grow the daemon; beyond that the wait is refused with a typed transient error, before it
 * holds anything. A wait is woken whenever its transaction changes (the service calls
 * `changed` after every store operation that moves a transaction), and then reads the store
 * again: the store stays the one record of what happened, a wake-up only says "look again".
 * Each wait owns at most one timer at a time, and gives its slot, its wake-up and its timer
 * back however it ends: its deadline, a decision, or the connection closing (the signal).
 */
import { AirlockError } from '../protocol/errors.js';

export const MAX_WAITS_PER_PRINCIPAL = 8;
export const MAX_WAITS = 256;

export class Waiters {
  private readonly byTx = new Map<string, Set<Wait>>();
  private readonly perPrincipal = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limits = { perPrincipal: MAX_WAITS_PER_PRINCIPAL, total: MAX_WAITS },
  ) {}

  /**
   * A wait of `principal` (its key: one per requester identity) on `txId`, registered for
   * wake-ups at once, so a change between this call and the caller's next store read is not
   * missed. Throws `transient/too_many_waits` past either limit.
   */
  open(principal: string, label: string, txId: string, signal?: AbortSignal): Wait {
    const mine = this.perPrincipal.get(principal) ?? 0;
    if (mine >= this.limits.perPrincipal) {
      throw new AirlockError('transient', 'too_many_waits', `${label} already waits for ${mine} transactions, the most one principal may`, 'let a wait end (or close its connection) before starting another');
    }
    if (this.total >= this.limits.total) {
      throw new AirlockError('transient', 'too_many_waits', `the daemon already holds ${this.total} waits, the most it keeps`, 'retry in a moment, or ask with `transaction.get` instead');
    }
    this.perPrincipal.set(principal, mine + 1);
    this.total++;
    const set = this.byTx.get(txId) ?? new Set<Wait>();
    this.byTx.set(txId, set);
    const w = new Wait(signal, () => {
      set.delete(w);
      if (set.size === 0 && this.byTx.get(txId) === set) this.byTx.delete(txId);
      const n = (this.perPrincipal.get(principal) ?? 1) - 1;
      if (n <= 0) this.perPrincipal.delete(principal);
      else this.perPrincipal.set(principal, n);
      this.total--;
    });
    set.add(w);
    return w;
  }

  /** Wakes every wait on this transaction: it changed, and each reads the store again. */
  changed(txId: string): void {
    for (const w of this.byTx.get(txId) ?? []) w.wake();
  }

  /** How many waits are held, in all and for one principal (for tests and the daemon's own checks). */
  count(principal?: string): number {
    return principal === undefined ? this.total : (this.perPrincipal.get(principal) ?? 0);
  }

  /** Transactions with a wait on them (each listed once). */
  get watched(): number {
    return this.byTx.size;
  }
}

export class Wait {
  private woken = false;
  private resume: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly onAbort = () => this.settle();

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The connection that asked is gone: nobody would read the answer. */
  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  wake(): void {
    this.woken = true;
    this.settle();
  }

  /**
   * Resolves when the transaction changed since the last call (at once if it already did),
   * after `ms`, or when the connection closes, whichever is first.
   */
  sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.woken || this.aborted) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.resume = resolve;
      this.timer = setTimeout(() => this.settle(), Math.max(1, ms));
    });
  }

  private settle(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const r = this.resume;
    this.resume = null;
    if (r) {
      this.woken = false;
      r();
    }
  }

  /** Gives the slot, the wake-up and the timer back; safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.settle();
    this.release();
  }
}
