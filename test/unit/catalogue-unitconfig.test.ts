import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as overrides from '../../src/catalogue/families/services/overrides.js';
import * as resourceLimits from '../../src/catalogue/families/services/resource-limits.js';
import * as restartPolicy from '../../src/catalogue/families/services/restart-policy.js';
import * as timers from '../../src/catalogue/families/services/timers.js';
import * as unitFiles from '../../src/catalogue/families/services/unit-files.js';
import { configurableService, dropInText, sectionKeys } from '../../src/catalogue/families/services/dropins.js';
import { cpuQuota, memoryMax, openFilesLimit, tasksMax } from '../../src/catalogue/families/services/resource-limits.js';
import { restartDelay } from '../../src/catalogue/families/services/restart-policy.js';
import { timerUnit } from '../../src/catalogue/families/services/timers.js';
import type { Step } from '../../src/catalogue/mechanism.js';
import { unitName } from '../../src/catalogue/params.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// The actions that were unitconfig.ts (family 'services'); the rest of the folder is in catalogue-services.test.ts.
const unitconfig = { ...restartPolicy, ...resourceLimits, ...overrides, ...timers, ...unitFiles };
const actions = Object.values(unitconfig).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);

const UNIT = 'cron.service';
const DIR = `/etc/systemd/system/${UNIT}.d`;
const RESTART_FILE = `${DIR}/airlock-restart.conf`;
const LIMITS_FILE = `${DIR}/airlock-limits.conf`;
const TIMER = 'logrotate.timer';

type Props = Record<string, string>;

const CRON: Props = {
  Id: UNIT,
  Names: UNIT,
  LoadState: 'loaded',
  ActiveState: 'active',
  SubState: 'running',
  UnitFileState: 'enabled',
  MainPID: '123',
  FragmentPath: '/lib/systemd/system/cron.service',
  Type: 'simple',
  Restart: 'on-failure',
  RestartUSec: '100ms',
  DropInPaths: '',
  MemoryMax: 'infinity',
  CPUQuotaPerSecUSec: 'infinity',
  TasksMax: '4915',
  LimitNOFILE: '524288',
  LimitNOFILESoft: '1024',
  NeedDaemonReload: 'no',
};
const LOGROTATE: Props = { Id: TIMER, Names: TIMER, LoadState: 'loaded', ActiveState: 'active', SubState: 'waiting', UnitFileState: 'enabled', FragmentPath: `/lib/systemd/system/${TIMER}`, Triggers: 'logrotate.service', NeedDaemonReload: 'no' };

interface World {
  units?: Record<string, Props>;
  tree?: Record<string, Node>;
  /** `ls` of a directory, one name a line as ls -1 -A --quoting-style=escape prints them. */
  dirs?: Record<string, string[]>;
}

