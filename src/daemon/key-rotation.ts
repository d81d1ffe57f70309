/**
 * `keys.rotate`: replaces the audit or the approval key, with a `key_rotated` entry that both
 * keys sign (src/audit/rotation.ts), in this order:
 *
 *   1. the new seed is written under a pending name (key-files.ts);
 *   2. the entry is appended, sealed by the audit key current before it; for the audit key the
 *      sealer signs every later seq with the new key (sealer.ts);
 *   3. once it is committed, the new seed replaces the old (overwritten and unlinked), the key
 *      history gains the new key, and (approval key) new receipts are signed with it.
 *
 * Fail closed: when step 2 fails after the entry was sealed, or step 3 fails, the log and the
 * daemon's keys may disagree, so the daemon stops (`fatal`), and its next start finishes the
 * rotation from the pending seed or discards it, by what the log says (recoverRotation). One
 * rotation runs at a time.
 */
import { DAEMON_ACT, entryDraft, type EntryDraft, type LogEntry } from '../audit/entry.js';
import { rotationDetails, ROTATING_KEYS, type RotatingKey } from '../audit/rotation.js';
import { AirlockError, fail } from '../protocol/errors.js';
import type { KeyRotated } from '../protocol/messages.js';
import type { Store } from '../store/store.js';
import type { KeyFiles } from './key-files.js';
import type { AuditSealer } from './sealer.js';

export interface KeyRotatorOptions {
  store: Store;
  sealer: AuditSealer;
  files: Record<RotatingKey, KeyFiles>;
  logId: string;
  /** Stops the daemon: called when the log and the keys may disagree. */
  fatal: (why: string) => void;
}

export class KeyRotator {
  private busy = false;
  constructor(private readonly o: KeyRotatorOptions) {}

  async rotate(principal: EntryDraft['principal'], key: unknown): Promise<KeyRotated> {
    if (typeof key !== 'string' || !(ROTATING_KEYS as readonly string[]).includes(key)) fail('validation', 'bad_key_name', `key must be one of ${ROTATING_KEYS.join(', ')}`);
    const which = key as RotatingKey;
    if (this.busy) fail('conflict', 'rotation_in_progress', 'a key rotation is already under way', 'wait for it to finish');
    this.busy = true;
    try {
      return await this.rotateNow(principal, which);
    } finally {
      this.busy = false;
    }
  }

  private async rotateNow(principal: EntryDraft['principal'], key: RotatingKey): Promise<KeyRotated> {
    const files = this.o.files[key];
    const old = files.current;
    const next = files.prepare();
    const other = this.o.files[key === 'audit' ? 'approval' : 'audit'].current;
    if (next.keyId === other.keyId) {
      files.discard(); // 2^-64: but the two keys must differ (main.ts refuses to start otherwise)
      fail('integrity', 'same_keys', 'the new key would equal the other key; try again');
    }
    const details = rotationDetails(key, this.o.logId, old, next);
    const draft = entryDraft('key_rotated', { ...DAEMON_ACT, principal }, details);
    this.o.sealer.expect(key, next);
    try {
      await this.o.store.appendEntries([draft]);
    } catch (e) {
      if (this.o.sealer.rotationSeq === null) {
        this.o.sealer.abandon();
        files.discard();
        throw e;
      }
      this.o.sealer.poison(`the ${key} key rotation's append failed after it was sealed`);
      this.o.fatal(`the ${key} key rotation entry was sealed but its append failed (${(e as Error).message}): stopping, since the log and the keys may disagree; the next start finishes or discards the rotation by what the log holds`);
      throw new AirlockError('integrity', 'rotation_failed', `the ${key} key rotation could not be confirmed in the log; the daemon stops, and its next start settles it`, 'start the daemon again, then check with `airlock audit verify`');
    }
    const seq = this.o.sealer.rotationSeq!;
    this.o.sealer.settle();
    try {
      files.commit(next, seq);
    } catch (e) {
      this.o.fatal(`the ${key} key rotation is in the log (seq ${seq}) but its files could not be replaced (${(e as Error).message}): stopping; the next start finishes it`);
      throw new AirlockError('integrity', 'rotation_failed', `the ${key} key rotation is in the log but the key files could not be replaced; the daemon stops, and its next start finishes it`);
    }
    return { key, old_key_id: old.keyId, new_key_id: next.keyId, seq };
  }
}

/**
 * At start, for a key whose pending seed is on disk (a rotation was interrupted): finishes it
 * when the log holds the rotation entry naming that seed's key, else discards the seed.
 * Returns whether it finished one. Reads the log only in this rare case.
 */
export async function recoverRotation(store: Store, key: RotatingKey, files: KeyFiles, log: (m: string) => void): Promise<boolean> {
  const pending = files.pending();
  if (!pending) return false;
  const PAGE = 1000;
  for (let after = 0; ; ) {
    const rows = await store.logRows(after, PAGE);
    for (const row of rows) {
      const e = JSON.parse(row.body) as LogEntry;
      if (e.kind === 'key_rotated' && e.details.key === key && e.details.new_key_id === pending.keyId) {
        files.commit(pending, row.seq);
        log(`finished the ${key} key rotation of seq ${row.seq} that the last run left half done: key ${pending.keyId} is current`);
        return true;
      }
    }
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.seq;
  }
  files.discard();
  log(`discarded a pending ${key} key that no log entry names (a rotation interrupted before its entry was written)`);
  return false;
}
