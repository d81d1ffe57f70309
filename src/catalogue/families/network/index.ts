/**
 * Network: this host's addresses, routes, links and sockets (read with ip and ss; changed at
 * runtime only, through ip: see runtime-change.ts), /etc/hosts and the resolver
 * configuration, and reads that reach other hosts (name resolution, SSH host keys, a TCP
 * port). Persistent network configuration (/etc/network/interfaces, systemd-networkd,
 * NetworkManager) is out of scope.
 */
import type { AnyAction } from '../../action.js';
import { addAddress, removeAddress } from './addresses.js';
import { addHostsEntry, listHostsEntries, removeHostsEntry } from './hosts.js';
import { setLinkState } from './links.js';
import { checkTcpPort, resolveHost, scanSshHostKeys } from './reachability.js';
import { interfaceStatistics, listAddresses, listConnections, listLinks, listListeningSockets, listNeighbours, listRoutes, listRoutingRules } from './reads.js';
import { dnsResolvers } from './resolvers.js';
import { addRoute, removeRoute } from './routes.js';

/** The network family: addresses, routes, links, sockets, /etc/hosts, resolvers and reachability checks. */
export const actions: readonly AnyAction[] = [
  listAddresses,
  listRoutes,
  listLinks,
  listListeningSockets,
  listHostsEntries,
  dnsResolvers,
  addHostsEntry,
  removeHostsEntry,
  addAddress,
  removeAddress,
  addRoute,
  removeRoute,
  setLinkState,
  resolveHost,
  listNeighbours,
  listRoutingRules,
  interfaceStatistics,
  listConnections,
  scanSshHostKeys,
  checkTcpPort,
];