function hostWith(w: World = {}) {
  const units = w.units ?? { [UNIT]: CRON };
  const tree: Record<string, Node> = { '/lib/systemd/system/cron.service': '[Service]\nExecStart=/usr/sbin/cron -f\n', [`/lib/systemd/system/${TIMER}`]: '[Timer]\n', ...w.tree };
  const show = (props: string[], p: Props) => props.filter((k) => k in p).map((k) => `${k}=${p[k]}\n`).join('');
  return new FixtureHost(tree, (program: ProgramName, args: string[]): CommandOutput => {
    if (program === 'systemctl' && args[0] === 'show') {
      const props = args[args.indexOf('-p') + 1]!.split(',');
      const unit = args[args.length - 1]!;
      if (unit === '*') return { code: 0, stdout: Object.values(units).map((p) => show(props, p)).join('\n'), stderr: '' };
      return { code: 0, stdout: show(props, units[unit] ?? { Id: unit, Names: unit, LoadState: 'not-found', ActiveState: 'inactive', UnitFileState: '', DropInPaths: '' }), stderr: '' };
    }
    if (program === 'ls') {
      const listing = w.dirs?.[args[args.length - 1]!];
      return listing ? { code: 0, stdout: listing.map((n) => `${n}\n`).join(''), stderr: '' } : { code: 2, stdout: '', stderr: 'No such file or directory' };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

const cron = (over: Props) => ({ [UNIT]: { ...CRON, ...over } });
const timer = (over: Props) => ({ [TIMER]: { ...LOGROTATE, ...over } });
const showStep = (props: string, unit = UNIT): Step => ({ kind: 'command', program: 'systemctl', args: ['show', '--no-pager', '-p', props, '--', unit] });
const RELOAD: Step = { kind: 'command', program: 'systemctl', args: ['daemon-reload'] };
/** The shape every drop-in change has: values before (carrying the rollback's reload), the file steps, a reload, values after. */
const reloaded = (props: string, fileSteps: Step[]): Step[] => [{ ...showStep(props), undo: RELOAD } as Step, ...fileSteps, { ...RELOAD, noUndo: 'undone_earlier' } as Step, { ...showStep(props), noUndo: 'changes_nothing' } as Step];
const HEADER = '# Written by Airlock; ResetServiceOverrides removes it.\n[Service]\n';

test('unitconfig actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    SetRestartPolicy: ['medium', false, 'exact'],
    SetResourceLimits: ['medium', false, 'exact'],
    ShowServiceOverrides: ['low', true, undefined],
    ResetServiceOverrides: ['medium', false, 'exact'],
    EnableTimer: ['medium', false, 'exact'],
    DisableTimer: ['medium', false, 'exact'],
    ShowUnitFile: ['low', true, undefined],
    ListUnitFiles: ['low', true, undefined],
    DaemonReload: ['medium', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'services', a.name);
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.ok(!a.params.safeParse({ ...a.example, extra: 1 }).success, `${a.name} accepts unknown keys`);
  }
  assert.deepEqual(byName('SetRestartPolicy').files, ['/etc/systemd/system/*.d/airlock-restart.conf']);
  assert.deepEqual(byName('SetResourceLimits').files, ['/etc/systemd/system/*.d/airlock-limits.conf']);
  assert.deepEqual(byName('ResetServiceOverrides').files, ['/etc/systemd/system/*.d/airlock-*.conf']);
  for (const n of ['ShowServiceOverrides', 'EnableTimer', 'DisableTimer', 'ShowUnitFile', 'ListUnitFiles', 'DaemonReload']) assert.deepEqual(byName(n).files, [], n);
});

test('validators refuse injection strings, in every unit parameter', () => {
  for (const bad of INJECTIONS) {
    for (const [name, v] of Object.entries({ configurableService, timerUnit, memoryMax, unitName })) assert.equal(v.safeParse(bad).success, false, `${name} accepted ${JSON.stringify(bad)}`);
    for (const v of [configurableService, unitName]) assert.equal(v.safeParse(`${bad}.service`).success, false, `accepted ${JSON.stringify(`${bad}.service`)}`);
    assert.equal(timerUnit.safeParse(`${bad}.timer`).success, false, `accepted ${JSON.stringify(`${bad}.timer`)}`);
    assert.equal(memoryMax.safeParse(`${bad}M`).success, false, `accepted ${JSON.stringify(`${bad}M`)}`);
    for (const a of actions) {
      for (const key of Object.keys(a.example)) {
        if (typeof a.example[key] === 'string') assert.equal(a.params.safeParse({ ...a.example, [key]: bad }).success, false, `${a.name}.${key} accepted ${JSON.stringify(bad)}`);
      }
    }
  }
});

test('unit parameters: services for drop-ins, timers for timer actions, no templates', () => {
  assert.ok(configurableService.safeParse('getty@tty1.service').success);
  for (const bad of ['logrotate.timer', 'getty@.service', 'ssh.socket', 'multi-user.target', 'cron.bogus', '../cron.service', 'cron.service/x', 'cron.service.d']) assert.equal(configurableService.safeParse(bad).success, false, bad);
  assert.equal(configurableService.parse('cron'), 'cron.service', 'as systemctl reads it');
  assert.ok(timerUnit.safeParse(TIMER).success);
  for (const bad of [UNIT, 'e2scrub@.timer', 'fstrim', 'fstrim.timer ']) assert.equal(timerUnit.safeParse(bad).success, false, bad);
  for (const ok of [UNIT, 'ssh.socket', 'multi-user.target', 'srv-data.mount', 'getty@.service']) assert.ok(unitName.safeParse(ok).success, ok);
});

test('value validators: fixed restart policies and bounded limits', () => {
  const restart = byName('SetRestartPolicy').params;
  for (const r of ['no', 'on-success', 'on-failure', 'on-abnormal', 'on-watchdog', 'on-abort', 'always']) assert.ok(restart.safeParse({ unit: UNIT, restart: r }).success, r);
  for (const r of ['sometimes', 'Always', 'always\n', 'on-failure;', '']) assert.equal(restart.safeParse({ unit: UNIT, restart: r }).success, false, r);
  for (const s of [0, 5, 3600]) assert.ok(restartDelay.safeParse(s).success, String(s));
  for (const s of [-1, 3601, 1.5, '5', '5s']) assert.equal(restartDelay.safeParse(s).success, false, String(s));
  for (const m of ['32M', '512M', '2G', '1T', '65536K', '1%', '50%', '100%', 'infinity']) assert.ok(memoryMax.safeParse(m).success, m);
  for (const m of ['16M', '1K', '0M', '0%', '101%', '1000%', '1.5G', '512m', '512MB', '512', 'Infinity', '512 M', '-1', '10000000G']) assert.equal(memoryMax.safeParse(m).success, false, m);
  for (const q of [1, 50, 400, 10_000]) assert.ok(cpuQuota.safeParse(q).success, String(q));
  for (const q of [0, -5, 10_001, 2.5, '50%']) assert.equal(cpuQuota.safeParse(q).success, false, String(q));
  for (const t of [16, 4096, 4_194_304, 'infinity']) assert.ok(tasksMax.safeParse(t).success, String(t));
  for (const t of [15, 0, 4_194_305, 'unlimited', '64', 1.5]) assert.equal(tasksMax.safeParse(t).success, false, String(t));
  for (const n of [64, 4096, 1_048_576]) assert.ok(openFilesLimit.safeParse(n).success, String(n));
  for (const n of [63, 1_048_577, 'infinity', '4096']) assert.equal(openFilesLimit.safeParse(n).success, false, String(n));
  const limits = byName('SetResourceLimits').params;
  assert.equal(limits.safeParse({ unit: UNIT }).success, false, 'at least one limit');
  assert.ok(limits.safeParse({ unit: UNIT, limitNofile: 4096 }).success);
  assert.equal(limits.safeParse({ unit: UNIT, MemoryMax: '512M' }).success, false, 'systemd key names are not parameters');
  const list = byName('ListUnitFiles').params;
  for (const t of ['service', 'socket', 'timer', 'target', 'path', 'mount', 'automount', 'swap', 'slice']) assert.ok(list.safeParse({ type: t }).success, t);
  for (const t of ['device', 'scope', 'Service', 'service,timer', '*', '']) assert.equal(list.safeParse({ type: t }).success, false, t);
});

test('sectionKeys reads the keys of one section only', () => {
  assert.deepEqual(sectionKeys('[Unit]\nRestart=no\n[Service]\n# Restart=x\n  Restart = always\nRestartSec=5\n;TasksMax=1\n[Install]\nWantedBy=x\n', 'Service'), ['Restart', 'RestartSec']);
  assert.deepEqual(sectionKeys('Restart=always\n', 'Service'), [], 'outside any section');
  assert.equal(dropInText([['Restart', 'no']]), `${HEADER}Restart=no\n`);
});

// ---------------------------------------------------------------- SetRestartPolicy

test('SetRestartPolicy: writes its drop-in, reloads, shows the values before and after', async () => {
  const { steps, preview } = await run('SetRestartPolicy', { unit: UNIT, restart: 'always', restartSec: 7 }, hostWith());
  const content = `${HEADER}Restart=always\nRestartSec=7s\n`;
  assert.deepEqual(steps, reloaded('Restart,RestartUSec', [{ kind: 'fileWrite', path: RESTART_FILE, content, mode: 0o644, parent: { mode: 0o755 } }]));
  assert.deepEqual(preview.change, {
    unit: UNIT,
    file: RESTART_FILE,
    content,
    replaces: null,
    settings: { Restart: { now: 'Restart=on-failure', to: 'always' }, RestartSec: { now: 'RestartUSec=100ms', to: '7s' } },
    then: 'systemctl daemon-reload',
  });
  assert.equal(preview.summary, 'Set Restart=always, RestartSec=7s for cron.service');
  assert.match(preview.sideEffects![0]!, /daemon-reload/);
  assert.match(preview.sideEffects![1]!, /keeps running \(active, running, PID 123\)/);
  assert.deepEqual(preview.warnings, []);
});

test('SetRestartPolicy: without restartSec only Restart= is written; an older file is replaced and shown', async () => {
  const old = `${HEADER}Restart=always\nRestartSec=7s\n`;
  const { steps, preview } = await run('SetRestartPolicy', { unit: UNIT, restart: 'on-abnormal' }, hostWith({ tree: { [RESTART_FILE]: old }, units: cron({ DropInPaths: RESTART_FILE, Restart: 'always', RestartUSec: '7s' }) }));
  assert.equal((steps[1] as { content: string }).content, `${HEADER}Restart=on-abnormal\n`);
  assert.equal((preview.change as { replaces: string }).replaces, old);
  assert.deepEqual((preview.change as { settings: unknown }).settings, { Restart: { now: 'Restart=always', to: 'on-abnormal' } });
});

test('SetRestartPolicy: refusals', async () => {
  const same = `${HEADER}Restart=always\n`;
  await assertNoChange(run('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ tree: { [RESTART_FILE]: same } })), /already/);
  await refused('SetRestartPolicy', { unit: 'nope.service', restart: 'always' }, hostWith(), 'no_such_unit', 'validation');
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ units: cron({ LoadState: 'masked', UnitFileState: 'masked' }) }), 'unit_masked', 'conflict');
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ units: cron({ UnitFileState: 'transient' }) }), 'transient_unit', 'conflict');
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ units: cron({ Type: 'oneshot' }) }), 'invalid_for_oneshot', 'validation');
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'on-success' }, hostWith({ units: cron({ Type: 'oneshot' }) }), 'invalid_for_oneshot', 'validation');
  assert.ok((await run('SetRestartPolicy', { unit: UNIT, restart: 'on-failure' }, hostWith({ units: cron({ Type: 'oneshot' }) }))).steps.length === 4);
  await refused('SetRestartPolicy', { unit: 'rescue.service', restart: 'no' }, hostWith({ units: { 'rescue.service': { ...CRON, Id: 'rescue.service', Names: 'rescue.service' } } }), 'rescue_unit', 'authorization');
  await refused('SetRestartPolicy', { unit: 'debug-shell.service', restart: 'no' }, hostWith({ units: { 'debug-shell.service': { ...CRON, Id: 'debug-shell.service', Names: 'debug-shell.service' } } }), 'rescue_unit');
  await refused('SetRestartPolicy', { unit: 'sshd.service', restart: 'always' }, hostWith({ units: { 'sshd.service': { ...CRON, Id: 'ssh.service', Names: 'ssh.service sshd.service' } } }), 'unit_alias', 'validation');
});

