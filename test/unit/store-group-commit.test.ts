/**
 * The SQLite store's group commit: operations that arrive together share one transaction and
 * one fsync, each inside its own savepoint. What must hold: every operation is still all or
 * nothing (one that throws leaves no trace and does not disturb the others of its batch), the
 * log numbers every entry once with no gap, nothing is reported before its commit is on disk
 * (SQLite's write-ahead log synced), a batch is bounded, and the whole log verifies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { MAX_BATCH, SqliteStore } from '../../src/store/sqlite.js';
import { GroupCommit, type BatchDialect } from '../../src/store/group-commit.js';
import { MerkleFrontier } from '../../src/audit/merkle.js';
import { GENESIS_HASH, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { verifyLog } from '../../src/audit/verify.js';
import { rootAt } from '../../src/audit/merkle.js';
import type { TxRecord } from '../../src/store/store.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));
const draft = (kind: EntryDraft['kind'], tx: string | null = null): EntryDraft => opaqueDraft({ kind, transaction_id: tx, action_name: null, risk: null, request_hash: null, principal: null, details: {} });
const txRecord = (id: string): TxRecord => ({
  id, actionName: 'Uptime', params: {}, requestHash: 'ab'.repeat(32), risk: 'low', state: 'Previewed', requesterUid: 1001, requesterName: 'agent', requesterRole: 'observer',
  requesterPersonUid: null, preview: {}, previewDigest: 'cd'.repeat(32), summary: 'uptime', createdAt: 1, updatedAt: 1, expiresAt: Date.now() + 60_000, approvedBy: null, receiptCommitment: null, result: null, compactedAt: null,
});

test('concurrent operations commit together: each all or nothing, every seq once, the log verifies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gc-'));
  try {
    const committed: number[] = [];
    const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev), (head) => committed.push(head.size));
    const ids = Array.from({ length: 300 }, () => 'tx_' + randomBytes(12).toString('hex'));
    // One id twice: the second insert violates the primary key, and only it must fail.
    const dup = ids[150]!;
    const ops = [
      ...ids.map((id) => store.createTransaction(txRecord(id), draft('preview', id))),
      store.createTransaction(txRecord(dup), draft('preview', dup)),
      ...Array.from({ length: 200 }, () => store.appendEntries([draft('daemon_started'), draft('refused')])),
    ];
    const outcomes = await Promise.allSettled(ops);
    const failed = outcomes.filter((o) => o.status === 'rejected');
    assert.equal(failed.length, 1, 'exactly the duplicate failed');
    assert.match(String((failed[0] as PromiseRejectedResult).reason), /UNIQUE|constraint/i);
    const head = store.logHead();
    assert.equal(head.size, 300 + 400, 'the failed operation appended nothing; every other entry is there');
    const rows = await store.logRows(0, 10_000);
    assert.deepEqual(rows.map((r) => r.seq), Array.from({ length: 700 }, (_, i) => i + 1));
    assert.equal((await store.transactionEntries(dup, 10)).length, 1, 'the duplicate left no second preview entry');
    assert.equal((await rootAt(head.size, store.merkleNodes)).toString('hex'), head.root);
    const rep = await verifyLog(rows, key.publicRaw, null, { workers: 1 });
    assert.equal(rep.entries, 700);
    assert.notEqual(rep.status, 'broken');
    assert.equal(committed.length, 500, 'onAppend once per operation that appended, after its commit');
    assert.deepEqual([...committed].sort((a, b) => a - b), committed, 'heads announced in order');
    // Batches are bounded: 501 operations needed at least two commits.
    assert.ok(MAX_BATCH < 501);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nothing is reported before it is committed, and close() commits what was asked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gc-'));
  try {
    const path = join(dir, 'a.db');
    const store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
    let settled = false;
    const p = store.appendEntries([draft('daemon_started')]).then(() => (settled = true));
    assert.equal(settled, false);
    assert.equal(store.logHead().size, 0, 'the head moves only after the commit');
    // Another connection sees nothing yet: the operation has not run.
    const reader = new Database(path, { readonly: true });
    assert.equal(reader.prepare('SELECT COUNT(*) FROM audit_log').pluck().get(), 0);
    await p;
    assert.equal(reader.prepare('SELECT COUNT(*) FROM audit_log').pluck().get(), 1, 'once it settles, it is in the database');
    const late = store.appendEntries([draft('refused')]);
    await store.close();
    await late;
    assert.equal(reader.prepare('SELECT COUNT(*) FROM audit_log').pluck().get(), 2, 'close() committed the operation still waiting');
    reader.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a batch runs with nothing in between: a read from another microtask never sees a row before its commit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gc-'));
  try {
    const path = join(dir, 'a.db');
    const store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
    // Another connection sees only what is committed: a row the store's reads show and it does
    // not would have come from inside a batch's open transaction.
    const other = new Database(path, { readonly: true });
    const committed = other.prepare('SELECT 1 FROM transactions WHERE id = ?').pluck();
    const ids = Array.from({ length: 50 }, () => 'tx_' + randomBytes(12).toString('hex'));
    let stop = false;
    const early: string[] = [];
    let reads = 0;
    // Reads chained on microtasks, as a request's continuation would be, while the batch is written.
    const poll = (async () => {
      while (!stop) {
        for (const tx of await store.history({ limit: 1000 })) if (committed.get(tx.id) !== 1) early.push(tx.id);
        // A turn of the event loop now and then: the batches' syncs complete on the thread pool.
        if (++reads % 10 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    await Promise.all(ids.map((id) => store.createTransaction(txRecord(id), draft('preview', id))));
    stop = true;
    await poll;
    assert.ok(reads > 0, 'the reads ran');
    assert.deepEqual(early, [], 'no read saw a transaction its commit had not yet made');
    assert.equal((await store.history({ limit: 1000 })).length, 50);
    other.close();
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A dialect over a real SQLite connection whose durability the test holds: each COMMIT's
 * `durable` is a promise the test settles, as a write-ahead log sync on the thread pool would.
 */
