/**
 * Audit benchmarks for `npm run bench` (bench.ts prints them beside the physical limits of the
 * same run):
 *   - durable appends per second on each store backend, with concurrent writers: every append is
 *     its own store operation that settles only once committed to disk (SQLite: group commit,
 *     synchronous = FULL; PostgreSQL: its own commit). The limit shown is the raw one-row-per-
 *     transaction insert rate of the same disk, which group commit is meant to exceed;
 *   - verifying a 1,000,000-entry log (signatures, chain, Merkle root against a signed tree head)
 *     beside the raw Ed25519 verify time of as many signatures on all cores at once, each over one
 *     of that log's own messages (what its signatures cover). That limit is measured, not one
 *     thread's rate times the cores: on a small VM two threads verify well under twice as fast as
 *     one. It is measured just before and just after the verify and the faster of the two counts
 *     (the stricter limit); the one-thread extrapolation is printed beside it;
 *   - inclusion and consistency proofs built from the stored Merkle nodes of that log, and
 *     checked, per proof.
 * Targets (issue 14): >= 5,000 durable appends/s on SQLite; verify within 1.25 x raw; a proof < 1 ms.
 */
import { openPostgresStore } from '../src/store/postgres.js';
import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { checkpointOrigin } from '../src/audit/checkpoint.js';
import { DOMAIN_LOG_ENTRY } from '../src/audit/domains.js';
import { entryMessage, GENESIS_HASH, sealEntry, type EntryDraft } from '../src/audit/entry.js';
import { decodeRow, logInserter, STORED_ROWS, type StoredLogRow } from '../src/audit/sqlite-log.js';
import { signingKeyFromSeed } from '../src/audit/keys.js';
import { readSqliteLog } from '../src/audit/log-file.js';
import { consistencyProof, inclusionProof, leafHash, MerkleFrontier, rootAt, verifyConsistency, verifyInclusion } from '../src/audit/merkle.js';
import { signTreeHead, treeHeadLine } from '../src/audit/note.js';
import { verifyLog } from '../src/audit/verify.js';
import { canonicalize } from '../src/protocol/canonical.js';
import { nodeWriter } from '../src/store/sqlite-merkle.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/store.js';
import { progress } from './measure.js';

const CORES = availableParallelism();
export const BIG_LOG = 1_000_000;
const APPEND_WRITERS = 32;
const APPEND_MS = 3000;
const PROOFS = 300;


