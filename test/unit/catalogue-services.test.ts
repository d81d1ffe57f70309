import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as bootState from '../../src/catalogue/families/services/boot-state.js';
import * as runState from '../../src/catalogue/families/services/run-state.js';
import * as status from '../../src/catalogue/families/services/status.js';
import { parseInstall } from '../../src/catalogue/families/services/boot-state.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';
import { parseShow, serviceOfCgroup } from '../../src/catalogue/lib/systemd.js';
import { serviceUnit } from '../../src/catalogue/params.js';

// The actions that were services.ts; the unit configuration ones (the rest of the folder) are in catalogue-unitconfig.test.ts.
const services = { ...status, ...runState, ...bootState };
const actions = Object.values(services).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const UNIT_ACTIONS = ['ServiceStatus', 'UnitLogs', 'StartService', 'StopService', 'RestartService', 'ReloadService', 'EnableService', 'DisableService', 'MaskService', 'UnmaskService'];

/** `systemctl show` output for a unit: a loaded, stopped, disabled service unless told otherwise. */
function show(unit: string, p: Record<string, string> = {}): string {
  const base: Record<string, string> = {
    Id: unit,
    Names: unit,
    Description: 'demo',
    LoadState: 'loaded',
    ActiveState: 'inactive',
    SubState: 'dead',
    UnitFileState: 'disabled',
    MainPID: '0',
    ExecMainStartTimestamp: '',
    CanStart: 'yes',
    CanStop: 'yes',
    CanReload: 'yes',
    RequiredBy: '',
    BoundBy: '',
    ConsistsOf: '',
    WantedBy: '',
    TriggeredBy: '',
    FragmentPath: `/lib/systemd/system/${unit}`,
    ...p,
  };
  return Object.entries(base).map(([k, v]) => `${k}=${v}\n`).join('');
}
const RUNNING = { ActiveState: 'active', SubState: 'running', MainPID: '123', ExecMainStartTimestamp: 'Sun 2026-11-29 20:34:44 UTC' };
const NOT_FOUND = { LoadState: 'not-found', UnitFileState: '', CanStart: 'no', CanReload: 'no', FragmentPath: '' };
const INSTALLABLE = '# /lib/systemd/system/nginx.service\n[Unit]\nDescription=x\n[Service]\nExecStart=/usr/sbin/nginx\n[Install]\nWantedBy=multi-user.target\n';

