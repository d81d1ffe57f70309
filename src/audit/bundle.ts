/**
 * The audit bundle: one self-contained file of the signed log, written by `airlock audit export`
 * and checked by `airlock audit verify --bundle FILE --pubkey FILE` on any machine, with no
 * daemon and no database. JSON lines, one record per line, each with its `type`:
 *
 *   {"type":"airlock-audit-bundle","version":2,"exported_at":"...","public_key":"ed25519:..."|null}
 *   {"type":"public_key","key":"ed25519:...","key_id":"..."}                                  (the log's keys, oldest first)
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
 * Version 1 had no tree heads and no public key records; this reader reads both versions, and
 * refuses a version or a record type it does not know rather than verifying part of a bundle.
 */
import { closeSync, constants, createReadStream, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AirlockError } from '../protocol/errors.js';
import { CHECKPOINT_TAG } from './checkpoint.js';
import { formatPublicKey, keyIdOf } from './keys.js';
import { readTreeHeadLines, treeHeadLine } from './note.js';
import { MAX_CHECKPOINT_BYTES, type AuditSource } from './source.js';
import type { LogRow } from './verify.js';

export const BUNDLE_TYPE = 'airlock-audit-bundle';
export const BUNDLE_VERSION = 2;
const READABLE_VERSIONS: readonly unknown[] = [1, 2];
const TREE_HEAD_TAG = 'airlock-tree-head ';
/** The longest record line read (an entry is at most a frame, 1 MiB, as the daemon pages it). */
export const MAX_BUNDLE_LINE = 4 * 1024 * 1024;

export interface BundleHeader {
  type: typeof BUNDLE_TYPE;
  version: 1 | 2;
  exported_at: string;
  public_key: string | null;
}

/**
 * Writes the source's checkpoints and entries as a bundle at `out`: to a temporary file beside
 * it, synced, then renamed, so `out` is either absent or complete. Refuses an existing `out`
 * unless `force`. Returns what it wrote.
 */
export async function writeBundle(src: AuditSource, out: string, o: { publicKey: string | null; publicKeys?: readonly Buffer[]; force: boolean; now?: Date }): Promise<{ checkpoints: number; tree_heads: number; public_keys: number; entries: number }> {
  if (!o.force && exists(out)) throw new AirlockError('conflict', 'file_exists', `${out} exists`, 'choose another file, or add --force to replace it');
  const tmp = join(dirname(out), `.${basename(out)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  let done = false;
  try {
    const put = (record: object) => writeSync(fd, JSON.stringify(record) + '\n');
    put({ type: BUNDLE_TYPE, version: BUNDLE_VERSION, exported_at: (o.now ?? new Date()).toISOString(), public_key: o.publicKey } satisfies BundleHeader);
    let public_keys = 0;
    for (const k of o.publicKeys ?? []) {
      put({ type: 'public_key', key: formatPublicKey(k).trim(), key_id: keyIdOf(k) });
      public_keys++;
    }
    let checkpoints = 0;
    let tree_heads = 0;
    for (const { text } of await src.checkpoints()) {
      for (const raw of text.split('\n')) {
        const line = raw.replace(/\r$/, '');
        const head = line.indexOf(TREE_HEAD_TAG);
        if (head >= 0) {
          // Decoded back to the note, byte for byte; a line that is not one stays out (the verifier would ignore it).
          for (const r of readTreeHeadLines(line.slice(head))) {
            if (!('note' in r)) continue;
            put({ type: 'tree_head', note: r.note });
            tree_heads++;
          }
        } else if (line.includes(CHECKPOINT_TAG)) {
          put({ type: 'checkpoint', line });
          checkpoints++;
        }
      }
    }
    let entries = 0;
    for await (const r of src.entries()) {
      put({ type: 'entry', seq: r.seq, body: r.body, sig: r.sig });
      entries++;
    }
    put({ type: 'end', checkpoints, tree_heads, public_keys, entries });
    fsyncSync(fd);
    closeSync(fd);
    done = true;
    renameSync(tmp, out);
    return { checkpoints, tree_heads, public_keys, entries };
  } finally {
    if (!done) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // renamed: nothing left to remove
    }
  }
}

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
  };
}

async function* entriesOf(path: string): AsyncGenerator<LogRow> {
  for await (const r of records(path)) if (r.type === 'entry') yield { seq: r.seq, body: r.body, sig: r.sig };
}

type BundleRecord = { type: 'checkpoint'; line: string } | { type: 'tree_head'; note: string } | { type: 'public_key'; key: string } | { type: 'entry'; seq: number; body: string; sig: string };

const bad = (path: string, line: number, why: string) =>
  new AirlockError('validation', 'bad_bundle', `${path} line ${line}: ${why}`, 'export the log again with `airlock audit export --out FILE`');

/** The checkpoint and entry records of a bundle, after its header and up to its end record, which must be there and count them. */
async function* records(path: string): AsyncGenerator<BundleRecord> {
  let n = 0;
  const counts = { checkpoints: 0, tree_heads: 0, public_keys: 0, entries: 0 };
  let version: unknown = null;
  let ended = false;
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
      if (!READABLE_VERSIONS.includes(r.version)) throw new AirlockError('validation', 'bad_bundle', `${path} is a bundle of version ${JSON.stringify(r.version)}; this airlock reads versions ${READABLE_VERSIONS.join(' and ')}`, 'verify it with the airlock version that exported it, or a newer one');
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
  const stream = createReadStream('', { fd });
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
      throw new AirlockError('validation', 'bad_bundle', `${path} holds a line longer than ${MAX_BUNDLE_LINE} bytes: not a record of a bundle`);
    }
  }
  if (rest.length > 0) yield rest.toString('utf8');
}
