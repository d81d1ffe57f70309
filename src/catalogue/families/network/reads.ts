/** Reads of this host's network state: addresses, routes, links, neighbours, routing rules, counters, sockets and connections (ip, ss). */
import { action } from '../../action.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { readNet, requireLink } from './ip-state.js';
import { interfaceName } from './params.js';

export const listAddresses = fixedRead({
  name: 'ListAddresses',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List the IP addresses of every interface, as JSON.',
  summary: 'List interface addresses (ip address)',
  steps: [command('ip', ['-j', 'address', 'show'])],
});

export const listRoutes = fixedRead({
  name: 'ListRoutes',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List the IPv4 and IPv6 routes of the main table, as JSON.',
  summary: 'List IPv4 and IPv6 routes (ip route)',
  steps: [command('ip', ['-j', '-4', 'route', 'show']), command('ip', ['-j', '-6', 'route', 'show'])],
});

export const listLinks = fixedRead({
  name: 'ListLinks',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List network interfaces with state, MTU and MAC address, as JSON.',
  summary: 'List network links (ip link)',
  steps: [command('ip', ['-j', 'link', 'show'])],
});

export const listListeningSockets = fixedRead({
  name: 'ListListeningSockets',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List listening TCP and UDP sockets with the owning process.',
  summary: 'List listening TCP/UDP sockets (ss)',
  steps: [command('ss', ['-H', '-l', '-n', '-t', '-u', '-p'])],
});

export const listNeighbours = fixedRead({
  name: 'ListNeighbours',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List the neighbour table (ARP for IPv4, NDP for IPv6): address, interface, link-layer address and state of each entry, as JSON.',
  summary: 'List the neighbour table (ip neigh)',
  steps: [command('ip', ['-j', 'neigh', 'show'])],
});

export const listRoutingRules = fixedRead({
  name: 'ListRoutingRules',
  sensitive: false,
  reachesNetwork: false,
  family: 'network',
  description: 'List the policy routing rules (which routing table each packet consults, by priority) for IPv4 and IPv6, as JSON.',
  summary: 'List IPv4 and IPv6 routing rules (ip rule)',
  steps: [command('ip', ['-j', '-4', 'rule', 'show']), command('ip', ['-j', '-6', 'rule', 'show'])],
});

export const interfaceStatistics = action({
  name: 'InterfaceStatistics',
  family: 'network',
  description: 'Show the byte, packet, error and drop counters of one interface, or of every interface, as JSON (ip -s link).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ interface: interfaceName.optional() }),
  files: [],
  example: { interface: 'eth0' },
  // Only a named interface needs the link list: to refuse a name that does not exist.
  current: async ({ interface: name }, host) => (name === undefined ? null : readNet(host)),
  shown: (net) => net?.links.map((l) => l.name) ?? null,
  check: ({ interface: name }, net) => {
    if (name !== undefined && net !== null) requireLink(net, name);
  },
  preview: ({ interface: name }) => ({ summary: `Show the traffic counters of ${name ?? 'every interface'} (ip -s link)`, change: null }),
  // `ip` takes no `--`: the name follows the keyword `dev` and never starts with '-'.
  mechanism: ({ interface: name }) => [command('ip', ['-j', '-s', 'link', 'show', ...(name === undefined ? [] : ['dev', name])])],
});

export const listConnections = fixedRead({
  name: 'ListConnections',
  // Sensitive: the peers of every established connection: who talks to this host.
  sensitive: true,
  reachesNetwork: false,
  family: 'network',
  description: 'List the established TCP connections: receive and send queues, local and peer address and port. Run as nobody, so it shows what any user may see, without the owning processes.',
  summary: 'List established TCP connections (ss, as nobody: without process names)',
  // Low because unprivileged: any local user can list these; the processes behind them (ss -p) need root.
  steps: [command('ss', ['-H', '-t', '-n', 'state', 'established'], { unprivileged: true })],
});