/** A host whose systemd knows these units; `tree` adds files (e.g. the daemon's own cgroup). */
function hostWith(units: Record<string, Record<string, string>>, files: Record<string, string> = {}, tree: Record<string, Node> = {}) {
  return new FixtureHost(tree, (program, args) => {
    const unit = args[args.length - 1]!;
    if (program === 'systemctl' && args[0] === 'show') return { code: 0, stdout: show(unit, units[unit] ?? NOT_FOUND), stderr: '' };
    if (program === 'systemctl' && args[0] === 'cat') return files[unit] ? { code: 0, stdout: files[unit], stderr: '' } : { code: 1, stdout: '', stderr: `No files found for ${unit}.` };
    if (program === 'systemctl' && args[0] === 'is-enabled') {
      const state = (units[unit] ?? NOT_FOUND).UnitFileState ?? 'disabled';
      return { code: state === 'enabled' ? 0 : 1, stdout: state ? `${state}\n` : '', stderr: '' };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

const { run, refused } = actionRunner(actions);

test('services actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    ListServices: ['low', true, undefined],
    FailedUnits: ['low', true, undefined],
    ListTimers: ['low', true, undefined],
    ServiceStatus: ['low', true, undefined],
    UnitLogs: ['low', true, undefined],
    StartService: ['medium', false, 'exact'],
    StopService: ['medium', false, 'exact'],
    RestartService: ['medium', false, 'exact'],
    ReloadService: ['medium', false, 'exact'],
    EnableService: ['medium', false, 'exact'],
    DisableService: ['medium', false, 'exact'],
    MaskService: ['high', false, 'exact'],
    UnmaskService: ['medium', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'services');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.deepEqual(a.files, []);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
});

test('unit parameters refuse injections, other unit types, templates and unknown keys', () => {
  for (const name of UNIT_ACTIONS) {
    const a = byName(name);
    for (const bad of [...INJECTIONS, ...INJECTIONS.map((s) => `${s}.service`), '-x.service', '--help.service', 'a/b.service', '../x.service', 'x*.service', 'x?.service', 'x[1].service', 'x\\x2d.service']) {
      assert.equal(a.params.safeParse({ unit: bad }).success, false, `${name} ${JSON.stringify(bad)}`);
    }
    for (const other of ['basic.target', 'ssh.socket', 'home.mount', 'x.path', 'nginx.bogus', 'getty@.service', 'getty@', 'backup@.timer']) {
      assert.equal(a.params.safeParse({ unit: other }).success, false, `${name} ${other}`);
    }
    assert.equal((a.params.parse({ unit: 'nginx' }) as { unit: string }).unit, 'nginx.service', `${name}: a name without a suffix is a service`);
    for (const good of ['nginx.service', 'getty@tty1.service', 'apt-daily.timer', 'systemd-journald.service', 'NetworkManager.service']) {
      assert.ok(a.params.safeParse({ unit: good }).success, `${name} ${good}`);
    }
    assert.equal(a.params.safeParse({ unit: 'nginx.service', extra: 1 }).success, false, `${name} extra key`);
    assert.equal(a.params.safeParse({}).success, false, `${name} needs a unit`);
    assert.equal(a.params.safeParse({ unit: ['nginx.service'] }).success, false);
  }
  assert.equal(serviceUnit.safeParse('x'.repeat(300) + '.service').success, false);
});

test('UnitLogs lines are 1 to 1000 integers, optional', () => {
  const a = byName('UnitLogs');
  for (const ok of [1, 100, 1000]) assert.ok(a.params.safeParse({ unit: 'nginx.service', lines: ok }).success, String(ok));
  for (const bad of [0, -1, 1001, 1.5, '100', '100; id', null, Number.NaN, Infinity]) {
    assert.equal(a.params.safeParse({ unit: 'nginx.service', lines: bad }).success, false, String(bad));
  }
  assert.deepEqual(a.params.parse({ unit: 'nginx.service' }), { unit: 'nginx.service' }, 'no default is written into the params');
});

test('parameterless reads refuse every parameter and run the fixed argv', async () => {
  const argv: Record<string, string[]> = {
    ListServices: ['list-units', '--type=service', '--all', '--no-pager', '--plain', '--no-legend'],
    FailedUnits: ['list-units', '--state=failed', '--all', '--no-pager', '--plain', '--no-legend'],
    ListTimers: ['list-timers', '--all', '--no-pager'],
  };
  for (const [name, args] of Object.entries(argv)) {
    const a = byName(name);
    for (const bad of INJECTIONS) assert.equal(a.params.safeParse({ unit: bad }).success, false);
    assert.equal(a.params.safeParse({ unit: 'nginx.service' }).success, false);
    assert.deepEqual((await run(name, {}, hostWith({}))).steps, [{ kind: 'command', program: 'systemctl', args }]);
  }
});

test('the shared reader runs one systemctl show with -- before the unit', async () => {
  const host = hostWith({ 'nginx.service': RUNNING });
  const { cur } = await run('ServiceStatus', { unit: 'nginx.service' }, host);
  const [program, args] = host.calls[0]!;
  assert.equal(program, 'systemctl');
  assert.deepEqual(args.slice(0, 3), ['show', '--no-pager', '-p']);
  assert.deepEqual(args.slice(-2), ['--', 'nginx.service']);
  assert.ok(args[3]!.split(',').includes('CanReload'));
  assert.equal(cur.mainPid, 123);
  assert.equal(cur.active, 'active');
  assert.equal(cur.daemonUnit, null);
});

test('read mechanisms are the expected argv', async () => {
  const host = hostWith({ 'nginx.service': RUNNING });
  assert.deepEqual((await run('ServiceStatus', { unit: 'nginx.service' }, host)).steps, [
    { kind: 'command', program: 'systemctl', args: ['show', '--no-pager', '-p', 'Id,LoadState,ActiveState,SubState,UnitFileState,MainPID,ExecMainStartTimestamp', '--', 'nginx.service'] },
    { kind: 'command', program: 'systemctl', args: ['is-enabled', '--', 'nginx.service'], okCodes: [0, 1] },
  ]);
  assert.deepEqual((await run('UnitLogs', { unit: 'nginx.service', lines: 20 }, host)).steps, [
    { kind: 'command', program: 'journalctl', args: ['-u', 'nginx.service', '-n', '20', '--no-pager', '-o', 'short-iso'] },
  ]);
  assert.deepEqual((await run('UnitLogs', { unit: 'nginx.service' }, host)).steps[0], {
    kind: 'command',
    program: 'journalctl',
    args: ['-u', 'nginx.service', '-n', '100', '--no-pager', '-o', 'short-iso'],
  });
});

test('state-changing mechanisms are the expected argv, with the opposite as undo where reversible', async () => {
  const cmd = (verb: string, unit = 'nginx.service') => ({ kind: 'command', program: 'systemctl', args: [verb, '--', unit] });
  const stopped = hostWith({ 'nginx.service': {} }, { 'nginx.service': INSTALLABLE });
  const running = hostWith({ 'nginx.service': RUNNING }, { 'nginx.service': INSTALLABLE });
  const enabled = hostWith({ 'nginx.service': { ...RUNNING, UnitFileState: 'enabled', WantedBy: 'multi-user.target' } }, { 'nginx.service': INSTALLABLE });
  const masked = hostWith({ 'nginx.service': { LoadState: 'masked', UnitFileState: 'masked', FragmentPath: '/etc/systemd/system/nginx.service' } });
  const stopOnly = { kind: 'command', program: 'systemctl', args: ['stop', '--job-mode=ignore-dependencies', '--', 'nginx.service'] };
  assert.deepEqual((await run('StartService', { unit: 'nginx.service' }, stopped)).steps, [{ ...cmd('start'), undo: stopOnly }]);
  assert.deepEqual((await run('StopService', { unit: 'nginx.service' }, running)).steps, [{ ...cmd('stop'), undo: cmd('start') }]);
  // Events: a running unit restarted, or reloaded, runs as before.
  assert.deepEqual((await run('RestartService', { unit: 'nginx.service' }, running)).steps, [{ ...cmd('restart'), noUndo: 'leaves_state' }]);
  assert.deepEqual((await run('ReloadService', { unit: 'nginx.service' }, running)).steps, [{ ...cmd('reload'), noUndo: 'leaves_state' }]);
  // A stopped unit restarted is started: undone as a start.
  assert.deepEqual((await run('RestartService', { unit: 'nginx.service' }, stopped)).steps, [{ ...cmd('restart'), undo: stopOnly }]);
  assert.deepEqual((await run('EnableService', { unit: 'nginx.service' }, stopped)).steps, [{ ...cmd('enable'), undo: cmd('disable') }]);
  assert.deepEqual((await run('DisableService', { unit: 'nginx.service' }, enabled)).steps, [{ ...cmd('disable'), undo: cmd('enable') }]);
  assert.deepEqual((await run('MaskService', { unit: 'nginx.service' }, running)).steps, [{ ...cmd('mask'), undo: cmd('unmask') }]);
  assert.deepEqual((await run('UnmaskService', { unit: 'nginx.service' }, masked)).steps, [{ ...cmd('unmask'), undo: cmd('mask') }]);
  assert.deepEqual((await run('StartService', { unit: 'apt-daily.timer' }, hostWith({ 'apt-daily.timer': {} }))).steps, [
    { ...cmd('start', 'apt-daily.timer'), undo: { ...stopOnly, args: ['stop', '--job-mode=ignore-dependencies', '--', 'apt-daily.timer'] } },
  ]);
});

/** The probes a change declares for these params, against the state it read. */
async function probesOf(name: string, params: Record<string, unknown>, host: FixtureHost): Promise<string[]> {
  const a = byName(name);
  const { cur } = await run(name, params, host);
  assert.ok(a.rollback?.class === 'exact', name);
  return (a.rollback.state?.(a.params.parse(params), cur) ?? []).map((p) => ('file' in p ? p.file : [p.program, ...p.args].join(' ')));
}

test('StopService: the units that stop with it (Requires=, Requisite=, BindsTo=, PartOf=, transitively) are started again by its undo, and probed', async () => {
  const host = hostWith({
    'db.service': { ...RUNNING, RequiredBy: 'app.service', BoundBy: 'sidecar.service', RequisiteOf: 'gone.service' },
    'app.service': { ...RUNNING, ConsistsOf: 'app-worker.service' },
    'app-worker.service': RUNNING,
    'sidecar.service': { ...RUNNING, CanStart: 'no' },
    'gone.service': {},
  });
  const { steps, preview } = await run('StopService', { unit: 'db.service' }, host);
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'systemctl',
      args: ['stop', '--', 'db.service'],
      undo: { kind: 'command', program: 'systemctl', args: ['start', '--', 'db.service', 'app.service', 'app-worker.service'] },
    },
  ]);
  const change = preview.change as { stops_with_it: string[]; undo: string };
  assert.deepEqual(change.stops_with_it, ['app.service', 'app-worker.service']);
  assert.equal(change.undo, 'an undo starts db.service, app.service, app-worker.service again');
  assert.ok(preview.warnings?.some((w) => w.includes('cannot put these back') && w.includes('sidecar.service')), 'a unit nothing can start by hand is named');
  assert.deepEqual(await probesOf('StopService', { unit: 'db.service' }, host), [
    'systemctl is-active --quiet -- db.service',
    'systemctl is-active --quiet -- app.service',
    'systemctl is-active --quiet -- app-worker.service',
    'systemctl is-active --quiet -- sidecar.service',
  ]);
});