test('SetRestartPolicy: a drop-in applied after it that sets the same key is refused; earlier ones and other keys are not', async () => {
  const later = `${DIR}/override.conf`;
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ units: cron({ DropInPaths: later }), tree: { [later]: '[Service]\nRestart=no\n' } }), 'overridden', 'conflict');
  // In /run or /usr/lib: the file name decides the order, not the directory.
  const runLater = '/run/systemd/system/cron.service.d/zz.conf';
  await refused('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith({ units: cron({ DropInPaths: runLater }), tree: { [runLater]: '[Service]\nRestartSec=1\n' } }), 'overridden');
  const earlier = `${DIR}/10-local.conf`;
  const fine = hostWith({ units: cron({ DropInPaths: `${earlier} ${later}` }), tree: { [earlier]: '[Service]\nRestart=no\n', [later]: '[Unit]\nRestart=no\n[Service]\nTasksMax=20\n' } });
  assert.equal((await run('SetRestartPolicy', { unit: UNIT, restart: 'always' }, fine)).steps.length, 4);
});

test('SetRestartPolicy: warnings for a lifeline without restarts and for an instant restart loop; pending reloads are named', async () => {
  const ssh = { 'ssh.service': { ...CRON, Id: 'ssh.service', Names: 'ssh.service sshd.service' }, 'other.service': { ...CRON, Id: 'other.service', NeedDaemonReload: 'yes' } };
  const { preview } = await run('SetRestartPolicy', { unit: 'ssh.service', restart: 'no' }, hostWith({ units: ssh }));
  assert.match(preview.warnings![0]!, /^ssh\.service is the SSH server.*stays down if it crashes/);
  assert.match(preview.sideEffects![0]!, /not yet loaded of: other\.service$/);
  const loop = await run('SetRestartPolicy', { unit: UNIT, restart: 'always', restartSec: 0 }, hostWith());
  assert.match(loop.preview.warnings![0]!, /start limit/);
});

