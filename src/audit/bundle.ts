/**
 * The audit bundle: one self-contained file of the signed log, written by `airlock audit export`
 * and checked by `airlock audit verify --bundle FILE --pubkey FILE` on any machine, with no
 * daemon and no database. JSON lines, one record per line, each with its `type`:
 *
 *   {"type":"airlock-audit-bundle","version":3,"exported_at":"...","public_key":"ed25519:..."|null}
 *   {"type":"public_key","key":"ed25519:...","key_id":"..."}                                  (the log's keys, oldest first)
 *   {"type":"start","seq":N,"hash":"...","frontier":["..."],"log_id":"..."}                   (only when entries 1..N are not in it: archived)
 *   {"type":"tree_head","note":"<origin>\n<size>\n<root>\ntime ...\n\n— <origin> ...\n"}      (signed notes, with any witness cosignatures)
 *   {"type":"checkpoint","line":"airlock-checkpoint <origin> <size> <head_hash> <ts> <sig>"}   (older checkpoint lines)
 *   {"type":"entry","seq":1,"body":"...","sig":"..."}                                        (seq order)
 *   {"type":"end","checkpoints":N,"tree_heads":T,"public_keys":K,"entries":M}
 *
 * Everything in it is what the sources hold, byte for byte (entry bodies and checkpoint lines
 * are the signed bytes), so the bundle proves nothing by itself: the verifier checks it with the
 * auditor's own copy of the public key. `public_key` says which key the exporter saw, for people.
 * The end record tells a file cut short (a failed copy) from a complete one; the checkpoints,
 * not the end record, show a tail cut on purpose.
 *
 * A bundle that starts after entry N (an archived segment, src/daemon/archiver.ts, or an export
 * of a log whose first entries were archived) has a start record: where its walk begins, which a
 * signed tree head of size N in the bundle must vouch for (verify.ts LogStart).
 *
 * A bundle file may be gzip-compressed (the archive's segments are): the reader looks at the
 * first bytes. Version 1 had no tree heads and no public key records, version 2 no start record;
 * this reader reads all three, and refuses a version or a record type it does not know rather
 * than verifying part of a bundle.
 */
import { closeSync, constants, createReadStream, lstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createGunzip, createGzip, constants as zlibConstants } from 'node:zlib';
import { AirlockError } from '../protocol/errors.js';
import { NewFile } from '../protocol/safe-write.js';
import { CHECKPOINT_TAG } from './checkpoint.js';
import { formatPublicKey, keyIdOf } from './keys.js';
import { readTreeHeadLines, TREE_HEAD_TAG, treeHeadLine } from './note.js';
import { MAX_CHECKPOINT_BYTES, type AuditSource } from './source.js';
import type { LogRow, LogStart } from './verify.js';
import type { SegmentRange } from './segment-range.js';

export const BUNDLE_TYPE = 'airlock-audit-bundle';
export const BUNDLE_VERSION = 3;
const READABLE_VERSIONS: readonly unknown[] = [1, 2, 3];
/** The longest record line read (an entry is at most a frame, 1 MiB, as the daemon pages it). */
export const MAX_BUNDLE_LINE = 4 * 1024 * 1024;

export interface BundleHeader {
  type: typeof BUNDLE_TYPE;
  version: 1 | 2 | 3;
  exported_at: string;
  public_key: string | null;
  /** An archived segment (version 3): the entries it holds, and no more, signed by the log's key (segment-range.ts). */
  segment?: SegmentRange;
}

/** A bundle's start record: entries 1..seq are not in it. */
export interface StartRecord {
  type: 'start';
  seq: number;
  hash: string;
  frontier: string[];
  log_id: string;
}

export interface BundleCounts {
  checkpoints: number;
  tree_heads: number;
  public_keys: number;
  entries: number;
}

/**
 * A bundle being written: records go to a temporary file beside `out` (gzip-compressed when
 * asked), which finish() syncs and renames, so `out` is either absent or complete. The SHA-256
 * and size it returns are of the bytes on disk, as the archive's entries name them.
 */
export class BundleWriter {
  private readonly file: NewFile;
  private readonly gzip: ReturnType<typeof createGzip> | null;
  private readonly digest = createHash('sha256');
  private bytes = 0;
  private settled = false;
  readonly counts: BundleCounts = { checkpoints: 0, tree_heads: 0, public_keys: 0, entries: 0 };

