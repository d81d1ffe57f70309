/**
 * Verifying a shared PostgreSQL store with no daemon: one source per host's log, read in
 * pages; `airlock audit verify --db postgres://... --all-hosts --pubkey KEYS` reports per
 * host with the key each origin names, and its exit status says the worst of them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEntry } from '../../src/audit/entry.js';
import { formatPublicKey, keyIdOf, parsePublicKeys, signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { PAGE_ROWS, postgresSources } from '../../src/audit/postgres-source.js';
import { verifySource } from '../../src/audit/source.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { formatCheckpointLine, signCheckpoint } from '../../src/audit/checkpoint.js';
import { signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import { rootAt } from '../../src/audit/merkle.js';
import { airlock } from '../support/cli.js';
import { removeTree } from '../support/fs.js';
import { draft } from '../support/store-contract.js';
import { testSchema, type TestSchema } from '../support/pg-schema.js';
import { TEST_ROW_KEY } from '../support/pg-schema.js';

test('a key file of several keys: one per line, comments and blank lines skipped, a bad line refused', () => {
  const [a, b] = [signingKeyFromSeed(randomBytes(32)), signingKeyFromSeed(randomBytes(32))];
  const text = `# fleet\n${formatPublicKey(a.publicRaw)}\n  ${b.publicRaw.toString('hex')}  \n${formatPublicKey(a.publicRaw)}`;
  assert.deepEqual([...new Set(parsePublicKeys(text).map(keyIdOf))], [a.keyId, b.keyId]);
  assert.throws(() => parsePublicKeys(`${formatPublicKey(a.publicRaw)}ed25519:zz\n`), /ed25519/);
  assert.throws(() => parsePublicKeys('# nothing\n\n'), /must hold "ed25519:"/);
});

describe('a PostgreSQL store of three hosts, verified with no daemon', () => {
  let schema: TestSchema;
  let dir: string;
  /** One checkpoint file gathering the three hosts' checkpoints, as a fleet's syslog export does. */
  let fleet: string;
  const keys: SigningKey[] = [0, 1, 2].map(() => signingKeyFromSeed(randomBytes(32)));
  const origin = (k: SigningKey, i: number) => `host${i}.example/airlock/${k.keyId}`;
  const keyFile = (ks: SigningKey[]) => {
    const p = join(dir, `keys-${ks.length}-${randomBytes(3).toString('hex')}`);
    writeFileSync(p, ks.map((k) => formatPublicKey(k.publicRaw)).join(''));
    return p;
  };
  before(async () => {
    schema = await testSchema();
    dir = mkdtempSync(join(tmpdir(), 'airlock-audit-pg-'));
    fleet = join(dir, 'fleet-checkpoints.log');
    for (const [i, k] of keys.entries()) {
      // Each commit's head signed into the fleet's file, as each host's daemon would send it.
      const note = (h: { size: number; hash: string }) => appendFileSync(fleet, `${formatCheckpointLine(signCheckpoint(k, origin(k, i), h.size, h.hash))}\n`);
      const store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: k.keyId, origin: origin(k, i), seal: (d, seq, prev) => sealEntry(k, d, seq, prev), onAppend: note });
      // The first log spans more than one page of the reader.
      const n = i === 0 ? PAGE_ROWS + 500 : 10 + i;
      await store.appendEntries(Array.from({ length: n }, (_, j) => draft('refused', null, { j })));
      await store.close();
    }
  });
  after(async () => {
    await schema.drop();
    removeTree(dir);
  });

  test('one source per log, named by origin and the URL without secrets, each intact with its key', async () => {
    const sources = await postgresSources(schema.url);
    assert.equal(sources.length, 3);
    for (const [i, k] of keys.entries()) {
      const src = sources.find((s) => s.logId === k.keyId)!;
      assert.equal(src.name, `log ${origin(k, i)} in postgres://postgres@127.0.0.1:5432/test`);
      const r = await verifySource(src, k.publicRaw, { origin: src.origin, checkpointFiles: [{ path: fleet, named: true, required: true }] });
      assert.equal(r.status, 'intact');
      assert.equal(r.entries, i === 0 ? PAGE_ROWS + 500 : 10 + i);
    }
  });

  test('--all-hosts with every key: exit 0, one line per host', async () => {
    const r = await airlock(['audit', 'verify', '--db', schema.url, '--all-hosts', '--pubkey', keyFile(keys), '--checkpoints', fleet]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('intact'));
    assert.equal(lines.length, 3, r.stdout);
    for (const [i, k] of keys.entries()) assert.ok(lines.some((l) => l.includes(origin(k, i))), r.stdout);
  });

  test('a host whose key is not in the file: exit 2, that host cannot be verified, the others are intact (--json)', async () => {
    const r = await airlock(['audit', 'verify', '--db', schema.url, '--all-hosts', '--pubkey', keyFile(keys.slice(0, 2)), '--checkpoints', fleet, '--json']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.status, 'cannot_verify');
    const by = new Map(j.hosts.map((h: { log_id: string; status: string }) => [h.log_id, h.status]));
    assert.deepEqual([by.get(keys[0]!.keyId), by.get(keys[1]!.keyId), by.get(keys[2]!.keyId)], ['intact', 'intact', 'cannot_verify']);
  });

  test("a key of the file that signs no log (a host's log deleted whole): that host cannot be verified, never skipped", async () => {
    const gone = signingKeyFromSeed(randomBytes(32));
    const r = await airlock(['audit', 'verify', '--db', schema.url, '--all-hosts', '--pubkey', keyFile([...keys, gone]), '--checkpoints', fleet, '--json']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.status, 'cannot_verify');
    const missing = j.hosts.find((h: { log_id: string }) => h.log_id === gone.keyId);
    assert.equal(missing.status, 'cannot_verify');
    assert.match(missing.reason, /no log in the database is signed with it: a host's log may have been deleted/);
    assert.equal(j.hosts.filter((h: { status: string }) => h.status === 'intact').length, 3);
  });

  test('no checkpoint file: nothing says how long each log should be, so every host cannot be verified (exit 2)', async () => {
    const r = await airlock(['audit', 'verify', '--db', schema.url, '--all-hosts', '--pubkey', keyFile(keys)]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('cannot verify')).length, 3, r.stdout);
    assert.match(r.stdout, /--checkpoints/);
  });

  test('without --all-hosts: only the log of the first key', async () => {
    const r = await airlock(['audit', 'verify', '--db', schema.url, '--pubkey', keyFile([keys[1]!]), '--checkpoints', fleet, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).hosts.map((h: { log_id: string }) => h.log_id), [keys[1]!.keyId]);
  });

  test('an edited entry in one host\'s log: exit 1 and that host is named broken; a hostile origin is shown escaped', async () => {
    await schema.admin.query(`UPDATE audit_log SET body = replace(body, '"j":3', '"j":4') WHERE log_id = $1 AND seq = 4`, [keys[2]!.keyId]);
    // Someone with write access to the database adds a log whose origin carries terminal controls.
    const evil = signingKeyFromSeed(randomBytes(32));
    await schema.admin.query('INSERT INTO logs (log_id, origin, created_at) VALUES ($1, $2, 0)', [evil.keyId, `x\u001b[2J\nintact  fake/airlock/${evil.keyId}`]);
    try {
      const r = await airlock(['audit', 'verify', '--db', schema.url, '--all-hosts', '--pubkey', keyFile([...keys, evil]), '--checkpoints', fleet]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`BROKEN  ${origin(keys[2]!, 2).replace(/\./g, '\\.')}: first broken entry #4`));
      assert.ok(!r.stdout.includes('\u001b'), 'a terminal control reached the output');
      assert.ok(!r.stdout.split('\n').some((l) => l.startsWith('intact  fake/')), r.stdout); // the forged line is not a line of its own
    } finally {
      await schema.admin.query('DELETE FROM logs WHERE log_id = $1', [evil.keyId]);
    }
  });

  test('an unreachable database: exit 2 with a sentence, no password shown', async () => {
    const r = await airlock(['audit', 'verify', '--db', 'postgres://postgres:s3cret@127.0.0.1:1/test', '--all-hosts', '--pubkey', keyFile(keys)]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /cannot read the PostgreSQL database postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
    assert.ok(!(r.stdout + r.stderr).includes('s3cret'));
  });

  test('a host whose first segment was archived verifies from its base: the signed head there vouches for it', async () => {
    const k = signingKeyFromSeed(randomBytes(32));
    const o = `host9.example/airlock/${k.keyId}`;
    const store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: k.keyId, origin: o, seal: (d, seq, prev) => sealEntry(k, d, seq, prev) });
    let head: string;
    try {
      await store.appendEntries(Array.from({ length: 30 }, (_, j) => draft('refused', null, { j })));
      const base = signTreeHead(k, o, 20, await rootAt(20, store.merkleNodes), new Date());
      await store.archiveSegment(20, base, draft('archived', null, { first_seq: 1, last_seq: 20, root: (await rootAt(20, store.merkleNodes)).toString('hex') }));
      head = treeHeadLine(signTreeHead(k, o, 31, await rootAt(31, store.merkleNodes), new Date()));
    } finally {
      await store.close();
    }
    const cps = join(dir, 'host9-checkpoints.log');
    writeFileSync(cps, `${head}\n`);
    const src = (await postgresSources(schema.url)).find((s) => s.logId === k.keyId)!;
    const r = await verifySource(src, k.publicRaw, { origin: o, checkpointFiles: [{ path: cps, named: true, required: true }] });
    assert.equal(r.status, 'intact', JSON.stringify(r));
    assert.deepEqual([r.entries, r.archived], [31, 20]);
  });

  test('an archival between start() and the pages is transient/log_archived, never a gap called deletion', async () => {
    const k = signingKeyFromSeed(randomBytes(32));
    const o = `host10.example/airlock/${k.keyId}`;
    const store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId: k.keyId, origin: o, seal: (d, seq, prev) => sealEntry(k, d, seq, prev) });
    try {
      await store.appendEntries(Array.from({ length: 30 }, (_, j) => draft('refused', null, { j })));
      const src = (await postgresSources(schema.url)).find((s) => s.logId === k.keyId)!;
      assert.equal(await src.start!(), null, 'nothing archived yet');
      await store.archiveSegment(20, signTreeHead(k, o, 20, await rootAt(20, store.merkleNodes), new Date()), draft('archived', null, { first_seq: 1, last_seq: 20, root: (await rootAt(20, store.merkleNodes)).toString('hex') }));
      await assert.rejects(
        (async () => {
          for await (const _row of src.entries() as AsyncIterable<unknown>) void _row;
        })(),
        (e: { code?: string }) => e.code === 'log_archived',
      );
    } finally {
      await store.close();
    }
  });
});
