/** AddRoute and RemoveRoute: routes of the main table, changed with ip route (runtime state only; never a default route replaced or removed). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { canonicalIp, parseCidr } from '../../lib/net-address.js';
import { command } from '../../mechanism.js';
import { ipAddress, params } from '../../params.js';
import { describeRoute, readNet, requireLink, type NetState, type RouteState } from './ip-state.js';
import { interfaceName, networkCidr, routeDestination } from './params.js';
import { family, refuseLoopback, RUNTIME_ONLY } from './runtime-change.js';
import { exact } from '../../rollback.js';
import { requireRestorable, routeArgs, routeProbe } from './ip-restore.js';

export const addRoute = action({
  name: 'AddRoute',
  family: 'network',
  description: `Add a route to a network through a gateway and/or an interface with ip route add (a default route only when there is none); ${RUNTIME_ONLY}.`,
  risk: 'high',
  readOnly: false,
  // ip route del takes out the route it added; the routes to that destination read as before.
  rollback: exact((p) => [routeProbe(routeFamily(p), p.destination)]),
  runsPrograms: false,
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
  p.destination !== 'default' ? parseCidr(p.destination)!.family : p.via ? family(p.via) : 4;
const newRoute = (p: { destination: string; via?: string | undefined; dev?: string | undefined }): RouteState => ({
  family: routeFamily(p),
  dst: p.destination,
  gateway: p.via ? canonicalIp(p.via) : null,
  dev: p.dev ?? null,
  protocol: null,
  scope: null,
  prefsrc: null,
  metric: null,
  type: null,
  onlink: false,
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
  // The undo adds the route back as read: gateway, interface, protocol, scope, source, metric, type.
  rollback: exact((p) => [routeProbe(parseCidr(p.destination)!.family, p.destination)]),
  runsPrograms: false,
  params: params({ destination: networkCidr, dev: interfaceName.optional() }),
  files: [],
  example: { destination: '10.8.0.0/24' },
  current: async (_p, host) => readNet(host),
  shown: (net) => net.routes.map(describeRoute),
  check: (p, net) => {
    const found = matchingRoutes(net, p);
    if (found.length === 0) return unchanged(`there is no route to ${p.destination}${p.dev ? ` on ${p.dev}` : ''}`);
    if (found.length > 1) throw new AirlockError('validation', 'route_ambiguous', `there are ${found.length} routes to ${p.destination}: ${found.map(describeRoute).join('; ')}`, 'name the interface (dev)');
    requireRestorable(`removing the route to ${p.destination}`, found);
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