  constructor(
    private readonly out: string,
    o: { force: boolean; gzip?: boolean },
  ) {
    if (!o.force && exists(out)) throw new AirlockError('conflict', 'file_exists', `${out} exists`, 'choose another file, or add --force to replace it');
    this.file = NewFile.create(out, { mode: 0o644, exclusive: !o.force });
    this.gzip = o.gzip ? createGzip({ level: zlibConstants.Z_BEST_COMPRESSION }) : null;
    this.gzip?.on('data', (chunk: Buffer) => this.raw(chunk));
  }

  private raw(chunk: Buffer): void {
    this.file.write(chunk);
    this.digest.update(chunk);
    this.bytes += chunk.length;
  }

  async put(record: object): Promise<void> {
    const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
    if (!this.gzip) return this.raw(line);
    if (!this.gzip.write(line)) await new Promise((resolve) => this.gzip!.once('drain', resolve));
  }

  /** Header, public keys, start, tree heads, checkpoint lines: what precedes the entries. */
  async preamble(o: { publicKey: string | null; publicKeys?: readonly Buffer[]; start?: StartRecord | null; treeHeads?: readonly string[]; checkpointLines?: readonly string[]; now?: Date; segment?: SegmentRange }): Promise<void> {
    await this.put({ type: BUNDLE_TYPE, version: BUNDLE_VERSION, exported_at: (o.now ?? new Date()).toISOString(), public_key: o.publicKey, ...(o.segment ? { segment: o.segment } : {}) } satisfies BundleHeader);
    for (const k of o.publicKeys ?? []) {
      await this.put({ type: 'public_key', key: formatPublicKey(k).trim(), key_id: keyIdOf(k) });
      this.counts.public_keys++;
    }
    if (o.start && o.start.seq > 0) await this.put(o.start);
    for (const note of o.treeHeads ?? []) {
      await this.put({ type: 'tree_head', note });
      this.counts.tree_heads++;
    }
    for (const line of o.checkpointLines ?? []) {
      await this.put({ type: 'checkpoint', line });
      this.counts.checkpoints++;
    }
  }

  async entry(r: LogRow): Promise<void> {
    await this.put({ type: 'entry', seq: r.seq, body: r.body, sig: r.sig });
    this.counts.entries++;
  }

  /** The end record, then sync, close and rename into place. */
  async finish(): Promise<BundleCounts & { bytes: number; sha256: string }> {
    await this.put({ type: 'end', ...this.counts });
    if (this.gzip) {
      const ended = new Promise((resolve, reject) => (this.gzip!.once('end', resolve), this.gzip!.once('error', reject)));
      this.gzip.end();
      this.gzip.resume();
      await ended;
    }
    this.settled = true;
    this.file.commit(); // synced, renamed within its held folder, and the folder synced
    return { ...this.counts, bytes: this.bytes, sha256: this.digest.digest('hex') };
  }

  /** Removes the temporary file of a bundle that will not be finished. */
  abort(): void {
    if (this.settled) return;
    this.settled = true;
    this.gzip?.destroy();
    this.file.abort();
  }
}

/** Tree head notes and older checkpoint lines out of checkpoint texts, byte for byte; other lines stay out (the verifier would ignore them). */
export function evidenceRecords(texts: readonly string[]): { treeHeads: string[]; checkpointLines: string[] } {
  const treeHeads: string[] = [];
  const checkpointLines: string[] = [];
  for (const text of texts) {
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r$/, '');
      const head = line.indexOf(TREE_HEAD_TAG);
      if (head >= 0) {
        for (const r of readTreeHeadLines(line.slice(head))) if ('note' in r) treeHeads.push(r.note);
      } else if (line.includes(CHECKPOINT_TAG)) checkpointLines.push(line);
    }
  }
  return { treeHeads, checkpointLines };
}

/**
 * Writes the source's start, checkpoints and entries as a bundle at `out` (BundleWriter: `out`
 * is either absent or complete). Refuses an existing `out` unless `force`. Returns what it wrote.
 */
export async function writeBundle(src: AuditSource, out: string, o: { publicKey: string | null; publicKeys?: readonly Buffer[]; force: boolean; now?: Date; gzip?: boolean }): Promise<BundleCounts & { bytes: number; sha256: string }> {
  const w = new BundleWriter(out, { force: o.force, ...(o.gzip ? { gzip: true } : {}) });
  try {
    const start = (await src.start?.()) ?? null;
    const { treeHeads, checkpointLines } = evidenceRecords((await src.checkpoints()).map((c) => c.text));
    if (start?.treeHead) treeHeads.unshift(start.treeHead);
    await w.preamble({ publicKey: o.publicKey, ...(o.publicKeys ? { publicKeys: o.publicKeys } : {}), start: start ? startRecord(start.start) : null, treeHeads, checkpointLines, ...(o.now ? { now: o.now } : {}) });
    for await (const r of src.entries()) await w.entry(r);
    return await w.finish();
  } finally {
    w.abort();
  }
}

