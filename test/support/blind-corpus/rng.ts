/**
 * A small seeded PRNG (mulberry32) and the value shapes the blind corpus draws from.
 * Same seed, same calls -> same bytes; nothing here reads the clock or Math.random.
 */

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const LOWER36 = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER36 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const HEX = '0123456789abcdef';
export const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** The alphabet of crypt(3) salts and hashes. */
export const CRYPT64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const WORDS = [
  'amber', 'badger', 'canyon', 'dynamo', 'ember', 'falcon', 'glacier', 'harbor', 'island', 'jasper',
  'kettle', 'lantern', 'meadow', 'nimbus', 'orchid', 'pepper', 'quartz', 'raven', 'saddle', 'timber',
  'umber', 'velvet', 'walnut', 'yonder', 'zephyr', 'copper', 'thistle', 'marble', 'cobalt', 'tundra',
];

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = (seed ^ 0x9e3779b9) >>> 0;
  }
  /** mulberry32: a float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  chars(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256);
    return b;
  }
  hex(n: number): string { return this.chars(HEX, n); }
  alnum(n: number): string { return this.chars(ALNUM, n); }
  digits(n: number): string { return String(this.int(1, 9)) + this.chars('0123456789', n - 1); }
  /** Standard base64 of n random bytes, padded. */
  b64(nBytes: number): string { return this.bytes(nBytes).toString('base64'); }
  /** base64url of n random bytes, unpadded. */
  b64url(nBytes: number): string { return this.bytes(nBytes).toString('base64url'); }
  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[this.int(0, 3)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  word(): string { return this.pick(WORDS); }

  /**
   * A password a person or a generator would really set. The first character is a letter so
   * the value is a plain scalar in YAML/INI/TOML; the symbols chosen need no quoting or escaping
   * in JSON, XML, shell words or config values. `url` keeps to RFC 3986 unreserved characters.
   */
  password(style: 'any' | 'url' = 'any'): string {
    const symbols = style === 'url' ? '-_.~' : '-_.!%+~^*@';
    const shape = this.int(0, 4);
    const first = this.chars('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', 1);
    if (shape === 0) {
      // Passphrase style: Word-word-word-NN.
      const w = (s: string) => s[0]!.toUpperCase() + s.slice(1);
      return `${w(this.word())}${this.pick(['-', '.', '_'])}${this.word()}${this.pick(['-', '.', '_'])}${this.word()}${this.int(10, 99)}`;
    }
    if (shape === 1) return first + this.alnum(this.int(15, 31));
    if (shape === 2) return first + this.hex(this.int(23, 39));
    let body = '';
    const n = this.int(11, 23);
    for (let i = 0; i < n; i++) body += this.chance(0.15) ? this.chars(symbols, 1) : this.chars(ALNUM, 1);
    return first + body + this.chars('0123456789', 1);
  }
}

/** Wrap a long single-line string at `width` columns, as PEM and OpenSSH armour do. */
export function wrap(s: string, width: number): string {
  const lines: string[] = [];
  for (let i = 0; i < s.length; i += width) lines.push(s.slice(i, i + width));
  return lines.join('\n');
}
