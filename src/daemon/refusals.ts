/**
 * Refusals leave a trace: a self-approval without a factor, a bad receipt, a digest
 * mismatch, a wrong code below the lockout, a bad token each become a signed
 * `refused` entry. A flood cannot grow the log without bound: per principal and
 * reason, the first refusal of a window is written at once, and the rest of that
 * window become one entry with their count when the window ends.
 */
import { DAEMON_ACT, entryDraft, type EntryDraft, type EntryPrincipal } from '../audit/entry.js';

/** How long refusals of one principal and reason are folded into one entry. */
export const REFUSAL_WINDOW_MS = 60_000;
/**
 * Distinct principal-and-reason pairs tracked at once; past it, refusals of new pairs
 * are folded into one overflow pair, so the entries per window stay at most 2 x this.
 */
export const MAX_REFUSAL_KEYS = 1024;

export interface Refused {
  /** Who was refused (null before the daemon knows: a bad token). */
  principal: EntryPrincipal | null;
  method: string;
  category: string;
  code: string;
  transactionId: string | null;
}

interface Window {
  first: Refused;
  startedAt: number;
  /** Refusals after the first in this window, not yet written. */
  more: number;
}

export class RefusalLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly append: (entries: EntryDraft[]) => Promise<void>,
    private readonly now: () => number,
    private readonly log: (msg: string) => void,
  ) {}

  record(r: Refused): void {
    const now = this.now();
    let key = `${r.principal ? `${r.principal.uid}:${r.principal.user}` : 'unknown'}|${r.code}`;
    if (!this.windows.has(key) && this.windows.size >= MAX_REFUSAL_KEYS) key = 'overflow';
    const w = this.windows.get(key);
    if (w && now - w.startedAt < REFUSAL_WINDOW_MS) {
      w.more++;
      return;
    }
    const entries: EntryDraft[] = [];
    if (w && w.more > 0) entries.push(this.entry(w.first, w.more, w.startedAt, now));
    this.windows.set(key, { first: key === 'overflow' ? { ...r, principal: null, code: 'overflow' } : r, startedAt: now, more: 0 });
    entries.push(this.entry(r, 1, now, null));
    this.write(entries);
  }

  /** Writes the counts of windows that have ended (the daemon's sweep calls it; `all` at stop). */
  async flush(all = false): Promise<void> {
    const now = this.now();
    const entries: EntryDraft[] = [];
    for (const [key, w] of this.windows) {
      if (!all && now - w.startedAt < REFUSAL_WINDOW_MS) continue;
      if (w.more > 0) entries.push(this.entry(w.first, w.more, w.startedAt, now));
      this.windows.delete(key);
    }
    if (entries.length) await this.append(entries);
  }

  private write(entries: EntryDraft[]): void {
    // A refusal is answered at once; its entry follows. A store that fails is logged (the refusal stands).
    this.append(entries).catch((e) => this.log(`could not record a refusal: ${(e as Error).message}`));
  }

  private entry(r: Refused, count: number, since: number, until: number | null): EntryDraft {
    return entryDraft('refused', { ...DAEMON_ACT, transaction_id: r.transactionId, principal: r.principal }, {
      method: r.method,
      category: r.category,
      code: r.code,
      count,
      since: new Date(since).toISOString(),
      ...(until !== null ? { until: new Date(until).toISOString(), coalesced: true as const } : {}),
    });
  }
}
