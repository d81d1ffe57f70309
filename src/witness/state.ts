/**
 * What the witness remembers: per log, the last checkpoint it cosigned (size, root, and the
 * note with the log's signature and its cosignature, for monitors). One JSON file, replaced
 * atomically (temp file, fsync, rename, fsync of the directory) BEFORE the 200 goes out, so
 * a crash or restart can never make the witness forget a head and cosign a fork of it.
 *
 * A state file that exists but does not parse is an error, not a fresh start: starting empty
 * would accept old size 0 for every log again, which is exactly a fork.
 */
import { closeSync, openSync, readFileSync, constants } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { writeFileSafely } from '../protocol/safe-write.js';
import { strictBase64, strictDecimal } from '../audit/note.js';

export interface LogState {
  size: number;
  root: Buffer;
  /** The cosigned note as the witness returned it (body, the log's line, the witness's line). */
  note: string;
}

interface StateFileV1 {
  version: 1;
  logs: Record<string, { size: number; root: string; note: string }>;
}

const MAX_STATE_BYTES = 256 * 1024 * 1024;

export class WitnessState {
  private readonly logs = new Map<string, LogState>();
  /** Writes of the one file go one after another; each writes everything committed so far. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(readonly path: string) {}

  /** Loads the state file; a missing one is an empty state (first start), a corrupt one throws. */
  static load(path: string): WitnessState {
    const s = new WitnessState(path);
    let text: string;
    try {
      const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return s;
      throw new AirlockError('integrity', 'witness_state_unreadable', `cannot read witness state ${path}: ${(e as Error).message}`, 'fix its permissions; do not delete it: a witness that forgets its heads can be shown a fork');
    }
    const corrupt = (why: string) =>
      new AirlockError('integrity', 'witness_state_corrupt', `witness state ${path} is corrupt: ${why}`, 'restore it from a backup; starting empty would let a log that rewrote its history be cosigned');
    if (text.length > MAX_STATE_BYTES) throw corrupt('too large');
    let doc: StateFileV1;
    try {
      doc = JSON.parse(text) as StateFileV1;
    } catch (e) {
      throw corrupt((e as Error).message);
    }
    if (doc?.version !== 1 || typeof doc.logs !== 'object' || doc.logs === null) throw corrupt('not a version 1 state');
    for (const [origin, l] of Object.entries(doc.logs)) {
      const root = typeof l?.root === 'string' ? strictBase64(l.root) : null;
      if (!Number.isSafeInteger(l?.size) || l.size < 0 || strictDecimal(String(l.size)) === null || !root || root.length !== 32 || typeof l.note !== 'string') throw corrupt(`the entry of ${origin}`);
      s.logs.set(origin, { size: l.size, root, note: l.note });
    }
    return s;
  }

  get(origin: string): LogState | undefined {
    return this.logs.get(origin);
  }

  get size(): number {
    return this.logs.size;
  }

  /**
   * Persists `origin`'s new head and only then makes it the one in memory. The caller holds
   * that log's lock, so nobody else changes this origin meanwhile; other logs' commits are
   * serialized here, each snapshot taken when its write starts (so it holds every earlier one).
   */
  commit(origin: string, next: LogState): Promise<void> {
    const run = this.writing.then(() => {
      const snapshot = new Map(this.logs).set(origin, next);
      writeAtomically(this.path, serialize(snapshot));
      this.logs.set(origin, next);
    });
    // A failed write fails its own request (500, no cosignature); the next write starts afresh.
    this.writing = run.catch(() => undefined);
    return run;
  }
}

function serialize(logs: Map<string, LogState>): string {
  const doc: StateFileV1 = { version: 1, logs: {} };
  for (const [origin, l] of [...logs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) doc.logs[origin] = { size: l.size, root: l.root.toString('base64'), note: l.note };
  return JSON.stringify(doc, null, 1) + '\n';
}

/** temp + fsync + rename + fsync(dir), through safe-write.ts: after it returns, the new content survives a power cut. */
function writeAtomically(path: string, text: string): void {
  writeFileSafely(path, text, { mode: 0o600 });
}
