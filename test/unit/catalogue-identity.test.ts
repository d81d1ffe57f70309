import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHostname, setHostname } from '../../src/catalogue/families/identity/hostname.js';
import { getTimezone, setTimezone } from '../../src/catalogue/families/identity/timezone.js';
import type { AnyAction } from '../../src/catalogue/action.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const hostnameHost = (running: string, tree: Record<string, Node> = {}) =>
  new FixtureHost({ '/etc/hostname': `${running}\n`, '/etc/hosts': `127.0.0.1 localhost\n127.0.1.1 ${running}\n`, ...tree }, (program, args) =>
    program === 'hostname' && args.length === 0 ? { code: 0, stdout: `${running}\n`, stderr: '' } : { code: 1, stdout: '', stderr: 'unexpected' },
  );

/** The live state an action's rollback declares it reads, for these parameters and this state. */
const declaredState = (a: AnyAction, p: unknown, cur: unknown) => (a.rollback && a.rollback.class !== 'none' ? a.rollback.state?.(p, cur) : undefined);

const refusal = async (fn: () => unknown | Promise<unknown>, code: string) => {
  await assert.rejects(async () => fn(), (e: unknown) => e instanceof AirlockError && e.code === code);
};

test('SetHostname refuses injection and anything but one lower-case RFC 1123 label', () => {
  for (const bad of [...INJECTIONS, 'Web01', 'web.example.com', 'web_01', '-web', 'web-', 'a'.repeat(64), ' web', 'web\t']) {
    assert.equal(setHostname.params.safeParse({ hostname: bad }).success, false, JSON.stringify(bad));
  }
  assert.equal(setHostname.params.safeParse({ hostname: 'web-01', extra: 1 }).success, false);
  assert.equal(setHostname.params.safeParse({}).success, false);
  assert.ok(setHostname.params.safeParse(setHostname.example).success);
  assert.ok(setHostname.params.safeParse({ hostname: 'a'.repeat(63) }).success);
});

test('SetHostname writes /etc/hostname then sets the running name, with an undo to the old one', async () => {
  const host = hostnameHost('vm');
  const p = setHostname.params.parse({ hostname: 'web-01' });
  const cur = await setHostname.current(p, host);
  checked(setHostname, p, cur);
  assert.deepEqual(setHostname.mechanism(p, cur), [
    { kind: 'fileWrite', path: '/etc/hostname', content: 'web-01\n', mode: 0o644 },
    { kind: 'command', program: 'hostname', args: ['--', 'web-01'], undo: { kind: 'command', program: 'hostname', args: ['--', 'vm'] } },
  ]);
  const pv = setHostname.preview(p, cur);
  assert.deepEqual(pv.change, { file: '/etc/hostname', from: 'vm', to: 'web-01', running_name: { from: 'vm', to: 'web-01' } });
  assert.ok(pv.warnings!.some((w) => w.includes('/etc/hosts still names the old host vm')));
  assert.ok(pv.warnings!.some((w) => w.includes('unable to resolve host web-01')));
  assert.ok(setHostname.files.includes('/etc/hostname'));
  // Exact: /etc/hostname from its snapshot (probed as a file step), the running name read by `hostname`.
  assert.equal(setHostname.rollback?.class, 'exact');
  assert.deepEqual(declaredState(setHostname, p, cur), [{ program: 'hostname', args: [] }]);
  assert.equal(setHostname.risk, 'medium');
});

test('SetHostname: the same name is no change; refuses a host whose running name cannot be read', async () => {
  const p = setHostname.params.parse({ hostname: 'vm' });
  const host = hostnameHost('vm');
  await assertNoChange(async () => checked(setHostname, p, await setHostname.current(p, host)), /already/);
  const broken = new FixtureHost({ '/etc/hostname': 'vm\n' }, () => ({ code: 1, stdout: '', stderr: 'boom' }));
  await refusal(() => setHostname.current(p, broken), 'hostname_unreadable');
  // Only the running name differs: not a no-op.
  const drift = hostnameHost('other', { '/etc/hostname': 'vm\n' });
  checked(setHostname, p, await setHostname.current(p, drift));
});

test('GetHostname reads the file only when it exists', async () => {
  const p = getHostname.params.parse({});
  assert.deepEqual(getHostname.mechanism(p, await getHostname.current(p, hostnameHost('vm'))), [
    { kind: 'fileScan', path: '/etc/hostname' },
    { kind: 'command', program: 'hostname', args: [] },
  ]);
  assert.deepEqual(getHostname.mechanism(p, await getHostname.current(p, new FixtureHost({}))), [{ kind: 'command', program: 'hostname', args: [] }]);
  assert.equal(getHostname.params.safeParse({ hostname: 'x' }).success, false);
});

const ZONES: Record<string, Node> = {
  '/etc/timezone': 'Etc/UTC\n',
  '/etc/localtime': { link: '/usr/share/zoneinfo/Etc/UTC' },
  '/usr/share/zoneinfo/Etc/UTC': 'TZif',
  '/usr/share/zoneinfo/Europe/Paris': 'TZif',
  '/usr/share/zoneinfo/UTC': { link: 'Etc/UTC' },
  '/usr/share/zoneinfo/US/Eastern': { link: '../America/New_York' },
  '/usr/share/zoneinfo/America/New_York': 'TZif',
  '/usr/share/zoneinfo/Evil/Link': { link: '../../../../etc/shadow' },
  '/usr/share/zoneinfo/Evil/Posix': { link: '../posix/Europe/Paris' },
  '/usr/share/zoneinfo/posix/Europe/Paris': 'TZif',
  '/etc/shadow': 'root:*:',
};

