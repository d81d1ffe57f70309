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
import type { PasskeyRecord, Sealer } from '../../src/store/store.js';
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

describe("PostgreSQL: passkeys rows carry the host's MAC", () => {
  let schema: TestSchema;
  let store: PostgresStore;
  const key = signingKeyFromSeed(randomBytes(32));
  const now = 1_800_000_000_000;
  const rowMac = (e: Error & { category?: string; code?: string }) => e.category === 'integrity' && e.code === 'row_mac';
  const pk = (credentialId: string, approver: string, over: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
    credentialId, approver, publicKey: randomBytes(77), counter: 0, transports: ['usb'], name: 'key', createdAt: now, lastUsedAt: null, ...over,
  });
  const registered = (p: PasskeyRecord) => draft('passkey_registered', null, { approver: p.approver, passkey_id: p.credentialId, name: p.name, rp_id: 'h', factor: 'totp' });
  const row = async (credentialId: string) => (await schema.admin.query('SELECT * FROM passkeys WHERE log_id = $1 AND credential_id = $2', [key.keyId, credentialId])).rows[0];
  /** A planted row: every column as this store writes them, and the MAC given (none by default). */
  const plant = (p: PasskeyRecord, mac: string | null = null) =>
    schema.admin.query('INSERT INTO passkeys (log_id, credential_id, approver, public_key, counter, transports, name, created_at, last_used_at, mac) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
      key.keyId, p.credentialId, p.approver, p.publicKey.toString('base64url'), p.counter, JSON.stringify(p.transports), p.name, p.createdAt, p.lastUsedAt, mac,
    ]);
  /** An approval of a new transaction with `credentialId` at `counter`: refused with row_mac, and nothing of it written. */
  const refusedApproval = async (id: string, approver: string, credentialId: string, counter: number) => {
    await store.createTransaction(txRecord(id, now), draft('preview', id));
    const size = store.logHead().size;
    const before = await row(credentialId);
    await assert.rejects(store.recordApproval(id, { approvedBy: approver, commitment: 'c', expiresAt: now + 900_000, now: now + 1, passkey: { credentialId, approver, counter } }, draft('approval_granted', id)), rowMac);
    const tx = (await schema.admin.query('SELECT state, approved_by, mac FROM transactions WHERE log_id = $1 AND id = $2', [key.keyId, id])).rows[0];
    assert.deepEqual([tx.state, tx.approved_by], ['Previewed', null]);
    assert.equal((await store.getTransaction(id))!.state, 'Previewed', 'the transaction row still carries its MAC');
    assert.deepEqual(await row(credentialId), before, 'the passkey row is not moved on, nor given this host\'s MAC');
    assert.equal(store.logHead().size, size);
    assert.equal((await store.transactionEntries(id, 10)).length, 1, 'no approval_granted entry');
  };

  before(async () => {
    schema = await testSchema();
    store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: key.keyId, origin: `h/airlock/${key.keyId}`, seal: sealWith(key) });
    for (const a of ['alice', 'bob']) {
      await store.issueTotp(a, `s-${a}`, now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.confirmTotp(a, `s-${a}`, 100, now, draft('totp_enrolled')), true);
    }
  });
  after(async () => {
    await store.close();
    await schema.drop();
  });

  test('a row this store added carries a MAC and approves', async () => {
    const good = pk('good', 'alice', { counter: 1 });
    assert.equal(await store.addPasskey(good, { approver: 'alice', step: 101 }, registered(good)), 'added');
    assert.match((await row('good')).mac, /^[0-9a-f]{64}$/);
    await store.createTransaction(txRecord('ok', now), draft('preview', 'ok'));
    assert.equal(await store.recordApproval('ok', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1, passkey: { credentialId: 'good', approver: 'alice', counter: 2 } }, draft('approval_granted', 'ok')), 'approved');
    assert.equal((await store.passkeys('alice'))[0]!.counter, 2);
    assert.deepEqual(await store.integrityCheck(5), ['ok']);
  });

  test('a row inserted with SQL and no MAC: passkeys() refuses it (integrity/row_mac), an approval with it writes nothing, the check names it', async () => {
    await plant(pk('planted', 'bob'));
    await assert.rejects(store.passkeys('bob'), rowMac);
    await refusedApproval('with-planted', 'bob', 'planted', 1);
    // Nor does a counter of 0 (the one case an approval leaves the counter as it is) get past it.
    await refusedApproval('with-planted-0', 'bob', 'planted', 0);
    const found = await store.integrityCheck(10);
    assert.ok(found.some((l) => /the passkeys row "planted" of log .* does not carry this host's MAC/.test(l)), found.join('\n'));
    await schema.admin.query("DELETE FROM passkeys WHERE credential_id = 'planted'");
    assert.deepEqual(await store.passkeys('bob'), []);
  });

  test('a row inserted with the MAC of another row (copied from a sealed one): refused the same', async () => {
    const sealed = await row('good');
    const copy = pk('copied', 'bob', { counter: 0 });
    await plant(copy, sealed.mac);
    await assert.rejects(store.passkeys('bob'), rowMac);
    await refusedApproval('with-copied', 'bob', 'copied', 5);
    // The sealed row's own columns under another credential id: the MAC covers the id too.
    await schema.admin.query("DELETE FROM passkeys WHERE credential_id = 'copied'");
    await schema.admin.query("INSERT INTO passkeys SELECT log_id, 'twin', approver, public_key, counter, transports, name, created_at, last_used_at, mac FROM passkeys WHERE log_id = $1 AND credential_id = 'good'", [key.keyId]);
    await assert.rejects(store.passkeys('alice'), rowMac);
    await refusedApproval('with-twin', 'alice', 'twin', 9);
    await schema.admin.query("DELETE FROM passkeys WHERE credential_id = 'twin'");
    assert.equal((await store.passkeys('alice')).length, 1);
  });

  test("a sealed row edited with SQL (its counter set back to replay an assertion, or given to another approver): refused", async () => {
    const saved = await row('good');
    await schema.admin.query("UPDATE passkeys SET counter = 0 WHERE log_id = $1 AND credential_id = 'good'", [key.keyId]);
    await assert.rejects(store.passkeys('alice'), rowMac);
    await refusedApproval('with-rewound', 'alice', 'good', 2);
    await schema.admin.query("UPDATE passkeys SET counter = $2, approver = 'bob' WHERE log_id = $1 AND credential_id = 'good'", [key.keyId, saved.counter]);
    await assert.rejects(store.passkeys('bob'), rowMac);
    await refusedApproval('with-moved', 'bob', 'good', 3);
    // Put back as it was, with its own MAC: this host's row again.
    await schema.admin.query("UPDATE passkeys SET approver = 'alice' WHERE log_id = $1 AND credential_id = 'good'", [key.keyId]);
    assert.deepEqual((await store.passkeys('alice')).map((p) => p.counter), [2]);
  });
});
