/**
 * Moves the oldest segment of the signed log out of the live store, so that the store stays
 * bounded while every entry stays verifiable. A segment is written as a verifiable bundle
 * (src/audit/bundle.ts, gzip) to the archive directory FIRST, synced and renamed into place;
 * only then does one store transaction remove its rows (and the Merkle nodes no later proof
 * needs) and append the signed `archived` entry that names the file, its SHA-256 and the tree
 * at the segment's end. Nothing disappears without that entry, and a crash between the two
 * steps leaves the rows in the store and a file that the next attempt replaces.
 *
 * When ([store] in the policy, src/policy/store-settings.ts):
 *   - the live log holds two segments or more: the oldest one goes (so at least one segment's
 *     worth of recent entries stays live, for history and proofs of recent transactions);
 *   - or its first live entry is older than archive_after: up to a segment of what is there.
 * One segment per call; a backlog drains over the following sweeps.
 *
 * Each segment stands alone: its range, signed by the audit key (segment-range.ts), a start
 * record (where the previous segment ended: the chain hash and Merkle frontier there), the signed
 * tree head of that size, the head of its own end and any witness-cosigned heads between, the
 * log's public keys and its entries byte for byte. `airlock audit verify --bundle SEGMENT`
 * checks one; `--archive DIR` walks them all and the live log as one log.
 */
import { chmodSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BundleWriter, evidenceRecords, startRecord } from '../audit/bundle.js';
import { checkpointLineSize } from '../audit/checkpoint-size.js';
import { parseNote, treeHeadLine } from '../audit/note.js';
import { DAEMON_ACT, entryDraft } from '../audit/entry.js';
import { formatPublicKey } from '../audit/keys.js';
import { startOfBase } from '../audit/log-base.js';
import { rootAt } from '../audit/merkle.js';
import { AirlockError } from '../protocol/errors.js';
import { STATE_DIR_MODE } from '../protocol/defaults.js';
import type { StoreSettings } from '../policy/store-settings.js';
import type { SegmentRange } from '../audit/segment-range.js';
import type { Store } from '../store/store.js';

/** Rows read from the store per page while a segment is written: bounds the memory of an archival. */
const PAGE = 1000;
/** Witness-cosigned heads a segment carries at most (the latest of its sizes): its evidence stays small. */
const MAX_COSIGNED_HEADS = 1000;

/** Whether a note carries a signature besides the log's own (a witness cosigned it). */
function isCosigned(note: string): boolean {
  const n = parseNote(note);
  return typeof n !== 'string' && n.signatures.length > 1;
}

export interface ArchivedSegment {
  first: number;
  last: number;
  file: string;
  bytes: number;
  sha256: string;
}

export interface ArchiverOptions {
  store: Store;
  /** The archive directory (the policy's archive_dir, or `archive` beside the store). */
  dir: () => string;
  /**
   * Refuses a directory that someone other than root could swap for a link before the daemon
   * (root) creates, chmods and writes into it: a policy's archive_dir under a user's directory
   * would otherwise let that user point the chmod and the segments at /etc. Called before each
   * archival (the file system changes between sweeps).
   */
  trustDir: (dir: string) => Promise<void>;
  settings: () => StoreSettings;
  /** Signs a tree head of the log with the current audit key: the note. */
  sign: (size: number, root: Buffer, at: Date) => string;
  /** Signs the segment's range with the current audit key (segment-range.ts). */
  signRange: (first: number, last: number) => SegmentRange;
  /** The log's public keys, oldest first (the key history), and the current one. */
  publicKeys: () => { all: Buffer[]; current: Buffer };
  logId: string;
  log: (msg: string) => void;
  now?: () => number;
  /**
   * The host's checkpoint file (sinks/file.ts): its lines about the segment go into it (with any
   * witness cosignatures), and afterwards the file keeps only the head of the new base and later
   * lines, so it stays bounded with the store.
   */
  checkpoints?: { read(): Promise<string>; trimThrough(upTo: number, first: readonly string[]): Promise<{ kept: number; dropped: number }> };
}

/** A segment's file name: the log and its entry range, zero-padded so that names sort in log order. */
export const segmentName = (logId: string, first: number, last: number) => `${logId}-${String(first).padStart(12, '0')}-${String(last).padStart(12, '0')}.jsonl.gz`;
export const SEGMENT_NAME = /^([0-9a-f]{16})-([0-9]{12})-([0-9]{12})\.jsonl\.gz$/;