test('StartService: its undo stops exactly what it started (ignoring dependencies) and starts again what it stopped by Conflicts=', async () => {
  const host = hostWith({
    'app.service': { Requires: 'db.service sysinit.target', Wants: 'cache.service', Conflicts: 'old-app.service shutdown.target' },
    'db.service': { Wants: 'db-setup.service' },
    'db-setup.service': { ActiveState: 'failed', SubState: 'failed' },
    'cache.service': RUNNING,
    'sysinit.target': { ...RUNNING, Wants: 'never-read.service' },
    'shutdown.target': {},
    'old-app.service': { ...RUNNING, RequiredBy: 'old-app-proxy.service' },
    'old-app-proxy.service': RUNNING,
  });
  const { steps, preview } = await run('StartService', { unit: 'app.service' }, host);
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'systemctl',
      args: ['is-active', '--', 'old-app.service', 'old-app-proxy.service'],
      okCodes: [0, 3],
      undo: { kind: 'command', program: 'systemctl', args: ['start', '--', 'old-app.service', 'old-app-proxy.service'] },
    },
    {
      kind: 'command',
      program: 'systemctl',
      args: ['start', '--', 'app.service'],
      undo: { kind: 'command', program: 'systemctl', args: ['stop', '--job-mode=ignore-dependencies', '--', 'app.service', 'db.service', 'db-setup.service'] },
    },
  ]);
  assert.ok(!host.calls.some(([, a]) => a.includes('never-read.service')), 'a running unit is not followed: systemd does not start again what it wants');
  assert.equal((preview.change as { undo: string }).undo, 'an undo stops app.service, db.service, db-setup.service; starts again old-app.service, old-app-proxy.service, which it stops');
  assert.ok(preview.sideEffects?.some((s) => s.includes('db.service, db-setup.service')));
  assert.deepEqual(await probesOf('StartService', { unit: 'app.service' }, host), [
    'systemctl is-active --quiet -- app.service',
    'systemctl is-active --quiet -- db.service',
    'systemctl is-active --quiet -- db-setup.service',
    'systemctl is-active --quiet -- old-app.service',
    'systemctl is-active --quiet -- old-app-proxy.service',
  ]);
});