async function tz(timezone: string, tree: Record<string, Node> = ZONES) {
  const p = setTimezone.params.parse({ timezone });
  const cur = await setTimezone.current(p, new FixtureHost(tree));
  checked(setTimezone, p, cur);
  return { p, cur, steps: setTimezone.mechanism(p, cur), preview: setTimezone.preview(p, cur) };
}

test('SetTimezone refuses injection and names outside Area/City', () => {
  for (const bad of [...INJECTIONS, '../../etc/shadow', 'Europe/../../etc/shadow', 'posix/Europe/Paris', 'Europe/Paris\n', '-Europe/Paris', '$(id)/x', 'Europe/Paris/', '/Europe/Paris', 'Europe//Paris', 'europe/paris', 'A/B/C/D']) {
    assert.equal(setTimezone.params.safeParse({ timezone: bad }).success, false, JSON.stringify(bad));
  }
  for (const good of ['UTC', 'Etc/UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) assert.ok(setTimezone.params.safeParse({ timezone: good }).success, good);
});

test('SetTimezone repoints /etc/localtime and rewrites /etc/timezone, with an undo to the old link', async () => {
  const { steps, preview } = await tz('Europe/Paris');
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: '/etc/timezone', content: 'Europe/Paris\n', mode: 0o644 },
    {
      kind: 'command',
      program: 'ln',
      args: ['-sfn', '--', '/usr/share/zoneinfo/Europe/Paris', '/etc/localtime'],
      undo: { kind: 'command', program: 'ln', args: ['-sfn', '--', '/usr/share/zoneinfo/Etc/UTC', '/etc/localtime'] },
    },
  ]);
  // The link is probed by its target: a file probe of a link reads only that it is one.
  assert.deepEqual(declaredState(setTimezone, { timezone: 'Europe/Paris' }, {}), [{ program: 'readlink', args: ['--', '/etc/localtime'] }]);
  assert.deepEqual(preview.change, {
    localtime_link: { from: '/usr/share/zoneinfo/Etc/UTC', to: '/usr/share/zoneinfo/Europe/Paris' },
    file: '/etc/timezone',
    from: 'Etc/UTC',
    to: 'Europe/Paris',
  });
});

test('SetTimezone resolves aliases inside zoneinfo to their canonical name', async () => {
  const us = await tz('US/Eastern');
  assert.deepEqual(us.cur.zone, { name: 'America/New_York', path: '/usr/share/zoneinfo/America/New_York' });
  assert.ok(us.preview.warnings!.some((w) => w.includes('alias of America/New_York')));
  // UTC -> Etc/UTC is what the host already has: a no-op.
  await assertNoChange(() => tz('UTC'), /already/);
});

test('SetTimezone refuses missing zones, directories, links leaving zoneinfo, and a localtime that is not a link', async () => {
  await refusal(() => tz('Mars/Olympus'), 'unknown_timezone');
  await refusal(() => tz('Europe'.concat('/Nowhere')), 'unknown_timezone');
  await refusal(() => tz('America/Argentina'), 'unknown_timezone'); // no such file in the fixture
  await refusal(() => tz('Evil/Link'), 'unknown_timezone');
  await refusal(() => tz('Evil/Posix'), 'unknown_timezone');
  await refusal(() => tz('Europe/Paris', { ...ZONES, '/usr/share/zoneinfo/Europe/Paris': { dir: true } }), 'unknown_timezone');
  await refusal(() => tz('Europe/Paris', { ...ZONES, '/etc/localtime': 'TZif' }), 'localtime_not_link');
  const { '/etc/localtime': _gone, ...noLocaltime } = ZONES;
  await refusal(() => tz('Europe/Paris', noLocaltime), 'localtime_not_link');
  await assertNoChange(() => tz('Etc/UTC'), /already/);
});

test('SetTimezone leaves /etc/timezone alone on hosts without it', async () => {
  const { '/etc/timezone': _gone, ...tree } = ZONES;
  const { steps } = await tz('Europe/Paris', tree);
  assert.deepEqual(
    steps.map((s) => s.kind),
    ['command'],
  );
});

test('GetTimezone reads the file, the link and the zone in effect', async () => {
  const p = getTimezone.params.parse({});
  assert.deepEqual(getTimezone.mechanism(p, await getTimezone.current(p, new FixtureHost(ZONES))), [
    { kind: 'fileScan', path: '/etc/timezone' },
    { kind: 'command', program: 'readlink', args: ['--', '/etc/localtime'] },
    { kind: 'command', program: 'date', args: ['--', '+%Z %z'] },
  ]);
  assert.deepEqual(getTimezone.mechanism(p, await getTimezone.current(p, new FixtureHost({}))), [{ kind: 'command', program: 'date', args: ['--', '+%Z %z'] }]);
});
