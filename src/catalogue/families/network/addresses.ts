/** AddAddress and RemoveAddress: an interface's addresses, changed with ip addr (runtime state only). */
import { action, unchanged } from '../../action.js';
import { addressText, parseCidr } from '../../lib/net-address.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { describeLink, describeRoute, readNet, requireLink, type LinkState } from './ip-state.js';
import { addressCidr, interfaceName } from './params.js';
import { refuseDefaultRouteDev, refuseLoopback, RUNTIME_ONLY } from './runtime-change.js';
import { noRollback } from '../../rollback.js';

const addressParams = params({ interface: interfaceName, address: addressCidr });

const findAddress = (l: LinkState, cidr: string) => {
  const c = parseCidr(cidr)!;
  return l.addresses.find((a) => a.local === addressText(c) && a.prefixlen === c.prefix);
};

export const addAddress = action({
  name: 'AddAddress',
  family: 'network',
  description: `Add an IPv4 or IPv6 address to an existing interface (not lo) with ip addr add; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
  runsPrograms: false,
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (findAddress(link, p.address)) return unchanged(`${p.interface} already has ${p.address}`);
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
  mechanism: (p) => [command('ip', ['addr', 'add', p.address, 'dev', p.interface], { undo: command('ip', ['addr', 'del', p.address, 'dev', p.interface]) })],
});

export const removeAddress = action({
  name: 'RemoveAddress',
  family: 'network',
  description: `Remove an address from an interface with ip addr del; refuses lo and the last address of the interface carrying the default route; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
  runsPrograms: false,
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    const addr = findAddress(link, p.address);
    if (!addr) return unchanged(`${p.interface} has no address ${p.address}`);
    const others = link.addresses.filter((a) => a !== addr && a.scope !== 'link' && a.scope !== 'host');
    if (others.length === 0) refuseDefaultRouteDev(net, p.interface, 'remove its last address');
  },
  preview: (p, { net }) => {
    const link = requireLink(net, p.interface);
    const routes = net.routes.filter((r) => r.dev === p.interface && r.prefsrc === addressText(parseCidr(p.address)!));
    return {
      summary: `Remove ${p.address} from ${p.interface}`,
      change: { interface: p.interface, remove_address: p.address, text: `runs ip addr del ${p.address} dev ${p.interface} (${RUNTIME_ONLY})` },
      sideEffects: ['connections to or from this address break', ...(routes.length ? [`routes using it as source go too: ${routes.map(describeRoute).join('; ')}`] : [])],
      warnings: parseCidr(p.address)!.family === 4 && link.addresses.filter((a) => a.family === 4).length > 1 ? ['removing a primary IPv4 address also removes the secondary addresses of the same network unless promote_secondaries is set'] : [],
    };
  },
  mechanism: (p) => [command('ip', ['addr', 'del', p.address, 'dev', p.interface], { undo: command('ip', ['addr', 'add', p.address, 'dev', p.interface]) })],
});
