/**
 * The store's sealer: signs each entry with the audit key current at its sequence number.
 *
 * An audit-key rotation switches keys at a sequence number, not at a moment: the rotation
 * entry itself is sealed by the old key, and every entry with a higher seq by the new one,
 * whichever transaction seals it and whenever. A store may seal in one transaction and commit
 * later, and another transaction may seal right after the first commits, before the rotating
 * code hears back (PostgreSQL); a store may also retry a transaction and seal the rotation
 * entry again at another seq. Keyed by the seq the rotation entry was last sealed at, the
 * sealer agrees with the log in each of these cases. If the rotation's append fails after it
 * was sealed, nobody can tell which key the next entry needs, and the daemon stops (main.ts).
 */
import { sealEntry, type EntryDraft, type SealedEntry } from '../audit/entry.js';
import type { SigningKey } from '../audit/keys.js';
import type { RotatingKey } from '../audit/rotation.js';

export class AuditSealer {
  /** The rotation under way: which key, its successor, and the seq its entry was last sealed at. */
  private rotating: { key: RotatingKey; next: SigningKey; sealedAt: number | null } | null = null;

  constructor(private key: SigningKey) {}

  /** The key that signs the committed log's head (checkpoints use it; the old key until a rotation settles). */
  get current(): SigningKey {
    return this.key;
  }

  /**
   * Announces the rotation of `key` to `next`: the sealer notes the seq of the key_rotated entry
   * naming it, and for the audit key signs every later entry with `next`.
   */
  expect(key: RotatingKey, next: SigningKey): void {
    if (this.rotating) throw new Error('a key rotation is already under way');
    this.rotating = { key, next, sealedAt: null };
  }

  /** The seq the announced rotation entry was sealed at, or null when it was not (then the log cannot hold it). */
  get rotationSeq(): number | null {
    return this.rotating?.sealedAt ?? null;
  }

  /** The rotation entry is committed: for the audit key, the new key is the key from now on. */
  settle(): void {
    if (!this.rotating) return;
    if (this.rotating.key === 'audit') this.key = this.rotating.next;
    this.rotating = null;
  }

  /** Start-up only: the key a recovered rotation made current. */
  use(key: SigningKey): void {
    if (this.rotating) throw new Error('a key rotation is under way');
    this.key = key;
  }

  /** The rotation entry was never sealed: nothing changes. */
  abandon(): void {
    if (this.rotating?.sealedAt != null) throw new Error('the rotation entry was sealed: it cannot be abandoned');
    this.rotating = null;
  }

  /**
   * Set when a sealed rotation entry's append failed: from then on nothing is sealed, so no entry signed with a key the log
   * never announced can be committed. The daemon stops; its next start settles the rotation.
   */
  private poisoned: string | null = null;

  /** Refuses every later seal (the rotator calls it when the rotation's append failed after sealing). */
  poison(why: string): void {
    this.poisoned ??= why;
  }

  readonly seal = (draft: EntryDraft, seq: number, prevHash: string): SealedEntry => {
    if (this.poisoned !== null) throw new Error(`nothing is sealed any more: ${this.poisoned}`);
    const r = this.rotating;
    if (r && draft.kind === 'key_rotated' && draft.details.key === r.key && draft.details.new_key_id === r.next.keyId) {
      r.sealedAt = seq;
      return sealEntry(this.key, draft, seq, prevHash);
    }
    const key = r && r.key === 'audit' && r.sealedAt !== null && seq > r.sealedAt ? r.next : this.key;
    return sealEntry(key, draft, seq, prevHash);
  };
}
