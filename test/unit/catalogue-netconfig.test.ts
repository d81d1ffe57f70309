import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as addresses from '../../src/catalogue/families/network/addresses.js';
import * as links from '../../src/catalogue/families/network/links.js';
import { addressCidr, interfaceName, lookupHost, networkCidr, routeDestination } from '../../src/catalogue/families/network/params.js';
import { resolveHost } from '../../src/catalogue/families/network/reachability.js';
import * as routes from '../../src/catalogue/families/network/routes.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';
import type { StateProbe } from '../../src/catalogue/rollback.js';

// The runtime changes through ip (addresses.ts, routes.ts, links.ts) and ResolveHost: the actions of the old netconfig.ts.
const actions = [...Object.values(addresses), ...Object.values(routes), ...Object.values(links), resolveHost].filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const { run, refused } = actionRunner(actions);

interface Net {
  links?: unknown[];
  v4?: unknown[];
  v6?: unknown[];
}
const link = (name: string, o: { kind?: string; up?: boolean; addrs?: Array<[string, number, string?]> } = {}) => ({
  ifname: name,
  flags: o.up === false ? ['BROADCAST'] : ['BROADCAST', 'UP', 'LOWER_UP'],
  operstate: o.up === false ? 'DOWN' : 'UP',
  ...(o.kind ? { linkinfo: { info_kind: o.kind } } : {}),
  addr_info: (o.addrs ?? []).map(([local, prefixlen, scope]) => ({ family: local.includes(':') ? 'inet6' : 'inet', local, prefixlen, scope: scope ?? 'global' })),
});
const LO = link('lo', { addrs: [['127.0.0.1', 8, 'host']] });
/** eth0 carries the default route; eth1 and dummy0 do not. */
const BASE: Net = {
  links: [LO, link('eth0', { addrs: [['192.0.2.5', 24], ['fe80::1', 64, 'link']] }), link('eth1', { up: false, addrs: [['198.51.100.7', 24]] }), link('dummy0', { kind: 'dummy' }), link('veth0', { kind: 'veth' })],
  v4: [
    { dst: 'default', gateway: '192.0.2.1', dev: 'eth0', protocol: 'static', flags: [] },
    { dst: '192.0.2.0/24', dev: 'eth0', protocol: 'kernel', scope: 'link', prefsrc: '192.0.2.5', flags: [] },
    { dst: '10.8.0.0/24', gateway: '192.0.2.9', dev: 'eth0', flags: [] },
    { dst: '10.9.0.0/24', dev: 'eth0', flags: [] },
    { dst: '10.9.0.0/24', dev: 'eth1', flags: [] },
  ],
  v6: [{ dst: 'fd00:1::/64', dev: 'eth1', protocol: 'kernel', metric: 256, flags: [], pref: 'medium' }],
};

