/**
 * Runtime network configuration through `ip`: addresses, routes, link state and
 * dummy interfaces. These change the kernel's live state only, which is lost at
 * reboot (persistent configuration in /etc/network/interfaces, systemd-networkd or
 * NetworkManager is out of scope). Every action reads the real state with one
 * shared reader (readNet: `ip -d -j addr show` and `ip -j route show` for both
 * families) and refuses what would cut the host off: touching lo, taking down the
 * interface that carries the default route, removing its last address, or
 * replacing/removing a default route. `ip` takes no `--` after its object
 * (it answers "garbage"), so operands always follow a keyword (dev, via) or are
 * validated addresses that never start with '-'.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Host } from '../action.js';
import { command, type CommandStep } from '../mechanism.js';
import { fqdn, ipAddress, params, token } from '../params.js';

// ---------------------------------------------------------------- parameters

/** A network interface name as the kernel allows it (IFNAMSIZ: at most 15 characters), restricted to safe characters. */
export const interfaceName = token(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/, 'interface name', 15);

/** The canonical text of an address (IPv6 compressed and lower-case); null when it is not one. */
export function canonicalIp(s: string): string | null {
  const v = isIP(s);
  if (v === 4) return s;
  if (v === 6) {
    try {
      return new URL(`http://[${s}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
  }
  return null;
}

function parseCidr(s: string): { ip: string; prefix: number; family: 4 | 6 } | null {
  const m = /^([0-9A-Fa-f.:]{2,45})\/([0-9]{1,3})$/.exec(s);
  if (!m) return null;
  const family = isIP(m[1]!);
  const prefix = Number(m[2]);
  if (family === 0 || m[2]!.length > 1 && m[2]!.startsWith('0') || prefix > (family === 4 ? 32 : 128)) return null;
  return { ip: m[1]!, prefix, family: family as 4 | 6 };
}

/** The address as a bit string (32 or 128 characters). */
function bits(ip: string): string {
  if (isIP(ip) === 4) return ip.split('.').map((o) => Number(o).toString(2).padStart(8, '0')).join('');
  const canon = canonicalIp(ip)!;
  const [head, tail] = canon.includes('::') ? canon.split('::') : [canon, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16).toString(2).padStart(16, '0')).join('');
}

const cidrBase = token(/^[0-9A-Fa-f.:]{2,45}\/[0-9]{1,3}$/, 'address with prefix length (CIDR)', 49);

/** An interface address with its prefix length: 192.0.2.10/24 or 2001:db8::10/64, in canonical form. */
export const addressCidr = cidrBase
  .refine((s) => parseCidr(s) !== null, 'must be an IPv4 or IPv6 address with a prefix length (/0-32 or /0-128), e.g. 192.0.2.10/24')
  .refine((s) => {
    const c = parseCidr(s);
    return c === null || canonicalIp(c.ip) === c.ip;
  }, 'write the address in canonical form (IPv6 lower-case and compressed, e.g. 2001:db8::10)');

/** A route destination: a network address with its prefix length, host bits zero (10.8.0.0/24, 2001:db8:1::/48). */
export const networkCidr = addressCidr.refine((s) => {
  const c = parseCidr(s);
  return c === null || !bits(c.ip).slice(c.prefix).includes('1');
}, 'the destination must be a network address: its host bits (after the prefix length) must be zero, e.g. 10.8.0.0/24');

/** A route destination for AddRoute: a network, or `default`. */
export const routeDestination = z.union([z.literal('default'), networkCidr]);

/** A host to look up: a DNS name or an IP address. */
export const lookupHost = z.union([ipAddress, fqdn]);

// ---------------------------------------------------------------- the shared state reader

export interface LinkAddress {
  family: 4 | 6;
  local: string;
  prefixlen: number;
  scope: string;
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
        .map((a) => ({ family: a.family === 'inet' ? 4 : 6, local: canonicalIp(str(a, 'local') ?? '') ?? '', prefixlen: Number(a.prefixlen), scope: str(a, 'scope') ?? '' })),
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
    };
  });
}

export async function readNet(host: Host): Promise<NetState> {
  const links = parseLinks(await ipJson(host, ['-d', '-j', 'addr', 'show']));
  const routes = [...parseRoutes(await ipJson(host, ['-j', '-4', 'route', 'show', 'table', 'main']), 4), ...parseRoutes(await ipJson(host, ['-j', '-6', 'route', 'show', 'table', 'main']), 6)];
  const defaultDevs = [...new Set(routes.filter((r) => r.dst === 'default' && r.dev).map((r) => r.dev!))];
  return { links, routes, defaultDevs };
}

// ---------------------------------------------------------------- refusals and pieces

const RUNTIME_ONLY = 'runtime state only: lost at reboot (persistent network configuration is out of scope)';

export function requireLink(net: NetState, name: string): LinkState {
  const link = net.links.find((l) => l.name === name);
  if (!link) throw new AirlockError('validation', 'no_such_interface', `there is no interface ${name} on this host`, `interfaces: ${net.links.map((l) => l.name).join(', ')}`);
  return link;
}

function refuseLoopback(name: string): void {
  if (name === 'lo') throw new AirlockError('authorization', 'loopback_interface', 'lo is the loopback interface, which local services depend on; Airlock does not change it');
}

/** The interface that carries the default route: the host's way out (and most likely the SSH session's way in). */
function refuseDefaultRouteDev(net: NetState, name: string, change: string): void {
  if (net.defaultDevs.includes(name)) {
    throw new AirlockError('authorization', 'default_route_interface', `${name} carries the default route, most likely the way in to this host; Airlock does not ${change}`, 'a person does this from a console');
  }
}

const family = (ip: string): 4 | 6 => (isIP(ip) === 6 ? 6 : 4);
const famFlag = (f: 4 | 6) => (f === 6 ? '-6' : '-4');
const describeLink = (l: LinkState) => `${l.name}${l.kind ? ` (${l.kind})` : ''}: ${l.up ? 'up' : 'down'}, ${l.operstate}, ${l.addresses.map((a) => `${a.local}/${a.prefixlen}`).join(' ') || 'no addresses'}`;
const findAddress = (l: LinkState, cidr: string) => {
  const c = parseCidr(cidr)!;
  return l.addresses.find((a) => a.local === c.ip && a.prefixlen === c.prefix);
};

/** `ip route add|del` arguments describing one route exactly as the kernel holds it. */
function routeArgs(verb: 'add' | 'del', r: Pick<RouteState, 'family' | 'dst' | 'gateway' | 'dev' | 'protocol' | 'scope' | 'prefsrc' | 'metric'>): string[] {
  const args = [famFlag(r.family), 'route', verb, r.dst];
  if (r.gateway) args.push('via', r.gateway);
  if (r.dev) args.push('dev', r.dev);
  if (r.protocol) args.push('proto', r.protocol);
  if (r.scope) args.push('scope', r.scope);
  if (r.prefsrc) args.push('src', r.prefsrc);
  if (r.metric !== null) args.push('metric', String(r.metric));
  return args;
}

const describeRoute = (r: RouteState) => `${r.dst}${r.gateway ? ` via ${r.gateway}` : ''}${r.dev ? ` dev ${r.dev}` : ''}${r.protocol ? ` proto ${r.protocol}` : ''}${r.metric !== null ? ` metric ${r.metric}` : ''}`;

// ---------------------------------------------------------------- addresses

const addressParams = params({ interface: interfaceName, address: addressCidr });

export const addAddress = action({
  name: 'AddAddress',
  family: 'network',
  description: `Add an IPv4 or IPv6 address to an existing interface (not lo) with ip addr add; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (findAddress(link, p.address)) throw new AirlockError('conflict', 'address_present', `${p.interface} already has ${p.address}`);
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
  params: addressParams,
  files: [],
  example: { interface: 'eth1', address: '192.0.2.10/24' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    const addr = findAddress(link, p.address);
    if (!addr) throw new AirlockError('conflict', 'address_absent', `${p.interface} has no address ${p.address}`, `its addresses: ${link.addresses.map((a) => `${a.local}/${a.prefixlen}`).join(', ') || 'none'}`);
    const others = link.addresses.filter((a) => a !== addr && a.scope !== 'link' && a.scope !== 'host');
    if (others.length === 0) refuseDefaultRouteDev(net, p.interface, 'remove its last address');
  },
  preview: (p, { net }) => {
    const link = requireLink(net, p.interface);
    const routes = net.routes.filter((r) => r.dev === p.interface && r.prefsrc === parseCidr(p.address)!.ip);
    return {
      summary: `Remove ${p.address} from ${p.interface}`,
      change: { interface: p.interface, remove_address: p.address, text: `runs ip addr del ${p.address} dev ${p.interface} (${RUNTIME_ONLY})` },
      sideEffects: ['connections to or from this address break', ...(routes.length ? [`routes using it as source go too: ${routes.map(describeRoute).join('; ')}`] : [])],
      warnings: family(parseCidr(p.address)!.ip) === 4 && link.addresses.filter((a) => a.family === 4).length > 1 ? ['removing a primary IPv4 address also removes the secondary addresses of the same network unless promote_secondaries is set'] : [],
    };
  },
  mechanism: (p) => [command('ip', ['addr', 'del', p.address, 'dev', p.interface], { undo: command('ip', ['addr', 'add', p.address, 'dev', p.interface]) })],
});

// ---------------------------------------------------------------- routes

export const addRoute = action({
  name: 'AddRoute',
  family: 'network',
  description: `Add a route to a network through a gateway and/or an interface with ip route add (a default route only when there is none); ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  params: params({ destination: routeDestination, via: ipAddress.optional(), dev: interfaceName.optional() }),
  files: [],
  example: { destination: '10.8.0.0/24', via: '192.0.2.1' },
  current: async (_p, host) => readNet(host),
  shown: (net) => net.routes.map(describeRoute),
  check: (p, net) => {
    if (!p.via && !p.dev) throw new AirlockError('validation', 'route_needs_target', 'a route needs a gateway (via), an interface (dev), or both');
    const fam = routeFamily(p);
    if (p.via && family(p.via) !== fam) throw new AirlockError('validation', 'family_mismatch', `gateway ${p.via} is not of the same address family as ${p.destination}`);
    if (p.dev) {
      refuseLoopback(p.dev);
      requireLink(net, p.dev);
    }
    const dst = p.destination;
    const existing = net.routes.filter((r) => r.family === fam && r.dst === dst);
    if (dst === 'default' && existing.length) {
      throw new AirlockError('authorization', 'default_route_present', `there is already an IPv${fam} default route (${existing.map(describeRoute).join('; ')}); Airlock does not add a second one or replace it`, 'a person changes the default route from a console');
    }
    if (existing.length) throw new AirlockError('conflict', 'route_present', `a route to ${dst} exists already: ${existing.map(describeRoute).join('; ')}`, 'RemoveRoute removes it first');
  },
  preview: (p) => ({
    summary: `Add a route to ${p.destination}${p.via ? ` via ${p.via}` : ''}${p.dev ? ` on ${p.dev}` : ''}`,
    change: { route: newRoute(p), text: `runs ip ${newRouteArgs('add', p).join(' ')} (${RUNTIME_ONLY})` },
    sideEffects: [p.destination === 'default' ? 'all traffic without a more specific route leaves through it' : `traffic to ${p.destination} leaves through it`],
  }),
  mechanism: (p) => [command('ip', newRouteArgs('add', p), { undo: command('ip', newRouteArgs('del', p)) })],
});

const routeFamily = (p: { destination: string; via?: string | undefined }): 4 | 6 =>
  p.destination !== 'default' ? family(parseCidr(p.destination)!.ip) : p.via ? family(p.via) : 4;
const newRoute = (p: { destination: string; via?: string | undefined; dev?: string | undefined }) => ({
  family: routeFamily(p),
  dst: p.destination,
  gateway: p.via ? canonicalIp(p.via) : null,
  dev: p.dev ?? null,
  protocol: null,
  scope: null,
  prefsrc: null,
  metric: null,
});
const newRouteArgs = (verb: 'add' | 'del', p: { destination: string; via?: string | undefined; dev?: string | undefined }) => routeArgs(verb, newRoute(p));

function matchingRoutes(net: NetState, p: { destination: string; dev?: string | undefined }): RouteState[] {
  return net.routes.filter((r) => r.dst === p.destination && (!p.dev || r.dev === p.dev));
}

export const removeRoute = action({
  name: 'RemoveRoute',
  family: 'network',
  description: `Remove one route from the main table with ip route del (never a default route); ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  params: params({ destination: networkCidr, dev: interfaceName.optional() }),
  files: [],
  example: { destination: '10.8.0.0/24' },
  current: async (_p, host) => readNet(host),
  shown: (net) => net.routes.map(describeRoute),
  check: (p, net) => {
    const found = matchingRoutes(net, p);
    if (found.length === 0) throw new AirlockError('conflict', 'route_absent', `there is no route to ${p.destination}${p.dev ? ` on ${p.dev}` : ''}`, 'ListRoutes shows the routes');
    if (found.length > 1) throw new AirlockError('validation', 'route_ambiguous', `there are ${found.length} routes to ${p.destination}: ${found.map(describeRoute).join('; ')}`, 'name the interface (dev)');
  },
  preview: (p, net) => {
    const r = matchingRoutes(net, p)[0]!;
    return {
      summary: `Remove the route ${describeRoute(r)}`,
      change: { route: r, text: `runs ip ${routeArgs('del', r).join(' ')} (${RUNTIME_ONLY})` },
      sideEffects: [`traffic to ${p.destination} follows the next matching route (the default route, if any)`],
      warnings: r.protocol === 'kernel' ? ['this route was added by the kernel for an address on the interface; it comes back only when the address is added again'] : [],
    };
  },
  mechanism: (p, net) => {
    const r = matchingRoutes(net, p)[0]!;
    return [command('ip', routeArgs('del', r), { undo: command('ip', routeArgs('add', r)) })];
  },
});

// ---------------------------------------------------------------- links

export const setLinkState = action({
  name: 'SetLinkState',
  family: 'network',
  description: `Bring an interface up or down with ip link set; refuses lo and taking down the interface that carries the default route; ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  params: params({ interface: interfaceName, state: z.enum(['up', 'down']) }),
  files: [],
  example: { interface: 'eth1', state: 'up' },
  current: async ({ interface: name }, host) => ({ net: await readNet(host), name }),
  shown: ({ net, name }) => net.links.filter((l) => l.name === name).map(describeLink),
  check: (p, { net }) => {
    refuseLoopback(p.interface);
    const link = requireLink(net, p.interface);
    if (p.state === 'down') refuseDefaultRouteDev(net, p.interface, 'take it down');
    if (link.up === (p.state === 'up')) throw new AirlockError('conflict', p.state === 'up' ? 'already_up' : 'already_down', `${p.interface} is already ${p.state}`);
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

const dummyParams = params({ name: interfaceName });
const dummyAdd = (name: string): CommandStep => command('ip', ['link', 'add', name, 'type', 'dummy']);
const dummyDel = (name: string): CommandStep => command('ip', ['link', 'del', 'dev', name, 'type', 'dummy']);

// ---------------------------------------------------------------- lookups

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
