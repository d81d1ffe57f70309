/**
 * The files of one rotating key (audit or approval) in the state directory:
 *
 *   <seed>          the current 32-byte seed (0600), what loadSeedFile reads
 *   <seed>.new      a successor being rotated in: written first (0600, O_EXCL), renamed over
 *                   <seed> only once the rotation entry is committed
 *   <history>       every public key this key ever had, oldest first, one
 *                   "ed25519:<hex>  <key id>  from seq N" line each (0644: public)
 *
 * The order makes every crash recoverable: before the entry commits, <seed> is still the key
 * the log expects and <seed>.new is a leftover; after it commits, the entry names the new key
 * and the start-up recovery (main.ts) finishes the rename. The old seed is overwritten before
 * it is unlinked: a rotation is often done because the key may have leaked, and a deleted file's
 * blocks otherwise keep it.
 */
import { chmodSync, closeSync, constants, existsSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { formatHistoryLine, loadSeedFile, signingKeyFromSeed, type SigningKey } from '../audit/keys.js';
import { AirlockError } from '../protocol/errors.js';

export interface KeyFilePaths {
  seed: string;
  history: string;
  /** The one-line public key file (the audit key's `audit.pub`); none for the approval key. */
  publicKey?: string;
}

export interface HistoryLine {
  raw: Buffer;
  keyId: string;
  fromSeq: number;
}

const HISTORY_LINE = /^ed25519:([0-9a-f]{64})\s+([0-9a-f]{16})\s+from seq (0|[1-9][0-9]{0,15})$/;

export class KeyFiles {
  private key: SigningKey;
  constructor(
    readonly paths: KeyFilePaths,
    create: boolean,
  ) {
    this.key = loadSeedFile(paths.seed, create);
  }

  get current(): SigningKey {
    return this.key;
  }

  get pendingPath(): string {
    return `${this.paths.seed}.new`;
  }

  /** Every key of the history file, oldest first ([] when there is none yet). A line the daemon did not write stops it. */
  history(): HistoryLine[] {
    if (!existsSync(this.paths.history)) return [];
    const out: HistoryLine[] = [];
    for (const line of readFileSync(this.paths.history, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const m = HISTORY_LINE.exec(line.trim());
      if (!m) throw new AirlockError('integrity', 'bad_key_history', `${this.paths.history} holds a line that is not "ed25519:<hex>  <key id>  from seq N": ${JSON.stringify(line.slice(0, 80))}`, 'restore the file from a backup, or rebuild it from the log\'s key_rotated entries');
      out.push({ raw: Buffer.from(m[1]!, 'hex'), keyId: m[2]!, fromSeq: Number(m[3]) });
    }
    return out;
  }

  /**
   * At start: a history file whose last key is the current one, written when absent. With no
   * history at all the current key is the first (from seq 1): an install from before rotation.
   */
  ensureHistory(): void {
    const h = this.history();
    if (h.length === 0) this.writeHistory([{ raw: this.key.publicRaw, keyId: this.key.keyId, fromSeq: 1 }]);
    else if (h.at(-1)!.keyId !== this.key.keyId) {
      throw new AirlockError('integrity', 'key_history_mismatch', `the current key in ${this.paths.seed} (key id ${this.key.keyId}) is not the last key of ${this.paths.history} (${h.at(-1)!.keyId})`, 'a key file was replaced by hand: restore it, or rotate keys only with `airlock keys rotate`');
    }
    this.writePublicKey();
  }

  /** Step 1: a new seed on disk under the pending name (refused while one is there: a rotation is running or was interrupted). */
  prepare(): SigningKey {
    let fd: number;
    try {
      fd = openSync(this.pendingPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new AirlockError('conflict', 'rotation_in_progress', `a key rotation is already under way (${this.pendingPath} exists)`, 'wait for it; after a crash, restart the daemon, which finishes or discards it');
      throw e;
    }
    const seed = randomBytes(32);
    try {
      writeSync(fd, seed);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return signingKeyFromSeed(seed);
  }

  /** The pending seed, if one is on disk (start-up recovery). */
  pending(): SigningKey | null {
    if (!existsSync(this.pendingPath)) return null;
    return loadSeedFile(this.pendingPath, false);
  }

  /** Step 1 undone: the rotation entry was not written. */
  discard(): void {
    try {
      unlinkSync(this.pendingPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /**
   * Step 2, once the entry naming `next` is committed at `seq`: the history gains it (from the next
   * entry on), the pending seed replaces the old one, the old one is overwritten and unlinked, and
   * the public key file names the new key. Idempotent, so start-up recovery may repeat it.
   */
  commit(next: SigningKey, seq: number): void {
    const h = this.history();
    if (!h.some((l) => l.keyId === next.keyId)) this.writeHistory([...h, { raw: next.publicRaw, keyId: next.keyId, fromSeq: seq + 1 }]);
    if (existsSync(this.pendingPath)) {
      const retired = `${this.paths.seed}.old`;
      try {
        unlinkSync(retired);
      } catch {
        // none left over
      }
      linkSync(this.paths.seed, retired); // the old seed keeps a name until it is overwritten
      renameSync(this.pendingPath, this.paths.seed);
      shred(retired);
    }
    this.key = next;
    this.writePublicKey();
  }

  private writeHistory(lines: HistoryLine[]): void {
    const tmp = `${this.paths.history}.tmp`;
    writeFileSync(tmp, lines.map((l) => formatHistoryLine(l.raw, l.fromSeq)).join(''), { mode: 0o644 });
    chmodSync(tmp, 0o644);
    renameSync(tmp, this.paths.history);
    // The history must outlive a crash as the rename does: fsync the directory.
    const dfd = openSync(dirname(this.paths.history), constants.O_RDONLY);
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  }

  private writePublicKey(): void {
    const p = this.paths.publicKey;
    if (!p) return;
    const text = `ed25519:${this.key.publicRaw.toString('hex')}\n`;
    if (!existsSync(p) || readFileSync(p, 'utf8') !== text) writeFileSync(p, text);
    chmodSync(p, 0o644); // public by design, whatever the umask
  }

  /** The history as text (what `audit.pubkey` serves with history). */
  historyText(): string {
    return readFileSync(this.paths.history, 'utf8');
  }
}

/** Overwrites a secret file with random bytes, syncs, and unlinks it. */
function shred(path: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW);
  try {
    writeSync(fd, randomBytes(32), 0, 32, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  unlinkSync(path);
}
