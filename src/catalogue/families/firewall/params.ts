/** The firewall family's parameter validators: addresses, protocols, rule handles, jail names, fail2ban durations. */
import { z } from 'zod';
import { hasHostBits, parseNet } from '../../lib/net-address.js';
import { token } from '../../params.js';

/** An IPv4/IPv6 address or CIDR network, as a firewall rule's source. Not /0 (that is a default policy). */
export const sourceAddress = token(/^[0-9A-Fa-f:.]+(\/[0-9]{1,3})?$/, 'source address', 49)
  .refine((s) => parseNet(s) !== null, 'source must be an IPv4 or IPv6 address or a CIDR network (203.0.113.7, 203.0.113.0/24, 2001:db8::/32)')
  .refine((s) => !hasHostBits(parseNet(s) ?? { family: 4, bits: 0n, prefix: 32 }), 'the network has bits set after its prefix: give the network address (10.0.0.0/8, not 10.0.0.1/8)')
  .refine((s) => (parseNet(s)?.prefix ?? 1) > 0, 'a /0 network matches every address: SetDefaultPolicy decides what happens to all traffic')
  .describe('an IPv4 or IPv6 address or CIDR network (203.0.113.0/24, 2001:db8::/32)');

/** One IPv4 or IPv6 host address (no network, no zone id). */
export const hostAddress = token(/^[0-9A-Fa-f:.]+$/, 'IP address', 45).refine((s) => parseNet(s) !== null, 'must be an IPv4 or IPv6 address');

export const protocol = z.enum(['tcp', 'udp']);
export const ruleHandle = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('the rule handle that ListRuleset shows after `# handle`');
export const jailName = token(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'jail name', 64);

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
export const durationSeconds = (s: string) => Number(s.replace(/[smhdw]$/, '')) * (DURATION_UNITS[s.slice(-1)] ?? 1);
/** A fail2ban time: seconds or a number with s, m, h, d or w; 1 second to 365 days. */
export const duration = token(/^[1-9][0-9]{0,7}[smhdw]?$/, 'duration (600, 10m, 1h, 1d, 1w)', 9).refine((s) => durationSeconds(s) <= 365 * 86400, 'duration must be at most 365 days');
