import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as system from '../../src/catalogue/families/system/index.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS } from './catalogue-fixture-host.js';

/** The inventory reads; the reboot actions are test/unit/reboots.test.ts's and the reboots scenarios'. */
const actions: AnyAction[] = system.actions.filter((a) => a.readOnly);
const byName = (n: string) => actions.find((a) => a.name === n)!;

async function steps(name: string, host = new FixtureHost({})) {
  const a = byName(name);
  const p = a.params.parse({});
  const cur = await a.current(p, host);
  checked(a, p, cur);
  return a.mechanism(p, cur);
}

test('system actions are low-risk, read-only, parameterless declarations', () => {
  assert.deepEqual(actions.map((a) => a.name).sort(), ['DiskUsage', 'HostInfo', 'ListBlockDevices', 'ListMounts', 'ListProcesses', 'MemoryInfo', 'Uptime']);
  for (const a of actions) {
    assert.equal(a.family, 'system');
    assert.equal(a.risk, 'low');
    assert.equal(a.readOnly, true);
    assert.equal(a.rollback, undefined);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
});

test('system actions refuse every parameter, injections included', () => {
  for (const a of actions) {
    for (const bad of INJECTIONS) {
      assert.equal(a.params.safeParse({ limit: bad }).success, false, `${a.name} ${JSON.stringify(bad)}`);
      assert.equal(a.params.safeParse({ args: [bad] }).success, false);
    }
    assert.equal(a.params.safeParse({ limit: 5 }).success, false, `${a.name} takes no limit`);
    assert.equal(a.params.safeParse('; rm -rf /').success, false);
    assert.equal(a.params.safeParse(null).success, false);
  }
});

test('system mechanisms are the expected argv', async () => {
  assert.deepEqual(await steps('DiskUsage'), [{ kind: 'command', program: 'df', args: ['-hPT'] }]);
  assert.deepEqual(await steps('MemoryInfo'), [{ kind: 'command', program: 'free', args: ['-b', '-w'] }]);
  assert.deepEqual(await steps('Uptime'), [
    { kind: 'fileScan', path: '/proc/uptime' },
    { kind: 'fileScan', path: '/proc/loadavg' },
  ]);
  assert.deepEqual(await steps('ListBlockDevices'), [{ kind: 'command', program: 'lsblk', args: ['-J', '-o', 'NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT'] }]);
  assert.deepEqual(await steps('ListMounts'), [{ kind: 'command', program: 'findmnt', args: ['-J', '-l'] }]);
  assert.deepEqual(await steps('ListProcesses'), [{ kind: 'command', program: 'ps', args: ['-eo', 'pid,user,pcpu,pmem,comm', '--sort=-pcpu'] }]);
});

test('HostInfo reads the real os-release file, not the /etc link', async () => {
  const linked = new FixtureHost({ '/etc/os-release': { link: '../usr/lib/os-release' }, '/usr/lib/os-release': 'ID=debian\n' });
  assert.deepEqual(await steps('HostInfo', linked), [
    { kind: 'fileScan', path: '/usr/lib/os-release' },
    { kind: 'command', program: 'uname', args: ['-snrvmo'] },
  ]);
  const plain = new FixtureHost({ '/etc/os-release': 'ID=debian\n' });
  assert.deepEqual((await steps('HostInfo', plain))[0], { kind: 'fileScan', path: '/etc/os-release' });
  assert.deepEqual(await steps('HostInfo', new FixtureHost({})), [{ kind: 'command', program: 'uname', args: ['-snrvmo'] }]);
});

test('every file a system step reads is in the action allowlist', async () => {
  const host = new FixtureHost({ '/usr/lib/os-release': 'ID=debian\n' });
  for (const a of actions) {
    for (const s of await steps(a.name, host)) if (s.kind !== 'command') assert.ok(a.files.includes(s.path), `${a.name} ${s.path}`);
  }
});
