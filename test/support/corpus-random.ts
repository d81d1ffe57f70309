/**
 * The seeded randomness behind the masking corpus (test/support/secret-corpus.ts). A corpus that changed between runs
 * would make recall and false-positive figures incomparable, so every byte comes from mulberry32 with a fixed seed,
 * never from crypto or Math.random.
 */

export const DIGITS = '0123456789';
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const HEX = '0123456789abcdef';
export const ALNUM = DIGITS + UPPER + LOWER;
export const B64 = UPPER + LOWER + DIGITS + '+/';
export const B64URL = UPPER + LOWER + DIGITS + '-_';
/** crypt(3)'s alphabet, used by every $id$ hash in /etc/shadow. */
export const CRYPT = './' + DIGITS + UPPER + LOWER;

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32: a uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  str(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  hex(n: number): string {
    return this.str(HEX, n);
  }
  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[this.int(4)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20)}`;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(text: string): number {
  let c = 0xffffffff;
  for (const byte of Buffer.from(text)) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Base62 of a number, left-padded: the checksum suffix of GitHub and npm tokens. */
export function base62(n: number, width: number): string {
  let out = '';
  do {
    out = ALNUM[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

export const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** Base64 cut into lines of `width`, as PEM and PGP armour write it. */
export function wrap(base64: string, width = 64): string[] {
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += width) lines.push(base64.slice(i, i + width));
  return lines;
}

/** A DER-looking body: SEQUENCE with a two-byte length, then random bytes, so the base64 starts MII… like a real key or certificate. */
export function derLike(rng: Rng, length: number, inner: number[] = []): Buffer {
  const body = Buffer.concat([Buffer.from(inner), rng.bytes(length - 4 - inner.length)]);
  return Buffer.concat([Buffer.from([0x30, 0x82, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
}

/** The CRC-24 of OpenPGP armour (RFC 4880 6.1), written as "=" and four base64 characters. */
export function crc24(data: Buffer): string {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  crc &= 0xffffff;
  return '=' + Buffer.from([crc >> 16, (crc >> 8) & 0xff, crc & 0xff]).toString('base64');
}

/** An SSH wire-format string (uint32 length, bytes). */
export function sshString(data: Buffer | string): Buffer {
  const b = Buffer.from(data);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}