export const startRecord = (s: LogStart): StartRecord => ({ type: 'start', seq: s.seq, hash: s.hash, frontier: [...s.frontier], log_id: s.logId });

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A bundle file as a source. Every record is checked as it is read, and the checkpoints are read
 * in a pass over the whole file, so a malformed or incomplete bundle is refused before any entry
 * is verified; the entries are read in a second pass, never held.
 */
export function bundleSource(path: string): AuditSource {
  return {
    name: `bundle ${path}`,
    checkpoints: async () => {
      const lines: string[] = [];
      let bytes = 0;
      for await (const r of records(path)) {
        const line = r.type === 'checkpoint' ? r.line : r.type === 'tree_head' ? treeHeadLine(r.note) : null;
        if (line === null) continue;
        bytes += line.length + 1;
        if (bytes > MAX_CHECKPOINT_BYTES) throw new AirlockError('validation', 'too_many_checkpoints', `${path} holds more than ${MAX_CHECKPOINT_BYTES} bytes of checkpoints`);
        lines.push(line);
      }
      return [{ from: `the checkpoints of bundle ${path}`, text: lines.join('\n') }];
    },
    entries: () => entriesOf(path),
    segment: async () => {
      for await (const r of records(path)) return r.type === 'segment' ? { log_id: r.log_id, first_seq: r.first_seq, last_seq: r.last_seq, sig: r.sig } : null;
      return null;
    },
    start: async () => {
      for await (const r of records(path)) {
        if (r.type === 'entry') break;
        // The head of the start's size is among the bundle's own tree heads (its checkpoints).
        if (r.type === 'start') return { start: { seq: r.seq, hash: r.hash, frontier: r.frontier, logId: r.log_id }, treeHead: null };
      }
      return null;
    },
  };
}

async function* entriesOf(path: string): AsyncGenerator<LogRow> {
  for await (const r of records(path)) if (r.type === 'entry') yield { seq: r.seq, body: r.body, sig: r.sig };
}

type BundleRecord = ({ type: 'segment' } & SegmentRange) | { type: 'checkpoint'; line: string } | { type: 'tree_head'; note: string } | { type: 'public_key'; key: string } | StartRecord | { type: 'entry'; seq: number; body: string; sig: string };

const bad = (path: string, line: number, why: string) =>
  new AirlockError('validation', 'bad_bundle', `${path} line ${line}: ${why}`, 'export the log again with `airlock audit export --out FILE`');

