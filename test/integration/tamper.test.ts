/**
 * Tampering of every kind, on both backends, caught and named by the offline verifier.
 *
 * For SQLite and for PostgreSQL a real store writes a real log (transactions previewed, approved,
 * consumed and finished, sealed with a test audit key), the daemon's TreeHeads signs heads of it
 * into the host's checkpoint file, and a witness cosigns the full head. Each case then takes a
 * fresh copy of the database (a copied file; a schema of its own), tampers with it by SQL on the
 * backend's own tables, and verifies it the way an auditor does (verifySource over
 * databaseSource / postgresSources, the public key, the checkpoint files): the verdict must be
 * broken (or cannot_verify when the evidence is gone), at the right seq, for the right reason.
 *
 * The attacks: an edited body; a deleted entry (and the gap closed by renumbering); two entries
 * swapped; a cut tail; the whole log rebuilt under another key; entries rewritten and re-signed
 * with the log's own key (the attacker holds it); a fork, two heads of one size shown to two
 * witnesses; and the checkpoint file removed. On PostgreSQL another host's log shares the
 * database and must stay intact whatever is done to this one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { GENESIS_HASH, entryHash, sealEntry, type EntryDraft, type LogEntry, type SealedEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { checkpointOrigin } from '../../src/audit/checkpoint.js';
import { cosign, formatWitnessVkey, parseNote, parseVkey, signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import { MerkleFrontier, leafHash } from '../../src/audit/merkle.js';
import { verifySource, type CheckpointFile, type SourceReport } from '../../src/audit/source.js';
import { databaseSource, readSqliteLog } from '../../src/audit/log-file.js';
import { postgresSources } from '../../src/audit/postgres-source.js';
import type { LogRow, WitnessKey } from '../../src/audit/verify.js';
import { TreeHeads } from '../../src/daemon/tree-heads.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { Sealer, Store, TxRecord } from '../../src/store/store.js';
import { testSchema, type TestSchema } from '../support/pg-schema.js';
import { TEST_ROW_KEY } from '../support/pg-schema.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));
const attackerKey = signingKeyFromSeed(randomBytes(32));
const witnessA = signingKeyFromSeed(randomBytes(32));
const witnessB = signingKeyFromSeed(randomBytes(32));
const origin = checkpointOrigin('web1.example', key.keyId);
const at = new Date('2026-12-01T10:00:00.000Z');
const now = at.getTime();
const wA = parseVkey(formatWitnessVkey('a.example', witnessA.publicRaw));
const wB = parseVkey(formatWitnessVkey('b.example', witnessB.publicRaw));
/** Transactions of five entries each, after the daemon_started entry: a log of 41. */
const TXS = 8;
const SIZE = 1 + TXS * 5;
/** Sizes the host's checkpoint file holds heads of (the publisher signs along the way), then SIZE. */
const HEAD_SIZES = [10, 20, 30, SIZE];

const sealerOf = (k: SigningKey): Sealer => (d, seq, prev) => sealEntry(k, d, seq, prev, at);
const draft = (kind: EntryDraft['kind'], tx: string | null, details: OpaqueDetails = {}): EntryDraft => opaqueDraft({
  kind,
  transaction_id: tx,
  action_name: tx ? 'RestartService' : null,
  risk: tx ? 'medium' : null,
  request_hash: tx ? 'ab'.repeat(32) : null,
  principal: null,
  details,
});
const txRecord = (id: string): TxRecord => ({
  id,
  actionName: 'RestartService',
  params: { unit: 'nginx.service' },
  requestHash: 'ab'.repeat(32),
  risk: 'medium',
  state: 'Previewed',
  requesterUid: 1000,
  requesterName: 'agent',
  requesterRole: 'admin',
  requesterPersonUid: null,
  preview: { summary: 'restart nginx.service' },
  previewDigest: 'cd'.repeat(32),
  summary: 'Restart nginx.service',
  createdAt: now,
  updatedAt: now,
  expiresAt: now + 600_000,
  approvedBy: null,
  receiptCommitment: null,
  compactedAt: null,
  result: null,
});

