/** Addresses the firewall treats specially: loopback and unspecified ones it never drops or bans, and IPv4-mapped peers. */
import { netsOverlap, parseNet, type Net } from '../../lib/net-address.js';

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, as ss shows dual-stack peers) as plain IPv4. */
export function unmapped(n: Net): Net {
  if (n.family === 6 && n.prefix === 128 && n.bits >> 32n === 0xffffn) return { family: 4, bits: n.bits & 0xffffffffn, prefix: 32 };
  return n;
}

/** Loopback networks: dropping or banning them breaks local services (DNS stub, databases, Airlock itself). */
export const LOOPBACK = [parseNet('127.0.0.0/8')!, parseNet('::1')!];
/** The unspecified addresses: never banned; a listener on one (or on an address that does not parse) listens on every interface. */
export const UNSPECIFIED = [parseNet('0.0.0.0')!, parseNet('::')!];
/** True when the network holds a loopback address or lies within one. */
export const isLoopback = (n: Net) => LOOPBACK.some((l) => netsOverlap(l, n));