function netHost(net: Net = BASE, tree: Record<string, Node> = { '/sys/module/dummy/parameters/numdummies': '0' }) {
  return new FixtureHost(tree, (program, args) => {
    if (program === 'ip' && args.join(' ') === '-d -j addr show') return { code: 0, stdout: JSON.stringify(net.links ?? []), stderr: '' };
    if (program === 'ip' && args.join(' ') === '-j -4 route show table main') return { code: 0, stdout: JSON.stringify(net.v4 ?? []), stderr: '' };
    if (program === 'ip' && args.join(' ') === '-j -6 route show table main') return { code: 0, stdout: JSON.stringify(net.v6 ?? []), stderr: '' };
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

test('netconfig actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean]> = {
    AddAddress: ['high', false],
    RemoveAddress: ['high', false],
    AddRoute: ['high', false],
    RemoveRoute: ['high', false],
    SetLinkState: ['high', false],
    ResolveHost: ['low', true],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.deepEqual([a.risk, a.readOnly], expected[a.name], a.name);
    assert.equal(a.family, 'network');
    assert.deepEqual(a.files, []);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example is valid`);
  }
});

test('validators refuse injection strings', () => {
  for (const bad of INJECTIONS) {
    for (const v of [interfaceName, addressCidr, networkCidr, routeDestination, lookupHost]) assert.equal(v.safeParse(bad).success, false, JSON.stringify(bad).slice(0, 40));
  }
  for (const bad of ['eth0; id', 'a'.repeat(16), '-eth0', 'eth0/1', '../x', 'eth 0']) assert.equal(interfaceName.safeParse(bad).success, false, bad);
  for (const bad of ['192.0.2.1', '192.0.2.1/33', '2001:db8::1/129', '192.0.2.1/024', '2001:DB8::1/64', '2001:db8:0::1/64', 'default', '1.2.3/8', '192.0.2.1/24 dev lo']) assert.equal(addressCidr.safeParse(bad).success, false, bad);
  for (const good of ['192.0.2.10/24', '2001:db8::10/64', '10.0.0.1/32', '::1/128']) assert.ok(addressCidr.safeParse(good).success, good);
  for (const bad of ['10.8.0.1/24', '2001:db8::1/64', 'default']) assert.equal(networkCidr.safeParse(bad).success, false, bad);
  for (const good of ['10.8.0.0/24', '2001:db8::/32', '0.0.0.0/0', '10.8.0.5/32']) assert.ok(networkCidr.safeParse(good).success, good);
  assert.ok(routeDestination.safeParse('default').success);
  for (const good of ['deb.debian.org', 'localhost', '192.0.2.1', '2001:db8::1']) assert.ok(lookupHost.safeParse(good).success, good);
  for (const a of actions) assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false, `${a.name} refuses unknown keys`);
});

test('AddAddress and RemoveAddress: exact argv with undo', async () => {
  const add = await run('AddAddress', { interface: 'eth1', address: '198.51.100.8/24' }, netHost());
  assert.deepEqual(add.steps, [{ kind: 'command', program: 'ip', args: ['addr', 'add', '198.51.100.8/24', 'dev', 'eth1'], undo: { kind: 'command', program: 'ip', args: ['addr', 'del', '198.51.100.8/24', 'dev', 'eth1'] } }]);
  assert.ok(add.preview.warnings?.some((w) => w.includes('eth1 is down')));
  const del = await run('RemoveAddress', { interface: 'eth1', address: '198.51.100.7/24' }, netHost());
  // eth1's last IPv4 address: the kernel flushes the IPv4 routes through it, which the undo puts back after the address.
  assert.deepEqual(del.steps, [
    { kind: 'command', program: 'ip', args: ['-j', '-4', 'route', 'show', 'table', 'main', 'exact', '10.9.0.0/24'], undo: { kind: 'command', program: 'ip', args: ['-4', 'route', 'replace', '10.9.0.0/24', 'dev', 'eth1'] } },
    { kind: 'command', program: 'ip', args: ['addr', 'del', '198.51.100.7/24', 'dev', 'eth1'], undo: { kind: 'command', program: 'ip', args: ['addr', 'add', '198.51.100.7/24', 'dev', 'eth1'] } },
  ]);
  const v6 = await run('AddAddress', { interface: 'eth0', address: '2001:db8::10/64' }, netHost());
  assert.deepEqual((v6.steps[0] as { args: string[] }).args, ['addr', 'add', '2001:db8::10/64', 'dev', 'eth0']);
});

test('address refusals', async () => {
  const h = netHost();
  await refused('AddAddress', { interface: 'lo', address: '127.0.0.2/8' }, h, 'loopback_interface', 'authorization');
  await refused('AddAddress', { interface: 'nope0', address: '10.0.0.1/24' }, h, 'no_such_interface', 'validation');
  await assertNoChange(run('AddAddress', { interface: 'eth0', address: '192.0.2.5/24' }, h), /already has/);
  await assertNoChange(run('RemoveAddress', { interface: 'eth0', address: '192.0.2.6/24' }, h), /not|no /);
  // eth0 carries the default route and 192.0.2.5 is its last address (fe80:: is link-local).
  await refused('RemoveAddress', { interface: 'eth0', address: '192.0.2.5/24' }, h, 'default_route_interface', 'authorization');
  await refused('RemoveAddress', { interface: 'lo', address: '127.0.0.1/8' }, h, 'loopback_interface', 'authorization');
  // With a second global address it may go.
  const two: Net = { ...BASE, links: [LO, link('eth0', { addrs: [['192.0.2.5', 24], ['192.0.2.6', 24]] })] };
  await run('RemoveAddress', { interface: 'eth0', address: '192.0.2.6/24' }, netHost(two));
});

test('AddRoute: argv, family and refusals', async () => {
  const r = await run('AddRoute', { destination: '10.7.0.0/16', via: '192.0.2.1' }, netHost());
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'ip', args: ['-4', 'route', 'add', '10.7.0.0/16', 'via', '192.0.2.1'], undo: { kind: 'command', program: 'ip', args: ['-4', 'route', 'del', '10.7.0.0/16', 'via', '192.0.2.1'] } }]);
  const v6 = await run('AddRoute', { destination: 'fd78::/48', dev: 'eth1' }, netHost());
  assert.deepEqual((v6.steps[0] as { args: string[] }).args, ['-6', 'route', 'add', 'fd78::/48', 'dev', 'eth1']);
  const noDefault: Net = { ...BASE, v4: [] };
  const d = await run('AddRoute', { destination: 'default', via: '192.0.2.1', dev: 'eth0' }, netHost(noDefault));
  assert.deepEqual((d.steps[0] as { args: string[] }).args, ['-4', 'route', 'add', 'default', 'via', '192.0.2.1', 'dev', 'eth0']);
  const d6 = await run('AddRoute', { destination: 'default', via: 'fd00:1::1' }, netHost());
  assert.deepEqual((d6.steps[0] as { args: string[] }).args, ['-6', 'route', 'add', 'default', 'via', 'fd00:1::1'], 'an IPv6 default is allowed: there is none');
  const h = netHost();
  await refused('AddRoute', { destination: 'default', via: '192.0.2.1' }, h, 'default_route_present', 'authorization');
  await refused('AddRoute', { destination: '10.8.0.0/24', dev: 'eth1' }, h, 'route_present', 'conflict');
  await refused('AddRoute', { destination: '10.7.0.0/16' }, h, 'route_needs_target', 'validation');
  await refused('AddRoute', { destination: '10.7.0.0/16', via: 'fd00::1' }, h, 'family_mismatch', 'validation');
  await refused('AddRoute', { destination: '10.7.0.0/16', dev: 'lo' }, h, 'loopback_interface');
  await refused('AddRoute', { destination: '10.7.0.0/16', dev: 'nope0' }, h, 'no_such_interface');
});

test('RemoveRoute: the exact route as the kernel holds it, and refusals', async () => {
  const r = await run('RemoveRoute', { destination: '10.8.0.0/24' }, netHost());
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'ip', args: ['-4', 'route', 'del', '10.8.0.0/24', 'via', '192.0.2.9', 'dev', 'eth0'], undo: { kind: 'command', program: 'ip', args: ['-4', 'route', 'add', '10.8.0.0/24', 'via', '192.0.2.9', 'dev', 'eth0'] } }]);
  const k = await run('RemoveRoute', { destination: '192.0.2.0/24' }, netHost());
  assert.deepEqual((k.steps[0] as { args: string[] }).args, ['-4', 'route', 'del', '192.0.2.0/24', 'dev', 'eth0', 'proto', 'kernel', 'scope', 'link', 'src', '192.0.2.5']);
  assert.ok(k.preview.warnings?.length);
  const v6 = await run('RemoveRoute', { destination: 'fd00:1::/64' }, netHost());
  assert.deepEqual((v6.steps[0] as { args: string[] }).args, ['-6', 'route', 'del', 'fd00:1::/64', 'dev', 'eth1', 'proto', 'kernel', 'metric', '256']);
  const one = await run('RemoveRoute', { destination: '10.9.0.0/24', dev: 'eth1' }, netHost());
  assert.deepEqual((one.steps[0] as { args: string[] }).args, ['-4', 'route', 'del', '10.9.0.0/24', 'dev', 'eth1']);
  const h = netHost();
  await refused('RemoveRoute', { destination: '10.9.0.0/24' }, h, 'route_ambiguous', 'validation');
  await assertNoChange(run('RemoveRoute', { destination: '10.6.0.0/24' }, h), /not|no /);
  assert.equal(routes.removeRoute.params.safeParse({ destination: 'default' }).success, false, 'the default route is never removed');
  // A host route printed without a prefix length is matched as /32.
  const host32: Net = { ...BASE, v4: [{ dst: '10.5.0.5', dev: 'eth1', flags: [] }] };
  const hr = await run('RemoveRoute', { destination: '10.5.0.5/32' }, netHost(host32));
  assert.deepEqual((hr.steps[0] as { args: string[] }).args, ['-4', 'route', 'del', '10.5.0.5/32', 'dev', 'eth1']);
});

test('SetLinkState: argv and refusals', async () => {
  const up = await run('SetLinkState', { interface: 'eth1', state: 'up' }, netHost());
  assert.deepEqual(up.steps, [{ kind: 'command', program: 'ip', args: ['link', 'set', 'dev', 'eth1', 'up'], undo: { kind: 'command', program: 'ip', args: ['link', 'set', 'dev', 'eth1', 'down'] } }]);
  const down = await run('SetLinkState', { interface: 'dummy0', state: 'down' }, netHost());
  assert.deepEqual((down.steps[0] as { args: string[] }).args, ['link', 'set', 'dev', 'dummy0', 'down']);
  const h = netHost();
  await refused('SetLinkState', { interface: 'lo', state: 'down' }, h, 'loopback_interface', 'authorization');
  await refused('SetLinkState', { interface: 'lo', state: 'up' }, h, 'loopback_interface', 'authorization');
  await refused('SetLinkState', { interface: 'eth0', state: 'down' }, h, 'default_route_interface', 'authorization');
  await assertNoChange(run('SetLinkState', { interface: 'eth1', state: 'down' }, h), /already/);
  await assertNoChange(run('SetLinkState', { interface: 'eth0', state: 'up' }, h), /already/);
  await refused('SetLinkState', { interface: 'nope0', state: 'up' }, h, 'no_such_interface');
  assert.equal(links.setLinkState.params.safeParse({ interface: 'eth1', state: 'flap' }).success, false);
});

test('ResolveHost: getent ahosts with -- and exit 2 accepted', async () => {
  const r = await run('ResolveHost', { host: 'deb.debian.org' }, netHost());
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'getent', args: ['ahosts', '--', 'deb.debian.org'], okCodes: [0, 2] }]);
});

test('an unreadable ip answer is an execution error, not an empty state', async () => {
  const broken = new FixtureHost({}, () => ({ code: 1, stdout: '', stderr: 'Cannot open netlink socket' }));
  await refused('SetLinkState', { interface: 'eth1', state: 'up' }, broken, 'ip_unreadable', 'execution');
});

test('an address with an IPv4 tail is canonical as ip prints it (::ffff:192.0.2.1), the one text the firewall uses too', async () => {
  // The old netconfig model canonicalised IPv6 through the URL parser (::ffff:c000:201), the
  // firewall's like glibc's inet_ntop; ip prints the latter, so ListAddresses and the
  // parameter now agree, and AddAddress sees the address ip reports.
  for (const good of ['::ffff:192.0.2.1/128', '::192.0.2.1/128', '64:ff9b::c000:201/128']) assert.ok(addressCidr.safeParse(good).success, good);
  for (const bad of ['::ffff:c000:201/128', '::c000:201/128', '64:ff9b::192.0.2.1/128', '::FFFF:192.0.2.1/128']) assert.equal(addressCidr.safeParse(bad).success, false, bad);
  const h = netHost({ ...BASE, links: [LO, link('eth1', { addrs: [['198.51.100.7', 24], ['::ffff:192.0.2.1', 128]] })] });
  await assertNoChange(run('AddAddress', { interface: 'eth1', address: '::ffff:192.0.2.1/128' }, h), /already has/);
  const del = await run('RemoveAddress', { interface: 'eth1', address: '::ffff:192.0.2.1/128' }, h);
  assert.deepEqual((del.steps[0] as { args: string[] }).args, ['addr', 'del', '::ffff:192.0.2.1/128', 'dev', 'eth1']);
});

test('issue 27: each runtime change declares exact, with probes that leave out lifetimes and DAD flags', async () => {
  for (const a of actions.filter((x) => !x.readOnly)) assert.equal(a.rollback.class, 'exact', a.name);
  const probes = (name: string, p: Record<string, unknown>, cur: unknown) => {
    const r = actions.find((a) => a.name === name)!.rollback!;
    return r.class === 'none' ? [] : (r.state?.(p, cur) ?? []).map((x: StateProbe) => ('program' in x ? [x.program, ...x.args].join(' ') : x.file));
  };
  const cur = (await run('AddAddress', { interface: 'eth1', address: '198.51.100.8/24' }, netHost())).cur;
  assert.deepEqual(probes('AddAddress', { interface: 'eth1', address: '198.51.100.8/24' }, cur), ['ip -br -j addr show dev eth1', 'ip -j -4 route show table main dev eth1']);
  assert.deepEqual(probes('RemoveAddress', { interface: 'eth1', address: 'fd00:1::7/64' }, cur), ['ip -br -j addr show dev eth1', 'ip -j -6 route show table main exact fd00:1::/64']);
  assert.deepEqual(probes('AddRoute', { destination: 'default', via: 'fd00:1::1' }, cur), ['ip -j -6 route show table main exact default']);
  assert.deepEqual(probes('RemoveRoute', { destination: '10.8.0.0/24' }, cur), ['ip -j -4 route show table main exact 10.8.0.0/24']);
  assert.deepEqual(probes('SetLinkState', { interface: 'eth1', state: 'up' }, cur), [
    'ip -br -j link show dev eth1',
    'ip -br -j addr show dev eth1',
    'ip -j -4 route show table main dev eth1',
    'ip -j -6 route show table main dev eth1 proto boot',
  ]);
});

test('issue 27: what the kernel drops with a change is put back by its undo, from the state read', async () => {
  const net: Net = {
    ...BASE,
    links: [
      LO,
      link('eth0', { addrs: [['192.0.2.5', 24]] }),
      {
        ...link('dummy0', { kind: 'dummy' }),
        addr_info: [
          { family: 'inet', local: '10.1.0.1', prefixlen: 24, scope: 'global', broadcast: '10.1.0.255', label: 'dummy0:a' },
          { family: 'inet6', local: 'fd01::2', prefixlen: 64, scope: 'global', noprefixroute: true },
          { family: 'inet6', local: 'fd01::1', prefixlen: 64, scope: 'global', tentative: true },
          { family: 'inet6', local: 'fd02::9', prefixlen: 64, scope: 'global', dynamic: true },
          { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
        ],
      },
    ],
    v4: [...BASE.v4!, { dst: '10.1.0.0/24', dev: 'dummy0', protocol: 'kernel', scope: 'link', prefsrc: '10.1.0.1', flags: [] }, { dst: '10.2.0.0/16', gateway: '10.1.0.9', dev: 'dummy0', protocol: 'static', metric: 20, flags: ['onlink'] }],
    v6: [{ dst: 'fd03::/48', dev: 'dummy0', metric: 1024, flags: [], pref: 'medium' }, { dst: 'fd04::/48', dev: 'dummy0', protocol: 'ra', metric: 1024, flags: [], expires: 1700 }],
  };
  const ip = (args: string[], undo: string[]) => ({ kind: 'command', program: 'ip', args, undo: { kind: 'command', program: 'ip', args: undo } });
  // A down drops the routes through the interface and flushes its permanent IPv6 addresses (not the link-local one, not a dynamic one): the undo brings the link up, then the addresses (newest first again), then the routes.
  const down = await run('SetLinkState', { interface: 'dummy0', state: 'down' }, netHost(net));
  assert.deepEqual(down.steps, [
    ip(['-j', '-4', 'route', 'show', 'table', 'main', 'exact', '10.2.0.0/16'], ['-4', 'route', 'replace', '10.2.0.0/16', 'via', '10.1.0.9', 'dev', 'dummy0', 'onlink', 'proto', 'static', 'metric', '20']),
    ip(['-j', '-6', 'route', 'show', 'table', 'main', 'exact', 'fd03::/48'], ['-6', 'route', 'replace', 'fd03::/48', 'dev', 'dummy0', 'metric', '1024']),
    ip(['-br', '-j', 'addr', 'show', 'dev', 'dummy0'], ['addr', 'add', 'fd01::2/64', 'noprefixroute', 'dev', 'dummy0']),
    ip(['-br', '-j', 'addr', 'show', 'dev', 'dummy0'], ['addr', 'add', 'fd01::1/64', 'dev', 'dummy0']),
    ip(['link', 'set', 'dev', 'dummy0', 'down'], ['link', 'set', 'dev', 'dummy0', 'up']),
  ]);
  // keep_addr_on_down: the addresses stay, only the routes are put back.
  const kept = await run('SetLinkState', { interface: 'dummy0', state: 'down' }, netHost(net, { '/proc/sys/net/ipv6/conf/all/keep_addr_on_down': '1\n' }));
  assert.equal(kept.steps.length, 3);
  // Removing the last IPv4 address flushes the IPv4 routes through the interface; the undo adds the address back as it was.
  const del = await run('RemoveAddress', { interface: 'dummy0', address: '10.1.0.1/24' }, netHost(net));
  assert.deepEqual(del.steps.at(-1), ip(['addr', 'del', '10.1.0.1/24', 'dev', 'dummy0'], ['addr', 'add', '10.1.0.1/24', 'broadcast', '10.1.0.255', 'label', 'dummy0:a', 'dev', 'dummy0']));
  assert.equal(del.steps.length, 2, 'the static route through it, not the kernel route of its network');
  // Adding the first IPv4 address to an interface that has IPv4 routes: the undo's delete would flush them.
  const onlyRoutes: Net = { ...BASE, links: [LO, link('eth0', { addrs: [['192.0.2.5', 24]] }), link('veth0', { kind: 'veth' })], v4: [...BASE.v4!, { dst: '10.3.0.0/16', dev: 'veth0', scope: 'link', flags: [] }] };
  const add = await run('AddAddress', { interface: 'veth0', address: '10.3.0.1/24' }, netHost(onlyRoutes));
  assert.deepEqual(add.steps[0], ip(['-j', '-4', 'route', 'show', 'table', 'main', 'exact', '10.3.0.0/16'], ['-4', 'route', 'replace', '10.3.0.0/16', 'dev', 'veth0', 'scope', 'link']));
});

test('issue 27: what an undo could not put back as it was is refused', async () => {
  const two: Net = {
    ...BASE,
    links: [LO, link('eth0', { addrs: [['192.0.2.5', 24]] }), { ...link('eth1'), addr_info: [{ family: 'inet', local: '198.51.100.7', prefixlen: 24, scope: 'global' }, { family: 'inet', local: '198.51.100.8', prefixlen: 24, scope: 'global', secondary: true }, { family: 'inet6', local: 'fd00:1::7', prefixlen: 64, scope: 'global' }] }],
    v6: [{ dst: 'fd09::/48', dev: 'eth1', prefsrc: 'fd00:1::7', metric: 1024, flags: [] }],
    v4: [...(BASE.v4 as Array<{ dst: string; dev: string }>).filter((r) => r.dev !== 'eth1'), { dst: '10.4.0.0/16', dev: 'eth1', flags: [] }],
  };
  await refused('RemoveAddress', { interface: 'eth1', address: '198.51.100.7/24' }, netHost(two), 'primary_with_secondaries', 'conflict');
  await run('RemoveAddress', { interface: 'eth1', address: '198.51.100.8/24' }, netHost(two));
  // A route from the address: once the address is back it is tentative for a second, and the kernel refuses the route.
  await refused('RemoveAddress', { interface: 'eth1', address: 'fd00:1::7/64' }, netHost(two), 'not_restorable', 'conflict');
  // A route with nothing ip route add could name (a multipath route read without its nexthops).
  const multipath: Net = { ...BASE, v4: [...BASE.v4!, { dst: '10.6.0.0/16', flags: [] }] };
  await refused('RemoveRoute', { destination: '10.6.0.0/16' }, netHost(multipath), 'not_restorable');
  const odd: Net = { ...BASE, v4: [...BASE.v4!, { dst: '10.6.0.0/16', dev: 'eth1', protocol: '-x', flags: [] }] };
  await refused('RemoveRoute', { destination: '10.6.0.0/16' }, netHost(odd), 'not_restorable');
});