// ---------------------------------------------------------------- SetResourceLimits

test('SetResourceLimits: the drop-in holds exactly the limits given, in a fixed order', async () => {
  const { steps, preview } = await run('SetResourceLimits', { unit: UNIT, limitNofile: 4096, memoryMax: '256M', tasksMax: 64, cpuQuota: 50 }, hostWith());
  const content = `${HEADER}MemoryMax=256M\nCPUQuota=50%\nTasksMax=64\nLimitNOFILE=4096\n`;
  assert.deepEqual(steps, reloaded('MemoryMax,CPUQuotaPerSecUSec,TasksMax,LimitNOFILE', [{ kind: 'fileWrite', path: LIMITS_FILE, content, mode: 0o644, parent: { mode: 0o755 } }]));
  const change = preview.change as { settings: Record<string, unknown>; no_longer_set_here: string[] };
  assert.deepEqual(change.settings, {
    MemoryMax: { now: 'MemoryMax=infinity', to: '256M' },
    CPUQuota: { now: 'CPUQuotaPerSecUSec=infinity', to: '50%' },
    TasksMax: { now: 'TasksMax=4915', to: '64' },
    LimitNOFILE: { now: 'soft 1024, hard 524288', to: 'soft and hard 4096' },
  });
  assert.deepEqual(change.no_longer_set_here, []);
  assert.ok(preview.sideEffects!.some((s) => /LimitNOFILE applies from the next start of cron\.service \(RestartService restarts it\)/.test(s)));
  assert.ok(preview.warnings!.some((w) => /already uses more than 256M/.test(w)));
});