/** The daemon's way to a log: a start entry, then each transaction through the store's own steps. */
async function fillLog(store: Store, txs: number): Promise<void> {
  await store.appendEntries([draft('daemon_started', null)]);
  for (let i = 0; i < txs; i++) {
    const id = 'tx_' + randomBytes(12).toString('hex');
    await store.createTransaction(txRecord(id), draft('preview', id));
    assert.equal(await store.recordApproval(id, { approvedBy: 'alice', commitment: `c-${i}`, expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', id)), 'approved');
    assert.equal(await store.consumeReceipt(id, `c-${i}`, now + 2, [draft('approval_consumed', id), draft('execution_started', id)]), 'consumed');
    await store.finish(id, 'Succeeded', { exit: 0 }, now + 3, draft('outcome', id, { state: 'Succeeded', exit: 0 }));
  }
}

interface Checkpoints {
  /** The host's append-only checkpoint file: heads at HEAD_SIZES. */
  host: string;
  /** What witness a.example returned: the full head, cosigned. */
  witnessA: string;
}

/** Heads signed by the daemon's TreeHeads from the store's own Merkle nodes, written as the sinks do. */
async function writeCheckpoints(store: Store, k: SigningKey, o: string, dir: string, sizes: readonly number[]): Promise<Checkpoints> {
  const heads = new TreeHeads(store, (size, root) => signTreeHead(k, o, size, root, at));
  const notes: string[] = [];
  for (const size of sizes) notes.push((await heads.head({ size })).note);
  const full = notes.at(-1)!;
  const cosigned = full + cosign(witnessA, 'a.example', (parseNote(full) as { body: string }).body, at);
  const c = { host: join(dir, `checkpoints-${k.keyId}`), witnessA: join(dir, `witness-a-${k.keyId}`) };
  writeFileSync(c.host, notes.map((n) => treeHeadLine(n) + '\n').join(''));
  writeFileSync(c.witnessA, treeHeadLine(cosigned) + '\n');
  return c;
}

/**
 * The entries from `from` on, rebuilt the way an attacker holding `k` would: each one's fields
 * kept (or changed by `edit`), its prev_hash the rebuilt chain's, sealed and signed by `k`.
 */
type Fields = Parameters<typeof opaqueDraft>[0];
function rewrite(rows: readonly LogRow[], from: number, k: SigningKey, edit: (d: Fields, seq: number) => Fields = (d) => d): SealedEntry[] {
  let prev = from === 1 ? GENESIS_HASH : entryHash(rows[from - 2]!.body);
  const out: SealedEntry[] = [];
  for (const r of rows.slice(from - 1)) {
    const { seq, ts, key_id: _k, prev_hash: _p, ...fields } = JSON.parse(r.body) as LogEntry;
    const s = sealEntry(k, opaqueDraft(edit(fields, seq)), seq, prev, new Date(ts));
    out.push(s);
    prev = s.hash;
  }
  return out;
}

function rootOf(bodies: readonly string[]): Buffer {
  const f = MerkleFrontier.empty();
  for (const b of bodies) f.append(leafHash(b));
  return f.root();
}

/** One copy of the built database, tampered with by SQL on the backend's own tables. */
interface Copy {
  /** The log's rows as stored. */
  rows(): Promise<LogRow[]>;
  /** Overwrites the stored entry at seq (body, signature, chain hash). */
  put(e: SealedEntry): Promise<void>;
  /** Deletes the entries first..last. */
  remove(first: number, last: number): Promise<void>;
  /** Swaps the seqs of two entries. */
  swap(a: number, b: number): Promise<void>;
  /** Moves every entry after `after` down by one seq (closing a gap). */
  closeGap(after: number): Promise<void>;
  /** Verifies the log as an auditor does, with the original public key. */
  verify(files: CheckpointFile[], witnesses?: readonly WitnessKey[]): Promise<SourceReport>;
  /** The other hosts' logs in the same database, verified with their keys and files (none for SQLite). */
  others(): Promise<SourceReport[]>;
  drop(): Promise<void>;
}

interface Backend {
  name: string;
  build(dir: string): Promise<Checkpoints>;
  copy(dir: string): Promise<Copy>;
  teardown(): Promise<void>;
}

/** The seq a swap parks an entry at: past any real one, inside PostgreSQL's CHECK (seq >= 1). */
const PARK = 1_000_000;

function sqliteBackend(): Backend {
  let base = '';
  let copies = 0;
  return {
    name: 'SQLite',
    async build(dir) {
      base = join(dir, 'airlock.db');
      const store = new SqliteStore(base, sealerOf(key));
      try {
        await fillLog(store, TXS);
        assert.equal(store.logHead().size, SIZE);
        return await writeCheckpoints(store, key, origin, dir, HEAD_SIZES);
      } finally {
        await store.close();
      }
    },
    async copy(dir) {
      const path = join(dir, `copy-${++copies}.db`);
      copyFileSync(base, path);
      if (existsSync(`${base}-wal`)) copyFileSync(`${base}-wal`, `${path}-wal`);
      const sql = (body: (db: Database.Database) => void) => {
        const db = new Database(path, { fileMustExist: true });
        try {
          db.transaction(() => body(db)).immediate();
        } finally {
          db.close();
        }
      };
      return {
        // The signed bodies, decoded from the store's encoding; put() writes them back as plain text, which the store reads as it is.
        rows: async () => [...readSqliteLog(path)],
        put: async (e) => sql((db) => assert.equal(db.prepare('UPDATE audit_log SET body = ?, sig = ?, hash = ? WHERE seq = ?').run(e.body, e.sig, e.hash, e.seq).changes, 1)),
        remove: async (first, last) => sql((db) => assert.equal(db.prepare('DELETE FROM audit_log WHERE seq BETWEEN ? AND ?').run(first, last).changes, last - first + 1)),
        swap: async (a, b) =>
          sql((db) => {
            const move = db.prepare('UPDATE audit_log SET seq = ? WHERE seq = ?');
            move.run(PARK, a);
            move.run(a, b);
            move.run(b, PARK);
          }),
        closeGap: async (gap) =>
          sql((db) => {
            db.prepare('UPDATE audit_log SET seq = seq + ? WHERE seq > ?').run(PARK, gap);
            db.prepare('UPDATE audit_log SET seq = seq - ? WHERE seq > ?').run(PARK + 1, PARK);
          }),
        verify: (files, witnesses) => verifySource(databaseSource(path, 'airlock audit verify'), key.publicRaw, { checkpointFiles: files, origin, workers: 1, ...(witnesses ? { witnesses } : {}) }),
        others: async () => [],
        drop: async () => {
          for (const p of [path, `${path}-wal`, `${path}-shm`]) rmSync(p, { force: true });
        },
      };
    },
    teardown: async () => {},
  };
}

function postgresBackend(): Backend {
  /** Another host's log in the same database: it must stay intact whatever is done to web1's. */
  const otherKey = signingKeyFromSeed(randomBytes(32));
  const otherOrigin = checkpointOrigin('web2.example', otherKey.keyId);
  let base: TestSchema;
  let otherHost = '';
  return {
    name: 'PostgreSQL',
    async build(dir) {
      base = await testSchema();
      const store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: base.url, logId: key.keyId, origin, seal: sealerOf(key) });
      const other = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: base.url, logId: otherKey.keyId, origin: otherOrigin, seal: sealerOf(otherKey) });
      try {
        // Interleaved, as two daemons sharing the database write.
        await Promise.all([fillLog(store, TXS), fillLog(other, 3)]);
        assert.equal(store.logHead().size, SIZE);
        otherHost = (await writeCheckpoints(other, otherKey, otherOrigin, dir, [other.logHead().size])).host;
        return await writeCheckpoints(store, key, origin, dir, HEAD_SIZES);
      } finally {
        await store.close();
        await other.close();
      }
    },
    async copy() {
      // A schema of its own holding copies of the tables verification reads (the logs, their
      // entries, and meta, where a log's archived base is kept), with the same definitions:
      // primary keys, checks and indexes included.
      const s = await testSchema();
      for (const t of ['logs', 'meta', 'audit_log']) {
        await s.admin.query(`CREATE TABLE ${t} (LIKE ${base.name}.${t} INCLUDING ALL)`);
        await s.admin.query(`INSERT INTO ${t} SELECT * FROM ${base.name}.${t}`);
      }
      /** The statements in one transaction, each required to change exactly `rows` rows (null: any number). */
      const sql = async (statements: Array<[string, unknown[], number | null]>) => {
        await s.admin.query('BEGIN');
        try {
          for (const [q, args, rows] of statements) {
            const r = await s.admin.query(q, args);
            if (rows !== null) assert.equal(r.rowCount, rows, q);
          }
          await s.admin.query('COMMIT');
        } catch (e) {
          await s.admin.query('ROLLBACK');
          throw e;
        }
      };
      const sources = async () => {
        const all = await postgresSources(s.url);
        assert.deepEqual(all.map((x) => x.logId).sort(), [key.keyId, otherKey.keyId].sort());
        return all;
      };
      const log = key.keyId;
      return {
        rows: async () => (await s.admin.query<LogRow>('SELECT seq::int AS seq, body, sig FROM audit_log WHERE log_id = $1 ORDER BY seq', [log])).rows,
        put: (e) => sql([['UPDATE audit_log SET body = $3, sig = $4, hash = $5 WHERE log_id = $1 AND seq = $2', [log, e.seq, e.body, e.sig, e.hash], 1]]),
        remove: (first, last) => sql([['DELETE FROM audit_log WHERE log_id = $1 AND seq BETWEEN $2 AND $3', [log, first, last], last - first + 1]]),
        swap: (a, b) => {
          const move = 'UPDATE audit_log SET seq = $3 WHERE log_id = $1 AND seq = $2';
          return sql([
            [move, [log, a, PARK], 1],
            [move, [log, b, a], 1],
            [move, [log, PARK, b], 1],
          ]);
        },
        closeGap: (gap) =>
          sql([
            ['UPDATE audit_log SET seq = seq + $3 WHERE log_id = $1 AND seq > $2', [log, gap, PARK], null],
            ['UPDATE audit_log SET seq = seq - $3 WHERE log_id = $1 AND seq > $2', [log, PARK, PARK + 1], null],
          ]),
        verify: async (files, witnesses) => {
          const src = (await sources()).find((x) => x.logId === log)!;
          assert.equal(src.origin, origin);
          return verifySource(src, key.publicRaw, { checkpointFiles: files, origin: src.origin, workers: 1, ...(witnesses ? { witnesses } : {}) });
        },
        others: async () => {
          const src = (await sources()).find((x) => x.logId === otherKey.keyId)!;
          return [await verifySource(src, otherKey.publicRaw, { checkpointFiles: [{ path: otherHost, named: true, required: true }], origin: src.origin, workers: 1 })];
        },
        drop: () => s.drop(),
      };
    },
    teardown: async () => {
      await base?.drop();
    },
  };
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe(`tampering on ${backend.name} is detected and named`, () => {
    let dir = '';
    let cp: Checkpoints;
    let honest: LogRow[] = [];
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'airlock-tamper-'));
      cp = await backend.build(dir);
      const c = await backend.copy(dir);
      honest = await c.rows();
      await c.drop();
      assert.equal(honest.length, SIZE);
    });
    after(async () => {
      await backend.teardown();
      rmSync(dir, { recursive: true, force: true });
    });
    const host = (): CheckpointFile => ({ path: cp.host, named: true, required: true });
    const fromWitnessA = (): CheckpointFile => ({ path: cp.witnessA, named: true });

    /** A fresh copy, tampered with by `tamper`, verified with `files`; the other hosts' logs must stay intact. */
    const tampered = async (tamper: (c: Copy) => Promise<void>, files: CheckpointFile[] = [host()], witnesses?: readonly WitnessKey[]): Promise<SourceReport> => {
      const c = await backend.copy(dir);
      try {
        await tamper(c);
        const rep = await c.verify(files, witnesses);
        for (const o of await c.others()) assert.equal(o.status, 'intact', `${o.source}: ${JSON.stringify(o.first_broken ?? o.reason)}`);
        return rep;
      } finally {
        await c.drop();
      }
    };
    const broken = (rep: SourceReport, seq: number | null, reason: RegExp) => {
      assert.equal(rep.status, 'broken', JSON.stringify(rep.reason ?? rep.first_broken));
      assert.equal(rep.first_broken?.seq, seq, rep.first_broken?.reason);
      assert.match(rep.first_broken!.reason, reason);
    };

    test('untouched: intact against the host file and the witness cosigned head (another host in the database too)', async () => {
      const rep = await tampered(async () => {}, [host(), fromWitnessA()], [wA]);
      assert.equal(rep.status, 'intact', JSON.stringify(rep.reason ?? rep.first_broken));
      assert.equal(rep.entries, SIZE);
      assert.equal(rep.root, rootOf(honest.map((r) => r.body)).toString('hex'));
      assert.deepEqual([rep.checkpoint?.kind, rep.checkpoint?.size], ['tree_head', SIZE]);
      assert.deepEqual(rep.witnessed?.witnesses, ['a.example']);
      assert.deepEqual(rep.warnings, []);
    });

    test('1. an edited body: its signature no longer verifies', async () => {
      const seq = 16; // the third transaction's outcome
      const row = honest[seq - 1]!;
      assert.match(row.body, /"kind":"outcome"/);
      const edited = row.body.replace('"state":"Succeeded"', '"state":"Failed"');
      assert.notEqual(edited, row.body);
      const rep = await tampered((c) => c.put({ seq, body: edited, sig: row.sig, hash: entryHash(edited) }));
      broken(rep, seq, /signature does not verify: the entry was altered or not signed by this key/);
    });

    test('2. a deleted entry is named missing; with the gap closed by renumbering, the next one is moved', async () => {
      broken(await tampered((c) => c.remove(20, 20)), 21, /entry 20 is missing \(next is 21\): deleted or reordered/);
      const closed = await tampered(async (c) => {
        await c.remove(20, 20);
        await c.closeGap(20);
      });
      broken(closed, 20, /entry claims seq 21 but sits at 20: moved/);
    });

    test('3. two entries swapped: out of place, named moved', async () => {
      broken(await tampered((c) => c.swap(12, 13)), 12, /entry claims seq 13 but sits at 12: moved/);
    });

    test('4. a cut tail: shorter than the tree head, and than the head the witness cosigned', async () => {
      const rep = await tampered((c) => c.remove(SIZE - 2, SIZE), [host(), fromWitnessA()], [wA]);
      broken(rep, SIZE - 2, new RegExp(`log has ${SIZE - 3} entries but the tree head of .*, cosigned by a\\.example, covers ${SIZE}: the tail was cut`));
      // Against the host's file alone, the same.
      broken(await tampered((c) => c.remove(SIZE - 2, SIZE)), SIZE - 2, new RegExp(`covers ${SIZE}: the tail was cut`));
    });

    test('5a. the whole log rebuilt and signed by a new key: broken at entry 1, signed by another key', async () => {
      const all = rewrite(honest, 1, attackerKey);
      const rep = await tampered(async (c) => {
        for (const e of all) await c.put(e);
      });
      broken(rep, 1, new RegExp(`entry 1 is signed by key ${attackerKey.keyId}, which your key file does not hold \\(it holds ${key.keyId}\\)`));
      // The same, with every entry still claiming the original key id: the signatures give it away.
      const posing = rewrite(honest, 1, { ...attackerKey, keyId: key.keyId });
      broken(
        await tampered(async (c) => {
          for (const e of posing) await c.put(e);
        }),
        1,
        /signature does not verify/,
      );
    });

    test('5b. the attacker holds the log key: entry 25 rewritten and the rest re-signed keeps chain and signatures, but not the tree heads', async () => {
      const forged = rewrite(honest, 25, key, (d, seq) => (seq === 25 ? { ...d, kind: 'canceled', details: { reason: 'never ran' } } : d));
      const rep = await tampered(async (c) => {
        for (const e of forged) await c.put(e);
      });
      // The first head past the change is the one that disagrees (the file holds heads at 10, 20, 30, 41).
      broken(rep, 30, /the first 30 entries do not make the tree the head of .* signed \(root [0-9a-f]{16}…\): history was rewritten/);
      // A fresh head of the rewritten log appended to the host's file does not help: two trees of one size.
      const file = join(dir, `checkpoints-resigned-${backend.name}`);
      copyFileSync(cp.host, file);
      const rewritten = [...honest.slice(0, 24).map((r) => r.body), ...forged.map((e) => e.body)];
      appendFileSync(file, treeHeadLine(signTreeHead(key, origin, SIZE, rootOf(rewritten), at)) + '\n');
      const resigned = await tampered(
        async (c) => {
          for (const e of forged) await c.put(e);
        },
        [{ path: file, named: true, required: true }],
      );
      broken(resigned, SIZE, new RegExp(`the log's key signed two different trees of size ${SIZE} .*: the log was forked`));
    });

    test('6. a fork: the log key signed a second head of the same size, shown to a second witness; holding both witnesses names it', async () => {
      // The other history: entry 33 rewritten and the rest re-signed, its root signed for size 41.
      const other = rewrite(honest, 33, key, (d, seq) => (seq === 33 ? { ...d, details: { state: 'Failed', exit: 1 } } : d));
      const forkRoot = rootOf([...honest.slice(0, 32).map((r) => r.body), ...other.map((e) => e.body)]);
      const forkHead = signTreeHead(key, origin, SIZE, forkRoot, at);
      const fromWitnessB = join(dir, `witness-b-${backend.name}`);
      writeFileSync(fromWitnessB, treeHeadLine(forkHead + cosign(witnessB, 'b.example', (parseNote(forkHead) as { body: string }).body, at)) + '\n');
      const files = [fromWitnessA(), { path: fromWitnessB, named: true }, host()];
      const rep = await tampered(async () => {}, files, [wA, wB]);
      broken(rep, SIZE, new RegExp(`two different trees of size ${SIZE} \\(roots [0-9a-f]{16}… cosigned by a\\.example, and [0-9a-f]{16}… cosigned by b\\.example\\): the log was forked`));
      // The fork is the log key's own two signatures: it is broken whichever witnesses the auditor trusts.
      broken(await tampered(async () => {}, files), SIZE, /two different trees of size \d+ .*forked/);
    });

    test('7. the host checkpoint file removed: cannot_verify, even with the witness head at hand (fail closed)', async () => {
      const gone = join(dir, `checkpoints-removed-${backend.name}`);
      copyFileSync(cp.host, gone);
      rmSync(gone);
      const rep = await tampered(async () => {}, [{ path: gone, named: true, required: true }, fromWitnessA()], [wA]);
      assert.equal(rep.status, 'cannot_verify', JSON.stringify(rep.first_broken));
      assert.match(rep.reason!, /the checkpoint file .* does not exist: .* a cut tail cannot be ruled out/);
      // And with no checkpoint file at all, nothing says how long the log should be.
      const none = await tampered(async () => {}, []);
      assert.equal(none.status, 'cannot_verify');
      assert.match(none.reason!, /no checkpoint was given/);
    });
  });
}
