/** network family: reads checked against the sandbox, /etc/hosts edits checked through the resolver (getent). */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { Scenario } from './types.js';

const hostsLines = async (box: Parameters<Scenario['check']>[0]) => ((await box.readFile('/etc/hosts')) ?? '').split('\n');
const resolve = async (box: Parameters<Scenario['check']>[0], name: string) => (await box.run('/usr/bin/getent', ['hosts', '--', name])).stdout.trim().split(/\s+/)[0] ?? '';

// The sandbox shares the host's network namespace, so a socket this process opens is one the sandbox sees.
let listener: Server | null = null;
let listenerPort = 0;

export const scenarios: Scenario[] = [
  {
    action: 'ListAddresses',
    params: {},
    check: async (_box, r) => {
      const links = JSON.parse(r.output.join('\n')) as Array<{ ifname: string; addr_info: Array<{ local: string }> }>;
      const lo = links.find((l) => l.ifname === 'lo');
      assert.ok(lo?.addr_info.some((a) => a.local === '127.0.0.1'), 'lo has 127.0.0.1');
    },
  },
  {
    action: 'ListRoutes',
    params: {},
    check: async (_box, r) => {
      assert.equal(r.output.length, 2, 'one JSON array per address family');
      for (const line of r.output) assert.ok(Array.isArray(JSON.parse(line)));
    },
  },
  {
    action: 'ListLinks',
    params: {},
    check: async (_box, r) => {
      const links = JSON.parse(r.output.join('\n')) as Array<{ ifname: string; link_type: string }>;
      assert.ok(links.some((l) => l.ifname === 'lo' && l.link_type === 'loopback'));
    },
  },
  {
    action: 'ListListeningSockets',
    params: {},
    setup: async () => {
      listener = createServer();
      await new Promise<void>((ok) => listener!.listen(0, '127.0.0.1', ok));
      listenerPort = (listener.address() as { port: number }).port;
    },
    check: async (_box, r) => {
      try {
        assert.ok(r.output.some((l) => /^tcp\s+LISTEN\s/.test(l) && l.includes(`127.0.0.1:${listenerPort} `)), `the test listener on port ${listenerPort}`);
      } finally {
        listener?.close();
      }
    },
  },
  {
    action: 'ListHostsEntries',
    params: {},
    check: async (box, r) => {
      assert.deepEqual(r.output, (await hostsLines(box)).filter((l, i, all) => i < all.length - 1 || l !== ''));
      assert.ok(r.output.some((l) => /^(127\.0\.0\.1|::1)\s.*\blocalhost\b/.test(l)), 'the localhost line');
    },
  },
  {
    action: 'AddHostsEntry',
    params: { ip: '10.254.0.7', names: ['db.airlock.test', 'dbalias.airlock.test'] },
    check: async (box) => {
      const lines = await hostsLines(box);
      assert.equal(lines.filter((l) => l === '10.254.0.7\tdb.airlock.test dbalias.airlock.test').length, 1);
      assert.ok(lines.some((l) => /\blocalhost\b/.test(l)), 'existing lines kept');
      assert.equal(await resolve(box, 'db.airlock.test'), '10.254.0.7');
      assert.equal(await resolve(box, 'dbalias.airlock.test'), '10.254.0.7');
    },
  },
  {
    action: 'RemoveHostsEntry',
    params: { ip: '10.254.0.7', name: 'dbalias.airlock.test' },
    check: async (box) => {
      const lines = await hostsLines(box);
      assert.ok(lines.includes('10.254.0.7\tdb.airlock.test'), 'the line keeps its other name');
      assert.notEqual(await resolve(box, 'dbalias.airlock.test'), '10.254.0.7');
      assert.equal(await resolve(box, 'db.airlock.test'), '10.254.0.7');
    },
  },
  {
    title: 'removing the last name drops the line',
    action: 'RemoveHostsEntry',
    params: { ip: '10.254.0.7', name: 'db.airlock.test' },
    check: async (box) => {
      assert.ok(!(await hostsLines(box)).some((l) => l.startsWith('10.254.0.7')), 'no line for 10.254.0.7 left');
      assert.notEqual(await resolve(box, 'db.airlock.test'), '10.254.0.7');
      assert.equal(await resolve(box, 'localhost'), '127.0.0.1');
    },
  },
  {
    action: 'DnsResolvers',
    params: {},
    check: async (box, r) => {
      // box.readFile follows the link (if any) inside the sandbox's root, as the resolver does.
      const text = (await box.readFile('/etc/resolv.conf')) ?? '';
      assert.deepEqual(r.output, text.replace(/\n$/, '').split('\n'));
    },
  },
];
