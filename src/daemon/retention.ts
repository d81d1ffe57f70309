/**
 * The store's retention, run by the sweep timer (main.ts): finished transactions are compacted
 * once the policy's keep_details has passed, and compacted ones deleted once keep_history has
 * (src/store/compaction.ts says what each step keeps). Work is done in bounded batches, a few
 * per sweep, so a backlog (a first start after months, a store restored from a backup) drains
 * over several sweeps and never holds the store for long: other writes wait for one batch at
 * most. A failure is logged and the next sweep tries again; retention never stops the daemon.
 */
import type { EntryDraft } from '../audit/entry.js';
import type { StoreSettings } from '../policy/store-settings.js';
import type { Store } from '../store/store.js';

/** Transactions one store operation compacts or deletes: one transaction of a few hundred row updates. */
export const RETENTION_BATCH = 500;
/** Store operations of each kind in one sweep: at most 2,000 compacted and 2,000 deleted per sweep. */
export const RETENTION_OPS_PER_SWEEP = 4;

export interface RetentionCounts {
  compacted: number;
  pruned: number;
}

const retentionEntry = (kind: 'compacted' | 'history_pruned', cutoffMs: number) => (count: number, idsSha256: string): EntryDraft => ({
  kind,
  transaction_id: null,
  action_name: null,
  risk: null,
  request_hash: null,
  principal: null,
  details: { count, finished_before: new Date(cutoffMs).toISOString(), ids_sha256: idsSha256 },
});

/** One sweep's retention: compaction first (a transaction is compacted before it can be deleted), then pruning. */
export async function applyRetention(store: Store, settings: StoreSettings, now: number): Promise<RetentionCounts> {
  const counts: RetentionCounts = { compacted: 0, pruned: 0 };
  const detailsCutoff = now - settings.keepDetailsMs;
  for (let i = 0; i < RETENTION_OPS_PER_SWEEP; i++) {
    const n = await store.compactFinished(detailsCutoff, RETENTION_BATCH, now, retentionEntry('compacted', detailsCutoff));
    counts.compacted += n;
    if (n < RETENTION_BATCH) break;
  }
  const historyCutoff = now - settings.keepHistoryMs;
  for (let i = 0; i < RETENTION_OPS_PER_SWEEP; i++) {
    const n = await store.pruneHistory(historyCutoff, RETENTION_BATCH, now, retentionEntry('history_pruned', historyCutoff));
    counts.pruned += n;
    if (n < RETENTION_BATCH) break;
  }
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
