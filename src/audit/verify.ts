/**
 * Offline verification of the audit log with the public key alone: no daemon, no
 * private key. Walks entries in order checking canonical form, sequence, chain and
 * (in worker threads, one per core) signatures, then compares the log with the
 * latest signed checkpoint to catch a cut tail or a rewrite.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { canonicalize } from '../protocol/canonical.js';
import { ENTRY_KINDS, GENESIS_HASH, entryHash, type LogEntry } from './entry.js';
import { Evidence, type CheckpointEvidence, type EvidenceSummary, type WitnessKey } from './evidence.js';
import { keyIdOf } from './keys.js';

export interface LogRow {
  seq: number;
  body: string;
  sig: string;
}

export type { CheckpointEvidence, WitnessKey } from './evidence.js';

/**
 * intact: every entry verifies and the log is as long as its latest signed checkpoint says.
 * broken: an entry, the chain or the length contradicts the signed evidence (first_broken says where).
 * cannot_verify: nothing contradicts the log, but the evidence to rule out a cut tail is missing
 * (no signed checkpoint of this log, or a checkpoint sink that should be there is not): never
 * reported as intact, since a log whose tail was cut looks exactly like that.
 */
export interface VerifyReport {
  status: 'intact' | 'broken' | 'cannot_verify';
  entries: number;
  head_hash: string;
  /** Hex Merkle root (RFC 9162) of the entries verified. */
  root: string;
  /** The latest valid checkpoint or tree head: its size, time and the log it names. */
  checkpoint: EvidenceSummary | null;
  /** The largest tree head a witness the auditor trusts cosigned (null: none, or no witness key given). */
  witnessed: EvidenceSummary | null;
  /** Present when broken: the first bad entry (or null when the problem is the log's length). */
  first_broken?: { seq: number | null; reason: string };
  /** Present when cannot_verify: what evidence is missing and how to give it. */
  reason?: string;
  warnings: string[];
}

const BATCH = 2000;

/**
 * `rows` may be read lazily (a database, the daemon's pages, a bundle file): they are walked
 * once, in order, and not held. `checkpoints`: one text (a file), or several from several
 * places; null or none means no checkpoint evidence. `opts.origin`: the log the checkpoints
 * must name (checkpointOrigin). Without it, any checkpoint naming the log of this public key
 * counts, whatever its host part.
 */
export async function verifyLog(
  rows: Iterable<LogRow> | AsyncIterable<LogRow>,
  publicRaw: Buffer,
  checkpoints: string | null | readonly CheckpointEvidence[],
  opts: { workers?: number; origin?: string; witnesses?: readonly WitnessKey[] } = {},
): Promise<VerifyReport> {
  const keyId = keyIdOf(publicRaw);
  const evidence = new Evidence(typeof checkpoints === 'string' ? [{ from: 'the checkpoint file', text: checkpoints }] : (checkpoints ?? []), [publicRaw], keyId, {
    ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
    ...(opts.witnesses ? { witnesses: opts.witnesses } : {}),
  });
  const workerCount = Math.max(1, opts.workers ?? availableParallelism());
  const workerData = { publicKeyHex: publicRaw.toString('hex') };
  const workers = Array.from({ length: workerCount }, () => startVerifyWorker(workerData));
  const pending = new Map<number, (bad: number) => void>();
  for (const w of workers) w.on('message', (m: { id: number; bad: number }) => pending.get(m.id)?.(m.bad));
  const sigChecks: Promise<number>[] = [];
  let batchId = 0;
  let batch = { seqs: [] as number[], bodies: [] as string[], sigs: [] as string[] };
  const flush = () => {
    if (batch.bodies.length === 0) return;
    const id = batchId++;
    const w = workers[id % workers.length]!;
    sigChecks.push(new Promise((resolve) => pending.set(id, resolve)));
    w.postMessage({ id, ...batch });
    batch = { seqs: [], bodies: [], sigs: [] };
  };

  let expected = 1;
  let prev = GENESIS_HASH;
  // Set inside take(); the cast keeps TypeScript from narrowing it to null out here.
  let structural = null as { seq: number; reason: string } | null;
  /** One row in order; false at the first structural fault, which ends the walk. */
  const take = (row: LogRow): boolean => {
    const reason = checkStructure(row, expected, prev, keyId);
    if (reason) {
      structural = { seq: row.seq, reason };
      return false;
    }
    prev = entryHash(row.body);
    evidence.observe(row.seq, prev, row.body);
    batch.seqs.push(row.seq);
    batch.bodies.push(row.body);
    batch.sigs.push(row.sig);
    if (batch.bodies.length >= BATCH) flush();
    expected++;
    return true;
  };
  try {
    // A plain loop for rows at hand (a database): `for await` costs about half a microsecond a row.
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) if (!take(row)) break;
    } else for (const row of rows) if (!take(row)) break;
    flush();
    const bads = (await Promise.all(sigChecks)).filter((b) => b >= 0);
    const badSig = bads.length ? Math.min(...bads) : -1;
    const base = { entries: expected - 1, head_hash: prev, root: evidence.root().toString('hex'), checkpoint: null, witnessed: null, warnings: evidence.warnings };
    if (badSig >= 0 && (!structural || badSig < structural.seq)) {
      return { ...base, status: 'broken', first_broken: { seq: badSig, reason: 'signature does not verify: the entry was altered or not signed by this key' } };
    }
    if (structural) return { ...base, status: 'broken', first_broken: structural };
    return { ...base, ...evidence.judge(expected - 1) };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * The compiled build runs verify-worker.js directly. From the TypeScript sources (tsx),
 * a worker thread does not inherit tsx's loader on Node 20 (neither `--import tsx` nor
 * tsx's register() reach it), so the worker first registers tsx, then loads the .ts file.
 */
function startVerifyWorker(workerData: { publicKeyHex: string }): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./verify-worker.js', import.meta.url), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const src = new URL('./verify-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(src)}); })`, { eval: true, workerData });
}

function checkStructure(row: LogRow, expected: number, prev: string, keyId: string): string | null {
  if (row.seq !== expected) return row.seq > expected ? `entry ${expected} is missing (next is ${row.seq}): deleted or reordered` : `entry ${row.seq} is out of order`;
  if (typeof row.body !== 'string' || typeof row.sig !== 'string') return 'entry body or signature is missing';
  let e: LogEntry;
  try {
    e = JSON.parse(row.body) as LogEntry;
  } catch {
    return 'entry is not JSON';
  }
  try {
    if (canonicalize(e) !== row.body) return 'entry is not in canonical form: it was edited';
  } catch {
    return 'entry cannot be canonicalized';
  }
  if (e.seq !== row.seq) return `entry claims seq ${e.seq} but sits at ${row.seq}: moved`;
  if (e.prev_hash !== prev) return "entry does not chain to the previous entry's hash: an earlier entry was edited, deleted or reordered";
  if (e.key_id !== keyId) return `entry was signed by key ${e.key_id}, not by this public key (${keyId})`;
  if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) return `unknown entry kind ${JSON.stringify(e.kind)}`;
  return null;
}
