/** SetLinkState: an interface up or down with ip link set (runtime state only; never lo, never the way out). */
import { z } from 'zod';
import { action, type Host, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { exact } from '../../rollback.js';
import { addressProbe, dropped, flushedOnDown, linkProbe, requireRestorable, restoreSteps, routesViaProbe } from './ip-restore.js';
import { describeLink, readNet, requireLink, type NetState } from './ip-state.js';
import { interfaceName } from './params.js';
import { refuseDefaultRouteDev, refuseLoopback, RUNTIME_ONLY } from './runtime-change.js';

/** keep_addr_on_down, for the interface or all: a down then keeps its permanent IPv6 addresses. */
async function keepsAddresses(host: Host, name: string): Promise<boolean> {
  const read = async (where: string) => Number((await host.readFile(`/proc/sys/net/ipv6/conf/${where}/keep_addr_on_down`))?.trim() ?? 0) > 0;
  return (await read('all')) || (await read(name));
}

/**
 * What a down drops and nothing brings back by itself, whichever way this change goes (the undo
 * of an up is a down): the routes through the interface, and its permanent IPv6 addresses.
 */
function droppedByDown(net: NetState, name: string, keep: boolean) {
  return { routes: dropped(net, (r) => r.dev === name), addresses: flushedOnDown(requireLink(net, name).addresses, keep) };
}

export const setLinkState = action({
  name: 'SetLinkState',
  family: 'network',
  description: `Bring an interface up or down with ip link set; refuses lo and taking down the interface that carries the default route; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  // The undo sets the link back, then puts back the IPv6 addresses and the routes the down dropped.
  rollback: exact((p) => [linkProbe(p.interface), addressProbe(p.interface), routesViaProbe(4, p.interface), routesViaProbe(6, p.interface)]),
  runsPrograms: false,
  params: params({ interface: interfaceName, state: z.enum(['up', 'down']) }),
  files: [],
  example: { interface: 'eth1', state: 'up' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name, keep: await keepsAddresses(host, name) }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net, keep }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (p.state === 'down') refuseDefaultRouteDev(net, p.interface, 'take it down');
    if (link.up === (p.state === 'up')) return unchanged(`${p.interface} is already ${p.state}`);
    const { routes, addresses } = droppedByDown(net, p.interface, keep);
    requireRestorable(`taking ${p.interface} down`, p.state === 'down' ? routes : [], addresses, addresses.length > 0);
  },
  preview: (p, { net }) => {
    const link = requireLink(net, p.interface);
    return {
      summary: `Bring ${p.interface} ${p.state}`,
      change: { interface: p.interface, state: { from: link.up ? 'up' : 'down', to: p.state }, text: `runs ip link set dev ${p.interface} ${p.state} (${RUNTIME_ONLY})` },
      sideEffects:
        p.state === 'down'
          ? [`traffic through ${p.interface} stops; the routes through it are removed by the kernel${link.addresses.some((a) => a.family === 6) ? ' and its IPv6 addresses may be flushed' : ''}`]
          : [`${p.interface} starts carrying traffic for its addresses and routes`],
    };
  },
  mechanism: (p, { net, keep }) => {
    const { routes, addresses } = droppedByDown(net, p.interface, keep);
    // Brought up, the interface has no route yet to put back: only the addresses its undo's down flushes.
    return [
      ...restoreSteps(p.interface, p.state === 'down' ? routes : [], addresses),
      command('ip', ['link', 'set', 'dev', p.interface, p.state], { undo: command('ip', ['link', 'set', 'dev', p.interface, p.state === 'up' ? 'down' : 'up']) }),
    ];
  },
});
