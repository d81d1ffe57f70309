/**
 * The sweep's retention (src/daemon/retention.ts) on a real SQLite store: bounded batches, a
 * backlog drained over several sweeps, compaction before removal, the policy's periods, a
 * failing run logged and retried, never two runs at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { DEFAULT_STORE_SETTINGS } from '../../src/policy/store-settings.js';
import { applyRetention as applyWithLimits, RETENTION_BATCH, RetentionSweep, type RetentionLimits } from '../../src/daemon/retention.js';

// A sweep's share in these tests: RETENTION_BATCH per operation, four operations (the daemon's is larger, and time-bounded).
const RETENTION_OPS_PER_SWEEP = 4;
const TEST_LIMITS: RetentionLimits = { batch: RETENTION_BATCH, ops: RETENTION_OPS_PER_SWEEP, budgetMs: 60_000 };
const applyRetention = (...a: [Parameters<typeof applyWithLimits>[0], Parameters<typeof applyWithLimits>[1], number]) => applyWithLimits(...a, TEST_LIMITS);
import { SqliteStore } from '../../src/store/sqlite.js';
import { allRows, draft, txRecord } from '../support/store-contract.js';

const key = signingKeyFromSeed(randomBytes(32));
const now = 1_800_000_000_000;
const settings = { ...DEFAULT_STORE_SETTINGS, keepDetailsMs: 60_000, keepHistoryMs: 600_000 };

async function withStore(body: (store: SqliteStore, faults: { sealFails: boolean }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-retention-'));
  const faults = { sealFails: false };
  const store = new SqliteStore(join(dir, 'airlock.db'), (d, seq, prev) => {
    if (faults.sealFails) throw new Error('the audit key is unavailable');
    return sealEntry(key, d, seq, prev);
  });
  try {
    await body(store, faults);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const finishedAt = (store: SqliteStore, n: number, at: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => store.createTransaction(txRecord(`t${i}`, at, { state: 'Succeeded', result: { state: 'Succeeded', summary: 'ok', changed: false } }), draft('preview', `t${i}`))));

const kindsOf = async (store: SqliteStore) => (await allRows(store, 1000)).map((r) => JSON.parse(r.body)).filter((e) => e.kind !== 'preview');

test('a backlog larger than one sweep drains over sweeps, in batches of at most RETENTION_BATCH, compacted before it is removed', async () => {
  await withStore(async (store) => {
    const perSweep = RETENTION_BATCH * RETENTION_OPS_PER_SWEEP;
    const n = perSweep + 300;
    await finishedAt(store, n, now);
    // Before keep_details: nothing.
    assert.deepEqual(await applyRetention(store, settings, now + 59_000), { compacted: 0, pruned: 0 });
    // After it: one sweep does at most RETENTION_OPS_PER_SWEEP batches; the next one the rest.
    assert.deepEqual(await applyRetention(store, settings, now + 61_000), { compacted: perSweep, pruned: 0 });
    assert.deepEqual(await applyRetention(store, settings, now + 62_000), { compacted: 300, pruned: 0 });
    assert.deepEqual(await applyRetention(store, settings, now + 63_000), { compacted: 0, pruned: 0 });
    let entries = await kindsOf(store);
    assert.deepEqual(entries.map((e) => e.details.count), [...Array(RETENTION_OPS_PER_SWEEP).fill(RETENTION_BATCH), 300]);
    assert.ok(entries.every((e) => e.kind === 'compacted'));
    // Each entry names its sweep's cutoff: that sweep's time less keep_details.
    assert.deepEqual(entries.map((e) => e.details.finished_before), [...Array(RETENTION_OPS_PER_SWEEP).fill(new Date(now + 1_000).toISOString()), new Date(now + 2_000).toISOString()]);
    assert.equal((await store.history({ limit: 1000 })).filter((t) => t.compactedAt === null).length, 0);
    // After keep_history: removed the same way.
    assert.deepEqual(await applyRetention(store, settings, now + 601_000), { compacted: 0, pruned: perSweep });
    assert.deepEqual(await applyRetention(store, settings, now + 602_000), { compacted: 0, pruned: 300 });
    entries = await kindsOf(store);
    assert.deepEqual(entries.filter((e) => e.kind === 'history_pruned').map((e) => e.details.count), [...Array(RETENTION_OPS_PER_SWEEP).fill(RETENTION_BATCH), 300]);
    assert.equal((await store.history({ limit: 10 })).length, 0);
    assert.equal((await allRows(store, 1000)).length, n + 10, 'every preview entry is still in the log');
  });
});

test('a transaction past both periods at once is compacted, then removed, by the same sweep: removal only ever takes compacted ones', async () => {
  await withStore(async (store) => {
    await finishedAt(store, 3, now);
    // Both periods long past at the first sweep: compaction runs first, so removal finds them compacted.
    assert.deepEqual(await applyRetention(store, settings, now + 10 ** 7), { compacted: 3, pruned: 3 });
    assert.deepEqual((await kindsOf(store)).map((e) => e.kind), ['compacted', 'history_pruned']);
  });
});

test('a failing run is logged and the next one does the work; two runs never overlap', async () => {
  await withStore(async (store, faults) => {
    await finishedAt(store, 10, now);
    const logs: string[] = [];
    let clock = now + 61_000;
    let current = settings;
    const sweep = new RetentionSweep(store, () => current, () => clock, (m) => logs.push(m));
    faults.sealFails = true;
    assert.equal(await sweep.run(), null);
    assert.match(logs.at(-1)!, /^retention failed \(the next sweep tries again\): the audit key is unavailable/);
    assert.equal((await store.history({ limit: 100 })).filter((t) => t.compactedAt !== null).length, 0, 'the failed batch rolled back whole');
    faults.sealFails = false;
    // Two at once: the second skips its turn.
    const [a, b] = await Promise.all([sweep.run(), sweep.run()]);
    assert.deepEqual(a, { compacted: 10, pruned: 0 });
    assert.equal(b, null);
    assert.match(logs.at(-1)!, /compacted 10 finished transaction\(s\)/);
    // The policy in force at each run: a shorter keep_history (after a reload) applies at the next.
    current = { ...settings, keepHistoryMs: 60_000 };
    clock += 1_000;
    assert.deepEqual(await sweep.run(), { compacted: 0, pruned: 10 });
  });
});

test('a sweep stops at its time budget however many operations it may do, and the next one goes on', async () => {
  await withStore(async (store) => {
    await finishedAt(store, 50, now);
    const noTime: RetentionLimits = { batch: 10, ops: 1000, budgetMs: 0 };
    // One batch and the budget is spent: the rest waits for the next sweep.
    assert.deepEqual(await applyWithLimits(store, settings, now + 61_000, noTime), { compacted: 10, pruned: 0 });
    assert.deepEqual(await applyWithLimits(store, settings, now + 61_000, { ...noTime, budgetMs: 60_000 }), { compacted: 40, pruned: 0 });
  });
});
