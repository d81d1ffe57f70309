/**
 * How the SQLite store keeps entries and JSON (src/audit/entry-encoding.ts, sqlite-log.ts): what
 * it reads back is exactly what was signed, whether it was encoded or (when encoding does not
 * round-trip) stored plainly; a damaged encoding is an integrity error, never another body; the
 * dictionary is pinned; and a store of schema 1 (written here by SQL, as that code wrote it)
 * upgrades in place, in batches, resuming where an interrupted upgrade stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite.js';
import { DICTIONARY_V1, decodeEntryBody, decodeStored, encodeEntryBody, encodeStored } from '../../src/audit/entry-encoding.js';
import { txOfBody } from '../../src/audit/sqlite-log.js';
import { UPGRADE_BATCH } from '../../src/store/sqlite-upgrade.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { GENESIS_HASH, entrySignatureValid, sealEntry, type EntryDraft, type SealedEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import type { Sealer } from '../../src/store/store.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));
const sealer: Sealer = (d, seq, prev) => sealEntry(key, d, seq, prev);
const hex = (n: number) => randomBytes(n).toString('hex');

/** An entry of a read's lifecycle, as the daemon writes them. */
const lifecycleDraft = (tx: string, kind: 'preview' | 'outcome', extra: Record<string, string | null> = {}): EntryDraft =>
  opaqueDraft({
    kind,
    transaction_id: tx,
    action_name: 'Uptime',
    risk: 'low',
    request_hash: hex(32),
    principal: { role: 'observer', uid: 1000, user: 'agent' },
    details: kind === 'preview' ? { masked: [], preview_digest: hex(32), summary: 'Read /proc/uptime and /proc/loadavg', warnings: [] } : { changed: false, state: 'Succeeded', ...extra },
  });

function tempDb(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-encoding-'));
  return { dir, path: join(dir, 'airlock.db') };
}

test('the dictionary is fixed forever for encoding version 1 (stores written with it need it)', () => {
  assert.equal(createHash('sha256').update(DICTIONARY_V1).digest('hex'), '6399410e5f77a31630a2ddf8238c425ff2b140352b506dcbee34c7cb010ed7d7');
});

test('an entry is encoded without its prev_hash, in a fraction of its bytes, and decodes to exactly the signed body with that hash alone', () => {
  const prev = hex(32);
  const e = sealEntry(key, lifecycleDraft(`tx_${hex(12)}`, 'preview'), 17, prev);
  const stored = encodeEntryBody(e.body, prev);
  assert.ok(Buffer.isBuffer(stored));
  assert.ok(stored.length < e.body.length / 2.5, `${stored.length} B for a body of ${e.body.length}`);
  assert.ok(!stored.includes(Buffer.from(prev, 'hex')), 'the previous hash is not stored');
  assert.equal(decodeEntryBody(stored, prev), e.body);
  assert.ok(entrySignatureValid(key.publicKey, decodeEntryBody(stored, prev), e.sig));
  // Another previous hash (an entry deleted or moved before it) gives another body: its signature fails.
  assert.notEqual(decodeEntryBody(stored, hex(32)), e.body);
  assert.ok(!entrySignatureValid(key.publicKey, decodeEntryBody(stored, null), e.sig));
});

test('a body that would not come back exactly is stored plainly, and a plain value reads as it is', () => {
  const prev = hex(32);
  // A later "prev_hash":"" (in the principal, which sorts after it) is where decoding would put the hash back.
  const odd = sealEntry(key, opaqueDraft({ kind: 'daemon_started', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: { prev_hash: '' } as never, details: {} }), 1, prev);
  assert.equal(encodeEntryBody(odd.body, prev), odd.body);
  const marked = `{"note":"a\0b","digest":"${hex(32)}","summary":"Read /proc/uptime and /proc/loadavg"}`;
  assert.equal(encodeStored(marked), marked, 'a text holding the marker (canonical JSON never does)');
  const other = sealEntry(key, lifecycleDraft(`tx_${hex(12)}`, 'outcome'), 2, hex(32));
  assert.equal(encodeEntryBody(other.body, prev), other.body, 'a body that does not chain to the hash given');
  assert.equal(decodeEntryBody(odd.body, null), odd.body);
  assert.equal(encodeStored('{}'), '{}', 'too short to gain');
  assert.equal(decodeStored('{"a":1}'), '{"a":1}');
});

test('preview and result JSON round-trip through encodeStored', () => {
  const preview = JSON.stringify({ params: {}, summary: 'List mounts (findmnt)', risk: 'low', proposed_change: { change: null, mechanism: [{ kind: 'command', program: 'findmnt', args: ['-J', '-l'] }], digest: hex(32) }, note: 'ünïcödé ✓' });
  const stored = encodeStored(preview);
  assert.ok(Buffer.isBuffer(stored) && stored.length < preview.length / 2, `${stored.length} B for ${preview.length}`);
  assert.equal(decodeStored(stored), preview);
});

