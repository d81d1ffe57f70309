/**
 * Where a log to verify comes from: a SQLite database (or a copy), a bundle file written by
 * `airlock audit export`, or the daemon's socket. Every source gives the same two things, the
 * signed checkpoints it holds and the signed entries, and one verifier (verifyLog) checks them
 * all the same way with the public key alone: a source is trusted for nothing.
 *
 * The checkpoints are read before the entries, so that on a live log each checkpoint covers at
 * most the entries read after it (a checkpoint read after the entries could cover entries
 * appended meanwhile and look like a cut tail).
 *
 * A source's own checkpoints cannot show that the source itself cut the tail: a daemon that
 * drops its last entries can drop the checkpoints that cover them. Independent copies (the
 * host's append-only checkpoint file, a syslog export) are added with `checkpointFiles`, and
 * when there are none the report says so.
 */
import { readFileSync } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { treeHeadLine } from './note.js';
import type { SegmentRange } from './segment-range.js';
import { verifyLog, type CheckpointEvidence, type LogRow, type LogStart, type VerifyReport, type WitnessKey } from './verify.js';

export interface AuditSource {
  /** What it is, for people: "the daemon at /run/airlock/airlock.sock", "bundle audit.jsonl", "database airlock.db". */
  readonly name: string;
  /** The signed checkpoint lines the source itself holds (a database holds none: its checkpoints are files). */
  checkpoints(): Promise<CheckpointEvidence[]>;
  /** The entries in seq order, as stored, read once. */
  entries(): Iterable<LogRow> | AsyncIterable<LogRow>;
  /**
   * Where its entries start when entries 1..N are not in it (archived): the walk's start and
   * the signed tree head of size N the source holds for it (null when it is already among the
   * source's checkpoints, as a bundle's is). Null or absent: they start at 1.
   */
  start?(): Promise<{ start: LogStart; treeHead: string | null } | null>;
  /** For an archived segment: the range it holds, as the log's key signed it. Evidence of larger sizes is about later entries, not a cut tail. */
  segment?(): Promise<SegmentRange | null>;
  /**
   * When the log is shorter than its checkpoints, a cause other than a cut tail that this source
   * can see (a database copied without its -wal file), said beside the finding.
   */
  readonly shortfallHint?: string;
}

/**
 * A checkpoint file to read as well. One this account cannot read is an error (it may hold the
 * evidence). One that does not exist is left out; when it is `required` (the host's own sink, for
 * a log read on the host: the daemon or its database) the verdict is then cannot_verify, never
 * intact: a missing sink is what an intruder who cut the tail would leave.
 */
export interface CheckpointFile {
  path: string;
  named: boolean;
  required?: boolean;
}

export interface SourceReport extends VerifyReport {
  /** The source's name. */
  source: string;
}

/** The most checkpoint text held for one verification (a year of busy checkpoints is far less). */
export const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

export async function verifySource(src: AuditSource, publicRaw: Buffer | readonly Buffer[], opts: { checkpointFiles?: CheckpointFile[]; origin?: string; workers?: number; witnesses?: readonly WitnessKey[] } = {}): Promise<SourceReport> {
  const warnings: string[] = [];
  const evidence: CheckpointEvidence[] = [];
  const missing: string[] = [];
  for (const f of opts.checkpointFiles ?? []) {
    const text = readCheckpointFile(f);
    if (text !== null) evidence.push({ from: f.path, text });
    else if (f.required) missing.push(f.path);
    else if (f.named) warnings.push(`the checkpoint file ${f.path} does not exist`);
  }
  const own = await src.checkpoints();
  if (own.length > 0 && evidence.length === 0) {
    warnings.push(`the checkpoints came from ${src.name} alone: a source that cut the log's tail could leave out the checkpoints that cover it too; give an independent copy (the host's checkpoint file, a syslog export) with --checkpoints FILE`);
  }
  evidence.unshift(...own);
  // The source's head of where its entries start counts like its other checkpoints: its word, signed.
  const start = (await src.start?.()) ?? null;
  if (start?.treeHead) evidence.unshift({ from: `${src.name} (the tree head its entries start from)`, text: treeHeadLine(start.treeHead) + '\n' });
  const bytes = evidence.reduce((n, e) => n + e.text.length, 0);
  if (bytes > MAX_CHECKPOINT_BYTES) throw new AirlockError('validation', 'too_many_checkpoints', `more than ${MAX_CHECKPOINT_BYTES} bytes of checkpoints`, 'give a shorter checkpoint file (its recent part covers the log)');
  const r = await verifyLog(src.entries(), publicRaw, evidence, { ...(opts.origin !== undefined ? { origin: opts.origin } : {}), ...(opts.workers !== undefined ? { workers: opts.workers } : {}), ...(opts.witnesses ? { witnesses: opts.witnesses } : {}), start: start?.start ?? null, segment: (await src.segment?.()) ?? null });
  // A checkpoint and fewer entries than it covers is verifyLog's one finding about length.
  if (r.status === 'broken' && r.checkpoint && r.entries < r.checkpoint.size && src.shortfallHint && r.first_broken) {
    r.first_broken = { ...r.first_broken, reason: `${r.first_broken.reason}, or ${src.shortfallHint}` };
  }
  // A required sink that is gone leaves the tail unchecked whatever the source's own checkpoints say.
  if (r.status !== 'broken' && missing.length > 0) {
    r.status = 'cannot_verify';
    r.reason = `the checkpoint file ${missing.join(', ')} does not exist: the host's independent record of the log's length is missing, so a cut tail cannot be ruled out (give a copy with --checkpoints FILE, or find out who removed it)`;
  }
  // Without a checkpoint nothing says how long the log should be: a copy missing its -wal looks whole.
  if (r.status === 'cannot_verify' && src.shortfallHint) r.reason = `${r.reason}; and ${src.shortfallHint}`;
  return { ...r, source: src.name, warnings: [...warnings, ...r.warnings] };
}

function readCheckpointFile(f: CheckpointFile): string | null {
  try {
    return readFileSync(f.path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EACCES') throw new AirlockError('authorization', 'permission_denied', `permission denied: ${f.path} (this account cannot read the checkpoint file)`, 'give a readable copy with --checkpoints FILE, or run with sudo');
    throw new AirlockError('validation', 'no_checkpoint_file', `cannot read the checkpoint file ${f.path}: ${code ?? (e as Error).message}`, 'give the checkpoint file or a syslog export with --checkpoints FILE');
  }
}
