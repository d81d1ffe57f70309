/**
 * Offline verification of the audit log with the public key alone: no daemon, no
 * private key. Walks entries in order checking canonical form, sequence, chain and
 * (in worker threads, one per core) signatures, then compares the log with the
 * latest signed checkpoint to catch a cut tail or a rewrite.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { canonicalize } from '../protocol/canonical.js';
import { parseCheckpoints, type SignedCheckpoint } from './checkpoint.js';
import { ENTRY_KINDS, GENESIS_HASH, entryHash, type LogEntry } from './entry.js';
import { publicKeyFromRaw } from './keys.js';
import { KeyChain, type KeySpan } from './key-chain.js';

export interface LogRow {
  seq: number;
  body: string;
  sig: string;
}

/** Checkpoint lines and where they came from ("the daemon's checkpoint file", a path): a warning about a line names both. */
export interface CheckpointEvidence {
  from: string;
  text: string;
}

export interface VerifyReport {
  status: 'intact' | 'broken';
  entries: number;
  head_hash: string;
  /** The latest valid checkpoint: its size, time and the log it names. */
  checkpoint: { size: number; ts: string; origin: string } | null;
  /** Present when broken: the first bad entry (or null when the problem is the log's length). */
  first_broken?: { seq: number | null; reason: string };
  warnings: string[];
  /** Which key signed which entries, oldest first (key-chain.ts). */
  keys: KeySpan[];
  /**
   * Present when the auditor's key file holds a later key of this log (a rotation in it names
   * one) but not the key that signed entry 1 (status is 'broken', at entry 1): nothing could be
   * checked, and the reason says to export the key history. The CLI exits 2 ("cannot verify")
   * for it. A file of unrelated keys is plainly broken at entry 1, as before rotation.
   */
  cannot_verify?: string;
}

export type { KeySpan };

const BATCH = 2000;

/**
 * `publicRaw`: the auditor's trusted keys (one, or every key of their file). The log's first
 * key must be among them; later keys come from the log's own verified rotations (key-chain.ts).
 * `rows` may be read lazily (a database, the daemon's pages, a bundle file): they are walked
 * once, in order, and not held. `checkpoints`: one text (a file), or several from several
 * places; null or none means no checkpoint evidence. `opts.origin`: the log the checkpoints
 * must name (checkpointOrigin). Without it, any checkpoint naming the log of this public key
 * counts, whatever its host part.
 */
export async function verifyLog(
  rows: Iterable<LogRow> | AsyncIterable<LogRow>,
  publicRaw: Buffer | readonly Buffer[],
  checkpoints: string | null | readonly CheckpointEvidence[],
  opts: { workers?: number; origin?: string } = {},
): Promise<VerifyReport> {
  const evidence = typeof checkpoints === 'string' ? [{ from: 'the checkpoint file', text: checkpoints }] : (checkpoints ?? []);
  const chain = new KeyChain(Buffer.isBuffer(publicRaw) ? [publicRaw] : (publicRaw as readonly Buffer[]));
  const workerCount = Math.max(1, opts.workers ?? availableParallelism());
  const workers = Array.from({ length: workerCount }, () => startVerifyWorker());
  const pending = new Map<number, (bad: number) => void>();
  for (const w of workers) w.on('message', (m: { id: number; bad: number }) => pending.get(m.id)?.(m.bad));
  const sigChecks: Promise<number>[] = [];
  let batchId = 0;
  // A batch is checked with one key: it is sent when full and whenever the key changes.
  let batch = { publicKeyHex: '', seqs: [] as number[], bodies: [] as string[], sigs: [] as string[] };
  const flush = () => {
    if (batch.bodies.length === 0) return;
    const id = batchId++;
    const w = workers[id % workers.length]!;
    sigChecks.push(new Promise((resolve) => pending.set(id, resolve)));
    w.postMessage({ id, ...batch });
    batch = { publicKeyHex: batch.publicKeyHex, seqs: [], bodies: [], sigs: [] };
  };

  let expected = 1;
  let prev = GENESIS_HASH;
  const hashes: string[] = [];
  // Set inside take(); the cast keeps TypeScript from narrowing it to null out here.
  let structural = null as { seq: number; reason: string } | null;
  /** One row in order; false at the first structural fault, which ends the walk. */
  const take = (row: LogRow): boolean => {
    const reason = checkStructure(row, expected, prev, chain);
    if (reason) {
      structural = { seq: row.seq, reason };
      return false;
    }
    if (chain.currentHex !== batch.publicKeyHex) {
      flush();
      batch.publicKeyHex = chain.currentHex;
    }
    prev = entryHash(row.body);
    hashes.push(prev);
    batch.seqs.push(row.seq);
    batch.bodies.push(row.body);
    batch.sigs.push(row.sig);
    if (batch.bodies.length >= BATCH) flush();
    expected++;
    return true;
  };
  // After entry 1 turned out signed by a key the auditor does not hold: the rest is only read for
  // a rotation to one of their keys (then they hold a later key, and need the history).
  let laterKeyAt: number | null = null;
  const step = (row: LogRow): boolean => {
    if (chain.untrustedFirstKey !== null) return (laterKeyAt = chain.namesTrustedKey(row)) === null;
    return take(row) || chain.untrustedFirstKey !== null;
  };
  try {
    // A plain loop for rows at hand (a database): `for await` costs about half a microsecond a row.
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) if (!step(row)) break;
    } else for (const row of rows) if (!step(row)) break;
    flush();
    const bads = (await Promise.all(sigChecks)).filter((b) => b >= 0);
    const badSig = bads.length ? Math.min(...bads) : -1;
    const base = { entries: hashes.length, head_hash: prev, checkpoint: null as VerifyReport['checkpoint'], warnings: [] as string[], keys: chain.report() };
    if (badSig >= 0 && (!structural || badSig < structural.seq)) {
      const span = chain.spanOf(badSig);
      const by = span && chain.spans.length > 1 ? `key ${span.key_id} (the current key from seq ${span.first_seq})` : 'this key';
      return { ...base, status: 'broken', first_broken: { seq: badSig, reason: `signature does not verify: the entry was altered or not signed by ${by}` } };
    }
    if (structural && laterKeyAt !== null) {
      const reason = `${structural.reason}: it holds a later key of this log (the rotation at seq ${laterKeyAt} names it), not the first one; export the whole key history with \`airlock audit pubkey --history --out FILE\` and verify with that file`;
      return { ...base, status: 'broken', first_broken: { seq: 1, reason }, cannot_verify: reason };
    }
    if (structural) return { ...base, status: 'broken', first_broken: structural };
    return compareWithCheckpoints(base, hashes, evidence, { logId: chain.checkpointLogId(), keys: chain.keys() }, opts.origin);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * The compiled build runs verify-worker.js directly. From the TypeScript sources (tsx),
 * a worker thread does not inherit tsx's loader on Node 20 (neither `--import tsx` nor
 * tsx's register() reach it), so the worker first registers tsx, then loads the .ts file.
 */
function startVerifyWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./verify-worker.js', import.meta.url));
  const tsx = import.meta.resolve('tsx/esm/api');
  const src = new URL('./verify-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(src)}); })`, { eval: true });
}

function checkStructure(row: LogRow, expected: number, prev: string, chain: KeyChain): string | null {
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
  if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) return `unknown entry kind ${JSON.stringify(e.kind)}`;
  // Last: it moves the chain on (a rotation), which only an otherwise sound entry may do.
  return chain.admit(e);
}

/** `log`: the log id checkpoints name, and the keys of its chain (a checkpoint is signed by the key current when it was written). */
function compareWithCheckpoints(base: Omit<VerifyReport, 'status'>, hashes: string[], evidence: readonly CheckpointEvidence[], log: { logId: string; keys: Buffer[] }, origin: string | undefined): VerifyReport {
  if (evidence.length === 0) {
    return { ...base, status: 'intact', warnings: ['no checkpoint file was given: a cut tail cannot be detected (pass --checkpoints FILE)'] };
  }
  const publicKey = log.keys.map(publicKeyFromRaw);
  const good: SignedCheckpoint[] = [];
  for (const { from, text } of evidence) {
    // Anyone can write a line into syslog: lines that are not validly signed are noise, reported but
    // never evidence, and so is a checkpoint of another log. Only a signed checkpoint of this log
    // that contradicts it breaks it.
    const where = evidence.length > 1 ? ` of ${from}` : '';
    for (const p of parseCheckpoints(text, publicKey, { logId: log.logId, ...(origin === undefined ? {} : { origin }) })) {
      if (p.ok) good.push(p.value);
      else base.warnings.push(`checkpoint line ${p.line}${where} ignored: ${p.reason}`);
    }
  }
  if (good.length === 0) {
    const where = evidence.length > 1 ? `none of ${evidence.map((e) => e.from).join(', ')} holds a` : `${evidence[0]!.from} holds no`;
    return { ...base, status: 'intact', warnings: [...base.warnings, `${where} valid checkpoint: a cut tail cannot be detected`] };
  }
  const latest = good.reduce((a: SignedCheckpoint, b) => (b.checkpoint.size > a.checkpoint.size ? b : a));
  const cp = { size: latest.checkpoint.size, ts: latest.checkpoint.ts, origin: latest.checkpoint.origin };
  if (hashes.length < cp.size) {
    return {
      ...base,
      checkpoint: cp,
      status: 'broken',
      first_broken: { seq: hashes.length + 1, reason: `log has ${hashes.length} entries but the checkpoint of ${cp.ts} covers ${cp.size}: the tail was cut` },
    };
  }
  for (const c of good) {
    if (c.checkpoint.size > 0 && hashes[c.checkpoint.size - 1] !== c.checkpoint.head_hash) {
      return { ...base, checkpoint: cp, status: 'broken', first_broken: { seq: c.checkpoint.size, reason: `entry ${c.checkpoint.size} differs from the one the checkpoint of ${c.checkpoint.ts} signed: history was rewritten` } };
    }
  }
  return { ...base, checkpoint: cp, status: 'intact' };
}
