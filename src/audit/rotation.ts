/**
 * Key rotation statements. A `key_rotated` entry's details carry the old and the new public
 * key and each key's Ed25519 signature over the same statement:
 *
 *   DOMAIN_KEY_ROTATION || frameFields([log_id, key, old_public_key, new_public_key])
 *
 * The old key's signature says its holder handed over; the new key's says the new key's holder
 * exists and accepted this log (nobody can name someone else's public key as their successor).
 * Both are checked offline by the verifier with nothing but the public keys in the entry, and the
 * old one must be the key the verifier already follows. The statement names the log, so a
 * rotation of one log cannot be replayed into another.
 */
import { DOMAIN_KEY_ROTATION, frameFields } from './domains.js';
import { ed25519Sign, ed25519Verify, keyIdOf, publicKeyFromRaw, SIGNATURE_HEX, type SigningKey } from './keys.js';

/** Which key rotates: each rotates on its own. */
export const ROTATING_KEYS = ['audit', 'approval'] as const;
export type RotatingKey = (typeof ROTATING_KEYS)[number];

/** The details of a `key_rotated` entry (every field a string, as entry details are). */
export interface RotationDetails {
  [field: string]: string;
  key: RotatingKey;
  log_id: string;
  old_key_id: string;
  new_key_id: string;
  /** "ed25519:<64 hex>" */
  old_public_key: string;
  new_public_key: string;
  /** 128 lower-case hex digits each. */
  old_key_signature: string;
  new_key_signature: string;
}

const PUBLIC = /^ed25519:([0-9a-f]{64})$/;
const KEY_ID = /^[0-9a-f]{16}$/;

const spell = (raw: Buffer) => `ed25519:${raw.toString('hex')}`;

/** What both keys sign. */
export function rotationMessage(logId: string, key: RotatingKey, oldPublic: string, newPublic: string): Buffer {
  return Buffer.concat([DOMAIN_KEY_ROTATION, frameFields([logId, key, oldPublic, newPublic])]);
}

/** The details of a rotation from `oldKey` to `newKey`, signed by both. */
export function rotationDetails(key: RotatingKey, logId: string, oldKey: SigningKey, newKey: SigningKey): RotationDetails {
  if (!KEY_ID.test(logId)) throw new RangeError(`not a log id: ${JSON.stringify(logId)}`);
  if (oldKey.keyId === newKey.keyId) throw new RangeError('a rotation needs a new key');
  const oldPublic = spell(oldKey.publicRaw);
  const newPublic = spell(newKey.publicRaw);
  const msg = rotationMessage(logId, key, oldPublic, newPublic);
  return {
    key,
    log_id: logId,
    old_key_id: oldKey.keyId,
    new_key_id: newKey.keyId,
    old_public_key: oldPublic,
    new_public_key: newPublic,
    old_key_signature: ed25519Sign(oldKey, msg).toString('hex'),
    new_key_signature: ed25519Sign(newKey, msg).toString('hex'),
  };
}

/** A rotation the verifier checked: both keys, raw. */
export interface CheckedRotation {
  key: RotatingKey;
  logId: string;
  oldRaw: Buffer;
  newRaw: Buffer;
  oldKeyId: string;
  newKeyId: string;
}

/**
 * Checks a `key_rotated` entry's details as they were read from the log (untrusted JSON): every
 * field in its one spelling, the key ids those of the keys, both signatures valid. Returns the
 * keys, or why the entry is not a valid rotation (a sentence for the verify report).
 */
export function checkRotation(details: unknown): CheckedRotation | string {
  if (typeof details !== 'object' || details === null) return 'a key_rotated entry without details';
  const d = details as Record<string, unknown>;
  const key = d.key;
  if (key !== 'audit' && key !== 'approval') return `a key_rotated entry names no key it rotates (key ${JSON.stringify(key)})`;
  const { log_id: logId, old_key_id: oldKeyId, new_key_id: newKeyId } = d;
  if (typeof logId !== 'string' || !KEY_ID.test(logId)) return 'a key_rotated entry without a log id';
  const oldM = typeof d.old_public_key === 'string' ? PUBLIC.exec(d.old_public_key) : null;
  const newM = typeof d.new_public_key === 'string' ? PUBLIC.exec(d.new_public_key) : null;
  if (!oldM || !newM) return 'a key_rotated entry whose public keys are not "ed25519:" and 64 lower-case hex digits';
  const oldRaw = Buffer.from(oldM[1]!, 'hex');
  const newRaw = Buffer.from(newM[1]!, 'hex');
  if (oldKeyId !== keyIdOf(oldRaw) || newKeyId !== keyIdOf(newRaw)) return 'a key_rotated entry whose key ids are not those of its public keys';
  if (oldKeyId === newKeyId) return 'a key_rotated entry that replaces a key by itself';
  const msg = rotationMessage(logId, key, d.old_public_key as string, d.new_public_key as string);
  const signedBy = (raw: Buffer, sig: unknown) => {
    if (typeof sig !== 'string' || !SIGNATURE_HEX.test(sig)) return false;
    try {
      return ed25519Verify(publicKeyFromRaw(raw), msg, Buffer.from(sig, 'hex'));
    } catch {
      return false; // a point that is not on the curve
    }
  };
  if (!signedBy(oldRaw, d.old_key_signature)) return `the old ${key} key's signature of this rotation does not verify: a forged rotation`;
  if (!signedBy(newRaw, d.new_key_signature)) return `the new ${key} key's signature of this rotation does not verify: a forged rotation`;
  return { key, logId, oldRaw, newRaw, oldKeyId: oldKeyId as string, newKeyId: newKeyId as string };
}