function heldDurability() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE log (seq INTEGER PRIMARY KEY, body TEXT)');
  const syncs: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const dialect: BatchDialect<Database.Database> = {
    connect: () => db,
    release: () => {},
    begin: (_c, tip) => (db.exec('BEGIN IMMEDIATE'), tip),
    savepoint: () => db.exec('SAVEPOINT op'),
    releaseSavepoint: () => db.exec('RELEASE op'),
    rollbackToSavepoint: () => db.exec('ROLLBACK TO op'),
    commit: () => db.exec('COMMIT'),
    durable: () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })),
    rollback: () => db.inTransaction && db.exec('ROLLBACK'),
    write: (_c, entries) => {
      for (const e of entries) db.prepare('INSERT INTO log VALUES (?, ?)').run(e.seq, e.body);
    },
    failure: (e) => e,
  };
  const heads: number[] = [];
  const group = new GroupCommit(dialect, (d, seq, prev) => sealEntry(key, d, seq, prev), { maxBatch: 4, maxPending: 100 }, (head) => heads.push(head.size), {
    head: { size: 0, hash: GENESIS_HASH, root: MerkleFrontier.empty().root().toString('hex') },
    frontier: MerkleFrontier.empty(),
  });
  return { db, syncs, group, heads };
}

const turn = () => new Promise((r) => setImmediate(r));
/** Turns of the event loop until `done` (at most 100). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await turn();
}

test('with a commit that syncs later: nothing is told before its sync, batches go on meanwhile, and outcomes are told in commit order', async () => {
  const { db, syncs, group, heads } = heldDurability();
  const told: number[] = [];
  const ops = Array.from({ length: 8 }, (_, i) => group.run(() => [draft('refused')], () => i).then((v) => told.push(v)));
  await until(() => syncs.length === 2);
  // Both batches (4 each) committed while the first one's sync was still running.
  assert.equal(db.prepare('SELECT COUNT(*) FROM log').pluck().get(), 8, 'the next batch did not wait for the last one to sync');
  assert.equal(syncs.length, 2);
  assert.deepEqual(told, [], 'nobody is told before the sync');
  assert.deepEqual(heads, [], 'no head is announced before the sync');
  syncs[1]!.resolve(); // the second batch is synced first ...
  await turn();
  assert.deepEqual(told, [], '... and still waits for the first');
  syncs[0]!.resolve();
  await Promise.all(ops);
  assert.deepEqual(told, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(heads, [1, 2, 3, 4, 5, 6, 7, 8], 'heads announced once synced, in order');
  await group.drain();
});

test('a sync that fails refuses its batch, the batches after it, and every later operation', async () => {
  const { syncs, group, heads } = heldDurability();
  const first = Array.from({ length: 4 }, () => group.run(() => [draft('refused')], () => 'ok'));
  const second = Array.from({ length: 2 }, () => group.run(() => [draft('refused')], () => 'ok'));
  await until(() => syncs.length === 2);
  assert.equal(syncs.length, 2);
  syncs[1]!.resolve();
  syncs[0]!.reject(new Error('EIO'));
  for (const o of await Promise.allSettled([...first, ...second])) assert.equal(o.status, 'rejected', 'an operation whose commit may not be on disk is not reported stored');
  assert.deepEqual(heads, [], 'no head announced for what may be lost');
  await assert.rejects(group.run(() => [draft('refused')], () => 'later'), /EIO/, 'the group refuses from then on');
});

test("the SQLite store's commits are durable before they are told: its write-ahead log is synced after each batch", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gc-'));
  try {
    const path = join(dir, 'a.db');
    const store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
    const db = (store as unknown as { db: Database.Database }).db;
    assert.equal(db.pragma('synchronous', { simple: true }), 1, 'NORMAL: COMMIT itself does not wait for the disk ...');
    let synced = 0;
    const sync = (store as unknown as { syncOnce: () => Promise<void> }).syncOnce.bind(store);
    (store as unknown as { syncOnce: () => Promise<void> }).syncOnce = () => (synced++, sync());
    await Promise.all(Array.from({ length: 20 }, () => store.appendEntries([draft('refused')])));
    await store.appendEntries([draft('refused')]);
    assert.ok(synced >= 2, '... the write-ahead log is synced after the batches instead');
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