test('SetResourceLimits: keys of the old file not given again are named', async () => {
  const old = `${HEADER}MemoryMax=256M\nTasksMax=64\n`;
  const { steps, preview } = await run('SetResourceLimits', { unit: UNIT, tasksMax: 'infinity' }, hostWith({ tree: { [LIMITS_FILE]: old } }));
  assert.equal((steps[1] as { content: string }).content, `${HEADER}TasksMax=infinity\n`);
  assert.deepEqual((preview.change as { no_longer_set_here: string[] }).no_longer_set_here, ['MemoryMax']);
  assert.ok(preview.warnings!.some((w) => /MemoryMax is no longer set by Airlock/.test(w)));
  assert.ok(!preview.sideEffects!.some((s) => /LimitNOFILE/.test(s)));
});

test('SetResourceLimits: refuses lifelines, the daemon own unit, rescue shells and unchanged files', async () => {
  await refused('SetResourceLimits', { unit: 'ssh.service', memoryMax: '512M' }, hostWith({ units: { 'ssh.service': { ...CRON, Id: 'ssh.service', Names: 'ssh.service sshd.service' } } }), 'protected_unit', 'authorization');
  await refused('SetResourceLimits', { unit: 'dbus.service', tasksMax: 64 }, hostWith({ units: { 'dbus.service': { ...CRON, Id: 'dbus.service', Names: 'dbus.service' } } }), 'protected_unit');
  const own = hostWith({ units: { 'airlockd-test.service': { ...CRON, Id: 'airlockd-test.service', Names: 'airlockd-test.service' } }, tree: { [`/proc/${process.pid}/cgroup`]: '0::/system.slice/airlockd-test.service\n' } });
  await refused('SetResourceLimits', { unit: 'airlockd-test.service', cpuQuota: 10 }, own, 'airlock_unit', 'authorization');
  await refused('SetResourceLimits', { unit: 'emergency.service', cpuQuota: 10 }, hostWith({ units: { 'emergency.service': { ...CRON, Id: 'emergency.service', Names: 'emergency.service' } } }), 'rescue_unit');
  await assertNoChange(run('SetResourceLimits', { unit: UNIT, cpuQuota: 10 }, hostWith({ tree: { [LIMITS_FILE]: `${HEADER}CPUQuota=10%\n` } })), /already/);
  const later = `${DIR}/zz.conf`;
  await refused('SetResourceLimits', { unit: UNIT, cpuQuota: 10 }, hostWith({ units: cron({ DropInPaths: later }), tree: { [later]: '[Service]\nCPUQuota=90%\n' } }), 'overridden');
});

// ---------------------------------------------------------------- ShowServiceOverrides and ResetServiceOverrides

