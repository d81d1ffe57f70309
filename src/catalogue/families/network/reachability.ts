/**
 * Reads that reach other hosts (they declare reachesNetwork): a name resolved through NSS,
 * an SSH server's host keys, a TCP port's answer. Each sends packets to a host its
 * parameters name, so none runs in a state reader, only in an approved mechanism.
 */
import { action, nothingToRead } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, port } from '../../params.js';
import { lookupHost } from './params.js';

export const resolveHost = action({
  name: 'ResolveHost',
  family: 'network',
  description: 'Resolve a host name (or check an address) the way programs on this host do, through NSS (/etc/hosts, then DNS), with getent ahosts; it does not open a connection.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  // Reaches the network: it sends a DNS query for the name through this host's resolvers.
  reachesNetwork: true,
  params: params({ host: lookupHost }),
  files: [],
  example: { host: 'deb.debian.org' },
  current: nothingToRead,
  preview: (p) => ({ summary: `Resolve ${p.host} (getent ahosts)`, change: null, sideEffects: ['may send a DNS query to the configured resolvers'] }),
  // Exit 2 = the name is not known: an answer, not a failure.
  mechanism: (p) => [command('getent', ['ahosts', '--', p.host], { okCodes: [0, 2] })],
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