test('a cascade wider than the bound is read only so far, and the preview says so', async () => {
  const units: Record<string, Record<string, string>> = { 'hub.service': { ...RUNNING, RequiredBy: Array.from({ length: 70 }, (_, i) => `leaf${i}.service`).join(' ') } };
  for (let i = 0; i < 70; i++) units[`leaf${i}.service`] = RUNNING;
  const { steps, preview } = await run('StopService', { unit: 'hub.service' }, hostWith(units));
  assert.equal((steps[0] as { undo: { args: string[] } }).undo.args.length, 2 + 1 + 64);
  assert.ok(preview.warnings?.some((w) => w.includes('more than 64 units')));
});

test('EnableService and DisableService put the Also= units back as they were', async () => {
  const also = '# /lib/systemd/system/cups.service\n[Service]\nExecStart=/x\n[Install]\nWantedBy=multi-user.target\nAlso=cups.socket cups.path\n';
  const host = hostWith({ 'cups.service': {}, 'cups.socket': { UnitFileState: 'enabled' }, 'cups.path': { UnitFileState: 'disabled' } }, { 'cups.service': also });
  const sc = (...args: string[]) => ({ kind: 'command', program: 'systemctl', args });
  assert.deepEqual((await run('EnableService', { unit: 'cups.service' }, host)).steps, [
    { ...sc('is-enabled', '--', 'cups.socket'), okCodes: [0, 1], undo: sc('enable', '--', 'cups.socket') },
    { ...sc('enable', '--', 'cups.service'), undo: sc('disable', '--', 'cups.service') },
  ]);
  assert.deepEqual(await probesOf('EnableService', { unit: 'cups.service' }, host), ['systemctl is-enabled -- cups.service', 'systemctl is-enabled -- cups.socket', 'systemctl is-enabled -- cups.path']);
  const enabled = hostWith({ 'cups.service': { UnitFileState: 'enabled' }, 'cups.socket': { UnitFileState: 'enabled' }, 'cups.path': { UnitFileState: 'disabled' } }, { 'cups.service': also });
  const disable = await run('DisableService', { unit: 'cups.service' }, enabled);
  assert.deepEqual(disable.steps, [
    { ...sc('is-enabled', '--', 'cups.path'), okCodes: [0, 1], undo: sc('disable', '--', 'cups.path') },
    { ...sc('disable', '--', 'cups.service'), undo: sc('enable', '--', 'cups.service') },
  ]);
  assert.match((disable.preview.change as { undo: string }).undo, /then disables cups\.path again/);
});

