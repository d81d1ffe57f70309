/**
 * The SQLite store's group commit: operations that arrive together share one transaction and
 * one fsync, each inside its own savepoint. What must hold: every operation is still all or
 * nothing (one that throws leaves no trace and does not disturb the others of its batch), the
 * log numbers every entry once with no gap, nothing is reported before its commit, a batch is
 * bounded, and the whole log verifies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { MAX_BATCH, SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry, type EntryDraft } from '../../src/audit/entry.js';
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
    const committed = new Set<string>();
    const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev), (_head, entries) => {
      for (const e of entries) if (e.transaction_id) committed.add(e.transaction_id);
    });
    const ids = Array.from({ length: 50 }, () => 'tx_' + randomBytes(12).toString('hex'));
    let stop = false;
    const early: string[] = [];
    let reads = 0;
    // Reads chained on microtasks, as a request's continuation would be, while the batch is written.
    const poll = (async () => {
      while (!stop) {
        for (const tx of await store.history({ limit: 1000 })) if (!committed.has(tx.id)) early.push(tx.id);
        reads++;
      }
    })();
    await Promise.all(ids.map((id) => store.createTransaction(txRecord(id), draft('preview', id))));
    stop = true;
    await poll;
    assert.ok(reads > 0, 'the reads ran');
    assert.deepEqual(early, [], 'no read saw a transaction its commit had not yet made');
    assert.equal(committed.size, 50);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
