/**
 * Free space in the daemon's state directory, seen before it bites: measured with statfs
 * (at most once a second, so a flood of previews costs no syscall storm), judged by
 * disk-pressure.ts against the policy in force, and acted on here:
 *
 * - new previews are refused with `transient/disk_low` while free space is under min_free;
 * - a reserve file (`STATE/reserve`, reserve_mb of real zeroed blocks, fsync'd: not sparse)
 *   holds space for approved executes and the log's own writes. It is released (deleted) when
 *   the disk is essentially full, or when a write fails for want of space, and written again
 *   once min_free and the reserve both fit;
 * - each change of state is reported once (`onTransition`: stderr, the notifier, a signed
 *   `storage_pressure` entry), never once per refused preview.
 *
 * A write that fails for want of space (SQLite's SQLITE_FULL, ENOSPC) is `transient/disk_full`
 * for the request that made it: SQLite rolled the transaction back, so nothing half-written
 * stays, and the daemon goes on.
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, statfsSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import type { StorageSpace } from '../protocol/messages.js';
import { fullFloor, judgePressure, type PressureState, type SpaceThresholds } from './disk-pressure.js';

/** A sample is reused this long: one statfs a second, however many previews arrive. */
export const SAMPLE_REUSE_MS = 1_000;
/** The reserve file, in the state directory. */
export const RESERVE_FILE = 'reserve';
/** The reserve is written this many bytes at a time (bounded memory: one zeroed buffer). */
const WRITE_CHUNK = 1024 * 1024;
/** After the reserve could not be written, it is tried again no sooner than this. */
const RECREATE_BACKOFF_MS = 60_000;
const MB = 1024 * 1024;

export interface DiskSpaceOptions {
  /** The state directory (the store's). */
  dir: string;
  /** The thresholds of the policy in force (a reload changes them). */
  thresholds: () => SpaceThresholds;
  /** A change of state, once: the daemon logs it, notifies and records it. */
  onTransition: (space: StorageSpace) => void;
  log: (m: string) => void;
  now?: () => number;
}

