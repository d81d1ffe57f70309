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

const ESCAPED_BASE = 0xdc00;

/** The text of `bytes`: valid UTF-8 decoded, every other byte as U+DC00 + byte. Linear. */
export function fileText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  let run = 0; // start of the current run of valid sequences
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += bytes.toString('utf8', run, i) + String.fromCharCode(ESCAPED_BASE + bytes[i]!);
    run = ++i;
  }
  return out + bytes.toString('utf8', run, i);
}

/** The bytes of a text fileText made (or any well-formed text): the inverse of fileText. */
export function fileBytes(text: string): Buffer {
  if (isWellFormed(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let run = 0;
  for (const m of text.matchAll(LONE_SURROGATE)) {
    const unit = m[0].charCodeAt(0);
    // Only U+DC80..U+DCFF stand for a byte; any other lone surrogate came from nowhere fileText knows.
    if (unit < ESCAPED_BASE + 0x80 || unit > ESCAPED_BASE + 0xff) throw new RangeError(`a lone surrogate U+${unit.toString(16).toUpperCase()} stands for no byte`);
    parts.push(Buffer.from(text.slice(run, m.index), 'utf8'), Buffer.of(unit - ESCAPED_BASE));
    run = m.index! + 1;
  }
  parts.push(Buffer.from(text.slice(run), 'utf8'));
  return Buffer.concat(parts);
}

/** How many bytes in `text` (made by fileText) are not valid UTF-8. */
export function notUtf8Bytes(text: string): number {
  if (isWellFormed(text)) return 0;
  let n = 0;
  for (const _ of text.matchAll(LONE_SURROGATE)) n++;
  return n;
}

/** A surrogate that is not half of a pair (no 'u' flag: the regex sees UTF-16 code units). */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Bytes of the valid UTF-8 sequence at `i` (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF), or 0. */
function sequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) return cont(1, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && cont(2) ? 3 : 0;
  if (c >= 0xf0 && c <= 0xf4) return cont(1, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
