/**
 * Writes signed checkpoints of the log head to the independent sinks: an
 * append-only file (chattr +a attempted at creation) and syslog through
 * /usr/bin/logger. Appends are coalesced: at most one checkpoint per interval.
 * Both sinks get the same line: it is verified over its stored bytes, so the
 * syslog copy of a checkpoint is as good as the file's.
 */
import { appendFileSync, chmodSync, existsSync, openSync, closeSync, constants } from 'node:fs';
import { execFile } from 'node:child_process';
import { formatCheckpointLine, signCheckpoint } from '../audit/checkpoint.js';
import type { SigningKey } from '../audit/keys.js';
import type { LogHead } from '../store/store.js';

export class CheckpointWriter {
  private timer: NodeJS.Timeout | null = null;
  private latest: LogHead | null = null;
  private written = 0;

  constructor(
    /** The audit key at the moment of writing: a rotation replaces it (sealer.ts). */
    private readonly key: () => SigningKey,
    /** The log's name in every checkpoint (checkpointOrigin). */
    private readonly origin: string,
    private readonly file: string,
    private readonly intervalMs: number,
    private readonly syslog: boolean,
    private readonly onError: (msg: string) => void,
  ) {
    if (!existsSync(file)) {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644));
      chmodSync(file, 0o644); // signed and public: auditors need no root (an existing file may be append-only: left as it is)
    }
    // Best effort: overlayfs, tmpfs and some container filesystems refuse the attribute.
    execFile('/usr/bin/chattr', ['+a', '--', file], () => {});
  }

  /** Called after every append; schedules one checkpoint for the burst. */
  note(head: LogHead): void {
    this.latest = head;
    if (this.intervalMs <= 0) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const head = this.latest;
    if (!head || head.size === this.written) return;
    const line = formatCheckpointLine(signCheckpoint(this.key(), this.origin, head.size, head.hash));
    try {
      appendFileSync(this.file, line + '\n', { flag: 'a' });
    } catch (e) {
      // The log itself is intact; a missed checkpoint only widens the window a cut tail goes unseen.
      this.onError(`cannot write checkpoint to ${this.file}: ${(e as Error).message}`);
      return;
    }
    this.written = head.size;
    if (this.syslog) execFile('/usr/bin/logger', ['-t', 'airlock', '-p', 'auth.notice', '--', line], () => {});
  }
}
