/**
 * How the runtime changes through `ip` are undone exactly (issue 27), and the state they are
 * checked against. An undo is built from the state read: the route or address as the kernel
 * held it, with every attribute `ip` can set. What the kernel drops along with a change (the
 * routes through an interface taken down, the IPv6 addresses a down flushes, the routes that
 * used a removed address as their source) is put back too: each by the undo of a read that
 * comes before the change, so that, undos running last first, it is put back after the change
 * itself is undone (the address back before the route that uses it).
 *
 * The probes read what these changes touch without what changes by itself: `ip -br` lists the
 * addresses without their lifetimes and DAD flags (an IPv6 address is "tentative" for a second
 * after it is added), and IPv6 routes are read by destination or by protocol, never all those
 * of an interface (a route learnt from a router advertisement carries a lifetime that counts down).
 */
import { AirlockError } from '../../../protocol/errors.js';
import { canonicalIp, parseCidr } from '../../lib/net-address.js';
import { command, type CommandStep } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import type { LinkAddress, NetState, RouteState } from './ip-state.js';
import { famFlag } from './runtime-change.js';

/** `ip route add|del|replace` arguments describing one route exactly as the kernel holds it. */
export function routeArgs(verb: 'add' | 'del' | 'replace', r: RouteState): string[] {
  const args = [famFlag(r.family), 'route', verb, ...(r.type ? [r.type] : []), r.dst];
  if (r.gateway) args.push('via', r.gateway);
  if (r.dev) args.push('dev', r.dev);
  if (r.onlink) args.push('onlink');
  if (r.protocol) args.push('proto', r.protocol);
  if (r.scope) args.push('scope', r.scope);
  if (r.prefsrc) args.push('src', r.prefsrc);
  if (r.metric !== null) args.push('metric', String(r.metric));
  return args;
}

/** `ip addr add` arguments that make the address again as it was: broadcast, scope, label and flags. */
export function addressArgs(dev: string, a: LinkAddress): string[] {
  const args = ['addr', 'add', `${a.local}/${a.prefixlen}`];
  if (a.broadcast) args.push('broadcast', a.broadcast);
  // An IPv6 address's scope follows from the address itself.
  if (a.family === 4 && a.scope && a.scope !== 'global') args.push('scope', a.scope);
  if (a.label && a.label !== dev) args.push('label', a.label);
  return [...args, ...a.flags, 'dev', dev];
}

// What the kernel printed goes back into argv only in the shapes ip prints: never an option, never a second argument.
const WORD = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const IFNAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}$/;
const isIp = (s: string | null) => s === null || canonicalIp(s) === s;

/** A route an undo can put back: a destination, a way out (gateway, interface or a type such as blackhole), and plain words. */
function restorableRoute(r: RouteState): boolean {
  const words = [r.protocol, r.scope, r.type].every((w) => w === null || WORD.test(w));
  return (r.dst === 'default' || parseCidr(r.dst) !== null) && isIp(r.gateway) && isIp(r.prefsrc) && (r.dev === null || IFNAME.test(r.dev)) && words && (r.dev !== null || r.gateway !== null || r.type !== null);
}
function restorableAddress(a: LinkAddress): boolean {
  return isIp(a.local) && isIp(a.broadcast) && (a.label === null || LABEL.test(a.label)) && WORD.test(a.scope || 'global');
}

/**
 * Refuses a change whose undo could not put these back as they are: a multipath route, a name ip
 * would not print, or (when the undo adds addresses back first) an IPv6 route with a source
 * address, which the kernel refuses while that address is still tentative (its DAD takes a second).
 */
export function requireRestorable(what: string, routes: RouteState[], addresses: LinkAddress[] = [], addressesComeBack = false): void {
  const sourced = (r: RouteState) => addressesComeBack && r.family === 6 && r.prefsrc !== null;
  const bad = [...routes.filter((r) => !restorableRoute(r) || sourced(r)).map((r) => `route to ${r.dst}`), ...addresses.filter((a) => !restorableAddress(a)).map((a) => `address ${a.local}/${a.prefixlen}`)];
  if (bad.length) {
    throw new AirlockError('conflict', 'not_restorable', `${what} would drop ${bad.join(', ')}, which Airlock could not put back as it is (a multipath route, a name outside what ip prints, or an IPv6 route from an address its undo makes again)`, 'remove that route first, or have a person make this change from a console');
  }
}

/** Routes the kernel drops that nothing brings back by itself: not its own (they come back with their addresses), not learnt from a router. */
export const dropped = (net: NetState, pred: (r: RouteState) => boolean): RouteState[] => net.routes.filter((r) => pred(r) && r.protocol !== 'kernel' && r.protocol !== 'ra');

/** IPv6 addresses a down flushes (unless keep_addr_on_down): the permanent ones the kernel does not make again itself (link-local). */
export const flushedOnDown = (addresses: LinkAddress[], keep: boolean): LinkAddress[] => (keep ? [] : addresses.filter((a) => a.family === 6 && !a.dynamic && a.scope !== 'link' && a.scope !== 'host'));

const readRoute = (r: RouteState) => ['-j', famFlag(r.family), 'route', 'show', 'table', 'main', 'exact', r.dst];
const readAddresses = (dev: string) => ['-br', '-j', 'addr', 'show', 'dev', dev];

/**
 * Reads, placed before the change, whose undos put back what the kernel drops with it: the
 * addresses (in the order listed: the kernel lists the newest of a scope first, and these undos
 * run last first) after the change is undone, then the routes (`replace`: one that only lost
 * its source address is set back whole).
 */
export function restoreSteps(dev: string, routes: RouteState[], addresses: LinkAddress[]): CommandStep[] {
  return [
    ...routes.map((r) => command('ip', readRoute(r), { undo: command('ip', routeArgs('replace', r)) })),
    ...addresses.map((a) => command('ip', readAddresses(dev), { undo: command('ip', addressArgs(dev, a)) })),
  ];
}

/** The probes: an interface's link flags, its addresses, and routes by destination, interface or protocol. */
export const linkProbe = (dev: string): StateProbe => ({ program: 'ip', args: ['-br', '-j', 'link', 'show', 'dev', dev] });
export const addressProbe = (dev: string): StateProbe => ({ program: 'ip', args: readAddresses(dev) });
export const routeProbe = (family: 4 | 6, dst: string): StateProbe => ({ program: 'ip', args: ['-j', famFlag(family), 'route', 'show', 'table', 'main', 'exact', dst] });
/** IPv4 routes through an interface (no IPv4 route has a lifetime); IPv6 ones only of one protocol (boot: what `ip route add` makes). */
export const routesViaProbe = (family: 4 | 6, dev: string): StateProbe => ({ program: 'ip', args: ['-j', famFlag(family), 'route', 'show', 'table', 'main', 'dev', dev, ...(family === 6 ? ['proto', 'boot'] : [])] });
