/**
 * Diagnostics: the reads an administrator reaches for when something is wrong (neighbours,
 * counters, routing rules, connections, an SSH server's reachability, boots, kernel messages,
 * journal integrity, a user's processes, limits, file metadata, a search in a configuration
 * file, boot parameters, resource pressure). Each action keeps its real family; the state
 * readers and validators are the ones those families use.
 *
 * Not offered, because the test bed cannot execute them for real: loading a kernel module
 * and describing one with modinfo (its kernel has no loadable module support, no
 * /lib/modules and no /sys/module), and a generic TCP port check (no program in the
 * test bed connects to a port without a shell around it: see ScanSshHostKeys).
 */
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead } from '../action.js';
import { command, fileScan } from '../mechanism.js';
import { params, port } from '../params.js';
import { interfaceName, lookupHost, readNet, requireLink } from './netconfig.js';
import { fixedRead } from '../lib/fixed-read.js';

// ---------------------------------------------------------------- network

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

/** ssh-keyscan gives up on a connection after this many seconds without an answer. */
const KEYSCAN_TIMEOUT_S = 5;

export const scanSshHostKeys = action({
  name: 'ScanSshHostKeys',
  family: 'network',
  description:
    `Check that an SSH server answers at a host and port: show the addresses the name resolves to (getent ahosts) and the public host keys the server offers (ssh-keyscan, ${KEYSCAN_TIMEOUT_S} s timeout). ` +
    'No key lines means no SSH server answered there (nothing listens, a firewall drops it, or another protocol answers).',
  // Low: host keys are public, and any user may open these connections; nothing is authenticated.
  risk: 'low',
  readOnly: true,
  sensitive: false,
  // Reaches the network: it resolves the host and starts an SSH handshake with it.
  reachesNetwork: true,
  params: params({ host: lookupHost, port: port.optional().describe('TCP port of the SSH server (default 22)') }),
  files: [],
  example: { host: 'git.example.org', port: 22 },
  current: nothingToRead,
  preview: ({ host, port: p }) => ({
    summary: `Resolve ${host} and fetch the SSH host keys offered at port ${p ?? 22}`,
    change: null,
    sideEffects: [
      'may send a DNS query to the configured resolvers',
      `opens a few TCP connections from this host to ${host}:${p ?? 22} (one per key type), closed before authentication; the server may log them`,
    ],
  }),
  mechanism: ({ host, port: p }) => [
    // Exit 2: the name is not known; an answer, not a failure.
    command('getent', ['ahosts', '--', host], { okCodes: [0, 2] }),
    // Exit 1: no server answered; the empty output says so.
    command('ssh-keyscan', ['-T', String(KEYSCAN_TIMEOUT_S), '-p', String(p ?? 22), '--', host], { okCodes: [0, 1], timeoutMs: 30_000 }),
  ],
});

/** nc gives up on a connection attempt after this many seconds. */
const CONNECT_TIMEOUT_S = 5;

export const checkTcpPort = action({
  name: 'CheckTcpPort',
  family: 'network',
  description:
    `Connectivity check: show the addresses a host name resolves to (getent ahosts) and whether a TCP connection to a port succeeds (nc -z, ${CONNECT_TIMEOUT_S} s timeout), without sending any data. ` +
    'The job succeeds when the port accepts the connection and fails, saying why (refused, timed out, no route), when it does not.',
  // Low: any user can open this connection; nothing is sent over it and nothing here changes.
  risk: 'low',
  readOnly: true,
  sensitive: false,
  // Reaches the network: it resolves the host and opens a TCP connection to it.
  reachesNetwork: true,
  params: params({ host: lookupHost, port }),
  files: [],
  example: { host: 'deb.debian.org', port: 443 },
  current: nothingToRead,
  preview: ({ host, port: p }) => ({
    summary: `Resolve ${host} and try a TCP connection to port ${p}`,
    change: null,
    sideEffects: ['may send a DNS query to the configured resolvers', `opens one TCP connection from this host to ${host}:${p} and closes it at once; the other side may log it`],
  }),
  mechanism: ({ host, port: p }) => [
    command('getent', ['ahosts', '--', host], { okCodes: [0, 2] }),
    // -z: connect, send nothing, close. -v: nc's reason for a failure ("Connection refused") is
    // the last stderr line, which becomes the job's error message.
    command('nc', ['-z', '-v', '-w', String(CONNECT_TIMEOUT_S), '--', host, String(p)], { timeoutMs: 30_000 }),
  ],
});

// ---------------------------------------------------------------- kernel

export const kernelCommandLine = fixedRead({
  name: 'KernelCommandLine',
  // Sensitive: the boot parameters, which may carry a seed URL or token (cloud-init ds=...).
  sensitive: true,
  reachesNetwork: false,
  family: 'kernel',
  description: 'Show the parameters the running kernel was booted with (/proc/cmdline).',
  summary: 'Read the kernel command line (/proc/cmdline)',
  files: ['/proc/cmdline'],
  steps: [fileScan('/proc/cmdline')],
});

const PRESSURE_FILES = ['/proc/pressure/cpu', '/proc/pressure/memory', '/proc/pressure/io'];

export const resourcePressure = action({
  name: 'ResourcePressure',
  family: 'kernel',
  description:
    'Show pressure stall information: the share of time some (or all) tasks waited for CPU, memory or I/O over the last 10, 60 and 300 seconds, and the total wait in microseconds; each line is prefixed with its file (/proc/pressure/cpu, memory, io).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: PRESSURE_FILES,
  example: {},
  current: async (_p, host) => ({ available: (await host.stat(PRESSURE_FILES[0]!)) !== null }),
  check: (_p, cur) => {
    if (!cur.available) {
      throw new AirlockError('unsupported_platform', 'no_pressure_information', 'this kernel reports no pressure stall information (/proc/pressure is absent: built without CONFIG_PSI, or booted with psi=0)', 'KernelCommandLine shows the boot parameters');
    }
  },
  preview: () => ({ summary: 'Read CPU, memory and I/O pressure (/proc/pressure)', change: null }),
  // A pattern every line matches: grep is here only to prefix each line with the file it comes from.
  mechanism: () => [command('grep', ['--with-filename', '--regexp=^', '--', ...PRESSURE_FILES])],
});