test('a damaged encoding is integrity/store_undecodable, never another text', () => {
  const prev = hex(32);
  const e = sealEntry(key, lifecycleDraft(`tx_${hex(12)}`, 'outcome'), 5, prev);
  const stored = encodeEntryBody(e.body, prev) as Buffer;
  const undecodable = { code: 'store_undecodable' };
  assert.throws(() => decodeEntryBody(stored.subarray(0, stored.length - 3), prev), undecodable);
  assert.throws(() => decodeEntryBody(Buffer.concat([Buffer.from([2]), stored.subarray(1)]), prev), undecodable, 'an encoding version this code does not know');
  const fewer = Buffer.from(stored);
  fewer[1] = fewer[1]! - 1; // one hex run fewer than the skeleton has places for
  assert.throws(() => decodeEntryBody(fewer, prev), undecodable);
  // Every encoding cut short at any byte is refused: the skeleton's length is stored before its ops.
  for (let n = 0; n < stored.length; n++) assert.throws(() => decodeEntryBody(stored.subarray(0, n), prev), undecodable, `cut to ${n} of ${stored.length} bytes`);
  // A length past the bound is refused before anything is allocated; copies past the stated length likewise.
  assert.throws(() => decodeStored(Buffer.from([1, 0, 0x80, 0x80, 0x80, 0x01])), undecodable);
  const copies = Buffer.concat([Buffer.from([1, 0, 8]), Buffer.from([0xff, 0, 0, 0xff, 0, 0])]);
  assert.throws(() => decodeStored(copies), undecodable);
  assert.throws(() => decodeStored(Buffer.from([1, 0, 4, 0xff, 0x0f, 0xff])), undecodable, 'a copy from past the dictionary');
});

test('any text comes back exactly: dictionary pieces, hex runs, unicode and odd bytes mixed at random', () => {
  const dictionary = DICTIONARY_V1.toString('utf8').replace(/\0/g, '');
  const pieces = [() => dictionary.slice(randomBytes(2).readUInt16BE() % dictionary.length).slice(0, 1 + (randomBytes(1)[0]! % 200)), () => hex(1 + (randomBytes(1)[0]! % 40)), () => 'ünïcödé ✓ 😀', () => String.fromCharCode(...randomBytes(6)), () => '"prev_hash":""'];
  let encoded = 0;
  for (let i = 0; i < 2000; i++) {
    let text = '';
    for (let j = randomBytes(1)[0]! % 12; j >= 0; j--) text += pieces[randomBytes(1)[0]! % pieces.length]!();
    const stored = encodeStored(text);
    if (Buffer.isBuffer(stored)) encoded++;
    assert.equal(decodeStored(stored), text);
  }
  assert.ok(encoded > 1000, `only ${encoded} of 2000 texts were encoded`);
  assert.equal(encodeStored('x'.repeat(64 * 1024 + 1)), 'x'.repeat(64 * 1024 + 1), 'a text over the bound is stored plainly');
});

