/** SetLinkState: an interface up or down with ip link set (runtime state only; never lo, never the way out). */
import { z } from 'zod';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { describeLink, readNet, requireLink } from './ip-state.js';
import { interfaceName } from './params.js';
import { refuseDefaultRouteDev, refuseLoopback, RUNTIME_ONLY } from './runtime-change.js';
import { noRollback } from '../../rollback.js';

export const setLinkState = action({
  name: 'SetLinkState',
  family: 'network',
  description: `Bring an interface up or down with ip link set; refuses lo and taking down the interface that carries the default route; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
  runsPrograms: false,
  params: params({ interface: interfaceName, state: z.enum(['up', 'down']) }),
  files: [],
  example: { interface: 'eth1', state: 'up' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (p.state === 'down') refuseDefaultRouteDev(net, p.interface, 'take it down');
    if (link.up === (p.state === 'up')) return unchanged(`${p.interface} is already ${p.state}`);
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
  mechanism: (p) => [command('ip', ['link', 'set', 'dev', p.interface, p.state], { undo: command('ip', ['link', 'set', 'dev', p.interface, p.state === 'up' ? 'down' : 'up']) })],
});