test('boot-state and reload changes probe what they change', async () => {
  const running = hostWith({ 'nginx.service': RUNNING }, { 'nginx.service': INSTALLABLE });
  const masked = hostWith({ 'nginx.service': { LoadState: 'masked', UnitFileState: 'masked' } });
  assert.deepEqual(await probesOf('EnableService', { unit: 'nginx.service' }, running), ['systemctl is-enabled -- nginx.service']);
  assert.deepEqual(await probesOf('MaskService', { unit: 'nginx.service' }, running), ['systemctl is-enabled -- nginx.service']);
  assert.deepEqual(await probesOf('UnmaskService', { unit: 'nginx.service' }, masked), ['systemctl is-enabled -- nginx.service']);
  assert.deepEqual(await probesOf('ReloadService', { unit: 'nginx.service' }, running), ['systemctl is-active --quiet -- nginx.service']);
  assert.deepEqual(await probesOf('RestartService', { unit: 'nginx.service' }, running), ['systemctl is-active --quiet -- nginx.service']);
});

test('rescue, emergency and debug shells are refused for every state-changing action', async () => {
  for (const unit of ['rescue.service', 'emergency.service', 'debug-shell.service', 'my-root-shell.service']) {
    const host = hostWith({ [unit]: { ...RUNNING, UnitFileState: 'static' } });
    for (const name of UNIT_ACTIONS.slice(2)) await refused(name, { unit }, host, 'rescue_unit');
    assert.ok((await run('ServiceStatus', { unit }, host)).steps.length, 'reading it is fine');
  }
  // An alias pointing at a rescue shell is caught by its real name.
  await refused('StartService', { unit: 'sos.service' }, hostWith({ 'sos.service': { Id: 'emergency.service', Names: 'emergency.service sos.service' } }), 'rescue_unit');
});