test('the SQLite store writes entries encoded and stores plainly the one that does not round-trip; readers get the signed bodies', async () => {
  const { dir, path } = tempDb();
  try {
    const store = new SqliteStore(path, sealer);
    const tx = `tx_${hex(12)}`;
    const odd = opaqueDraft({ kind: 'daemon_started', transaction_id: tx, action_name: null, risk: null, request_hash: null, principal: { prev_hash: '' } as never, details: {} });
    await store.appendEntries([lifecycleDraft(tx, 'preview'), odd, lifecycleDraft(tx, 'outcome'), lifecycleDraft(`tx_${hex(12)}`, 'preview')]);
    const viaStore = await store.logRows(0, 10);
    const txEntries = await store.transactionEntries(tx, 10);
    await store.close();
    const db = new Database(path, { readonly: true });
    const types = db.prepare('SELECT typeof(body) FROM audit_log ORDER BY seq').pluck().all();
    db.close();
    assert.deepEqual(types, ['blob', 'text', 'blob', 'blob']);
    const offline = [...readSqliteLog(path)];
    assert.deepEqual(offline, viaStore);
    for (const r of offline) assert.ok(entrySignatureValid(key.publicKey, r.body, r.sig), `entry ${r.seq} is its signed body`);
    assert.deepEqual(offline.map((r) => JSON.parse(r.body).prev_hash), [GENESIS_HASH, ...offline.slice(0, -1).map((r) => createHash('sha256').update(r.body).digest('hex'))]);
    assert.deepEqual(txEntries.map((r) => r.seq), [1, 2, 3], "a transaction's entries, by its tx column");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Schema 1 as that code created it: bodies as JSON text, the index on json_extract. */
const SCHEMA_1 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE audit_log (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, sig TEXT NOT NULL, hash TEXT NOT NULL);
CREATE INDEX audit_log_tx ON audit_log(json_extract(body, '$.transaction_id'));
INSERT INTO meta (key, value) VALUES ('schema_version', '1');
`;

/** A schema-1 store of `n` entries, three a transaction; the first ones with hex text sig and hash (as before they were bytes). */
function schema1Store(path: string, n: number): { entries: SealedEntry[]; txs: string[] } {
  const db = new Database(path);
  db.exec(SCHEMA_1);
  const insert = db.prepare('INSERT INTO audit_log (seq, body, sig, hash) VALUES (?, ?, ?, ?)');
  const entries: SealedEntry[] = [];
  const txs: string[] = [];
  let prev = GENESIS_HASH;
  db.transaction(() => {
    for (let seq = 1; seq <= n; seq++) {
      if (seq % 3 === 1) txs.push(`tx_${hex(12)}`);
      const e = sealEntry(key, lifecycleDraft(txs.at(-1)!, seq % 3 === 1 ? 'preview' : 'outcome'), seq, prev);
      const asBytes = seq > 10;
      insert.run(seq, e.body, asBytes ? Buffer.from(e.sig, 'hex') : e.sig, asBytes ? Buffer.from(e.hash, 'hex') : e.hash);
      entries.push(e);
      prev = e.hash;
    }
  })();
  db.close();
  return { entries, txs };
}

async function assertUpgraded(path: string, entries: SealedEntry[], txs: string[]): Promise<void> {
  const store = new SqliteStore(path, sealer);
  try {
    assert.deepEqual(await store.logRows(0, entries.length + 1), entries.map((e) => ({ seq: e.seq, body: e.body, sig: e.sig })));
    for (const tx of [txs[0]!, txs.at(-1)!]) {
      assert.deepEqual((await store.transactionEntries(tx, 10)).map((r) => r.body), entries.filter((e) => JSON.parse(e.body).transaction_id === tx).map((e) => e.body));
    }
    await store.appendEntries([lifecycleDraft(txs[0]!, 'outcome')]);
    assert.equal((await store.transactionEntries(txs[0]!, 10)).length, 4, 'a new entry of an old transaction is found with the old ones');
  } finally {
    await store.close();
  }
  const db = new Database(path, { readonly: true });
  try {
    assert.equal(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(), '2');
    assert.equal(db.prepare("SELECT count(*) FROM meta WHERE key LIKE 'upgrade%'").pluck().get(), 0);
    assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_log' ORDER BY name").pluck().all(), ['audit_log_by_tx']);
    assert.equal(db.prepare("SELECT count(*) FROM audit_log WHERE typeof(body) = 'blob'").pluck().get(), entries.length + 1, 'every old body is encoded');
  } finally {
    db.close();
  }
  const offline = [...readSqliteLog(path)];
  assert.deepEqual(offline.slice(0, entries.length).map((r) => r.body), entries.map((e) => e.body));
}

test('a store of schema 1 upgrades in place at open, in batches: the same signed bodies, found by transaction', async () => {
  const { dir, path } = tempDb();
  try {
    const { entries, txs } = schema1Store(path, 2 * UPGRADE_BATCH + 7);
    await assertUpgraded(path, entries, txs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an upgrade cut short resumes where its last committed batch stopped', async () => {
  const { dir, path } = tempDb();
  try {
    const { entries, txs } = schema1Store(path, UPGRADE_BATCH + 50);
    // What a run stopped after its first batch left: the old index dropped, those rows done, and the progress with them.
    const db = new Database(path);
    db.exec('DROP INDEX audit_log_tx; ALTER TABLE audit_log ADD COLUMN tx BLOB');
    const update = db.prepare('UPDATE audit_log SET body = ?, tx = ? WHERE seq = ?');
    db.transaction(() => {
      for (const e of entries.slice(0, UPGRADE_BATCH)) update.run(encodeEntryBody(e.body, JSON.parse(e.body).prev_hash), txOfBody(e.body), e.seq);
      db.prepare("INSERT INTO meta (key, value) VALUES ('upgrade_2_seq', ?)").run(String(UPGRADE_BATCH));
    })();
    db.close();
    await assertUpgraded(path, entries, txs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store of a schema this code does not know is refused with a clear message', () => {
  const { dir, path } = tempDb();
  try {
    const db = new Database(path);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '3')");
    db.close();
    assert.throws(() => new SqliteStore(path, sealer), /database schema 3 is not the supported 2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