/** The checkpoint and entry records of a bundle, after its header and up to its end record, which must be there and count them. */
async function* records(path: string): AsyncGenerator<BundleRecord> {
  let n = 0;
  const counts = { checkpoints: 0, tree_heads: 0, public_keys: 0, entries: 0 };
  let version: unknown = null;
  let ended = false;
  let sawStart = false;
  for await (const text of lines(path)) {
    n++;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw bad(path, n, 'not JSON');
    }
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw bad(path, n, 'not a JSON object');
    if (n === 1) {
      if (r.type !== BUNDLE_TYPE) throw bad(path, n, `not an audit bundle (its first line is not a ${BUNDLE_TYPE} header)`);
      version = r.version;
      if (!READABLE_VERSIONS.includes(r.version)) throw new AirlockError('validation', 'bad_bundle', `${path} is a bundle of version ${JSON.stringify(r.version)}; this airlock reads versions ${READABLE_VERSIONS[0]} to ${READABLE_VERSIONS.at(-1)}`, 'verify it with the airlock version that exported it, or a newer one');
      if (r.segment !== undefined) {
        const g = r.segment as { first_seq?: unknown; last_seq?: unknown; log_id?: unknown; sig?: unknown } | null;
        const ok = g !== null && typeof g === 'object' && Number.isSafeInteger(g.first_seq) && Number.isSafeInteger(g.last_seq) && (g.first_seq as number) >= 1 && (g.last_seq as number) >= (g.first_seq as number) && typeof g.log_id === 'string' && /^[0-9a-f]{16}$/.test(g.log_id) && typeof g.sig === 'string';
        if (!ok || version === 1 || version === 2) throw bad(path, n, "the header's segment names no range of entries of a log, with its signature");
        yield { type: 'segment', log_id: g.log_id as string, first_seq: g.first_seq as number, last_seq: g.last_seq as number, sig: g.sig as string };
      }
      continue;
    }
    if (ended) throw bad(path, n, 'a record after the end record');
    if (r.type === 'checkpoint') {
      if (typeof r.line !== 'string') throw bad(path, n, 'a checkpoint record without its line');
      counts.checkpoints++;
      yield { type: 'checkpoint', line: r.line };
    } else if (r.type === 'tree_head' && version !== 1) {
      if (typeof r.note !== 'string') throw bad(path, n, 'a tree head record without its note');
      counts.tree_heads++;
      yield { type: 'tree_head', note: r.note };
    } else if (r.type === 'public_key' && version !== 1) {
      // For people (which keys the exporter saw): the verifier uses the auditor's own key file.
      if (typeof r.key !== 'string') throw bad(path, n, 'a public key record without its key');
      counts.public_keys++;
      yield { type: 'public_key', key: r.key };
    } else if (r.type === 'start' && version !== 1 && version !== 2) {
      const hex = (v: unknown, n: number) => typeof v === 'string' && v.length === n && /^[0-9a-f]+$/.test(v);
      if (sawStart || counts.entries > 0) throw bad(path, n, 'a start record after the entries, or a second one');
      if (!Number.isSafeInteger(r.seq) || (r.seq as number) < 1 || !hex(r.hash, 64) || !Array.isArray(r.frontier) || r.frontier.length > 64 || !r.frontier.every((h) => hex(h, 64)) || !hex(r.log_id, 16)) {
        throw bad(path, n, 'a start record needs seq (>= 1), hash, frontier (hex hashes) and log_id');
      }
      sawStart = true;
      yield { type: 'start', seq: r.seq as number, hash: r.hash as string, frontier: r.frontier as string[], log_id: r.log_id as string };
    } else if (r.type === 'entry') {
      // Only the types here; verifyLog checks everything the values say.
      if (typeof r.seq !== 'number' || typeof r.body !== 'string' || typeof r.sig !== 'string') throw bad(path, n, 'an entry record needs seq (a number), body and sig (strings)');
      counts.entries++;
      yield { type: 'entry', seq: r.seq, body: r.body, sig: r.sig };
    } else if (r.type === 'end') {
      const v1 = version === 1;
      if (r.checkpoints !== counts.checkpoints || r.entries !== counts.entries || (!v1 && (r.tree_heads !== counts.tree_heads || r.public_keys !== counts.public_keys))) {
        const said = v1 ? `${JSON.stringify(r.checkpoints)} checkpoints and ${JSON.stringify(r.entries)} entries` : `${JSON.stringify(r.checkpoints)} checkpoints, ${JSON.stringify(r.tree_heads)} tree heads, ${JSON.stringify(r.public_keys)} public keys and ${JSON.stringify(r.entries)} entries`;
        const holds = v1 ? `${counts.checkpoints} and ${counts.entries}` : `${counts.checkpoints}, ${counts.tree_heads}, ${counts.public_keys} and ${counts.entries}`;
        throw bad(path, n, `the end record counts ${said}, the bundle holds ${holds}: records were added or removed`);
      }
      ended = true;
    } else throw bad(path, n, `a record of type ${JSON.stringify(r.type)}, which this version does not know`);
  }
  if (n === 0) throw bad(path, 1, 'the file is empty');
  if (!ended) throw bad(path, n, 'the bundle ends before its end record: the file is incomplete (cut short while copying?)');
}

/** The lines of a file, each at most MAX_BUNDLE_LINE bytes, read as a stream. */
async function* lines(path: string): AsyncGenerator<string> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES') throw new AirlockError('authorization', 'permission_denied', `permission denied: ${path}`, 'give a readable copy of the bundle');
    throw new AirlockError('validation', 'bad_bundle', `cannot read the bundle ${path}: ${code ?? (e as Error).message}`);
  }
  // A gzip file (the archive's segments) begins with 1f 8b: read it through gunzip.
  const magic = Buffer.alloc(2);
  const gzipped = readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  const file = createReadStream('', { fd, start: 0 });
  const stream = gzipped ? file.pipe(createGunzip()) : file;
  if (gzipped) file.once('error', (e) => stream.destroy(e));
  let rest = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    rest = Buffer.concat([rest, chunk]);
    let at: number;
    while ((at = rest.indexOf(0x0a)) >= 0) {
      yield rest.subarray(0, at).toString('utf8');
      rest = rest.subarray(at + 1);
    }
    if (rest.length > MAX_BUNDLE_LINE) {
      stream.destroy();
      file.destroy();
      throw new AirlockError('validation', 'bad_bundle', `${path} holds a line longer than ${MAX_BUNDLE_LINE} bytes: not a record of a bundle`);
    }
  }
  if (rest.length > 0) yield rest.toString('utf8');
}
