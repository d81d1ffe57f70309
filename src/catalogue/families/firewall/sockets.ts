/** The sockets SSH depends on, read with ss: the ports sshd listens on and the peers of open SSH sessions. */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { netText, parseNet } from '../../lib/net-address.js';
import { unmapped } from './addresses.js';

export interface Listener {
  proto: string;
  address: string;
  port: number;
  processes: string[];
}

export interface Sockets {
  listeners: Listener[];
  /** Ports sshd listens on (22 when no sshd is seen listening). */
  sshPorts: number[];
  /** Open SSH sessions: the local port and the peer's address. */
  sshPeers: Array<{ port: number; peer: string }>;
}

/** "0.0.0.0:22", "[::]:22", "127.0.0.53%lo:53", "[::ffff:10.0.0.5]:22" -> address and port. */
function parseEndpoint(tok: string): { address: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^\s%[\]]+))(?:%[^\s:]+)?:(\d+)$/.exec(tok);
  return m ? { address: (m[1] ?? m[2])!, port: Number(m[3]) } : null;
}

/** Parses `ss -H -l -n -t -u -p` (listeners) and `ss -H -n -t state established` (sessions). */
export function parseSockets(listening: string, established: string): Sockets {
  const listeners: Listener[] = [];
  for (const line of listening.split('\n')) {
    const toks = line.trim().split(/\s+/);
    const local = toks.map(parseEndpoint).find((e) => e !== null);
    if (!local) continue;
    const processes = [...new Set([...line.matchAll(/\("([^"]+)",/g)].map((m) => m[1]!))];
    listeners.push({ proto: toks[0] === 'udp' ? 'udp' : 'tcp', ...local, processes });
  }
  const sshd = listeners.filter((l) => l.proto === 'tcp' && l.processes.includes('sshd')).map((l) => l.port);
  const sshPorts = sshd.length ? [...new Set(sshd)].sort((a, b) => a - b) : [22];
  const sshPeers: Sockets['sshPeers'] = [];
  for (const line of established.split('\n')) {
    const ends = line.trim().split(/\s+/).flatMap((t) => parseEndpoint(t) ?? []);
    const peer = ends[1] ? parseNet(ends[1].address) : null;
    if (!ends[0] || !peer || !sshPorts.includes(ends[0].port)) continue;
    sshPeers.push({ port: ends[0].port, peer: netText(unmapped(peer)) });
  }
  return { listeners, sshPorts, sshPeers };
}

export async function readSockets(host: Host): Promise<Sockets> {
  const l = await host.run('ss', ['-H', '-l', '-n', '-t', '-u', '-p']);
  const e = await host.run('ss', ['-H', '-n', '-t', 'state', 'established']);
  if (l.code !== 0 || e.code !== 0) {
    throw new AirlockError('execution', 'sockets_unreadable', 'ss could not list the sockets, so Airlock cannot tell whether this change would cut SSH off', 'is iproute2 installed?');
  }
  return parseSockets(l.stdout, e.stdout);
}
