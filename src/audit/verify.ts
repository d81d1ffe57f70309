/**
 * Offline verification of the audit log with the public key alone: no daemon, no
 * private key. Walks entries in order checking canonical form, sequence, chain and
 * (in worker threads, one per core) signatures, then compares the log with the
 * latest signed checkpoint to catch a cut tail or a rewrite.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorkerBeside } from '../protocol/worker-thread.js';
import { isCanonicalForm } from '../protocol/canonical.js';
import { ENTRY_KINDS, GENESIS_HASH, entryHash, type LogEntry } from './entry.js';
import { Evidence, type CheckpointEvidence, type EvidenceSummary, type WitnessKey } from './evidence.js';
import { KeyChain, type KeySpan } from './key-chain.js';
import { LifecycleCheck, type LifecycleBreak } from './lifecycle.js';
import { segmentRangeProblem, type SegmentRange } from './segment-range.js';

export interface LogRow {
  seq: number;
  body: string;
  sig: string;
}

export type { CheckpointEvidence, WitnessKey } from './evidence.js';

/**
 * intact: every entry verifies and the log is as long as its latest signed checkpoint or tree head
 * says, with the same root at every size the evidence names.
 * broken: an entry, the chain, the length or the root contradicts the signed evidence (first_broken says where).
 * cannot_verify: nothing contradicts the log, but the evidence is missing: no signed checkpoint of this
 * log (a cut tail cannot be ruled out), a checkpoint sink that should be there is not, or the auditor's
 * key file holds only a later key of this log (a rotation in it names one) and not the key of entry 1.
 * Never reported as intact: a log whose tail was cut looks exactly like that.
 */
export interface VerifyReport {
  status: 'intact' | 'broken' | 'cannot_verify';
  /** The seq of the last entry verified (entries 1..archived were not in this walk). */
  entries: number;
  /** Entries 1..archived were archived and not read by this walk (absent: it began at entry 1). */
  archived?: number;
  head_hash: string;
  /** Hex Merkle root (RFC 9162) of the entries verified. */
  root: string;
  /** The latest valid checkpoint or tree head: its size, time and the log it names. */
  checkpoint: EvidenceSummary | null;
  /** The largest tree head a witness the auditor trusts cosigned (null: none, or no witness key given). */
  witnessed: EvidenceSummary | null;
  /** Present when broken: the first bad entry (or null when the problem is the log's length); `rule`: the lifecycle rule it breaks (lifecycle.ts). */
  first_broken?: { seq: number | null; reason: string; rule?: string };
  /** Present when cannot_verify: what evidence is missing and how to give it. */
  reason?: string;
  warnings: string[];
  /** Which key signed which entries, oldest first (key-chain.ts). */
  keys: KeySpan[];
}

export type { KeySpan };

const BATCH = 2000;

/**
 * Where a walk over a log whose entries 1..seq were archived begins (a store's LogBase, or a
 * segment bundle's start record): the chain hash of entry seq, the Merkle frontier there (hex
 * hashes of MerkleFrontier.edgeIds(seq), largest first) and the log's id. A signed tree head of
 * size seq among the evidence must vouch for the frontier (else cannot_verify).
 */
