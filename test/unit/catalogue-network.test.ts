import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as network from '../../src/catalogue/families/network/index.js';
import { addHostsEntry, removeHostsEntry, removeHostsName } from '../../src/catalogue/families/network/hosts.js';
import { dnsResolvers } from '../../src/catalogue/families/network/resolvers.js';
import type { AnyAction } from '../../src/catalogue/action.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const HOSTS = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tvm\n# 10.0.0.5 db\n10.0.0.5 db.internal db # primary\n';
const host = (hosts: string | null = HOSTS, tree: Record<string, Node> = {}) => new FixtureHost({ ...(hosts === null ? {} : { '/etc/hosts': hosts }), ...tree });

async function run(a: AnyAction, params: unknown, h = host()) {
  const p = a.params.parse(params);
  const cur = await a.current(p, h);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur) };
}
const refusal = (fn: () => Promise<unknown>, code: string) => assert.rejects(fn, (e: unknown) => e instanceof AirlockError && e.code === code);

test('fixed network reads run the expected argv', async () => {
  const argv = async (n: string) => (await run((network.actions as AnyAction[]).find((a) => a.name === n)!, {})).steps;
  assert.deepEqual(await argv('ListAddresses'), [{ kind: 'command', program: 'ip', args: ['-j', 'address', 'show'] }]);
  assert.deepEqual(await argv('ListRoutes'), [
    { kind: 'command', program: 'ip', args: ['-j', '-4', 'route', 'show'] },
    { kind: 'command', program: 'ip', args: ['-j', '-6', 'route', 'show'] },
  ]);
  assert.deepEqual(await argv('ListLinks'), [{ kind: 'command', program: 'ip', args: ['-j', 'link', 'show'] }]);
  assert.deepEqual(await argv('ListListeningSockets'), [{ kind: 'command', program: 'ss', args: ['-H', '-l', '-n', '-t', '-u', '-p'] }]);
  assert.deepEqual(await argv('ListHostsEntries'), [{ kind: 'fileScan', path: '/etc/hosts' }]);
});

test('AddHostsEntry refuses injection in the address and the names', () => {
  const ok = { ip: '10.0.0.12', names: ['db.internal'] };
  for (const bad of [...INJECTIONS, '1.2.3.4; rm -rf /', '1.2.3.4 evil', '1.2.3.4\n5.6.7.8 evil', '999.1.1.1', 'localhost', 'fe80::1%eth0;id', ' 1.2.3.4']) {
    assert.equal(addHostsEntry.params.safeParse({ ...ok, ip: bad }).success, false, `ip ${JSON.stringify(bad)}`);
  }
  for (const bad of [...INJECTIONS, 'DB.internal', 'db..internal', '.db', 'db.', 'db internal', 'db\tinternal', 'db#x', '-db', 'a'.repeat(64) + '.x']) {
    assert.equal(addHostsEntry.params.safeParse({ ...ok, names: [bad] }).success, false, `name ${JSON.stringify(bad)}`);
  }
  assert.equal(addHostsEntry.params.safeParse({ ...ok, names: [] }).success, false, 'no names');
  assert.equal(addHostsEntry.params.safeParse({ ...ok, names: Array.from({ length: 9 }, (_, i) => `h${i}`) }).success, false, '9 names');
  assert.equal(addHostsEntry.params.safeParse({ ...ok, names: ['db', 'db'] }).success, false, 'repeated name');
  assert.equal(addHostsEntry.params.safeParse({ ...ok, names: 'db.internal' }).success, false, 'a string, not a list');
  assert.equal(addHostsEntry.params.safeParse({ ...ok, line: '1.2.3.4 x' }).success, false, 'unknown key');
  assert.ok(addHostsEntry.params.safeParse(addHostsEntry.example).success);
  assert.ok(addHostsEntry.params.safeParse({ ip: '2001:db8::7', names: Array.from({ length: 8 }, (_, i) => `h${i}`) }).success);
});

test('AddHostsEntry appends one line and keeps the rest verbatim', async () => {
  const { steps, preview } = await run(addHostsEntry, { ip: '10.0.0.12', names: ['app.internal', 'app'] });
  assert.deepEqual(steps, [{ kind: 'fileWrite', path: '/etc/hosts', content: `${HOSTS}10.0.0.12\tapp.internal app\n`, mode: 0o644 }]);
  assert.deepEqual(preview.change, { file: '/etc/hosts', append_line: '10.0.0.12\tapp.internal app', creates_file: false });
  assert.deepEqual(preview.warnings, []);
  // A file without a final newline gets one before the new line; a missing file is created.
  assert.equal((await run(addHostsEntry, { ip: '10.0.0.12', names: ['a'] }, host('127.0.0.1 localhost'))).steps[0]!.kind, 'fileWrite');
  assert.deepEqual((await run(addHostsEntry, { ip: '10.0.0.12', names: ['a'] }, host('127.0.0.1 localhost'))).steps, [
    { kind: 'fileWrite', path: '/etc/hosts', content: '127.0.0.1 localhost\n10.0.0.12\ta\n', mode: 0o644 },
  ]);
  const fresh = await run(addHostsEntry, { ip: '10.0.0.12', names: ['a'] }, host(null));
  assert.deepEqual(fresh.steps, [{ kind: 'fileWrite', path: '/etc/hosts', content: '10.0.0.12\ta\n', mode: 0o644 }]);
  assert.equal((fresh.preview.change as { creates_file: boolean }).creates_file, true);
});

