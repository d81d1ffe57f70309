/** AddAddress and RemoveAddress: an interface's addresses, changed with ip addr (runtime state only). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { addressText, netContains, parseCidr, parseNet } from '../../lib/net-address.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { exact, type StateProbe } from '../../rollback.js';
import { addressArgs, addressProbe, dropped, requireRestorable, restoreSteps, routeProbe, routesViaProbe } from './ip-restore.js';
import { describeLink, describeRoute, readNet, requireLink, type LinkAddress, type LinkState, type NetState } from './ip-state.js';
import { addressCidr, interfaceName } from './params.js';
import { refuseDefaultRouteDev, refuseLoopback, RUNTIME_ONLY } from './runtime-change.js';

const addressParams = params({ interface: interfaceName, address: addressCidr });

const findAddress = (l: LinkState, cidr: string) => {
  const c = parseCidr(cidr)!;
  return l.addresses.find((a) => a.local === addressText(c) && a.prefixlen === c.prefix);
};

const readAddresses = async ({ interface: name }: { interface: string }, host: Host) => ({ net: await readNet(host), name });

/**
 * What the interface's addresses and the routes they bring read as. IPv4: every route through it
 * (removing its last IPv4 address flushes them all); IPv6: the address's own network, by destination.
 */
function addressProbes(p: { interface: string; address: string }): StateProbe[] {
  const c = parseCidr(p.address)!;
  const hostBits = BigInt((c.family === 4 ? 32 : 128) - c.prefix);
  const network = `${addressText({ ...c, bits: (c.bits >> hostBits) << hostBits })}/${c.prefix}`;
  return [addressProbe(p.interface), c.family === 4 ? routesViaProbe(4, p.interface) : routeProbe(6, network)];
}

/**
 * The routes the kernel drops when `address` leaves `dev`: every IPv4 route through it when it
 * was its last IPv4 address; otherwise those using it as their source address (IPv6 ones only
 * lose that source, which the undo's replace sets back).
 */
function routesUsing(net: NetState, dev: string, address: string) {
  const c = parseCidr(address)!;
  const local = addressText(c);
  const last = c.family === 4 && !requireLink(net, dev).addresses.some((a) => a.family === 4 && a.local !== local);
  return net.routes.filter((r) => r.family === c.family && (r.prefsrc === local || (last && r.dev === dev)));
}
const droppedWith = (net: NetState, dev: string, address: string) => dropped({ ...net, routes: routesUsing(net, dev, address) }, () => true);

export const addAddress = action({
  name: 'AddAddress',
  family: 'network',
  description: `Add an IPv4 or IPv6 address to an existing interface (not lo) with ip addr add; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  // ip addr del takes it out again, with the route the kernel added for its network.
  rollback: exact(addressProbes),
  runsPrograms: false,
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: readAddresses,
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (findAddress(link, p.address)) return unchanged(`${p.interface} already has ${p.address}`);
    requireRestorable(`undoing it`, firstV4Routes(net, p));
  },
  preview: (p, { net }) => {
    const link = requireLink(net, p.interface);
    return {
      summary: `Add ${p.address} to ${p.interface}`,
      change: { interface: p.interface, add_address: p.address, text: `runs ip addr add ${p.address} dev ${p.interface} (${RUNTIME_ONLY})` },
      sideEffects: [`the kernel adds a route to ${p.address}'s network through ${p.interface}`, 'the host answers on this address from now on'],
      warnings: link.up ? [] : [`${p.interface} is down: the address is unusable until it is brought up (SetLinkState)`],
    };
  },
  // Its undo deletes what may then be the interface's only IPv4 address, which flushes the IPv4 routes through it: they are put back after.
  mechanism: (p, { net }) => [...restoreSteps(p.interface, firstV4Routes(net, p), []), command('ip', ['addr', 'add', p.address, 'dev', p.interface], { undo: command('ip', ['addr', 'del', p.address, 'dev', p.interface]) })],
});

/** The IPv4 routes through an interface that has no IPv4 address yet, when this adds its first: the undo's delete flushes them. */
function firstV4Routes(net: NetState, p: { interface: string; address: string }) {
  const first = parseCidr(p.address)!.family === 4 && !requireLink(net, p.interface).addresses.some((a) => a.family === 4);
  return first ? dropped(net, (r) => r.family === 4 && r.dev === p.interface) : [];
}

/** An IPv4 primary address with secondaries of its network: removing it removes them too, or promotes one, which no undo puts back as it was. */
function secondariesOf(link: LinkState, addr: LinkAddress): LinkAddress[] {
  if (addr.family !== 4 || addr.secondary) return [];
  const net = parseCidr(`${addr.local}/${addr.prefixlen}`)!;
  return link.addresses.filter((b) => b !== addr && b.family === 4 && b.secondary && b.prefixlen === addr.prefixlen && netContains(net, parseNet(b.local)!));
}

export const removeAddress = action({
  name: 'RemoveAddress',
  family: 'network',
  description: `Remove an address from an interface with ip addr del; refuses lo, the last address of the interface carrying the default route, and an IPv4 primary address with secondaries; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  // The undo adds it back as read (broadcast, scope, label, flags), then the routes the kernel dropped with it.
  rollback: exact(addressProbes),
  runsPrograms: false,
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: readAddresses,
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    const addr = findAddress(link, p.address);
    if (!addr) return unchanged(`${p.interface} has no address ${p.address}`);
    const others = link.addresses.filter((a) => a !== addr && a.scope !== 'link' && a.scope !== 'host');
    if (others.length === 0) refuseDefaultRouteDev(net, p.interface, 'remove its last address');
    const secondaries = secondariesOf(link, addr);
    if (secondaries.length) {
      throw new AirlockError('conflict', 'primary_with_secondaries', `${p.address} is the primary address of its network on ${p.interface}: removing it also removes (or promotes) ${secondaries.map((a) => `${a.local}/${a.prefixlen}`).join(', ')}`, 'remove the secondary addresses first');
    }
    requireRestorable(`removing ${p.address}`, droppedWith(net, p.interface, p.address), [addr], true);
  },
  preview: (p, { net }) => {
    const addr = findAddress(requireLink(net, p.interface), p.address)!;
    const routes = routesUsing(net, p.interface, p.address);
    return {
      summary: `Remove ${p.address} from ${p.interface}`,
      change: { interface: p.interface, remove_address: p.address, text: `runs ip addr del ${p.address} dev ${p.interface} (${RUNTIME_ONLY})` },
      sideEffects: ['connections to or from this address break', ...(routes.length ? [`routes using it go too (IPv6 ones only lose it as their source): ${routes.map(describeRoute).join('; ')}`] : [])],
      warnings: addr.dynamic ? ['the address has a lifetime (DHCP or SLAAC): undone, it comes back without one, and its client may not renew it'] : [],
    };
  },
  mechanism: (p, { net }) => {
    const addr = findAddress(requireLink(net, p.interface), p.address)!;
    return [...restoreSteps(p.interface, droppedWith(net, p.interface, p.address), []), command('ip', ['addr', 'del', p.address, 'dev', p.interface], { undo: command('ip', addressArgs(p.interface, addr)) })];
  },
});