export interface LogStart {
  seq: number;
  hash: string;
  frontier: readonly string[];
  logId: string;
}

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
  opts: { workers?: number; origin?: string; witnesses?: readonly WitnessKey[]; start?: LogStart | null; segment?: SegmentRange | null } = {},
): Promise<VerifyReport> {
  const evidence = new Evidence(typeof checkpoints === 'string' ? [{ from: 'the checkpoint file', text: checkpoints }] : (checkpoints ?? []), {
    ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
    ...(opts.witnesses ? { witnesses: opts.witnesses } : {}),
    ...(opts.segment ? { end: opts.segment.last_seq } : {}),
  });
  const trusted: readonly Buffer[] = Buffer.isBuffer(publicRaw) ? [publicRaw] : (publicRaw as readonly Buffer[]);
  const start = opts.start && opts.start.seq > 0 ? opts.start : null;
  const chain = new KeyChain(trusted, start ? { seq: start.seq, logId: start.logId } : null);
  if (start) evidence.seed(start.seq, start.hash, start.frontier.map((h) => Buffer.from(h, 'hex')));
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

  // A live log that starts after archived entries must hold the signed `archived` entry that moved
  // its base there (the archival appends it after the segment, so it is always live): otherwise
  // entries 1..base left the store with nothing signed saying so. A segment on its own (`end`)
  // does not hold the entry that archived its predecessor; its start head vouches for it alone.
  const baseRoot = start ? evidence.root().toString('hex') : null; // the seeded tree, before any entry
  const mustFindArchival = start !== null && !opts.segment;
  let archivalFound = false;
  let expected = start ? start.seq + 1 : 1;
  let prev = start ? start.hash : GENESIS_HASH;
  // Set inside take(); the cast keeps TypeScript from narrowing it to null out here.
  let structural = null as { seq: number; reason: string } | null;
  // The first entry that breaks a lifecycle rule: judged once every signature and the chain hold.
  const lifecycle = new LifecycleCheck(start === null);
  let lifecycleBreak = null as LifecycleBreak | null;
  /** One row in order; false at the first structural fault, which ends the walk. */
  const take = (row: LogRow): boolean => {
    const checked = checkStructure(row, expected, prev, chain);
    if (typeof checked === 'string') {
      structural = { seq: row.seq, reason: checked };
      return false;
    }
    lifecycleBreak ??= lifecycle.observe(checked);
    if (chain.currentHex !== batch.publicKeyHex) {
      flush();
      batch.publicKeyHex = chain.currentHex;
    }
    prev = entryHash(row.body);
    evidence.observe(row.seq, prev, row.body);
    if (mustFindArchival && !archivalFound && row.body.includes('"kind":"archived"')) archivalFound = namesBase(row.body, start!, baseRoot!);
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
    const base = { entries: expected - 1, ...(start ? { archived: start.seq } : {}), head_hash: prev, root: evidence.root().toString('hex'), checkpoint: null, witnessed: null, warnings: evidence.warnings, keys: chain.report() };
    if (badSig >= 0 && (!structural || badSig < structural.seq)) {
      const span = chain.spanOf(badSig);
      const by = span && chain.spans.length > 1 ? `key ${span.key_id} (the current key from seq ${span.first_seq})` : 'this key';
      return { ...base, status: 'broken', first_broken: { seq: badSig, reason: `signature does not verify: the entry was altered or not signed by ${by}` } };
    }
    // After archived entries, the key current at the base may be one the auditor's file lacks (a rotation
    // in the archive brought it in): not a contradiction, a missing key.
    if (structural && start && chain.untrustedFirstKey !== null) {
      return { ...base, status: 'cannot_verify', reason: `${structural.reason}: the key may have rotated in the archived part of the log; verify with the whole key history (\`airlock audit pubkey --history --out FILE\`), or walk the archive with --archive DIR` };
    }
    if (structural && laterKeyAt !== null) {
      const reason = `${structural.reason}: it holds a later key of this log (the rotation at seq ${laterKeyAt} names it), not the first one; export the whole key history with \`airlock audit pubkey --history --out FILE\` and verify with that file`;
      return { ...base, status: 'cannot_verify', reason };
    }
    if (structural) return { ...base, status: 'broken', first_broken: structural };
    if (lifecycleBreak) return { ...base, status: 'broken', first_broken: lifecycleBreak };
    // Heads and a segment's range are checked against the chain's keys and every key the auditor
    // trusts: a later key the walked log no longer introduces (its tail cut before a rotation) still counts.
    const evidenceKeys = [...chain.keys(), ...trusted].filter((k, i, all) => all.findIndex((x) => x.equals(k)) === i);
    // A segment's range sets later heads aside: the log's key must have signed exactly that range.
    const wrongRange = opts.segment ? segmentRangeProblem(opts.segment, evidenceKeys, { logId: chain.checkpointLogId(), first: start ? start.seq + 1 : 1, last: expected - 1 }) : null;
    if (wrongRange) return { ...base, status: 'broken', first_broken: { seq: null, reason: `the segment is not the one archived: ${wrongRange}` } };
    if (mustFindArchival && !archivalFound) {
      return { ...base, status: 'broken', first_broken: { seq: start!.seq + 1, reason: `the log starts after entry ${start!.seq}, but no signed archived entry in it says entries 1 to ${start!.seq} were archived (with that tree's root): they were removed from the store, not archived` } };
    }
    return { ...base, ...evidence.judge(expected - 1, evidenceKeys, chain.checkpointLogId()) };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** verify-worker.ts (or .js, compiled) in a worker thread (src/protocol/worker-thread.ts). */
const startVerifyWorker = (): Worker => startWorkerBeside(import.meta.url, 'verify-worker');

/** Whether an `archived` entry's body says the segment ending at the start was archived, with the start's root. */
function namesBase(body: string, start: LogStart, root: string): boolean {
  try {
    const e = JSON.parse(body) as LogEntry;
    return e.kind === 'archived' && e.details.last_seq === start.seq && e.details.root === root;
  } catch {
    return false;
  }
}

/** The entry, or why it does not belong at this place in the log. */
function checkStructure(row: LogRow, expected: number, prev: string, chain: KeyChain): string | LogEntry {
  if (row.seq !== expected) return row.seq > expected ? `entry ${expected} is missing (next is ${row.seq}): deleted or reordered` : `entry ${row.seq} is out of order`;
  if (typeof row.body !== 'string' || typeof row.sig !== 'string') return 'entry body or signature is missing';
  let e: LogEntry;
  try {
    e = JSON.parse(row.body) as LogEntry;
  } catch {
    return 'entry is not JSON';
  }
  if (!isCanonicalForm(row.body, e)) return 'entry is not in canonical form: it was edited';
  if (e.seq !== row.seq) return `entry claims seq ${e.seq} but sits at ${row.seq}: moved`;
  if (e.prev_hash !== prev) return "entry does not chain to the previous entry's hash: an earlier entry was edited, deleted or reordered";
  if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) return `unknown entry kind ${JSON.stringify(e.kind)}`;
  // Last: it moves the chain on (a rotation), which only an otherwise sound entry may do.
  return chain.admit(e) ?? e;
}