test('ShowServiceOverrides: every drop-in, read as nobody, each line with its file', async () => {
  const a = `${DIR}/airlock-restart.conf`;
  const b = '/usr/lib/systemd/system/service.d/10-timeout.conf';
  const { steps, preview, cur } = await run('ShowServiceOverrides', { unit: UNIT }, hostWith({ units: cron({ DropInPaths: `${b} ${a}` }), tree: { [a]: 'x', [b]: 'y' } }));
  assert.deepEqual(steps, [{ kind: 'command', program: 'grep', args: ['--with-filename', '--line-number', '--regexp=', '--', b, a], unprivileged: true, okCodes: [0, 1] }]);
  assert.deepEqual(
    (cur as { dropIns: unknown }).dropIns,
    [
      { path: b, airlock: false, readableByAll: true },
      { path: a, airlock: true, readableByAll: true },
    ],
  );
  assert.equal(preview.summary, 'Show the 2 drop-ins of cron.service');
  assert.deepEqual(preview.warnings, []);
});

test('ShowServiceOverrides: a drop-in only root may read is named and not shown; no drop-ins is refused', async () => {
  const secret = `${DIR}/10-local.conf`;
  const { steps, preview } = await run('ShowServiceOverrides', { unit: UNIT }, hostWith({ units: cron({ DropInPaths: secret }), tree: { [secret]: { file: 'Environment=TOKEN=x\n', mode: 0o600 } } }));
  assert.deepEqual((steps[0] as { okCodes: number[] }).okCodes, [0, 1, 2]);
  assert.deepEqual(preview.warnings, [`${secret} is readable by root only and is not shown`]);
  await refused('ShowServiceOverrides', { unit: UNIT }, hostWith(), 'no_overrides', 'conflict');
  await refused('ShowServiceOverrides', { unit: 'nope.service' }, hostWith(), 'no_such_unit');
});

test("ResetServiceOverrides: deletes only Airlock's drop-ins and reloads; shows the values they set", async () => {
  const world = {
    dirs: { [DIR]: ['10-local.conf', 'airlock-restart.conf', 'airlock-limits.conf', 'airlock-old.conf.bak', 'airlock\\ x.conf', 'Airlock-x.conf'] },
    tree: { [RESTART_FILE]: `${HEADER}Restart=always\n`, [LIMITS_FILE]: `${HEADER}MemoryMax=256M\n`, [`${DIR}/10-local.conf`]: '[Service]\nRestart=no\n' },
    units: cron({ Restart: 'always', MemoryMax: '268435456' }),
  };
  const { steps, preview } = await run('ResetServiceOverrides', { unit: UNIT }, hostWith(world));
  assert.deepEqual(steps, reloaded('MemoryMax,Restart', [{ kind: 'fileDelete', path: LIMITS_FILE }, { kind: 'fileDelete', path: RESTART_FILE }]));
  const change = preview.change as { deletes: Array<{ path: string }>; settings_now: unknown };
  assert.deepEqual(change.deletes.map((d) => d.path), [LIMITS_FILE, RESTART_FILE]);
  assert.deepEqual(change.settings_now, { MemoryMax: '268435456', Restart: 'always' });
  assert.equal(preview.summary, "Remove Airlock's drop-ins of cron.service: airlock-limits.conf, airlock-restart.conf");
});

test('ResetServiceOverrides: refuses when there is none; still cleans up after a unit that is gone; refuses aliases', async () => {
  await assertNoChange(run('ResetServiceOverrides', { unit: UNIT }, hostWith()), /not|no /);
  await assertNoChange(run('ResetServiceOverrides', { unit: UNIT }, hostWith({ dirs: { [DIR]: ['override.conf'] } })), /not|no /);
  const gone = 'gone.service';
  const file = `/etc/systemd/system/${gone}.d/airlock-restart.conf`;
  const { steps } = await run('ResetServiceOverrides', { unit: gone }, hostWith({ dirs: { [`/etc/systemd/system/${gone}.d`]: ['airlock-restart.conf'] }, tree: { [file]: `${HEADER}Restart=always\n` } }));
  assert.deepEqual(steps[1], { kind: 'fileDelete', path: file });
  const alias = hostWith({ units: { 'sshd.service': { ...CRON, Id: 'ssh.service', Names: 'ssh.service sshd.service' } }, dirs: { '/etc/systemd/system/sshd.service.d': ['airlock-restart.conf'] }, tree: { '/etc/systemd/system/sshd.service.d/airlock-restart.conf': 'x' } });
  await refused('ResetServiceOverrides', { unit: 'sshd.service' }, alias, 'unit_alias');
});

