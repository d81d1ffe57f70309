/**
 * The store's retention, run by the sweep timer (main.ts): finished transactions are compacted
 * once the policy's keep_details has passed, and compacted ones deleted once keep_history has
 * (src/store/compaction.ts says what each step keeps). Work is done in bounded batches, a few
 * per sweep, so a backlog (a first start after months, a store restored from a backup) drains
 * over several sweeps and never holds the store for long: other writes wait for one batch at
 * most. A failure is logged and the next sweep tries again; retention never stops the daemon.
 */
import { DAEMON_ACT, entryDraft, type EntryDraft } from '../audit/entry.js';
import type { StoreSettings } from '../policy/store-settings.js';
import type { Store } from '../store/store.js';

/** Transactions one store operation compacts or deletes: one transaction of a few hundred row updates. */
export const RETENTION_BATCH = 500;
/**
 * Store operations of each kind in one sweep, and the time they may take: at the default sweep of
 * 30 s that is up to 20,000 of each per sweep (over 600 a second, past the 270 lifecycles a second
 * a daemon was measured to sustain), while a sweep never holds the store for more than a few
 * batches' worth at a time (other writes interleave between operations).
 */
export const RETENTION_OPS_PER_SWEEP = 40;
export const RETENTION_BUDGET_MS = 2_000;

export interface RetentionLimits {
  batch: number;
  ops: number;
  budgetMs: number;
}
const LIMITS: RetentionLimits = { batch: RETENTION_BATCH, ops: RETENTION_OPS_PER_SWEEP, budgetMs: RETENTION_BUDGET_MS };

export interface RetentionCounts {
  compacted: number;
  pruned: number;
}

const retentionEntry = (kind: 'compacted' | 'history_pruned', cutoffMs: number) => (count: number, idsSha256: string): EntryDraft =>
  entryDraft(kind, DAEMON_ACT, { count, finished_before: new Date(cutoffMs).toISOString(), ids_sha256: idsSha256 });

/** One sweep's retention: compaction first (a transaction is compacted before it can be deleted), then pruning. */
export async function applyRetention(store: Store, settings: StoreSettings, now: number, limits: RetentionLimits = LIMITS): Promise<RetentionCounts> {
  const counts: RetentionCounts = { compacted: 0, pruned: 0 };
  // Each step gets its own budget: pruning never starves behind a long compaction backlog.
  const batches = async (op: () => Promise<number>): Promise<number> => {
    let done = 0;
    const until = performance.now() + limits.budgetMs;
    for (let i = 0; i < limits.ops; i++) {
      const n = await op();
      done += n;
      if (n < limits.batch || performance.now() > until) break;
    }
    return done;
  };
  const detailsCutoff = now - settings.keepDetailsMs;
  counts.compacted = await batches(() => store.compactFinished(detailsCutoff, limits.batch, now, retentionEntry('compacted', detailsCutoff)));
  const historyCutoff = now - settings.keepHistoryMs;
  counts.pruned = await batches(() => store.pruneHistory(historyCutoff, limits.batch, now, retentionEntry('history_pruned', historyCutoff)));
  return counts;
}

/**
 * Runs applyRetention from a timer: never two at once (a sweep that finds the last one still
 * running skips its turn), with the policy in force at each run (a reload changes the periods).
 */
export class RetentionSweep {
  private running = false;

  constructor(
    private readonly store: Store,
    private readonly settings: () => StoreSettings,
    private readonly now: () => number,
    private readonly log: (msg: string) => void,
  ) {}

  async run(): Promise<RetentionCounts | null> {
    if (this.running) return null;
    this.running = true;
    try {
      const c = await applyRetention(this.store, this.settings(), this.now());
      if (c.compacted || c.pruned) this.log(`retention: compacted ${c.compacted} finished transaction(s), removed ${c.pruned} compacted one(s) from the store`);
      return c;
    } catch (e) {
      this.log(`retention failed (the next sweep tries again): ${(e as Error).message}`);
      return null;
    } finally {
      this.running = false;
    }
  }
}