export class Archiver {
  private running: Promise<ArchivedSegment | null> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: ArchiverOptions) {
    this.now = o.now ?? Date.now;
  }

  /** The end of the segment due for archival now, or null when none is. */
  async due(): Promise<number | null> {
    const s = this.o.settings();
    const base = this.o.store.logBase().seq;
    const size = this.o.store.logHead().size;
    const live = size - base;
    if (live >= 2 * s.archiveSegmentEntries) return base + s.archiveSegmentEntries;
    // The newest entry stays: an archival always leaves the live log an entry to start after the base.
    if (live < 2) return null;
    const [first] = await this.o.store.logRows(base, 1);
    const ts = first ? Date.parse((JSON.parse(first.body) as { ts?: string }).ts ?? '') : NaN;
    if (!Number.isFinite(ts) || ts > this.now() - s.archiveAfterMs) return null;
    return Math.min(base + s.archiveSegmentEntries, size - 1);
  }

  /** Archives the segment due, if any (one at a time: a call while one runs waits for it). */
  archiveDue(): Promise<ArchivedSegment | null> {
    return (this.running ??= this.run().finally(() => (this.running = null)));
  }

  private async run(): Promise<ArchivedSegment | null> {
    const upTo = await this.due();
    if (upTo === null) return null;
    const { store } = this.o;
    const base = store.logBase();
    const first = base.seq + 1;
    const at = new Date(this.now());
    const root = await rootAt(upTo, store.merkleNodes);
    const head = this.o.sign(upTo, root, at);
    const dir = this.o.dir();
    await this.o.trustDir(dir);
    mkdirSync(dir, { recursive: true, mode: STATE_DIR_MODE });
    chmodSync(dir, STATE_DIR_MODE);
    this.removeLeftovers(dir, first);
    const file = join(dir, segmentName(this.o.logId, first, upTo));
    // Replaced if there: a file without its `archived` entry is what a crash between the two steps leaves.
    const w = new BundleWriter(file, { force: true, gzip: true });
    let written;
    try {
      const keys = this.o.publicKeys();
      const start = startOfBase(base);
      // Of the host's heads of the segment's sizes, the cosigned ones go with it: a witness's word is
      // evidence no later head replaces. The host's own heads add nothing its end head does not say
      // (a head of size N commits to every entry before N), and would make the archive's evidence,
      // read whole by `--archive`, grow with every head ever signed.
      const about = (size: number | null) => size !== null && size > base.seq && size <= upTo;
      const own = this.o.checkpoints ? evidenceRecords([await this.o.checkpoints.read()]).treeHeads : [];
      const cosigned = own.filter((n) => about(checkpointLineSize(treeHeadLine(n))) && isCosigned(n));
      const treeHeads = [...(start ? [start.treeHead] : []), ...cosigned.slice(-MAX_COSIGNED_HEADS), head];
      await w.preamble({ publicKey: formatPublicKey(keys.current).trim(), publicKeys: keys.all, start: start ? startRecord(start.start) : null, treeHeads, now: at, segment: this.o.signRange(first, upTo) });
      for (let after = base.seq; after < upTo; ) {
        const rows = await store.logRows(after, Math.min(PAGE, upTo - after));
        if (rows.length === 0 || rows[0]!.seq !== after + 1) throw new AirlockError('integrity', 'archive_gap', `the live log has no entry ${after + 1} to archive`);
        for (const r of rows) await w.entry(r);
        after = rows.at(-1)!.seq;
      }
      if (w.counts.entries !== upTo - base.seq) throw new AirlockError('integrity', 'archive_gap', `read ${w.counts.entries} entries for the segment ${first}-${upTo}`);
      written = await w.finish();
    } finally {
      w.abort();
    }
    const entry = entryDraft('archived', DAEMON_ACT, { first_seq: first, last_seq: upTo, entries: upTo - base.seq, file: basename(file), bytes: written.bytes, sha256: written.sha256, root: root.toString('hex') });
    await store.archiveSegment(upTo, head, entry);
    this.o.log(`archived entries ${first} to ${upTo} of the log to ${file} (${written.bytes} bytes)`);
    // The segment's lines are in its file now; the checkpoint file starts again from the new base.
    await this.o.checkpoints?.trimThrough(upTo, [treeHeadLine(head)]).catch((e: Error) => this.o.log(`the checkpoint file was not trimmed after archiving through ${upTo} (it keeps growing until the next archival): ${e.message}`));
    return { first, last: upTo, file, bytes: written.bytes, sha256: written.sha256 };
  }

  /**
   * A segment of this log that starts at the live log's first entry was never archived: no
   * `archived` entry names it (a crash, or a failed store transaction, came between its file and
   * its entry). The next attempt may cover another range (an age-triggered one takes what is
   * there, or the policy's segment size changed), and a leftover beside it would overlap it in
   * the archive, which `audit verify --archive` refuses; so they go before the new one is written.
   */
  private removeLeftovers(dir: string, first: number): void {
    for (const name of readdirSync(dir)) {
      const m = SEGMENT_NAME.exec(name);
      if (!m || m[1] !== this.o.logId || Number(m[2]) !== first) continue;
      unlinkSync(join(dir, name));
      this.o.log(`removed ${join(dir, name)}: a segment file an earlier archival left without its archived entry`);
    }
  }
}