// ---------------------------------------------------------------- timers

test('EnableTimer: enable --now, with an undo back to the state before', async () => {
  const off = await run('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'disabled', ActiveState: 'inactive', SubState: 'dead' }) }));
  assert.deepEqual(off.steps, [
    { kind: 'command', program: 'systemctl', args: ['enable', '--now', '--', TIMER], undo: { kind: 'command', program: 'systemctl', args: ['disable', '--now', '--', TIMER] } },
  ]);
  assert.equal(off.preview.summary, 'Enable logrotate.timer at boot and start it now');
  assert.deepEqual((off.preview.change as { unit_file_state: unknown }).unit_file_state, { from: 'disabled', to: 'enabled' });
  assert.match((off.preview.change as { text: string }).text, /activates logrotate\.service/);
  const stopped = await run('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ ActiveState: 'inactive', SubState: 'dead' }) }));
  assert.deepEqual((stopped.steps[0] as { undo: unknown }).undo, { kind: 'command', program: 'systemctl', args: ['stop', '--', TIMER] });
  assert.equal(stopped.preview.summary, 'Start logrotate.timer (already enabled at boot)');
  const runningOnly = await run('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'disabled' }) }));
  assert.deepEqual((runningOnly.steps[0] as { undo: unknown }).undo, { kind: 'command', program: 'systemctl', args: ['disable', '--', TIMER] });
});

test('EnableTimer: refusals', async () => {
  await assertNoChange(run('EnableTimer', { unit: TIMER }, hostWith({ units: timer({}) })), /already/);
  await refused('EnableTimer', { unit: 'nope.timer' }, hostWith({ units: timer({}) }), 'no_such_unit', 'validation');
  await refused('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'static', ActiveState: 'inactive' }) }), 'not_installable', 'conflict');
  await refused('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'masked', LoadState: 'masked', ActiveState: 'inactive' }) }), 'unit_masked');
  await refused('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'disabled', LoadState: 'bad-setting', ActiveState: 'inactive' }) }), 'unit_not_loaded');
  await refused('EnableTimer', { unit: 'alias.timer' }, hostWith({ units: { 'alias.timer': { ...LOGROTATE, Names: `${TIMER} alias.timer`, UnitFileState: 'disabled' } } }), 'unit_alias');
  assert.equal(byName('EnableTimer').params.safeParse({ unit: UNIT }).success, false, 'a service is not a timer');
});

test('DisableTimer: disable --now, with an undo back to the state before; refuses a timer that is not enabled', async () => {
  const on = await run('DisableTimer', { unit: TIMER }, hostWith({ units: timer({}) }));
  assert.deepEqual(on.steps, [
    { kind: 'command', program: 'systemctl', args: ['disable', '--now', '--', TIMER], undo: { kind: 'command', program: 'systemctl', args: ['enable', '--now', '--', TIMER] } },
  ]);
  assert.deepEqual((on.preview.change as { state: unknown }).state, { from: 'active, waiting', to: 'inactive' });
  const idle = await run('DisableTimer', { unit: TIMER }, hostWith({ units: timer({ ActiveState: 'inactive', SubState: 'dead' }) }));
  assert.deepEqual((idle.steps[0] as { undo: unknown }).undo, { kind: 'command', program: 'systemctl', args: ['enable', '--', TIMER] });
  await assertNoChange(run('DisableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'disabled' }) })), /not|no /);
  await assertNoChange(run('DisableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'static' }) })), /not|no /);
  await refused('DisableTimer', { unit: 'nope.timer' }, hostWith({ units: timer({}) }), 'no_such_unit');
});

test('the changes probe what they change: the values systemd applies, a timer\'s enablement and whether it runs; a daemon-reload nothing', async () => {
  const probes = async (name: string, params: Record<string, unknown>, host: FixtureHost) => {
    const a = byName(name);
    const { cur } = await run(name, params, host);
    assert.equal(a.rollback?.class, 'exact', name);
    return (a.rollback.state?.(a.params.parse(params), cur) ?? []).map((p) => ('file' in p ? p.file : [p.program, ...p.args].join(' ')));
  };
  assert.deepEqual(await probes('SetRestartPolicy', { unit: UNIT, restart: 'always' }, hostWith()), ['systemctl show --no-pager -p Restart,RestartUSec -- cron.service']);
  assert.deepEqual(await probes('SetResourceLimits', { unit: UNIT, tasksMax: 64 }, hostWith()), ['systemctl show --no-pager -p MemoryMax,CPUQuotaPerSecUSec,TasksMax,LimitNOFILE -- cron.service']);
  const own = hostWith({ dirs: { [DIR]: ['airlock-restart.conf'] }, tree: { [RESTART_FILE]: `${HEADER}Restart=always\n` }, units: cron({ Restart: 'always' }) });
  assert.deepEqual(await probes('ResetServiceOverrides', { unit: UNIT }, own), ['systemctl show --no-pager -p Restart -- cron.service']);
  const timerState = [`systemctl is-enabled -- ${TIMER}`, `systemctl is-active --quiet -- ${TIMER}`];
  assert.deepEqual(await probes('EnableTimer', { unit: TIMER }, hostWith({ units: timer({ UnitFileState: 'disabled', ActiveState: 'inactive' }) })), timerState);
  assert.deepEqual(await probes('DisableTimer', { unit: TIMER }, hostWith({ units: timer({}) })), timerState);
  assert.deepEqual(await probes('DaemonReload', {}, hostWith()), []);
});

// ---------------------------------------------------------------- unit files and daemon-reload

test('ShowUnitFile: systemctl cat as nobody; a root-only file and those after it are named', async () => {
  const { steps, preview } = await run('ShowUnitFile', { unit: UNIT }, hostWith());
  assert.deepEqual(steps, [{ kind: 'command', program: 'systemctl', args: ['cat', '--no-pager', '--', UNIT], unprivileged: true, okCodes: [0] }]);
  assert.equal(preview.summary, 'Show the unit file of cron.service');
  const secret = `${DIR}/10-local.conf`;
  const hidden = await run('ShowUnitFile', { unit: UNIT }, hostWith({ units: cron({ DropInPaths: `${secret} ${RESTART_FILE}` }), tree: { [secret]: { file: 'x', mode: 0o600 }, [RESTART_FILE]: 'y' } }));
  assert.deepEqual((hidden.steps[0] as { okCodes: number[] }).okCodes, [0, 1]);
  assert.equal(hidden.preview.warnings!.length, 1);
  assert.match(hidden.preview.warnings![0]!, new RegExp(`^${secret} is readable by root only: it is not shown, nor the files systemctl cat prints after it \\(${RESTART_FILE}\\)`));
  await refused('ShowUnitFile', { unit: 'nope.service' }, hostWith(), 'no_such_unit');
  assert.ok(byName('ShowUnitFile').params.safeParse({ unit: 'ssh.socket' }).success);
});

test('ListUnitFiles: fixed argv, with an optional type filter', async () => {
  assert.deepEqual((await run('ListUnitFiles', {}, hostWith())).steps, [{ kind: 'command', program: 'systemctl', args: ['list-unit-files', '--no-pager', '--no-legend'] }]);
  assert.deepEqual((await run('ListUnitFiles', { type: 'timer' }, hostWith())).steps, [{ kind: 'command', program: 'systemctl', args: ['list-unit-files', '--no-pager', '--no-legend', '--type=timer'] }]);
});

test('DaemonReload: names the units changed on disk, then reloads', async () => {
  const units = { [UNIT]: { ...CRON, NeedDaemonReload: 'yes' }, [TIMER]: LOGROTATE, 'a.service': { ...CRON, Id: 'a.service', NeedDaemonReload: 'yes' } };
  const { steps, preview, cur } = await run('DaemonReload', {}, hostWith({ units }));
  assert.deepEqual(steps, [{ ...RELOAD, noUndo: 'leaves_state' }], 'an event: it writes nothing, and no unit starts or stops');
  assert.deepEqual(cur, { pendingReload: ['a.service', UNIT] });
  assert.deepEqual((preview.change as { changed_on_disk: string[] }).changed_on_disk, ['a.service', UNIT]);
  const none = await run('DaemonReload', {}, hostWith());
  assert.match((none.preview.change as { text: string }).text, /no loaded unit reports changes on disk/);
});