test('AddHostsEntry: a line that is there is no change; refuses localhost names, warns about shadowed names', async () => {
  await assertNoChange(() => run(addHostsEntry, { ip: '10.0.0.5', names: ['db.internal', 'db'] }), /already/);
  await assertNoChange(() => run(addHostsEntry, { ip: '127.0.1.1', names: ['vm'] }), /already/);
  await refusal(() => run(addHostsEntry, { ip: '10.0.0.9', names: ['localhost'] }), 'protected_name');
  await refusal(() => run(addHostsEntry, { ip: '10.0.0.9', names: ['x', 'ip6-localhost'] }), 'protected_name');
  const { preview } = await run(addHostsEntry, { ip: '10.0.0.9', names: ['db'] });
  assert.equal(preview.warnings!.length, 1);
  assert.match(preview.warnings![0]!, /db already maps to 10\.0\.0\.5/);
  // Same address, other names: a new line, no warning.
  assert.deepEqual((await run(addHostsEntry, { ip: '10.0.0.5', names: ['db'] })).preview.warnings, []);
});

test('removeHostsName edits only the lines of that address and keeps comments', () => {
  const r = removeHostsName(HOSTS, '10.0.0.5', 'db');
  assert.equal(r.text, HOSTS.replace('10.0.0.5 db.internal db # primary', '10.0.0.5\tdb.internal # primary'));
  assert.deepEqual(r.removed, []);
  assert.equal(r.rewritten.length, 1);
  const gone = removeHostsName(HOSTS, '127.0.1.1', 'VM');
  assert.equal(gone.text, HOSTS.replace('127.0.1.1\tvm\n', ''));
  assert.deepEqual(gone.removed, ['127.0.1.1\tvm']);
  const none = removeHostsName(HOSTS, '10.0.0.6', 'db');
  assert.equal(none.text, HOSTS);
  assert.equal(none.removed.length + none.rewritten.length, 0);
});

test('RemoveHostsEntry refuses injection, absent mappings and the loopback entries', async () => {
  for (const bad of INJECTIONS) {
    assert.equal(removeHostsEntry.params.safeParse({ ip: '10.0.0.5', name: bad }).success, false, JSON.stringify(bad));
    assert.equal(removeHostsEntry.params.safeParse({ ip: bad, name: 'db' }).success, false, JSON.stringify(bad));
  }
  assert.equal(removeHostsEntry.params.safeParse({ ip: '10.0.0.5', name: 'db', all: true }).success, false);
  await refusal(() => run(removeHostsEntry, { ip: '127.0.0.1', name: 'localhost' }), 'protected_entry');
  await refusal(() => run(removeHostsEntry, { ip: '::1', name: 'ip6-localhost' }), 'protected_entry');
  await assertNoChange(() => run(removeHostsEntry, { ip: '10.0.0.5', name: 'nothere' }), /not|no /);
  await assertNoChange(() => run(removeHostsEntry, { ip: '10.0.0.6', name: 'db' }), /not|no /);
  await assertNoChange(() => run(removeHostsEntry, { ip: '10.0.0.5', name: 'db' }, host(null)), /not|no /);
  const { steps, preview } = await run(removeHostsEntry, { ip: '127.0.1.1', name: 'vm' });
  assert.deepEqual(steps, [{ kind: 'fileWrite', path: '/etc/hosts', content: HOSTS.replace('127.0.1.1\tvm\n', ''), mode: 0o644 }]);
  assert.deepEqual(preview.change, { file: '/etc/hosts', remove_lines: ['127.0.1.1\tvm'], rewrite_lines: [] });
});

test('DnsResolvers reads /etc/resolv.conf or the resolver file it links to, nothing else', async () => {
  const steps = async (tree: Record<string, Node>) => (await run(dnsResolvers, {}, new FixtureHost(tree))).steps;
  assert.deepEqual(await steps({ '/etc/resolv.conf': 'nameserver 1.1.1.1\n' }), [{ kind: 'fileScan', path: '/etc/resolv.conf' }]);
  assert.deepEqual(await steps({ '/etc/resolv.conf': { link: '../run/systemd/resolve/stub-resolv.conf' } }), [
    { kind: 'fileScan', path: '/run/systemd/resolve/stub-resolv.conf' },
  ]);
  await refusal(() => steps({ '/etc/resolv.conf': { link: '/etc/shadow' } }), 'path_not_allowed');
  await refusal(() => steps({ '/etc/resolv.conf': { link: '../run/systemd/resolve/../../../etc/shadow' } }), 'path_not_allowed');
  for (const f of ['/etc/resolv.conf', '/run/systemd/resolve/stub-resolv.conf']) assert.ok(dnsResolvers.files.includes(f));
});
