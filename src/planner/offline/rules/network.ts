/** Rules of the network family: addresses, routes, links, sockets, /etc/hosts, DNS and reachability. */
import { missing, rule, step, steps } from '../rule.js';
import { HOSTNAME, INTERFACE, isCidr, isIp, takeCidr, takeIp, takePort, type Clause } from '../words.js';

/** An interface: a name shaped like one (eth0, ens3, wg0, br-lan), or any name right after "interface"/"dev". */
function takeInterface(c: Clause): string | null {
  return c.takeToken((t) => !t.literal && INTERFACE.test(t.low)) ?? c.after(['interface', 'dev', 'device', 'nic', 'link'], (t) => !t.literal && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/.test(t.raw) && !isIp(t.low) && !isCidr(t.low) && c.isName(t));
}

const namesInterface = (c: Clause) => c.tokens.some((t) => !t.literal && INTERFACE.test(t.low)) || ['interface', 'dev', 'nic', 'link'].some((w) => c.has(w));

const HOST_PORT = /^[a-z0-9.-]+:\d{1,5}$/;

function takeHost(c: Clause): string | null {
  return c.takeToken((t) => !t.literal && (isIp(t.low) || HOSTNAME.test(t.low)) && !/^\//.test(t.raw));
}

export const networkRules = [
  rule('network.addresses', [['ip address', 'ip addresses', 'addresses', 'ips', 'ip', 'address']], () => steps(step('ListAddresses', {}, 'the IP addresses of every interface')), { also: ['list', 'show', 'what', 'which', 'are', 'is', 'my', 'our', 'the', 'server', 'interfaces'], unless: ['add', 'remove', 'delete', 'ban', 'block', 'allow', 'unban', 'deny', 'hosts', 'fail2ban', 'banned', 'jail'] }),
  rule('network.routes', [['routes', 'routing table', 'route table', 'default gateway', 'gateway', 'default route']], () => steps(step('ListRoutes', {}, 'the routes of the main table')), { also: ['list', 'show', 'what', 'which', 'is', 'the'], unless: ['add', 'remove', 'delete'] }),
  rule('network.links', [['interfaces', 'links', 'nics', 'network cards', 'network interfaces', 'mtu', 'mac address', 'mac']], () => steps(step('ListLinks', {}, 'the network interfaces, their state and MTU')), { also: ['list', 'show', 'what', 'which', 'are', 'the', 'network', 'state'], unless: ['statistics', 'stats', 'traffic', 'errors', 'bring', 'up', 'down'] }),
  rule('network.listening', [['listening', 'open ports', 'ports', 'listens', 'listen', 'sockets']], () => steps(step('ListListeningSockets', {}, 'the listening TCP and UDP sockets and their programs')), { also: ['list', 'show', 'what', 'which', 'are', 'is', 'on', 'open', 'port', 'the', 'anything', 'something'], unless: ['allow', 'block', 'close', 'deny', 'firewall', 'reach', 'reachable'] }),
  rule('network.hosts', [['/etc/hosts', 'hosts file', 'hosts entries', 'hosts']], (c) => {
    const remove = c.takeAny(['remove', 'delete', 'drop']) !== null;
    const add = c.takeAny(['add', 'map', 'point', 'append']) !== null;
    const ip = takeIp(c);
    const names = c.takeTokens((t) => !t.literal && /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(t.low) && /[a-z]/.test(t.low) && c.isName(t) && !isIp(t.low)).map((n) => n.toLowerCase());
    if (remove) {
      if (ip === null || names.length === 0) return missing('the address and the name to remove from /etc/hosts');
      return steps(step('RemoveHostsEntry', { ip, name: names[0] }, `remove ${names[0]} from ${ip} in /etc/hosts`));
    }
    if (add || ip !== null) {
      if (ip === null || names.length === 0) return missing('an address and the names for it');
      return steps(step('AddHostsEntry', { ip, names: names.slice(0, 8) }, `map ${names.join(', ')} to ${ip} in /etc/hosts`));
    }
    return steps(step('ListHostsEntries', {}, 'the static host table /etc/hosts'));
  }, { also: ['show', 'list', 'the', 'to', 'in', 'from', 'at', 'file', 'entry'] }),
  rule('network.point', [['point', 'map'], ['at', 'to']], (c) => {
    const ip = takeIp(c);
    const names = c.takeTokens((t) => !t.literal && HOSTNAME.test(t.low) && !isIp(t.low)).map((n) => n.toLowerCase());
    return ip === null || names.length === 0 ? missing('an address and the names for it') : steps(step('AddHostsEntry', { ip, names: names.slice(0, 8) }, `map ${names.join(', ')} to ${ip} in /etc/hosts`));
  }),
  rule('network.dns', [['dns', 'resolvers', 'resolver', 'nameservers', 'nameserver', 'name servers', 'resolv.conf', '/etc/resolv.conf']], () => steps(step('DnsResolvers', {}, 'the resolver configuration')), { also: ['show', 'list', 'which', 'what', 'servers', 'configured', 'the', 'uses', 'use', 'settings'] }),
  rule('network.add-address', [['add', 'assign', 'configure', 'give']], (c) => {
    const address = takeCidr(c);
    const iface = takeInterface(c);
    return address === null || iface === null ? missing('the address with its prefix (192.0.2.10/24) and the interface') : steps(step('AddAddress', { interface: iface, address }, `add ${address} to ${iface}`));
  }, { needs: (c) => c.tokens.some((t) => isCidr(t.low)) && !c.has('route') && !c.has('via'), also: ['to', 'on', 'interface', 'address', 'ip', 'ip address'] }),
  rule('network.remove-address', [['remove', 'delete', 'drop']], (c) => {
    const address = takeCidr(c);
    const iface = takeInterface(c);
    return address === null || iface === null ? missing('the address with its prefix and the interface') : steps(step('RemoveAddress', { interface: iface, address }, `remove ${address} from ${iface}`));
  }, { needs: (c) => c.tokens.some((t) => isCidr(t.low)) && !c.has('route') && !c.has('via'), also: ['from', 'on', 'interface', 'address', 'ip', 'ip address'] }),
  rule('network.add-route', [['add', 'create', 'route'], ['route', 'via', 'through']], (c) => {
    const remove = c.takeAny(['remove', 'delete']) !== null;
    const destination = c.take('default') ? 'default' : takeCidr(c);
    const via = c.after(['via', 'through', 'gateway'], (t) => isIp(t.low));
    const dev = c.after(['dev', 'interface'], (t) => !t.literal && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/.test(t.raw));
    if (destination === null) return missing('the destination network (10.8.0.0/24)');
    if (remove) return steps(step('RemoveRoute', { destination, ...(dev !== null ? { dev } : {}) }, `remove the route to ${destination}`));
    if (via === null && dev === null) return missing('the gateway (via) or the interface');
    return steps(step('AddRoute', { destination, ...(via !== null ? { via } : {}), ...(dev !== null ? { dev } : {}) }, `route ${destination}${via !== null ? ` via ${via}` : ''}`));
  }, { needs: (c) => c.tokens.some((t) => isCidr(t.low) || t.low === 'default'), also: ['to', 'a', 'the', 'network'], unless: ['remove', 'delete'] }),
  rule('network.remove-route', [['remove', 'delete', 'drop'], ['route']], (c) => {
    const destination = takeCidr(c);
    return destination === null ? missing('the destination network of the route') : steps(step('RemoveRoute', { destination }, `remove the route to ${destination}`));
  }, { also: ['to', 'the'] }),
  rule('network.link-state', [['bring', 'take', 'set', 'turn', 'put'], ['up', 'down']], (c) => {
    const state = c.said('up') ? 'up' : c.said('down') ? 'down' : null;
    const iface = takeInterface(c);
    return state === null || iface === null ? missing('the interface and up or down') : steps(step('SetLinkState', { interface: iface, state }, `bring ${iface} ${state}`));
  }, { needs: namesInterface, also: ['interface', 'link'] }),
  rule('network.resolve', [['resolve', 'resolves', 'lookup', 'look up', 'nslookup', 'dig', 'dns lookup', 'resolving']], (c) => {
    const host = takeHost(c);
    return host === null ? missing('which name to resolve') : steps(step('ResolveHost', { host: host.toLowerCase() }, `the addresses ${host} resolves to`));
  }, { also: ['what', 'does', 'to', 'the', 'name', 'address', 'of', 'can', 'we'] }),
  rule('network.neighbours', [['neighbours', 'neighbors', 'arp', 'arp table', 'neighbour table', 'neighbor table']], () => steps(step('ListNeighbours', {}, 'the neighbour (ARP/NDP) table')), { also: ['show', 'list', 'the', 'cache'] }),
  rule('network.rules', [['routing rules', 'ip rules', 'ip rule', 'policy routing']], () => steps(step('ListRoutingRules', {}, 'the policy routing rules')), { also: ['show', 'list', 'the'] }),
  rule('network.stats', [['statistics', 'stats', 'traffic', 'packet errors', 'dropped packets', 'counters', 'errors', 'drops']], (c) => {
    const iface = takeInterface(c);
    return steps(step('InterfaceStatistics', iface === null ? {} : { interface: iface }, `traffic counters${iface === null ? '' : ` of ${iface}`}`));
  }, { needs: (c) => c.tokens.some((t) => INTERFACE.test(t.low) || ['interface', 'interfaces', 'network', 'nic'].includes(t.low)), also: ['show', 'network', 'interface', 'interfaces', 'of', 'on', 'the', 'packet', 'packets'] }),
  rule('network.connections', [['connections', 'established', 'connected', 'tcp connections', 'talking to', 'connecting to']], () => steps(step('ListConnections', {}, 'the established TCP connections')), { also: ['show', 'list', 'who', 'is', 'to', 'the', 'open', 'active', 'network'], unless: ['ssh', 'sshd'] }),
  rule('network.scan-ssh', [['scan', 'keyscan', 'ssh-keyscan', 'host keys of', 'answer'], ['ssh', 'host keys', 'keys', 'host key', 'sshd']], (c) => {
    const port = takePort(c, { byName: false });
    const host = takeHost(c);
    return host === null ? missing('which host') : steps(step('ScanSshHostKeys', { host: host.toLowerCase(), ...(port !== null ? { port: port.port } : {}) }, `the SSH host keys ${host} offers`));
  }, { also: ['of', 'on', 'at', 'the', 'does', 'server', 'for'] }),
  rule('network.check-port', [['reach', 'reachable', 'connect', 'connectivity', 'talk to', 'get to', 'open on', 'check', 'test', 'ping']], (c) => {
    // "10.0.0.5:5432", "db.internal:5432": host and port in one word.
    const joined = c.takeToken((t) => !t.literal && HOST_PORT.test(t.low) && (isIp(t.low.split(':')[0]!) || HOSTNAME.test(t.low.split(':')[0]!)));
    if (joined !== null) {
      const [h, p] = joined.toLowerCase().split(':') as [string, string];
      return steps(step('CheckTcpPort', { host: h, port: Number(p) }, `whether ${h} accepts TCP connections on port ${p}`));
    }
    const port = takePort(c);
    const host = takeHost(c);
    if (host === null) return missing('which host');
    if (port === null) return missing(`which TCP port on ${host}`);
    return steps(step('CheckTcpPort', { host: host.toLowerCase(), port: port.port }, `whether ${host} accepts TCP connections on port ${port.port}`));
  }, { needs: (c) => c.tokens.some((t) => !t.literal && (HOSTNAME.test(t.low) || isIp(t.low) || HOST_PORT.test(t.low))) && !c.tokens.some((t) => ['ban', 'unban', 'block', 'allow', 'hosts'].includes(t.low)), also: ['can', 'we', 'it', 'to', 'is', 'on', 'port', 'whether', 'from', 'here', 'if', 'why', 'not', 'at', 'the'] }),
];
