/** The network family's parameter validators: interface names, addresses and networks with a prefix length, route destinations, hosts to look up. */
import { z } from 'zod';
import { addressText, hasHostBits, parseCidr } from '../../lib/net-address.js';
import { fqdn, ipAddress, token } from '../../params.js';

/** A network interface name as the kernel allows it (IFNAMSIZ: at most 15 characters), restricted to safe characters. */
export const interfaceName = token(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/, 'interface name', 15);

const cidrBase = token(/^[0-9A-Fa-f.:]{2,45}\/[0-9]{1,3}$/, 'address with prefix length (CIDR)', 49);

/**
 * An interface address with its prefix length: 192.0.2.10/24 or 2001:db8::10/64, in canonical
 * form (lib/net-address.ts: as `ip` prints it back, so ListAddresses shows the same text).
 */
export const addressCidr = cidrBase
  .refine((s) => parseCidr(s) !== null, 'must be an IPv4 or IPv6 address with a prefix length (/0-32 or /0-128), e.g. 192.0.2.10/24')
  .refine((s) => {
    const c = parseCidr(s);
    return c === null || `${addressText(c)}/${c.prefix}` === s;
  }, 'write the address in canonical form (IPv6 lower-case and compressed, e.g. 2001:db8::10)');

/** A route destination: a network address with its prefix length, host bits zero (10.8.0.0/24, 2001:db8:1::/48). */
export const networkCidr = addressCidr.refine((s) => {
  const c = parseCidr(s);
  return c === null || !hasHostBits(c);
}, 'the destination must be a network address: its host bits (after the prefix length) must be zero, e.g. 10.8.0.0/24');

/** A route destination for AddRoute: a network, or `default`. */
export const routeDestination = z.union([z.literal('default'), networkCidr]);

/** A host to look up: a DNS name or an IP address. */
export const lookupHost = z.union([ipAddress, fqdn]);
