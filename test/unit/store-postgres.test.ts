/**
 * The Store contract on PostgreSQL (a schema of this file's own on the test server), and what
 * only a shared database has: several logs in one database at once, two store objects writing
 * one log (the database's row lock, not the process, keeps seqs whole), a lost connection
 * that fails the operation closed and recovers, and the fleet-facing refusals at open.
 */
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres.js';
import type { Sealer } from '../../src/store/store.js';
import { assertIntact, draft, storeContract, txRecord } from '../support/store-contract.js';
import { terminateBackends, testSchema, type TestSchema } from '../support/pg-schema.js';
import { TEST_ROW_KEY } from '../support/pg-schema.js';

const logIdOf = () => randomBytes(8).toString('hex');
const sealWith = (key: SigningKey): Sealer => (d, seq, prev) => sealEntry(key, d, seq, prev);

storeContract('PostgreSQL', async () => {
  const schema = await testSchema();
  const logId = logIdOf();
  return {
    open: (o) => openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId, origin: `test/airlock/${logId}`, seal: o.seal, ...(o.onAppend ? { onAppend: o.onAppend } : {}) }),
    cleanup: () => schema.drop(),
    // Dropping the column drops the partial indexes on it too.
    removeCompactedAt: async () => void (await schema.admin.query('ALTER TABLE transactions DROP COLUMN compacted_at')),
  };
});

