/** The SSH connections open now: established TCP connections to sshd's ports (ss), and the sshd processes serving them (ps). */
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { parseEffective } from './sshd-config.js';
import { privsepMissing, privsepWarning, refuseWithoutSshd, sshdInstalled } from './sshd-state.js';

const SSH_PORT = 22;
const MAX_PORTS = 16;

/** The ports sshd listens on, from `sshd -T`: every `port` line and the port of every `listenaddress`. */
export function sshdPorts(effective: Map<string, string[]>): number[] {
  const listen = (effective.get('listenaddress') ?? []).map((a) => /:(\d+)$/.exec(a)?.[1] ?? '');
  const ports = [...(effective.get('port') ?? []), ...listen].filter((p) => /^[0-9]{1,5}$/.test(p)).map(Number).filter((n) => n >= 1 && n <= 65535);
  return [...new Set(ports)].sort((a, b) => a - b).slice(0, MAX_PORTS);
}

/**
 * ss's selection of sockets whose local port is one of `ports`: `( sport = :22 or sport = :2222 )`.
 * ss has no selection by process, and its expression is the only way to keep other connections
 * out of the output; this one is built from fixed words and numbers sshd reported, never from a parameter.
 */
export function localPortFilter(ports: number[]): string[] {
  return ['(', ...ports.flatMap((p, i) => [...(i > 0 ? ['or'] : []), 'sport', '=', `:${p}`]), ')'];
}

export const listSshSessions = action({
  name: 'ListSshSessions',
  family: 'ssh',
  // Medium: it shows who is connected and from which addresses.
  description: "List the SSH connections open now: established TCP connections to sshd's ports with the sshd processes serving them (ss), then the sshd processes with the user each one serves (ps).",
  risk: 'medium',
  readOnly: true,
  // Sensitive: other users' SSH connections and the addresses they come from.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const installed = await sshdInstalled(host);
    const t = installed ? await host.run('sshd', ['-T']) : null;
    const ports = t?.code === 0 ? sshdPorts(parseEffective(t.stdout)) : [];
    return { installed, portsKnown: ports.length > 0, ports: ports.length ? ports : [SSH_PORT], privsepMissing: installed && (await privsepMissing(host)) };
  },
  check: (_p, cur) => refuseWithoutSshd(cur.installed),
  preview: (_p, cur) => ({
    summary: `List the SSH connections open now (sshd port${cur.ports.length > 1 ? 's' : ''} ${cur.ports.join(', ')})`,
    change: null,
    warnings: cur.portsKnown ? [] : [`sshd -T could not say which ports sshd listens on, so connections to port ${SSH_PORT} are listed`, ...privsepWarning(cur.privsepMissing)],
  }),
  mechanism: (_p, cur) => [
    command('ss', ['-H', '-t', '-n', '-p', 'state', 'established', ...localPortFilter(cur.ports)]),
    // OpenSSH 9.8 and later serve each connection from a separate sshd-session process; ps exits 1 when none runs.
    command('ps', ['-C', 'sshd,sshd-session', '-o', 'pid=,user:32=,lstart=,args='], { okCodes: [0, 1] }),
  ],
});