test('lifelines are never stopped, disabled or masked; most are not restarted either', async () => {
  for (const unit of ['systemd-journald.service', 'dbus.service', 'systemd-logind.service', 'airlock.service', 'ssh.service', 'sshd.service']) {
    const host = hostWith({ [unit]: { ...RUNNING, UnitFileState: 'enabled' } }, { [unit]: INSTALLABLE });
    for (const name of ['StopService', 'DisableService', 'MaskService']) await refused(name, { unit }, host, 'protected_unit');
    assert.ok((await run('ReloadService', { unit }, host)).steps.length, `reloading ${unit} is allowed`);
  }
  for (const unit of ['systemd-journald.service', 'dbus.service', 'systemd-logind.service', 'airlock.service']) {
    await refused('RestartService', { unit }, hostWith({ [unit]: RUNNING }), 'protected_unit');
  }
  for (const unit of ['ssh.service', 'sshd.service']) {
    const { preview } = await run('RestartService', { unit }, hostWith({ [unit]: RUNNING }));
    assert.ok(preview.warnings?.some((w) => w.includes('SSH server')), `restarting ${unit} warns`);
  }
  // The lifeline is found through its other names too (dbus-broker provides dbus.service on some hosts).
  const broker = hostWith({ 'dbus-broker.service': { ...RUNNING, Names: 'dbus-broker.service dbus.service' } });
  await refused('StopService', { unit: 'dbus-broker.service' }, broker, 'protected_unit');
  // Starting and enabling them is harmless.
  assert.ok((await run('StartService', { unit: 'ssh.service' }, hostWith({ 'ssh.service': {} }))).steps.length);
});

test("the daemon's own service is never stopped, restarted, disabled or masked", async () => {
  const tree = { [`/proc/${process.pid}/cgroup`]: '0::/system.slice/airlock-custom.service\n' };
  const host = hostWith({ 'airlock-custom.service': { ...RUNNING, UnitFileState: 'enabled' } }, { 'airlock-custom.service': INSTALLABLE }, tree);
  for (const name of ['StopService', 'RestartService', 'DisableService', 'MaskService']) await refused(name, { unit: 'airlock-custom.service' }, host, 'airlock_unit');
  assert.ok((await run('ReloadService', { unit: 'airlock-custom.service' }, host)).steps.length);
});

