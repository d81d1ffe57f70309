/**
 * Signed checkpoints: (log size, head hash, time) signed with the audit key under
 * their own domain, written to sinks the store cannot rewrite: an append-only
 * file (chattr +a where the filesystem allows) and the system log. A log shorter
 * than its latest checkpoint, or with a different hash at that size, was cut or
 * rewritten.
 */
import { DOMAIN_CHECKPOINT } from './domains.js';
import { ed25519Sign, ed25519Verify, type SigningKey } from './keys.js';
import { canonicalize } from '../protocol/canonical.js';
import type { KeyObject } from 'node:crypto';

export interface Checkpoint {
  size: number;
  head_hash: string;
  ts: string;
  key_id: string;
}

export interface SignedCheckpoint {
  checkpoint: Checkpoint;
  sig: string;
}

const message = (c: Checkpoint) => Buffer.concat([DOMAIN_CHECKPOINT, Buffer.from(canonicalize(c), 'utf8')]);

export function signCheckpoint(key: SigningKey, size: number, headHash: string, now = new Date()): SignedCheckpoint {
  const checkpoint: Checkpoint = { size, head_hash: headHash, ts: now.toISOString(), key_id: key.keyId };
  return { checkpoint, sig: ed25519Sign(key, message(checkpoint)).toString('hex') };
}

/** One line of the checkpoint file (and the syslog message body). */
export function formatCheckpointLine(c: SignedCheckpoint): string {
  return `airlock-checkpoint ${canonicalize(c)}`;
}

export type ParsedCheckpoint = { ok: true; value: SignedCheckpoint } | { ok: false; line: number; reason: string };

/** Parses every checkpoint line in a text (a file, or a syslog export), checking each signature. */
export function parseCheckpoints(text: string, publicKey: KeyObject): ParsedCheckpoint[] {
  const out: ParsedCheckpoint[] = [];
  text.split('\n').forEach((raw, i) => {
    const at = raw.indexOf('airlock-checkpoint {');
    if (at < 0) return;
    try {
      const v = JSON.parse(raw.slice(at + 'airlock-checkpoint '.length)) as SignedCheckpoint;
      const c = v.checkpoint;
      if (!c || !Number.isSafeInteger(c.size) || typeof c.head_hash !== 'string' || typeof c.ts !== 'string' || typeof c.key_id !== 'string' || typeof v.sig !== 'string') {
        out.push({ ok: false, line: i + 1, reason: 'malformed checkpoint' });
      } else if (!ed25519Verify(publicKey, message({ size: c.size, head_hash: c.head_hash, ts: c.ts, key_id: c.key_id }), Buffer.from(v.sig, 'hex'))) {
        out.push({ ok: false, line: i + 1, reason: 'checkpoint signature does not verify with this public key' });
      } else {
        out.push({ ok: true, value: v });
      }
    } catch {
      out.push({ ok: false, line: i + 1, reason: 'checkpoint line is not JSON' });
    }
  });
  return out;
}
