/**
 * The local append-only file: one line per head (the legacy checkpoint line first,
 * while `audit verify` reads those). Opened O_APPEND so a write never lands anywhere but
 * the end, created 0644 (signed and public: auditors need no root), with chattr +a
 * attempted so not even root's ordinary writes can rewrite it. Always on: it is the copy
 * an auditor on the host finds first, and the one the others are compared with.
 */
import { chmodSync, closeSync, constants, existsSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import type { Sink, TreeHead } from './sink.js';

export class FileSink implements Sink {
  readonly name = 'file';
  private closed = false;
  /** Whether chattr +a took (false on filesystems that refuse the attribute). */
  readonly appendOnly: Promise<boolean>;

  constructor(readonly path: string) {
    if (!existsSync(path)) {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644));
      chmodSync(path, 0o644); // whatever the umask (an existing file may be append-only: left as it is)
    }
    // Best effort: overlayfs, tmpfs and some container filesystems refuse the attribute.
    this.appendOnly = new Promise((resolve) => execFile('/usr/bin/chattr', ['+a', '--', path], { timeout: 5_000, env: {} }, (err) => resolve(!err)));
  }

  async publish(head: TreeHead): Promise<void> {
    await this.append(head.legacy ? [head.legacy, head.line] : [head.line]);
  }

  /** Appends whole lines in one write (a cosigned head, from the witness sink, comes this way too). */
  async append(lines: readonly string[]): Promise<void> {
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
