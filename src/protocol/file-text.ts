/**
 * A file's bytes as text, losslessly, so that the catalogue edits lines as strings and what it
 * writes back is the file byte for byte (invariant 4: what runs is what was approved).
 *
 * Valid UTF-8 decodes as usual. Every byte that is not part of a valid UTF-8 sequence (a stray
 * Latin-1 0xE9, a truncated sequence, an overlong form, an encoded surrogate) becomes the lone
 * surrogate U+DC00 + byte (U+DC80..U+DCFF), as Python's "surrogateescape" does: valid UTF-8 never
 * decodes to a lone surrogate, so the mapping is one to one, and fileBytes undoes it exactly.
 * Agent text cannot carry a lone surrogate (JCS refuses it in every request), so only a file's
 * own bytes come back as raw bytes. Such text is shown as `\xNN` (escape-text.ts) and bound by
 * its bytes (mechanism-binding.ts), never through a lossy UTF-8 round trip.
 */
import { isUtf8 } from 'node:buffer';
import { isWellFormed } from './canonical.js';
import { AirlockError } from './errors.js';

const ESCAPED_BASE = 0xdc00;

/** The text of `bytes`: valid UTF-8 decoded, every other byte as U+DC00 + byte. One linear pass. */
export function fileText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  // UTF-16LE, written byte by byte: one code unit per byte at most (a 4-byte sequence gives a pair).
  const le = Buffer.allocUnsafe(bytes.length * 2);
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i]!;
    const len = sequenceLength(bytes, i);
    let u: number;
    if (len <= 1) u = len === 0 ? ESCAPED_BASE + c : c;
    else if (len === 2) u = ((c & 0x1f) << 6) | (bytes[i + 1]! & 0x3f);
    else if (len === 3) u = ((c & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f);
    else {
      const cp = ((c & 0x07) << 18) + ((bytes[i + 1]! & 0x3f) << 12) + ((bytes[i + 2]! & 0x3f) << 6) + (bytes[i + 3]! & 0x3f) - 0x10000;
      const high = 0xd800 + (cp >> 10);
      le[n++] = high & 0xff;
      le[n++] = high >> 8;
      u = 0xdc00 + (cp & 0x3ff);
    }
    le[n++] = u & 0xff;
    le[n++] = u >> 8;
    i += Math.max(len, 1);
  }
  return le.toString('utf16le', 0, n);
}

/** The bytes of a text fileText made (or any well-formed text): the inverse of fileText. One linear pass. */
export function fileBytes(text: string): Buffer {
  if (isWellFormed(text)) return Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(text.length * 3); // a UTF-16 code unit is at most 3 bytes of UTF-8
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u < 0x80) {
      out[n++] = u;
    } else if (u < 0x800) {
      out[n++] = 0xc0 | (u >> 6);
      out[n++] = 0x80 | (u & 0x3f);
    } else if (u < 0xd800 || u > 0xdfff) {
      out[n++] = 0xe0 | (u >> 12);
      out[n++] = 0x80 | ((u >> 6) & 0x3f);
      out[n++] = 0x80 | (u & 0x3f);
    } else if (u <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = 0x10000 + ((u - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      out[n++] = 0xf0 | (cp >> 18);
      out[n++] = 0x80 | ((cp >> 12) & 0x3f);
      out[n++] = 0x80 | ((cp >> 6) & 0x3f);
      out[n++] = 0x80 | (cp & 0x3f);
    } else if (u >= ESCAPED_BASE + 0x80 && u <= ESCAPED_BASE + 0xff) {
      out[n++] = u - ESCAPED_BASE; // a byte that is not UTF-8, back as itself
    } else {
      // Any other lone surrogate came from nowhere fileText knows: refused, never written as U+FFFD.
      throw new RangeError(`a lone surrogate U+${u.toString(16).toUpperCase()} stands for no byte`);
    }
  }
  return Buffer.from(out.subarray(0, n));
}

/** How many bytes in `text` (made by fileText) are not valid UTF-8. Linear. */
export function notUtf8Bytes(text: string): number {
  if (isWellFormed(text)) return 0;
  let n = 0;
  for (let i = nextLone(text, 0); i >= 0; i = nextLone(text, i + 1)) {
    const unit = text.charCodeAt(i);
    if (unit >= ESCAPED_BASE + 0x80 && unit <= ESCAPED_BASE + 0xff) n++;
  }
  return n;
}

/** Index of the first surrogate at or after `from` that is not half of a pair, or -1. */
function nextLone(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u < 0xd800 || u > 0xdfff) continue;
    if (u <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++; // a pair
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * Refuses texts that would reach a program as argv, environment or a path name while holding a
 * byte that is not UTF-8: the kernel gets them UTF-8 encoded, so such a byte would arrive as
 * U+FFFD, which is not what was approved. `what` names the program, for the message.
 */
export function refuseNotUtf8(texts: Iterable<unknown>, what: string): void {
  for (const t of texts) {
    if (typeof t !== 'string' || isWellFormed(t)) continue; // only a string can hold a lone surrogate
    const why = `an argument for ${what} holds bytes that are not UTF-8 (taken from a file); Airlock passes a program only UTF-8`;
    throw new AirlockError('conflict', 'not_utf8', why, 'make the file it came from valid UTF-8 by hand, then preview again');
  }
}


/** Bytes of the valid UTF-8 sequence at `i` (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF), or 0. */
function sequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return within(b, i + 1) ? 2 : 0;
  // The second byte's range rules out overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
  if (c >= 0xe0 && c <= 0xef) {
    return within(b, i + 1, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && within(b, i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    return within(b, i + 1, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && within(b, i + 2) && within(b, i + 3) ? 4 : 0;
  }
  return 0;
}

/** Whether byte `k` exists and lies in [lo, hi] (by default: a continuation byte). */
const within = (b: Buffer, k: number, lo = 0x80, hi = 0xbf): boolean => k < b.length && b[k]! >= lo && b[k]! <= hi;
