/**
 * The network state every runtime change reads with one reader (readNet: `ip -d -j addr show`
 * and `ip -j route show` for both families), with addresses in canonical form.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { canonicalIp } from '../../lib/net-address.js';

export interface LinkAddress {
  family: 4 | 6;
  local: string;
  prefixlen: number;
  scope: string;
  /** What `ip addr add` set besides the address (each null or absent when not set): what an undo adds it back with. */
  broadcast: string | null;
  label: string | null;
  /** IPv4: not the first address of its network on the interface. */
  secondary: boolean;
  /** With a lifetime (SLAAC, DHCP): the kernel or a client manages it, it is never re-added as a permanent one. */
  dynamic: boolean;
  /** The flags of `ip addr add` that it carries: home, mngtmpaddr, nodad, optimistic, noprefixroute, autojoin. */
  flags: string[];
}
export interface LinkState {
  name: string;
  /** linkinfo.info_kind: dummy, veth, bridge, ... ('' for a physical interface or lo). */
  kind: string;
  up: boolean;
  operstate: string;
  addresses: LinkAddress[];
}
export interface RouteState {
  family: 4 | 6;
  /** `default` or a CIDR (a host route is written with /32 or /128). */
  dst: string;
  gateway: string | null;
  dev: string | null;
  protocol: string | null;
  scope: string | null;
  prefsrc: string | null;
  metric: number | null;
  /** unicast is null; blackhole, unreachable, prohibit, ... */
  type: string | null;
  onlink: boolean;
}
export interface NetState {
  links: LinkState[];
  routes: RouteState[];
  /** Interfaces that carry a default route (either family). */
  defaultDevs: string[];
}

async function ipJson(host: Host, args: string[]): Promise<unknown[]> {
  const r = await host.run('ip', args);
  if (r.code !== 0) throw new AirlockError('execution', 'ip_unreadable', `ip ${args.join(' ')} failed (exit status ${r.code}): ${r.stderr.trim()}`);
  try {
    const v: unknown = JSON.parse(r.stdout || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    throw new AirlockError('execution', 'ip_unreadable', `ip ${args.join(' ')} printed something that is not JSON`);
  }
}

const str = (o: Record<string, unknown>, k: string): string | null => (typeof o[k] === 'string' ? (o[k] as string) : null);
/** The address flags `ip addr add` takes, as `ip -j` prints them (true when set). */
const ADD_FLAGS = ['home', 'mngtmpaddr', 'nodad', 'optimistic', 'noprefixroute', 'autojoin'];

export function parseLinks(rows: unknown[]): LinkState[] {
  return rows.map((row) => {
    const o = row as Record<string, unknown>;
    const info = (o.linkinfo ?? {}) as Record<string, unknown>;
    const flags = Array.isArray(o.flags) ? (o.flags as string[]) : [];
    const addrs = Array.isArray(o.addr_info) ? (o.addr_info as Record<string, unknown>[]) : [];
    return {
      name: str(o, 'ifname') ?? '',
      kind: str(info, 'info_kind') ?? '',
      up: flags.includes('UP'),
      operstate: str(o, 'operstate') ?? '',
      addresses: addrs
        .filter((a) => a.family === 'inet' || a.family === 'inet6')
        .map((a) => ({
          family: a.family === 'inet' ? 4 : 6,
          local: canonicalIp(str(a, 'local') ?? '') ?? '',
          prefixlen: Number(a.prefixlen),
          scope: str(a, 'scope') ?? '',
          broadcast: str(a, 'broadcast'),
          label: str(a, 'label'),
          secondary: a.secondary === true,
          dynamic: a.dynamic === true,
          flags: ADD_FLAGS.filter((f) => a[f] === true),
        })),
    };
  });
}

export function parseRoutes(rows: unknown[], family: 4 | 6): RouteState[] {
  return rows.map((row) => {
    const o = row as Record<string, unknown>;
    const dst = str(o, 'dst') ?? '';
    const gateway = str(o, 'gateway');
    return {
      family,
      dst: dst === 'default' || dst.includes('/') ? dst : `${canonicalIp(dst) ?? dst}/${family === 4 ? 32 : 128}`,
      gateway: gateway === null ? null : canonicalIp(gateway) ?? gateway,
      dev: str(o, 'dev'),
      protocol: str(o, 'protocol'),
      scope: str(o, 'scope'),
      prefsrc: str(o, 'prefsrc'),
      metric: typeof o.metric === 'number' ? o.metric : null,
      type: str(o, 'type'),
      onlink: Array.isArray(o.flags) && (o.flags as unknown[]).includes('onlink'),
    };
  });
}

export async function readNet(host: Host): Promise<NetState> {
  const links = parseLinks(await ipJson(host, ['-d', '-j', 'addr', 'show']));
  const routes = [...parseRoutes(await ipJson(host, ['-j', '-4', 'route', 'show', 'table', 'main']), 4), ...parseRoutes(await ipJson(host, ['-j', '-6', 'route', 'show', 'table', 'main']), 6)];
  const defaultDevs = [...new Set(routes.filter((r) => r.dst === 'default' && r.dev).map((r) => r.dev!))];
  return { links, routes, defaultDevs };
}

/** The interface of that name, or the refusal that lists the ones there are. */
export function requireLink(net: NetState, name: string): LinkState {
  const link = net.links.find((l) => l.name === name);
  if (!link) throw new AirlockError('validation', 'no_such_interface', `there is no interface ${name} on this host`, `interfaces: ${net.links.map((l) => l.name).join(', ')}`);
  return link;
}

/** One line per interface and per route, as previews show them. */
export const describeLink = (l: LinkState) => `${l.name}${l.kind ? ` (${l.kind})` : ''}: ${l.up ? 'up' : 'down'}, ${l.operstate}, ${l.addresses.map((a) => `${a.local}/${a.prefixlen}`).join(' ') || 'no addresses'}`;
export const describeRoute = (r: RouteState) => `${r.dst}${r.gateway ? ` via ${r.gateway}` : ''}${r.dev ? ` dev ${r.dev}` : ''}${r.protocol ? ` proto ${r.protocol}` : ''}${r.metric !== null ? ` metric ${r.metric}` : ''}`;