/** Whether an error is a write refused for want of space. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

export class DiskSpace {
  private readonly now: () => number;
  private readonly reservePath: string;
  private state: PressureState = 'ok';
  private reserveHeld = false;
  private last: { at: number; space: StorageSpace } | null = null;
  private writing: Promise<void> | null = null;
  private nextWriteAt = 0;

  constructor(private readonly o: DiskSpaceOptions) {
    this.now = o.now ?? Date.now;
    this.reservePath = join(o.dir, RESERVE_FILE);
    this.reserveHeld = this.adoptReserve();
  }

  /** The state now: statfs at most once per SAMPLE_REUSE_MS unless `fresh`; acts on what it finds. */
  sample(fresh = false): StorageSpace {
    const t = this.now();
    if (!fresh && this.last && t - this.last.at < SAMPLE_REUSE_MS) return this.last.space;
    const thresholds = this.o.thresholds();
    if (this.reserveHeld && this.reserveSize() !== thresholds.reserveBytes) this.release('the policy changed reserve_mb'); // written again at the new size
    let free = this.freeBytes();
    const d = judgePressure({ ...thresholds, freeBytes: free, state: this.state, reserveHeld: this.reserveHeld });
    if (d.release) {
      this.release(`free space fell under ${mb(fullFloor(thresholds))} MB`);
      free = this.freeBytes();
    }
    if (d.recreate) this.writeReserve(thresholds.reserveBytes);
    const space: StorageSpace = {
      state: d.state,
      state_dir: this.o.dir,
      free_bytes: free,
      min_free_bytes: thresholds.minFreeBytes,
      reserve_bytes: thresholds.reserveBytes,
      reserve_held: this.reserveHeld,
    };
    this.last = { at: t, space };
    if (d.state !== this.state) {
      this.state = d.state;
      this.o.onTransition(space);
    }
    return space;
  }

  /** Before new work (a preview): refused under min_free, with what to do next. */
  refuseNewWork(): void {
    const s = this.sample();
    if (s.state === 'ok') return;
    throw new AirlockError(
      'transient',
      'disk_low',
      `the daemon's state directory ${s.state_dir} has ${mb(s.free_bytes)} MB free, under the ${mb(s.min_free_bytes)} MB the policy keeps free: no new previews until there is more; approved executes still run`,
      `free space in ${s.state_dir} (or lower min_free_mb in the policy's [store] section, then \`sudo airlock policy reload\`)`,
    );
  }

  /** Before an approved execute writes: a fresh look, so a full disk releases the reserve before the write, not after. */
  ensureMargin(): void {
    this.sample(true);
  }

  /**
   * A write failed. For want of space: the reserve is released (when held) and the typed error
   * for the request is returned, with `retry` true when the release made room to try once more.
   * Anything else: null.
   */
  writeFailed(e: unknown): { error: AirlockError; retry: boolean } | null {
    if (!isDiskFull(e)) return null;
    const retry = this.reserveHeld;
    if (retry) this.release('a write failed for want of space');
    const s = this.sample(true);
    return {
      retry,
      error: new AirlockError('transient', 'disk_full', `the daemon's state directory ${s.state_dir} is full: the store refused the write and kept nothing of it`, `free space in ${s.state_dir}; then try again`),
    };
  }

  /** Waits for a reserve file being written (tests, and the daemon's stop). */
  async settled(): Promise<void> {
    await this.writing;
  }

  private freeBytes(): number {
    try {
      const s = statfsSync(this.o.dir);
      return s.bavail * s.bsize;
    } catch (e) {
      // Unmeasurable counts as full: fail closed.
      this.o.log(`disk space: cannot measure ${this.o.dir}: ${(e as Error).message}`);
      return 0;
    }
  }

  private reserveSize(): number | null {
    try {
      const st = lstatSync(this.reservePath);
      // Only a regular file whose blocks are all there holds space; a sparse one holds none.
      return st.isFile() && st.blocks * 512 >= st.size ? st.size : null;
    } catch {
      return null;
    }
  }

  /** At start: a reserve a previous run left counts if it is whole; a half-written one is removed. */
  private adoptReserve(): boolean {
    this.unlinkQuietly(this.reservePath + '.tmp');
    const size = this.reserveSize();
    if (size === this.o.thresholds().reserveBytes) return true;
    this.unlinkQuietly(this.reservePath);
    return false;
  }

  private release(why: string): void {
    this.unlinkQuietly(this.reservePath);
    if (this.reserveHeld) this.o.log(`disk space: released the ${mb(this.o.thresholds().reserveBytes)} MB reserve in ${this.o.dir} (${why}) for approved executes and the log`);
    this.reserveHeld = false;
  }

  private unlinkQuietly(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // absent already
    }
  }

  /**
   * Writes the reserve in the background: random bytes (zeros take no blocks on a file system
   * that compresses, ZFS or btrfs, and would reserve nothing), fsync'd, then renamed into place.
   * One at a time.
   */
  private writeReserve(bytes: number): void {
    if (this.writing || this.now() < this.nextWriteAt) return;
    const tmp = this.reservePath + '.tmp';
    this.writing = (async () => {
      const chunk = Buffer.alloc(Math.min(WRITE_CHUNK, bytes));
      this.unlinkQuietly(tmp);
      const f = await open(tmp, 'wx', 0o600); // a new file: never through a link someone left
      try {
        for (let done = 0; done < bytes; ) {
          randomFillSync(chunk); // a fresh chunk each time: no record repeats for deduplication to fold
          const { bytesWritten } = await f.write(chunk, 0, Math.min(chunk.length, bytes - done));
          done += bytesWritten;
        }
        await f.sync();
      } finally {
        await f.close();
      }
      renameSync(tmp, this.reservePath);
      const dir = openSync(this.o.dir, 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      this.reserveHeld = true;
      this.o.log(`disk space: ${mb(bytes)} MB reserved in ${this.reservePath} for approved executes and the log`);
    })()
      .catch((e: Error) => {
        this.unlinkQuietly(tmp);
        this.nextWriteAt = this.now() + RECREATE_BACKOFF_MS;
        this.o.log(`disk space: could not write the reserve ${this.reservePath}: ${e.message}`);
      })
      .finally(() => {
        this.writing = null;
        this.last = null; // the next sample measures again
      });
  }
}

const mb = (bytes: number) => Math.floor(bytes / MB);
