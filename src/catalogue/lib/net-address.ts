/**
 * The one network-address model the catalogue uses (the firewall and network families):
 * an IPv4 or IPv6 address or network as bits and a prefix length, parsed strictly and
 * printed canonically. The canonical text is what glibc's inet_ntop prints, and so what
 * `ip` and `nft` print back: RFC 5952 (lower case, the first longest run of two or more
 * zero groups compressed), with an IPv4 tail dotted in ::ffff:a.b.c.d and ::a.b.c.d.
 * Comparing canonical texts is therefore comparing addresses, whichever tool wrote them.
 */
import { isIP } from 'node:net';

/** An IPv4 or IPv6 network (a single address is a /32 or /128). */
export interface Net {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

const width = (family: 4 | 6) => (family === 4 ? 32 : 128);

function v4Bits(addr: string): bigint {
  return addr.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function v6Bits(addr: string): bigint {
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const hex = addr.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, tail] = hex.includes('::') ? hex.split('::') : [hex, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const words = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return words.reduce((acc, w) => (acc << 16n) | BigInt(parseInt(w, 16)), 0n);
}

/**
 * Parses "ADDRESS" or "ADDRESS/PREFIX"; null for anything else: zone ids (fe80::1%eth0),
 * leading zeros in an IPv4 octet or in the prefix, a prefix longer than the family's width, junk.
 */
export function parseNet(text: string): Net | null {
  const m = /^([0-9A-Fa-f:.]+)(?:\/(0|[1-9][0-9]{0,2}))?$/.exec(text);
  if (!m) return null;
  const family = isIP(m[1]!);
  if (family !== 4 && family !== 6) return null;
  const prefix = m[2] === undefined ? width(family) : Number(m[2]);
  if (prefix > width(family)) return null;
  return { family, bits: family === 4 ? v4Bits(m[1]!) : v6Bits(m[1]!), prefix };
}

/** Parses "ADDRESS/PREFIX" only: as parseNet, but the prefix length must be written. */
export const parseCidr = (text: string): Net | null => (text.includes('/') ? parseNet(text) : null);

const hostMask = (n: Net) => (1n << BigInt(width(n.family) - n.prefix)) - 1n;
/** True when bits after the prefix are set: 10.0.0.1/8 is an address in a network, not a network. */
export const hasHostBits = (n: Net) => (n.bits & hostMask(n)) !== 0n;

/** True when `inner` lies within `outer` (same family, longer or equal prefix, same leading bits). */
export function netContains(outer: Net, inner: Net): boolean {
  if (outer.family !== inner.family || inner.prefix < outer.prefix) return false;
  const shift = BigInt(width(outer.family) - outer.prefix);
  return outer.bits >> shift === inner.bits >> shift;
}

export const netsOverlap = (a: Net, b: Net) => netContains(a, b) || netContains(b, a);

function v4Text(bits: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 255n)).join('.');
}

/** IPv6 text as glibc's inet_ntop (and so nft and ip) prints it: RFC 5952, with ::ffff:a.b.c.d and ::a.b.c.d dotted. */
function v6Text(bits: bigint): string {
  const words = [7, 6, 5, 4, 3, 2, 1, 0].map((i) => Number((bits >> BigInt(i * 16)) & 0xffffn));
  let best = { base: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { base: i, len: j - i };
    i = j;
  }
  if (best.len < 2) best = { base: -1, len: 0 };
  if (best.base === 0 && (best.len === 6 || (best.len === 5 && words[5] === 0xffff))) {
    return `::${best.len === 5 ? 'ffff:' : ''}${v4Text(bits & 0xffffffffn)}`;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best.base < 0) return hex(words);
  return `${hex(words.slice(0, best.base))}::${hex(words.slice(best.base + best.len))}`;
}

/** The canonical text of the network's address, without its prefix length. */
export const addressText = (n: Net) => (n.family === 4 ? v4Text(n.bits) : v6Text(n.bits));

/** The canonical text nft prints: a single address without /32 or /128, a network with its prefix length. */
export function netText(n: Net): string {
  const addr = addressText(n);
  return n.prefix === width(n.family) ? addr : `${addr}/${n.prefix}`;
}

/** The canonical text of one address (no prefix length); null when `s` is not an IPv4 or IPv6 address. */
export function canonicalIp(s: string): string | null {
  const n = s.includes('/') ? null : parseNet(s);
  return n ? addressText(n) : null;
}