/** Appends as concurrent writers do: each awaits its own one-entry operation, then asks again. */
async function durableAppends(store: Store, draft: EntryDraft): Promise<number> {
  let n = 0;
  const end = performance.now() + APPEND_MS;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: APPEND_WRITERS }, async () => {
      while (performance.now() < end) {
        await store.appendEntries([draft]);
        n++;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

export async function sqliteAppends(tmp: string, draft: EntryDraft): Promise<number> {
  const key = signingKeyFromSeed(randomBytes(32));
  const store = new SqliteStore(join(tmp, 'appends.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  progress(`durable appends on SQLite, ${APPEND_WRITERS} concurrent writers, ${APPEND_MS / 1000} s...`);
  try {
    return await durableAppends(store, draft);
  } finally {
    await store.close();
  }
}

/**
 * The same on PostgreSQL (127.0.0.1:5432, database test), in a schema of its own, dropped after;
 * null when the server or the PostgreSQL store is not there.
 */
export async function postgresAppends(draft: EntryDraft): Promise<{ rate: number; rawRate: number } | null> {
  let pg: typeof import('pg');
  try {
    pg = (await import('pg')).default as unknown as typeof import('pg');
  } catch {
    return null;
  }
  const schema = `airlock_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
    // The raw limit: one-row transactions from as many connections, each committing on its own.
    await admin.query(`CREATE TABLE ${schema}.raw (id bigserial PRIMARY KEY, body text NOT NULL)`);
    const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres', max: 8 });
    let raw = 0;
    const end = performance.now() + APPEND_MS;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (performance.now() < end) {
        await pool.query(`INSERT INTO ${schema}.raw (body) VALUES ($1)`, ['x'.repeat(400)]);
        raw++;
      }
    }));
    const rawRate = raw / ((performance.now() - t0) / 1000);
    await pool.end();
    const key = signingKeyFromSeed(randomBytes(32));
    const url = `postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`;
    // A row MAC key of the run's own (a daemon keeps its row.key in its state directory).
    const store = await openPostgresStore({ rowKey: randomBytes(32), url, logId: key.keyId, origin: checkpointOrigin('bench', key.keyId), seal: (d: EntryDraft, seq: number, prev: string) => sealEntry(key, d, seq, prev) });
    progress(`durable appends on PostgreSQL, ${APPEND_WRITERS} concurrent writers, ${APPEND_MS / 1000} s...`);
    try {
      return { rate: await durableAppends(store, draft), rawRate };
    } finally {
      await store.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.end();
  }
}

/** Signs bodies on every core: what building a million-entry log costs is not what is measured. */
function signer(seedHex: string) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { createPrivateKey, sign } = require('node:crypto');
    const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(workerData.seed, 'hex')]), format: 'der', type: 'pkcs8' });
    const tag = Buffer.from(workerData.tag, 'hex');
    parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, sigs: m.bodies.map((b) => sign(null, Buffer.concat([tag, Buffer.from(b, 'utf8')]), key).toString('hex')) }));`;
  const workers = Array.from({ length: CORES }, () => new Worker(code, { eval: true, workerData: { seed: seedHex, tag: DOMAIN_LOG_ENTRY.toString('hex') } }));
  let next = 0;
  const waiting = new Map<number, (s: string[]) => void>();
  for (const w of workers) w.on('message', (m: { id: number; sigs: string[] }) => waiting.get(m.id)!(m.sigs));
  return {
    sign: (bodies: string[]) =>
      new Promise<string[]>((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        workers[id % workers.length]!.postMessage({ id, bodies });
      }),
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
}

/** Entries of the log sampled for the raw verify: enough for seconds of work on each core. */
const RAW_SAMPLE = 100_000;

/**
 * Seconds for raw Ed25519 verify of `sample` (prebuilt messages and signatures) on every core at
 * once: each worker takes its share, verifies it with nothing else to do, and the clock stops at
 * the last. Workers start and receive their messages before the clock starts.
 */
async function rawVerifyAllCoresSeconds(publicRaw: Buffer, sample: { message: Buffer; sig: Buffer }[]): Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { createPublicKey, verify } = require('node:crypto');
    const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(workerData.pub, 'hex')]), format: 'der', type: 'spki' });
    const { messages, sigs } = workerData;
    parentPort.postMessage('ready');
    parentPort.once('message', () => {
      let ok = true;
      for (let i = 0; i < messages.length; i++) ok = verify(null, messages[i], key, sigs[i]) && ok;
      parentPort.postMessage(ok);
    });`;
  const share = Math.ceil(sample.length / CORES);
  const workers = Array.from({ length: CORES }, (_, w) => {
    const part = sample.slice(w * share, (w + 1) * share);
    return new Worker(code, { eval: true, workerData: { pub: publicRaw.toString('hex'), messages: part.map((p) => p.message), sigs: part.map((p) => p.sig) } });
  });
  try {
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    const t0 = performance.now();
    const results = await Promise.all(
      workers.map((w) => {
        const done = new Promise((resolve) => w.once('message', resolve));
        w.postMessage('go');
        return done;
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    if (!results.every((ok) => ok === true)) throw new Error('raw verify of the sample failed');
    return seconds;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * A log of `n` entries in a store's database, as the daemon writes it (the same bodies, encoded as it encodes them, signatures,
 * chain and Merkle nodes), built fast: bodies in order, signatures on every core.
 */
async function buildBigLog(path: string, n: number, drafts: readonly EntryDraft[]) {
  const seed = randomBytes(32);
  const key = signingKeyFromSeed(seed);
  await new SqliteStore(path, () => {
    throw new Error('unused');
  }).close(); // the schema
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // Rows as the daemon writes them (src/audit/sqlite-log.ts): bodies encoded, the transaction's column set.
  const insertRows = logInserter(db);
  const writeNodes = nodeWriter(db);
  const frontier = MerkleFrontier.empty();
  const sg = signer(seed.toString('hex'));
  const ts = new Date().toISOString();
  let prev = GENESIS_HASH;
  /** The hash the next chunk's first entry chains to. */
  let chainedTo = GENESIS_HASH;
  const CHUNK = 5000;
  let inFlight: Promise<void> = Promise.resolve();
  for (let done = 0; done < n; done += CHUNK) {
    const bodies: string[] = [];
    const hashes: string[] = [];
    for (let i = done; i < Math.min(n, done + CHUNK); i++) {
      const body = canonicalize({ ...drafts[i % drafts.length]!, seq: i + 1, ts, key_id: key.keyId, prev_hash: prev });
      prev = createHash('sha256').update(body, 'utf8').digest('hex');
      bodies.push(body);
      hashes.push(prev);
    }
    const signing = sg.sign(bodies);
    const first = done;
    await inFlight;
    const after = chainedTo;
    chainedTo = hashes.at(-1)!;
    inFlight = signing.then((sigs) => {
      db.transaction(() => {
        insertRows(bodies.map((body, i) => ({ seq: first + i + 1, body, sig: sigs[i]!, hash: hashes[i]! })), after);
        for (const body of bodies) writeNodes(frontier.append(leafHash(body)));
      })();
    });
    if (done % 200_000 === 0) progress(`  ${done.toLocaleString('en-US')} entries...`);
  }
  await inFlight;
  await sg.close();
  db.close();
  return { key, root: frontier.root() };
}

export async function bigLogBench(tmp: string, drafts: readonly EntryDraft[], rawVerifyRate: number) {
  const path = join(tmp, 'big.db');
  progress(`building a ${BIG_LOG.toLocaleString('en-US')}-entry log (bodies in order, signatures on ${CORES} cores)...`);
  const t0 = performance.now();
  const { key, root } = await buildBigLog(path, BIG_LOG, drafts);
  const buildS = (performance.now() - t0) / 1000;
  const origin = checkpointOrigin('bench', key.keyId);
  const head = treeHeadLine(signTreeHead(key, origin, BIG_LOG, root, new Date()));
  const sampleDb = new Database(path, { readonly: true });
  const sample = (sampleDb.prepare(`${STORED_ROWS} ORDER BY a.seq LIMIT ?`).all(RAW_SAMPLE) as StoredLogRow[]).map(decodeRow).map((r) => ({ message: entryMessage(r.body), sig: Buffer.from(r.sig, 'hex') }));
  sampleDb.close();
  progress(`raw Ed25519 verify of ${sample.length.toLocaleString('en-US')} of its entries on ${CORES} cores at once (the limit, before)...`);
  const rawBeforeS = await rawVerifyAllCoresSeconds(key.publicRaw, sample);
  progress(`verifying it: every signature, the chain, and the Merkle root against a signed tree head...`);
  const t1 = performance.now();
  const report = await verifyLog(readSqliteLog(path), key.publicRaw, [{ from: 'bench', text: head + '\n' }]);
  const verifyS = (performance.now() - t1) / 1000;
  if (report.status !== 'intact' || report.entries !== BIG_LOG) throw new Error(`verifyLog said ${report.status} with ${report.entries} entries: ${JSON.stringify(report.first_broken ?? report.reason)}`);
  progress(`raw Ed25519 verify on ${CORES} cores at once again (the limit, after)...`);
  const rawAfterS = await rawVerifyAllCoresSeconds(key.publicRaw, sample);
  // The faster of the two: the strictest limit, and the one a neighbour's burst did not slow.
  const rawS = (BIG_LOG / sample.length) * Math.min(rawBeforeS, rawAfterS);
  // What one thread's rate promises on every core, for comparison: perfect scaling.
  const idealS = BIG_LOG / (rawVerifyRate * CORES);

  progress(`${PROOFS} inclusion and ${PROOFS} consistency proofs from the stored nodes, each checked...`);
  const store = new SqliteStore(path, () => {
    throw new Error('unused');
  });
  try {
    const read = store.merkleNodes;
    const size = store.logHead().size;
    const rowOf = new Database(path, { readonly: true }).prepare(`${STORED_ROWS} WHERE a.seq = ?`);
    const bodyOf = (seq: number) => decodeRow(rowOf.get(seq) as StoredLogRow).body;
    let t = performance.now();
    for (let i = 0; i < PROOFS; i++) {
      const index = Math.floor(Math.random() * size);
      const proof = await inclusionProof(index, size, read);
      if (!verifyInclusion(index, size, leafHash(bodyOf(index + 1)), proof, root)) throw new Error(`inclusion proof of ${index} failed`);
    }
    const inclusionMs = (performance.now() - t) / PROOFS;
    t = performance.now();
    for (let i = 0; i < PROOFS; i++) {
      const old = 1 + Math.floor(Math.random() * (size - 1));
      const proof = await consistencyProof(old, size, read);
      if (!verifyConsistency(old, size, proof, await rootAt(old, read), root)) throw new Error(`consistency proof ${old} -> ${size} failed`);
    }
    const consistencyMs = (performance.now() - t) / PROOFS;
    return { buildS, verifyS, rawS, rawBeforeS, rawAfterS, sampleSize: sample.length, idealS, verifyRate: BIG_LOG / verifyS, inclusionMs, consistencyMs };
  } finally {
    await store.close();
  }
}