describe('PostgreSQL: a database shared by several logs', () => {
  let schema: TestSchema;
  before(async () => {
    schema = await testSchema();
  });
  after(async () => {
    await schema.drop();
  });
  const open = (key: SigningKey, logId = key.keyId) => openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId, origin: `host-${logId}/airlock/${logId}`, seal: sealWith(key) });
  const now = 1_800_000_000_000;

  test('3 stores (3 logs) in one database, 4 writers x 100 operations each, at once: every log is 1..N and verifies', async () => {
    const keys = [0, 1, 2].map(() => signingKeyFromSeed(randomBytes(32)));
    // Opened at once: schema creation must be safe when daemons start together.
    const stores = await Promise.all(keys.map((k) => open(k)));
    try {
      await Promise.all(
        stores.flatMap((store, s) =>
          Array.from({ length: 4 }, async (_, w) => {
            for (let i = 0; i < 100; i++) {
              const id = `s${s}w${w}i${i}`;
              if (i % 2 === 0) await store.createTransaction(txRecord(id, now), draft('preview', id));
              else await store.cancel(`s${s}w${w}i${i - 1}`, now + 1, draft('canceled', `s${s}w${w}i${i - 1}`));
            }
          }),
        ),
      );
      for (const [i, store] of stores.entries()) {
        await assertIntact(store, keys[i]!, 400);
        assert.deepEqual(await store.integrityCheck(10), ['ok']);
        assert.equal((await store.history({ limit: 1000 })).length, 200); // its own transactions only
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('two store objects on one log (as two processes would be): the row lock keeps seqs whole', async () => {
    const key = signingKeyFromSeed(randomBytes(32));
    const [a, b] = [await open(key), await open(key)];
    try {
      await Promise.all([a, b].flatMap((s, n) => Array.from({ length: 3 }, async (_, w) => {
        for (let i = 0; i < 50; i++) await s.appendEntries([draft('refused', null, { n, w, i })]);
      })));
      // A store whose in-memory head lags (the other wrote meanwhile) reads the truth, not its
      // cache, and its head (and tree) catch up at its next write.
      await b.appendEntries([draft('daemon_started')]);
      await assertIntact(b, key, 301);
      await a.appendEntries([draft('daemon_started')]);
      await assertIntact(a, key, 302);
      await b.appendEntries([draft('daemon_started')]);
      await assertIntact(b, key, 303);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a second daemon claiming a log under another origin is refused at open', async () => {
    const key = signingKeyFromSeed(randomBytes(32));
    const first = await open(key);
    await first.close();
    await assert.rejects(openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: key.keyId, origin: `other/airlock/${key.keyId}`, seal: sealWith(key) }), (e: Error & { code?: string }) => e.code === 'log_origin');
    await assert.rejects(openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: "x'; DROP TABLE logs; --", origin: 'o', seal: sealWith(key) }), (e: Error & { code?: string }) => e.code === 'bad_log_id');
  });

  test('an unreachable server fails the open with a sentence that names it and no password', async () => {
    const key = signingKeyFromSeed(randomBytes(32));
    await assert.rejects(
      openPostgresStore({ rowKey: TEST_ROW_KEY, url: 'postgres://postgres:hunter2@127.0.0.1:1/test', logId: key.keyId, origin: 'o', seal: sealWith(key), pool: { connectMs: 500 } }),
      (e: Error & { code?: string }) => e.code === 'store_unreachable' && /unreachable: nothing is executed until it is back/.test(e.message) && !e.message.includes('hunter2'),
    );
  });

  test('entries removed behind the store: the next write fails closed and the check names the gap', async () => {
    const key = signingKeyFromSeed(randomBytes(32));
    const store = await open(key);
    try {
      await store.appendEntries([draft('daemon_started'), draft('refused'), draft('refused'), draft('refused')]);
      await schema.admin.query('DELETE FROM audit_log WHERE log_id = $1 AND seq = 2', [key.keyId]);
      assert.deepEqual(await store.integrityCheck(5), [
        `entry 2 of log ${key.keyId} is missing`,
        `entry 3 of log ${key.keyId}: its seq or prev_hash does not follow the entry before it`,
        `the Merkle tree of log ${key.keyId} has 4 leaves for 3 entries`,
      ]);
      await schema.admin.query("UPDATE merkle_nodes SET hash = decode(repeat('00', 32), 'hex') WHERE log_id = $1 AND level = 0 AND idx = 2", [key.keyId]);
      assert.ok((await store.integrityCheck(5)).includes(`entry 3 of log ${key.keyId}: its Merkle leaf is not the hash of its body`));
      await schema.admin.query('DELETE FROM audit_log WHERE log_id = $1 AND seq = 4', [key.keyId]);
      await assert.rejects(store.appendEntries([draft('refused')]), (e: Error & { code?: string }) => e.code === 'log_rewritten');
      await schema.admin.query("UPDATE audit_log SET body = body || ' ' WHERE log_id = $1 AND seq = 1", [key.keyId]);
      const found = await store.integrityCheck(10);
      assert.ok(found.some((l) => l === `entry 1 of log ${key.keyId}: its stored hash is not the hash of its body`), found.join('\n'));
      assert.ok(found.some((l) => /ends at 3, but this daemon wrote up to 4/.test(l)), found.join('\n'));
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL: connection loss fails closed and recovers', () => {
  let schema: TestSchema;
  let store: PostgresStore;
  const key = signingKeyFromSeed(randomBytes(32));
  const now = 1_800_000_000_000;
  before(async () => {
    schema = await testSchema();
    store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: key.keyId, origin: `h/airlock/${key.keyId}`, seal: sealWith(key) });
  });
  after(async () => {
    await store.close();
    await schema.drop();
  });

  test('backends terminated mid-operation: it throws store_unreachable, nothing is half-written, the next call works', async () => {
    await store.createTransaction(txRecord('before', now), draft('preview', 'before'));
    // Hold the log's row lock from another connection, so the store's transaction is caught
    // between its first statement and its commit when its connection is cut.
    const blocker = (await import('pg')).default;
    const holder = new blocker.Client({ connectionString: schema.url.replace(/application_name=[^&]+/, 'application_name=holder') });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM logs WHERE log_id = $1 FOR UPDATE', [key.keyId]);
    const op = store.createTransaction(txRecord('during', now), draft('preview', 'during'));
    const failed = assert.rejects(op, (e: Error & { code?: string }) => e.code === 'store_unreachable' && /is unreachable: nothing is executed until it is back/.test(e.message));
    // Wait until the store's transaction is blocked on the lock, then cut it.
    for (let i = 0; ; i++) {
      const r = await schema.admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [schema.name]);
      if (r.rows[0].n > 0) break;
      assert.ok(i < 200, 'the store never waited on the lock');
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok((await terminateBackends(schema)) >= 1);
    await failed;
    await holder.query('ROLLBACK');
    await holder.end();
    assert.equal(store.logHead().size, 1);
    assert.equal(await store.getTransaction('during'), null);
    await store.createTransaction(txRecord('after', now), draft('preview', 'after'));
    assert.equal((await store.getTransaction('after'))!.id, 'after');
    await assertIntact(store, key, 2);
  });

  test('every idle connection dropped between calls: the next call reconnects', async () => {
    await store.getTransaction('after'); // a connection in the pool
    assert.ok((await terminateBackends(schema)) >= 1);
    await new Promise((r) => setTimeout(r, 50)); // the pool sees the termination and discards the connection
    await store.appendEntries([draft('daemon_started')]);
    await assertIntact(store, key, 3);
  });

  test('a read that cannot reach the database throws; it never answers "not found"', async () => {
    const other = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: key.keyId, origin: `h/airlock/${key.keyId}`, seal: sealWith(key) });
    await other.close(); // its pool is gone: every call must fail, not return null
    await assert.rejects(other.getTransaction('after'), (e: Error & { code?: string }) => e.code === 'store_unreachable' || e.code === 'store_failed');
    await assert.rejects(other.appendEntries([draft('refused')]), (e: Error & { code?: string }) => e.code === 'store_unreachable' || e.code === 'store_failed');
  });
});
