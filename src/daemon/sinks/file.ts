/**
 * The local append-only file: one line per head (the legacy checkpoint line first,
 * while `audit verify` reads those). Opened O_APPEND so a write never lands anywhere but
 * the end, created 0644 (signed and public: auditors need no root), with chattr +a
 * attempted so not even root's ordinary writes can rewrite it. Always on: it is the copy
 * an auditor on the host finds first, and the one the others are compared with.
 */
import { chmodSync, closeSync, constants, existsSync, openSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { checkpointLineSize } from '../../audit/checkpoint-size.js';
import { atomicWrite } from '../safe-fs.js';
import type { Sink, TreeHead } from './sink.js';

/** chattr, by path, with no environment: sets or clears the append-only attribute (false: the file system refused). */
const chattr = (flag: '+a' | '-a', path: string) => new Promise<boolean>((resolve) => execFile('/usr/bin/chattr', [flag, '--', path], { timeout: 5_000, env: {} }, (err) => resolve(!err)));

export class FileSink implements Sink {
  readonly name = 'file';
  private closed = false;
  /** The size the last trim kept heads after (trimThrough). */
  private trimmedThrough = 0;
  /** Appends and trims run one at a time, in the order asked. */
  private serial: Promise<unknown> = Promise.resolve();
  /** Whether chattr +a took (false on filesystems that refuse the attribute). */
  readonly appendOnly: Promise<boolean>;

  constructor(readonly path: string) {
    if (!existsSync(path)) {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644));
      chmodSync(path, 0o644); // whatever the umask (an existing file may be append-only: left as it is)
    }
    // Best effort: overlayfs, tmpfs and some container filesystems refuse the attribute.
    this.appendOnly = chattr('+a', path);
  }

  private inTurn<T>(op: () => Promise<T>): Promise<T> {
    const run = this.serial.then(op, op);
    this.serial = run.catch(() => undefined);
    return run;
  }

  /** The file's text as it stands (between appends). */
  read(): Promise<string> {
    return this.inTurn(() => readFile(this.path, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW }));
  }

  /**
   * After a segment of the log ending at `upTo` was archived with the lines of its sizes: the
   * file keeps `first` (the head of size upTo, where the live log now starts) and every line of a
   * size past upTo, or of no size it can read; the rest went into the archive. Rewritten whole
   * (a temporary file, synced, renamed over it), the append-only attribute lifted meanwhile and
   * put back: so the file holds what the live log needs instead of growing with the log forever.
   */
  trimThrough(upTo: number, first: readonly string[]): Promise<{ kept: number; dropped: number }> {
    return this.inTurn(async () => {
      if (first.some((l) => /[\r\n]/.test(l))) throw new RangeError('a checkpoint line holds no line break');
      const lines = (await readFile(this.path, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW })).split('\n').filter((l) => l !== '');
      const kept = lines.filter((l) => {
        const size = checkpointLineSize(l);
        return size === null || size > upTo;
      });
      // The catalogue's atomic write (temporary file, synced, renamed, directory synced, no link
      // followed); an append-only file cannot be replaced, so the attribute is lifted around it.
      const wasAppendOnly = await this.appendOnly;
      if (wasAppendOnly) await chattr('-a', this.path);
      try {
        await atomicWrite(this.path, [...first, ...kept].map((l) => `${l}\n`).join(''), { mode: 0o644, force: true });
      } finally {
        if (wasAppendOnly) await chattr('+a', this.path);
      }
      this.trimmedThrough = Math.max(this.trimmedThrough, upTo);
      return { kept: first.length + kept.length, dropped: lines.length - kept.length };
    });
  }

  async publish(head: TreeHead): Promise<void> {
    // A head its lane still held when an archival trimmed the file is of an archived size: the
    // file keeps only the base's head and later ones, so it is not appended after the trim.
    await this.inTurn(() => (head.size <= this.trimmedThrough ? Promise.resolve() : this.appendNow(head.legacy ? [head.legacy, head.line] : [head.line])));
  }

  /** Appends whole lines in one write (a cosigned head, from the witness sink, comes this way too). */
  append(lines: readonly string[]): Promise<void> {
    return this.inTurn(() => this.appendNow(lines));
  }

  private async appendNow(lines: readonly string[]): Promise<void> {
    if (this.closed) throw new Error('the file sink is closed');
    if (lines.some((l) => /[\r\n]/.test(l))) throw new RangeError('a checkpoint line holds no line break');
    const text = lines.map((l) => `${l}\n`).join('');
    // O_NOFOLLOW: a symbolic link put in the file's place is refused, not written through.
    const fd = await open(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      await fd.write(text);
      // One head per interval at most: cheap enough to make each durable before it counts as written.
      await fd.datasync();
    } finally {
      await fd.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
