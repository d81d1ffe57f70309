/**
 * The SQLite store keeps the log's Merkle tree beside its entries: the head's root is the
 * RFC 9162 root of the stored bodies (checked against a naive MTH over logRows), proofs
 * built from the stored nodes verify, the tree survives a reopen, an older store gets its
 * tree built at open, and a transaction that rolls back leaves no node behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite.js';
import { openSqliteTree } from '../../src/store/sqlite-merkle.js';
import { sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import {
  EMPTY_ROOT,
  consistencyProof,
  inclusionProof,
  leafHash,
  nodeHash,
  rootAt,
  verifyConsistency,
  verifyInclusion,
} from '../../src/audit/merkle.js';
import type { Sealer } from '../../src/store/store.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));
const sealer: Sealer = (d, seq, prev) => sealEntry(key, d, seq, prev);
const draft = (n: number): EntryDraft => opaqueDraft({
  kind: 'daemon_started',
  transaction_id: null,
  action_name: null,
  risk: null,
  request_hash: null,
  principal: null,
  details: { n, note: `entry ${n} ünïcödé` }, // non-ASCII: the leaf is the body's UTF-8 bytes
});

function naiveRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(naiveRoot(leaves.slice(0, k)), naiveRoot(leaves.slice(k)));
}

/** The naive root over every body the store returns, in seq order. */
async function rootOfRows(store: SqliteStore): Promise<string> {
  const leaves: Buffer[] = [];
  for (let after = 0; ; ) {
    const rows = await store.logRows(after, 500);
    if (rows.length === 0) break;
    for (const r of rows) leaves.push(leafHash(r.body));
    after = rows[rows.length - 1]!.seq;
  }
  return naiveRoot(leaves).toString('hex');
}

function inDir(body: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-store-merkle-'));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function fill(store: SqliteStore, from: number, count: number, batch: number): Promise<void> {
  for (let i = 0; i < count; i += batch) {
    await store.appendEntries(Array.from({ length: Math.min(batch, count - i) }, (_, j) => draft(from + i + j)));
  }
}

test(
  'the head root after every append is rootAt of the stored nodes and the naive root of the bodies; proofs verify',
  inDir(async (dir) => {
    const heads: { size: number; root: string }[] = [];
    const store = new SqliteStore(join(dir, 'a.db'), sealer, (head) => heads.push({ size: head.size, root: head.root }));
    try {
      assert.deepEqual(store.logHead().root, EMPTY_ROOT.toString('hex'), 'an empty store has the empty root');
      assert.equal(await rootAt(0, store.merkleNodes).then((r) => r.toString('hex')), store.logHead().root);
      let n = 0;
      for (const batch of [1, 1, 3, 2, 7, 1, 16, 5, 1, 33]) {
        await fill(store, n, batch, batch);
        n += batch;
        const head = store.logHead();
        assert.equal(head.size, n);
        assert.equal((await rootAt(n, store.merkleNodes)).toString('hex'), head.root, `rootAt(${n})`);
        assert.equal(await rootOfRows(store), head.root, `naive root at ${n}`);
      }
      assert.deepEqual(
        heads.map((h) => h.root),
        await Promise.all(heads.map(async (h) => (await rootAt(h.size, store.merkleNodes)).toString('hex'))),
        'onAppend saw each committed root',
      );
      const rows = await store.logRows(0, 1000);
      for (const h of heads) {
        for (const i of [0, Math.floor(h.size / 2), h.size - 1]) {
          const proof = await inclusionProof(i, h.size, store.merkleNodes);
          assert.ok(verifyInclusion(i, h.size, leafHash(rows[i]!.body), proof, Buffer.from(h.root, 'hex')), `entry ${i + 1} in ${h.size}`);
        }
        const last = heads[heads.length - 1]!;
        const proof = await consistencyProof(h.size, last.size, store.merkleNodes);
        assert.ok(verifyConsistency(h.size, last.size, proof, Buffer.from(h.root, 'hex'), Buffer.from(last.root, 'hex')), `${h.size} -> ${last.size}`);
      }
      await assert.rejects(store.merkleNodes([{ level: 0, index: n }]), { category: 'integrity', code: 'merkle_node_missing' });
      await assert.rejects(store.merkleNodes([{ level: -1, index: 0 }]), { code: 'merkle_node_id' });
      await assert.rejects(
        store.merkleNodes(Array.from({ length: 5000 }, () => ({ level: 0, index: 0 }))),
        { code: 'merkle_read_too_large' },
        'a read is bounded',
      );
    } finally {
      await store.close();
    }
  }),
);

