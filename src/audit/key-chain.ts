/**
 * Which key must have signed each entry of a log, as the verifier walks it. The auditor's
 * key file says which keys they trust; the log itself says when the key changed:
 *
 * - entry 1 is signed by the log's first key, which must be in the auditor's file (its key
 *   id is the log id, which checkpoints and rotations name);
 * - a `key_rotated` entry for the audit key, signed by the current key and carrying valid
 *   signatures of both the old and the new key (rotation.ts), makes the new key current from
 *   the next entry on;
 * - every other entry must be signed by the current key: an entry after a rotation signed with
 *   the old key is broken, whoever holds that key now.
 *
 * A key enters the chain only through the file (the first) or a verified rotation, so trusting
 * one key of a log means trusting its successors as the log's own rotations name them, and
 * nothing else. Approval-key rotations are checked the same way (both signatures, the log id,
 * and that each replaces the approval key the previous one made current); they change nothing
 * about which key signs the log.
 */
import { checkRotation } from './rotation.js';
import { keyIdOf } from './keys.js';
import type { LogEntry } from './entry.js';

/** The entries one key signed: what the report's `keys` lists. */
export interface KeySpan {
  key_id: string;
  /** The first entry it signs. */
  first_seq: number;
  /** Its last entry so far; first_seq - 1 for a key a rotation at the log's end made current, which signs nothing yet. */
  last_seq: number;
  introduced_by: 'your key file' | `rotation at seq ${number}`;
}

interface ChainKey {
  raw: Buffer;
  keyId: string;
  hex: string;
}

const chainKey = (raw: Buffer): ChainKey => ({ raw, keyId: keyIdOf(raw), hex: raw.toString('hex') });

export class KeyChain {
  private readonly trusted = new Map<string, Buffer>();
  private current: ChainKey | null = null;
  /** Current from the next entry on (an audit rotation was the last entry taken). */
  private next: { key: ChainKey; at: number } | null = null;
  private readonly used = new Map<string, ChainKey>();
  private approvalKeyId: string | null = null;
  readonly spans: KeySpan[] = [];
  /** The log id: the key id of the key that signed entry 1 (null until then). */
  logId: string | null = null;
  /** Set when entry 1 is signed by a key the auditor's file does not hold: the log cannot be checked with that file. */
  untrustedFirstKey: string | null = null;

  /**
   * After an untrusted entry 1: whether this row (not verified: nothing can be) is an audit
   * rotation to a key of the auditor's file, i.e. they hold a later key of this log rather than
   * another log's key. Returns its seq, or null. Only a hint for the message: either way the
   * log is not intact.
   */
  namesTrustedKey(row: { seq: number; body: string }): number | null {
    if (!row.body.includes('"key_rotated"')) return null;
    try {
      const e = JSON.parse(row.body) as LogEntry;
      return e.kind === 'key_rotated' && e.details.key === 'audit' && typeof e.details.new_key_id === 'string' && this.trusted.has(e.details.new_key_id) ? row.seq : null;
    } catch {
      return null;
    }
  }

  /**
   * `start`: the walk begins after entry start.seq (entries 1..seq were archived) of the log
   * start.logId; its first entry is then signed by a key of the auditor's file, as entry 1 is.
   */
  constructor(
    trusted: readonly Buffer[],
    private readonly start: { seq: number; logId: string } | null = null,
  ) {
    if (trusted.length === 0) throw new RangeError('no trusted key');
    for (const raw of trusted) this.trusted.set(keyIdOf(raw), raw);
  }

  /** The hex public key the current entry's signature is checked with (after admit). */
  get currentHex(): string {
    return this.current!.hex;
  }

  /**
   * Takes the next entry, already checked for form, sequence and chain: null when the key
   * that signed it (by its key_id field; the signature itself is checked with currentHex) is
   * the one the chain expects and a rotation in it is valid, else why not.
   */
  admit(e: LogEntry): string | null {
    if (this.current === null) {
      const raw = this.trusted.get(e.key_id);
      if (!raw) {
        this.untrustedFirstKey = e.key_id;
        const held = [...this.trusted.keys()].join(', ');
        const which = this.start ? `entry ${e.seq}, the first after the archived ones,` : 'entry 1';
        return `${which} is signed by key ${e.key_id}, which your key file does not hold (it holds ${held})`;
      }
      this.logId = this.start ? this.start.logId : e.key_id;
      this.switchTo(chainKey(raw), e.seq, 'your key file');
    } else if (this.next) {
      this.switchTo(this.next.key, e.seq, `rotation at seq ${this.next.at}`);
      this.next = null;
    }
    const cur = this.current!;
    const span = this.spans.at(-1)!;
    if (e.key_id !== cur.keyId) {
      const was = this.used.get(e.key_id);
      return `entry ${e.seq} is signed by key ${e.key_id}; the current key from seq ${span.first_seq} is ${cur.keyId}${was ? ' (the key it names was replaced before this entry)' : ''}`;
    }
    span.last_seq = e.seq;
    return e.kind === 'key_rotated' ? this.rotation(e) : null;
  }

  private rotation(e: LogEntry): string | null {
    const r = checkRotation(e.details);
    if (typeof r === 'string') return r;
    if (r.logId !== this.logId) return `the rotation names log ${r.logId}, not this log (${this.logId})`;
    if (r.key === 'approval') {
      if (this.approvalKeyId !== null && r.oldKeyId !== this.approvalKeyId) return `the rotation replaces approval key ${r.oldKeyId}, but the previous rotation made ${this.approvalKeyId} current`;
      this.approvalKeyId = r.newKeyId;
      return null;
    }
    const cur = this.current!;
    if (r.oldKeyId !== cur.keyId) return `the rotation replaces audit key ${r.oldKeyId}, but the current key is ${cur.keyId}`;
    if (this.used.has(r.newKeyId)) return `the rotation brings back audit key ${r.newKeyId}, which this log used before: a key once replaced stays retired`;
    this.next = { key: chainKey(r.newRaw), at: e.seq };
    return null;
  }

  private switchTo(key: ChainKey, from: number, by: KeySpan['introduced_by']): void {
    this.current = key;
    this.used.set(key.keyId, key);
    this.spans.push({ key_id: key.keyId, first_seq: from, last_seq: from - 1, introduced_by: by });
  }

  /** The spans, with a key the log's last entry rotated to (it signs nothing yet). */
  report(): KeySpan[] {
    const out = this.spans.map((s) => ({ ...s }));
    if (this.next) out.push({ key_id: this.next.key.keyId, first_seq: this.next.at + 1, last_seq: this.next.at, introduced_by: `rotation at seq ${this.next.at}` });
    return out;
  }

  /** The span holding entry `seq` (for a sentence about it). */
  spanOf(seq: number): KeySpan | undefined {
    return this.spans.find((s) => s.first_seq <= seq && seq <= Math.max(s.last_seq, s.first_seq));
  }

  /** Every key of the chain (the trusted ones when no entry was read): what checkpoints may be signed with. */
  keys(): Buffer[] {
    if (!this.current) return [...this.trusted.values()];
    return [...this.used.values(), ...(this.next ? [this.next.key] : [])].map((k) => k.raw);
  }

  /** The log id checkpoints must name: entry 1's key id, or the first trusted key's when the log is empty. */
  checkpointLogId(): string {
    return this.logId ?? this.trusted.keys().next().value!;
  }
}
