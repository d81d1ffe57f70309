/**
 * What every known-answer vector file shares: fixed keys (a seed written in the file),
 * the header that says where the format is specified and how the file was made, and
 * small helpers to make the invalid cases (one bit flipped, one character changed).
 * Nothing here reads a clock, a host name or a random source: the files depend on the
 * code alone, so test/unit/vectors.test.ts can compare them with a fresh generation.
 */
import { signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';

export interface FixedKey {
  key: SigningKey;
  /** As written in the files. */
  json: { seed_hex: string; public_key_hex: string; key_id: string };
}

export function fixedKey(byte: number): FixedKey {
  const seed = Buffer.alloc(32, byte);
  const key = signingKeyFromSeed(seed);
  return { key, json: { seed_hex: seed.toString('hex'), public_key_hex: key.publicRaw.toString('hex'), key_id: key.keyId } };
}

/** Seed of 32 bytes 0x01: the key of every vector in docs/protocol.md. */
export const KEY = fixedKey(0x01);
/** Seed of 32 bytes 0x02: "another key", for signatures that must not verify. */
export const OTHER_KEY = fixedKey(0x02);

export const ABOUT =
  'Known-answer vectors generated from the real code by scripts/gen-vectors.ts (npm run vectors) and replayed by test/unit/vectors.test.ts. ' +
  'Fields ending in _hex are lower-case hex bytes, in _utf8 UTF-8 text; every other string is as it appears on the wire or in the store. ' +
  'Every "valid" case must reproduce exactly; every "invalid" case must be refused by a verifier, for the reason in "why".';

export const header = (format: string, spec: string) => ({ format, spec: `docs/protocol.md${spec}`, about: ABOUT });

/** Hex with the lowest bit of byte `at` flipped (negative `at` counts from the end). */
export function flipHex(hex: string, at = 0): string {
  const b = Buffer.from(hex, 'hex');
  b[at < 0 ? b.length + at : at]! ^= 1;
  return b.toString('hex');
}

/** Text with the lowest bit of the (ASCII) character at `at` flipped. */
export function flipChar(text: string, at: number): string {
  const i = at < 0 ? text.length + at : at;
  return text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ 1) + text.slice(i + 1);
}

/** Text with the lowest bit of the first character of the first occurrence of `what` flipped. */
export function flipAt(text: string, what: string): string {
  const i = text.indexOf(what);
  if (i < 0) throw new Error(`${JSON.stringify(what)} is not in the text`);
  return flipChar(text, i);
}

export const hex = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b).toString('hex');