test(
  'reopening keeps the tree: same root, and appends go on from it; an offline reader sees it read-only',
  inDir(async (dir) => {
    const path = join(dir, 'b.db');
    let store = new SqliteStore(path, sealer);
    await fill(store, 0, 37, 4);
    const before = store.logHead();
    await store.close();
    store = new SqliteStore(path, sealer);
    try {
      assert.deepEqual(store.logHead(), before);
      await fill(store, 37, 30, 3);
      assert.equal(await rootOfRows(store), store.logHead().root);
      // While the daemon's store is open (WAL), an offline reader gets the same tree.
      const offline = openSqliteTree(path);
      try {
        assert.equal(offline.size, 67);
        assert.equal((await rootAt(offline.size, offline.read)).toString('hex'), store.logHead().root);
        assert.equal((await rootAt(37, offline.read)).toString('hex'), before.root);
      } finally {
        offline.close();
      }
    } finally {
      await store.close();
    }
  }),
);

/** Runs SQL on a closed store's file, as an older daemon or a hand would leave it. */
function raw(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

test(
  'a store from before the tree (entries, no nodes) gets every node built at open; so does one with its last nodes missing',
  inDir(async (dir) => {
    const path = join(dir, 'c.db');
    let store = new SqliteStore(path, sealer);
    await fill(store, 0, 2345, 100); // more than one build batch
    const want = store.logHead();
    await store.close();
    raw(path, 'DROP TABLE merkle_nodes');
    store = new SqliteStore(path, sealer);
    assert.deepEqual(store.logHead(), want, 'the built tree has the root the live one had');
    await store.close();
    // A downgraded daemon appended entries 2001.. without nodes: every node reaching past leaf 2000 is absent.
    raw(path, 'DELETE FROM merkle_nodes WHERE (idx + 1) * (1 << level) > 2000');
    const offline = openSqliteTree(path);
    assert.equal(offline.size, 2000);
    offline.close();
    store = new SqliteStore(path, sealer);
    try {
      assert.deepEqual(store.logHead(), want);
      await fill(store, 2345, 10, 10);
      assert.equal(await rootOfRows(store), store.logHead().root);
    } finally {
      await store.close();
    }
  }),
);

test(
  'an older store with a gap in its log, or a log cut below its tree, is refused at open, not repaired',
  inDir(async (dir) => {
    const gap = join(dir, 'gap.db');
    let store = new SqliteStore(gap, sealer);
    await fill(store, 0, 20, 20);
    await store.close();
    raw(gap, 'DROP TABLE merkle_nodes; DELETE FROM audit_log WHERE seq = 7');
    assert.throws(() => new SqliteStore(gap, sealer), { category: 'integrity', code: 'merkle_log_gap' });
    // The refused build left nothing half-done.
    const db = new Database(gap, { readonly: true });
    assert.equal(db.prepare('SELECT COUNT(*) FROM merkle_nodes').pluck().get(), 0);
    db.close();

    const cut = join(dir, 'cut.db');
    store = new SqliteStore(cut, sealer);
    await fill(store, 0, 20, 20);
    await store.close();
    raw(cut, 'DELETE FROM audit_log WHERE seq > 17');
    assert.throws(() => new SqliteStore(cut, sealer), { category: 'integrity', code: 'merkle_nodes_ahead' });
  }),
);

test(
  'a transaction that rolls back after its entries and nodes were written leaves no node, and the frontier where it was',
  inDir(async (dir) => {
    const path = join(dir, 'd.db');
    let failOn = -1;
    let calls = 0;
    // The sealer fails on a chosen call: after earlier entries of the same transaction (and their nodes) are written.
    const flaky: Sealer = (d, seq, prev) => {
      if (calls++ === failOn) throw new Error('sealer failed');
      return sealer(d, seq, prev);
    };
    const store = new SqliteStore(path, flaky);
    try {
      await fill(store, 0, 5, 5);
      const head = store.logHead();
      const count = () => {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare('SELECT COUNT(*) FROM merkle_nodes').pluck().get() as number;
        } finally {
          db.close();
        }
      };
      const nodes = count();
      failOn = calls + 3; // entries 6, 7, 8 written (finishing nodes 0/5..2/1), then the 4th fails
      await assert.rejects(store.appendEntries([draft(5), draft(6), draft(7), draft(8)]), /sealer failed/);
      assert.deepEqual(store.logHead(), head, 'the head did not move');
      assert.equal(count(), nodes, 'no node of the rolled-back entries is stored');
      await assert.rejects(store.merkleNodes([{ level: 0, index: 5 }]), { code: 'merkle_node_missing' });
      failOn = -1;
      await fill(store, 5, 4, 4);
      assert.equal(await rootOfRows(store), store.logHead().root, 'the next commit builds on the frontier as it was');
      assert.equal((await rootAt(9, store.merkleNodes)).toString('hex'), store.logHead().root);
    } finally {
      await store.close();
    }
  }),
);
