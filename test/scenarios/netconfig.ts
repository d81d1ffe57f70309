/**
 * Runtime network configuration (network family, ip), in the booted Debian test bed:
 * its private network namespace holds only lo, so a veth pair airlock0/airlock1 is
 * made in setup and every change is done on it, checked with `ip -j` from outside
 * the daemon. Nothing here reaches the real host's network.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const IP = '/usr/sbin/ip';
const IF = 'airlock0';
const PEER = 'airlock1';

async function ipJson(box: SandboxView, args: string[]): Promise<Record<string, unknown>[]> {
  const r = await box.run(IP, ['-j', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout || '[]') as Record<string, unknown>[];
}
const addresses = async (box: SandboxView, dev: string) =>
  ((await ipJson(box, ['addr', 'show', 'dev', dev]))[0]!.addr_info as Record<string, unknown>[]).map((a) => `${String(a.local)}/${String(a.prefixlen)}`);
const flags = async (box: SandboxView, dev: string) => (await ipJson(box, ['link', 'show', 'dev', dev]))[0]!.flags as string[];
const routes = async (box: SandboxView, family: '-4' | '-6') => (await ipJson(box, [family, 'route', 'show', 'table', 'main'])).map((r) => `${String(r.dst)} ${r.gateway ? `via ${String(r.gateway)} ` : ''}dev ${String(r.dev)}`);

export const scenarios: Scenario[] = [
  {
    action: 'ResolveHost',
    params: { host: 'localhost' },
    check: async (box, r) => {
      const out = r.output.join('\n');
      assert.match(out, /^127\.0\.0\.1\s+STREAM/m);
      assert.match(out, /^::1\s+STREAM localhost$/m);
      const real = await box.run('/usr/bin/getent', ['ahosts', '--', 'localhost']);
      assert.equal(out.trim(), real.stdout.trim(), 'the same answer getent gives outside the daemon');
    },
  },
  {
    title: 'an unknown name is an answer (exit 2), not a failure',
    action: 'ResolveHost',
    params: { host: 'no-such-host.invalid' },
    check: async (_box, r) => assert.equal(r.output.join('').trim(), ''),
  },
  {
    action: 'SetLinkState',
    params: { interface: IF, state: 'up' },
    setup: async (box) => {
      for (const args of [['link', 'add', IF, 'type', 'veth', 'peer', 'name', PEER], ['link', 'set', 'dev', PEER, 'up']]) assert.equal((await box.run(IP, args)).code, 0);
      assert.ok(!(await flags(box, IF)).includes('UP'));
      assert.deepEqual(await routes(box, '-4'), [], 'the private namespace has no IPv4 route at all (no default route)');
    },
    check: async (box) => assert.ok((await flags(box, IF)).includes('UP')),
  },
  {
    action: 'AddAddress',
    params: { interface: IF, address: '10.77.0.1/24' },
    check: async (box) => {
      assert.ok((await addresses(box, IF)).includes('10.77.0.1/24'));
      assert.ok((await routes(box, '-4')).includes('10.77.0.0/24 dev airlock0'), 'the kernel added the connected route');
    },
  },
  {
    title: 'IPv6',
    action: 'AddAddress',
    params: { interface: IF, address: 'fd77::1/64' },
    check: async (box) => assert.ok((await addresses(box, IF)).includes('fd77::1/64')),
  },
  {
    action: 'AddRoute',
    params: { destination: '10.78.0.0/24', via: '10.77.0.2' },
    check: async (box) => assert.ok((await routes(box, '-4')).includes('10.78.0.0/24 via 10.77.0.2 dev airlock0'), JSON.stringify(await routes(box, '-4'))),
  },
  {
    title: 'IPv6, through an interface',
    action: 'AddRoute',
    params: { destination: 'fd78::/48', dev: IF },
    check: async (box) => assert.ok((await routes(box, '-6')).includes('fd78::/48 dev airlock0')),
  },
  {
    action: 'RemoveRoute',
    params: { destination: '10.78.0.0/24' },
    check: async (box) => {
      const now = await routes(box, '-4');
      assert.ok(!now.some((r) => r.startsWith('10.78.0.0/24')), JSON.stringify(now));
      assert.ok(now.includes('10.77.0.0/24 dev airlock0'), 'other routes stay');
    },
  },
  {
    title: 'IPv6',
    action: 'RemoveRoute',
    params: { destination: 'fd78::/48', dev: IF },
    check: async (box) => assert.ok(!(await routes(box, '-6')).some((r) => r.startsWith('fd78::/48'))),
  },
  {
    title: 'a default route, when there is none',
    action: 'AddRoute',
    params: { destination: 'default', dev: PEER },
    check: async (box) => assert.ok((await routes(box, '-4')).includes('default dev airlock1')),
  },
  {
    action: 'RemoveAddress',
    params: { interface: IF, address: 'fd77::1/64' },
    check: async (box) => {
      const now = await addresses(box, IF);
      assert.ok(!now.includes('fd77::1/64'));
      assert.ok(now.includes('10.77.0.1/24'), 'the other address stays');
    },
  },
  {
    title: 'the last IPv4 address of an interface without the default route',
    action: 'RemoveAddress',
    params: { interface: IF, address: '10.77.0.1/24' },
    check: async (box) => assert.ok(!(await addresses(box, IF)).some((a) => a.startsWith('10.77.0.1'))),
  },
  {
    title: 'down',
    action: 'SetLinkState',
    params: { interface: IF, state: 'down' },
    check: async (box) => {
      assert.ok(!(await flags(box, IF)).includes('UP'));
      assert.ok((await flags(box, PEER)).includes('UP'), 'the default-route interface is untouched');
    },
  },
];
