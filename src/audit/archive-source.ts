/**
 * The whole history of a log whose oldest segments were archived (src/daemon/archiver.ts): the
 * archive directory's segment bundles, in order, and then the live log, walked as one log by the
 * one verifier (verifyLog), so the chain, the keys' rotations and the Merkle tree run across
 * every boundary, and every segment's tree heads are evidence against the rest.
 *
 * Before the walk, the segments must tile the history: the first starts at entry 1, each starts
 * where the one before ended, and the last ends where the live log starts (its base). A gap is
 * cannot_verify, naming the entries no file holds (their segment may have been moved elsewhere;
 * the log's `archived` entries name every one). A segment that does not say what it holds (its
 * name, its start record and its entries disagree) is broken when walked.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import { bundleSource } from './bundle.js';
import type { AuditSource } from './source.js';
import type { LogRow } from './verify.js';

/** A segment's file name (archiver.ts segmentName): the log id and the entry range. */
const SEGMENT_NAME = /^([0-9a-f]{16})-([0-9]{12})-([0-9]{12})\.jsonl\.gz$/;
/** The most segments read for one verification (a million-entry segment each: far beyond any host). */
export const MAX_SEGMENTS = 100_000;

export interface Segment {
  path: string;
  first: number;
  last: number;
}

/** The segments of `logId` in `dir`, in log order (by their names); other files are left alone. */
export function listSegments(dir: string, logId: string | null): Segment[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES') throw new AirlockError('authorization', 'permission_denied', `permission denied: the archive directory ${dir}`, 'run with sudo, or give a readable copy of the directory');
    throw new AirlockError('validation', 'no_archive', `cannot read the archive directory ${dir}: ${code ?? (e as Error).message}`, "give the directory the daemon archives to (`archive` beside its store, or the policy's [store] archive_dir)");
  }
  const out: Segment[] = [];
  for (const name of names) {
    const m = SEGMENT_NAME.exec(name);
    if (!m || (logId !== null && m[1] !== logId)) continue;
    out.push({ path: join(dir, name), first: Number(m[2]), last: Number(m[3]) });
    if (out.length > MAX_SEGMENTS) throw new AirlockError('validation', 'too_many_segments', `${dir} holds more than ${MAX_SEGMENTS} segments`);
  }
  return out.sort((a, b) => a.first - b.first);
}

/**
 * Where the segments fail to tile entries 1..liveBase: a sentence, or null when they do. Segments
 * past the live base (a file a crash left before its `archived` entry) are not part of the log yet.
 */
export function tilingGap(segments: readonly Segment[], liveBase: number): string | null {
  let next = 1;
  for (const s of segments) {
    if (s.last > liveBase) break;
    if (s.first !== next) return s.first > next ? `entries ${next} to ${s.first - 1} are in no segment of the archive` : `the segments ${s.first}-${s.last} and the one before overlap`;
    next = s.last + 1;
  }
  if (next !== liveBase + 1) return `entries ${next} to ${liveBase} are archived (the live log starts after ${liveBase}) but in no segment of the archive`;
  return null;
}

/**
 * The archive's segments and then `live`, as one source: its entries from entry 1, its evidence
 * every segment's tree heads and the live source's checkpoints. `liveBase`: where the live log
 * starts (its source's start().start.seq, 0 for none).
 */
export function archiveSource(dir: string, segments: readonly Segment[], live: AuditSource, liveBase: number): AuditSource {
  const inLog = segments.filter((s) => s.last <= liveBase);
  return {
    name: `the archive ${dir} (${inLog.length} segment${inLog.length === 1 ? '' : 's'}) and ${live.name}`,
    checkpoints: async () => {
      // One segment open at a time: an archive of many small segments must not exhaust descriptors.
      const all = [];
      for (const s of inLog) all.push(...(await bundleSource(s.path).checkpoints()));
      return [...all, ...(await live.checkpoints())];
    },
    entries: () => concatenated(inLog, live),
    ...(live.shortfallHint ? { shortfallHint: live.shortfallHint } : {}),
  };
}

async function* concatenated(segments: readonly Segment[], live: AuditSource): AsyncGenerator<LogRow> {
  for (const s of segments) yield* bundleSource(s.path).entries();
  yield* live.entries();
}