test('state refusals: missing, masked, alias, not reloadable, wrong state', async () => {
  for (const name of ['StartService', 'StopService', 'RestartService', 'ReloadService', 'EnableService', 'DisableService', 'MaskService']) {
    await refused(name, { unit: 'nope.service' }, hostWith({}), 'no_such_unit');
  }
  const masked = hostWith({ 'nginx.service': { LoadState: 'masked', UnitFileState: 'masked' } });
  for (const name of ['StartService', 'RestartService', 'ReloadService', 'EnableService', 'DisableService']) await refused(name, { unit: 'nginx.service' }, masked, 'unit_masked');
  await assertNoChange(run('MaskService', { unit: 'nginx.service' }, masked), /already/);
  await assertNoChange(run('StopService', { unit: 'nginx.service' }, masked), /not|no /);
  // A masked unit that still runs can be stopped: masking does not stop it.
  const maskedRunning = hostWith({ 'nginx.service': { ...RUNNING, LoadState: 'masked', UnitFileState: 'masked' } });
  assert.ok((await run('StopService', { unit: 'nginx.service' }, maskedRunning)).steps.length);

  const alias = hostWith({ 'web.service': { ...RUNNING, Id: 'nginx.service', Names: 'nginx.service web.service' } });
  await refused('RestartService', { unit: 'web.service' }, alias, 'unit_alias');
  await refused('StopService', { unit: 'sshd.service' }, hostWith({ 'sshd.service': { ...RUNNING, Id: 'ssh.service', Names: 'ssh.service sshd.service' } }), 'protected_unit');

  await refused('ReloadService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { ...RUNNING, CanReload: 'no' } }), 'cannot_reload');
  await refused('ReloadService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': {} }), 'not_active');
  await assertNoChange(run('StartService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': RUNNING })), /already/);
  await refused('StartService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { CanStart: 'no' } }), 'manual_start_refused');
  await refused('StartService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { LoadState: 'bad-setting' } }), 'unit_not_loaded');
  await assertNoChange(run('StopService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { ActiveState: 'failed', SubState: 'failed' } })), /not|no /);
  await refused('StopService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { ...RUNNING, CanStop: 'no' } }), 'manual_stop_refused');
  await assertNoChange(run('EnableService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { UnitFileState: 'enabled' } }, { 'nginx.service': INSTALLABLE })), /already/);
  await refused('EnableService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { UnitFileState: 'static' } }, { 'nginx.service': '[Service]\nExecStart=/bin/true\n' }), 'not_installable');
  await refused('EnableService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': {} }, { 'nginx.service': '[Service]\nExecStart=/bin/true\n' }), 'not_installable');
  await assertNoChange(run('DisableService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': {} })), /not|no /);
  await assertNoChange(run('DisableService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { UnitFileState: 'static' } })), /not|no /);
  await refused('MaskService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { FragmentPath: '/etc/systemd/system/nginx.service' } }), 'unit_file_in_etc');
  await assertNoChange(run('UnmaskService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': {} })), /not|no /);
  await refused('UnmaskService', { unit: 'nginx.service' }, hostWith({ 'nginx.service': { LoadState: 'masked', UnitFileState: 'masked-runtime' } }), 'masked_at_runtime');
});

test('previews state the concrete change', async () => {
  const host = hostWith(
    { 'nginx.service': { ...RUNNING, RequiredBy: 'app.service', ConsistsOf: 'nginx-log.service', TriggeredBy: 'nginx.socket', UnitFileState: 'enabled' } },
    { 'nginx.service': INSTALLABLE + '[Install]\nAlias=web.service\n' },
  );
  const stop = (await run('StopService', { unit: 'nginx.service' }, host)).preview;
  assert.equal(stop.summary, 'Stop nginx.service (active, running, PID 123, since Sun 2026-11-29 20:34:44 UTC)');
  const change = stop.change as { text: string; dependents: string[] };
  assert.equal(change.text, 'stops nginx.service (active, running, PID 123, since Sun 2026-11-29 20:34:44 UTC); units that depend on it may stop too: app.service, nginx-log.service');
  assert.ok(stop.sideEffects?.some((s) => s.startsWith('nginx.socket can start it again')));

  const restart = (await run('RestartService', { unit: 'nginx.service' }, host)).preview.change as { text: string };
  assert.match(restart.text, /^stops and starts nginx\.service .*may restart too: app\.service, nginx-log\.service$/);

  const disable = (await run('DisableService', { unit: 'nginx.service' }, host)).preview;
  assert.deepEqual((disable.change as { removes_links: string[] }).removes_links, ['/etc/systemd/system/multi-user.target.wants/nginx.service', '/etc/systemd/system/web.service']);
  assert.ok(disable.sideEffects?.some((s) => s.includes('keeps running now')));

  const mask = (await run('MaskService', { unit: 'nginx.service' }, host)).preview;
  assert.deepEqual((mask.change as { creates_link: unknown }).creates_link, { path: '/etc/systemd/system/nginx.service', target: '/dev/null' });
  assert.ok(mask.warnings?.some((w) => w.includes('keeps running until stopped')));

  const net = (await run('StopService', { unit: 'networking.service' }, hostWith({ 'networking.service': RUNNING }))).preview;
  assert.ok(net.warnings?.some((w) => w.includes('cut this host off')));

  const status = (await run('ServiceStatus', { unit: 'gone.service' }, hostWith({}))).preview;
  assert.equal(status.summary, 'Show the state of gone.service (now not found)');
});

test('parsers: systemctl show, [Install] with drop-ins, cgroup of a process', () => {
  const kv = parseShow('Id=a.service\nDescription=A = B\nExecMainStartTimestamp=\n\n');
  assert.equal(kv.get('Description'), 'A = B');
  assert.equal(kv.get('ExecMainStartTimestamp'), '');
  assert.deepEqual(
    parseInstall('# /lib/systemd/system/a.service\n[Install]\nWantedBy=multi-user.target\nAlias=b.service\n\n# /etc/systemd/system/a.service.d/x.conf\n[Install]\nWantedBy=\nWantedBy=graphical.target other.target\n[Service]\nWantedBy=nope.target\n'),
    { wantedBy: ['graphical.target', 'other.target'], requiredBy: [], alias: ['b.service'], also: [] },
  );
  assert.equal(serviceOfCgroup('0::/system.slice/airlock.service\n'), 'airlock.service');
  assert.equal(serviceOfCgroup('0::/system.slice/airlock.service/worker\n'), 'airlock.service');
  assert.equal(serviceOfCgroup('12:cpu:/\n1:name=systemd:/system.slice/x.service\n'), 'x.service');
  assert.equal(serviceOfCgroup('0::/user.slice/user-1000.slice/session-3.scope\n'), null);
});
