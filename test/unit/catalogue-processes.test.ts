import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actions as processes } from '../../src/catalogue/families/processes/index.js';
import { parseStat, processId } from '../../src/catalogue/families/processes/process-state.js';
import { signalName, SIGNALS } from '../../src/catalogue/families/processes/signals.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// The family's actions that were diagnostics.ts are in catalogue-diagnostics.test.ts.
const FROM_DIAGNOSTICS = ['ProcessTree', 'ProcessesOfUser', 'ProcessLimits'];
const actions = processes.filter((a) => !FROM_DIAGNOSTICS.includes(a.name));
const byName = (n: string) => actions.find((a) => a.name === n)!;

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www:/var/www:/usr/sbin/nologin\nalice:x:1000:1000::/home/alice:/bin/bash\n';
const BTIME = 1_795_981_373;

interface Proc {
  comm?: string;
  state?: string;
  ppid?: number;
  flags?: number;
  start?: number;
  uid?: number;
  tgid?: number;
  cgroup?: string;
}

/** The three /proc files of one process, as the kernel writes them. */
function proc(pid: number, p: Proc = {}): Record<string, Node> {
  const { comm = 'sleep', state = 'S', ppid = 1, flags = 4194560, start = 398645, uid = 0, tgid = pid, cgroup = '/system.slice/victim.service' } = p;
  return {
    [`/proc/${pid}/stat`]: `${pid} (${comm}) ${state} ${ppid} ${pid} ${pid} 0 -1 ${flags} 152 0 0 0 0 0 0 0 20 0 1 0 ${start} 2990080 393 18446744073709551615 0 0 0 0 0 0 0 4096 0 1 0 0 17 0 0 0 0 0 0\n`,
    [`/proc/${pid}/status`]: `Name:\t${comm}\nState:\t${state} (x)\nTgid:\t${tgid}\nPid:\t${pid}\nPPid:\t${ppid}\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\nGid:\t0\t0\t0\t0\n`,
    [`/proc/${pid}/cgroup`]: `0::${cgroup}\n`,
  };
}

const BASE: Record<string, Node> = { '/etc/passwd': PASSWD, '/proc/stat': `cpu 1 2 3\nbtime ${BTIME}\nprocesses 5\n` };

/** `systemctl show` output: a loaded, running service unless told otherwise. */
function show(unit: string, p: Record<string, string> = {}): string {
  const base: Record<string, string> = {
    Id: unit,
    Names: unit,
    LoadState: 'loaded',
    ActiveState: 'active',
    SubState: 'running',
    UnitFileState: 'enabled',
    MainPID: '4242',
    Restart: 'on-failure',
    ...p,
  };
  return Object.entries(base).map(([k, v]) => `${k}=${v}\n`).join('');
}

function hostWith(tree: Record<string, Node>, units: Record<string, Record<string, string>> = {}) {
  return new FixtureHost({ ...BASE, ...tree }, (program, args) => {
    const unit = args[args.length - 1]!;
    if (program === 'systemctl' && args[0] === 'show') {
      return { code: 0, stdout: show(unit, units[unit] ?? { LoadState: 'not-found', ActiveState: 'inactive', SubState: 'dead', MainPID: '0', UnitFileState: '' }), stderr: '' };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

const { run, refused } = actionRunner(actions);

test('processes actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean]> = {
    TopProcesses: ['low', true],
    ProcessInfo: ['low', true],
    SignalProcess: ['high', false],
    SignalUnit: ['high', false],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'processes');
    assert.deepEqual([a.risk, a.readOnly], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    if (!a.readOnly) {
      // A delivered signal cannot be taken back: the class is the action's, whatever the signal, and the approver reads why.
      assert.equal(a.rollback?.class, 'none', a.name);
      assert.match(a.rollback.class === 'none' ? a.rollback.reason : '', /^a delivered signal cannot be taken back: .*STOP is undone only by sending CONT/, a.name);
      assert.doesNotMatch(a.rollback.class === 'none' ? a.rollback.reason : '', /not yet declared/);
    } else assert.equal(a.rollback, undefined, a.name);
    assert.deepEqual(a.files, []);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
});

test('pid, signal, by and unit parameters refuse injections and out-of-range values', () => {
  for (const bad of [0, 1, -1, 4_194_305, 1.5, Number.NaN, Infinity, '123', '1; rm -rf /', null, [123], ...INJECTIONS]) {
    assert.equal(processId.safeParse(bad).success, false, JSON.stringify(bad));
    for (const name of ['ProcessInfo', 'SignalProcess']) assert.equal(byName(name).params.safeParse({ pid: bad, signal: 'TERM' }).success, false, `${name} ${JSON.stringify(bad)}`);
  }
  for (const ok of [2, 1234, 4_194_304]) assert.ok(processId.safeParse(ok).success, String(ok));
  for (const bad of [...INJECTIONS, 'SIGTERM', 'term', 'QUIT', 'SEGV', '9', 9, '-9', 'KILL ', 'TERM; id']) {
    assert.equal(signalName.safeParse(bad).success, false, JSON.stringify(bad));
  }
  for (const s of SIGNALS) assert.ok(signalName.safeParse(s).success, s);
  const top = byName('TopProcesses');
  for (const bad of [...INJECTIONS, 'CPU', 'rss', undefined]) assert.equal(top.params.safeParse({ by: bad }).success, false, JSON.stringify(bad));
  assert.equal(top.params.safeParse({ by: 'cpu', count: 10 }).success, false, 'no count: ps cannot limit its rows');
  const su = byName('SignalUnit');
  for (const bad of [...INJECTIONS, ...INJECTIONS.map((s) => `${s}.service`), 'apt-daily.timer', 'getty@.service', 'basic.target', 'getty@']) {
    assert.equal(su.params.safeParse({ unit: bad, signal: 'HUP' }).success, false, JSON.stringify(bad));
  }
  assert.equal((su.params.parse({ unit: 'nginx', signal: 'HUP' }) as { unit: string }).unit, 'nginx.service', 'as systemctl reads it');
  for (const bad of [...INJECTIONS, 'control', 'MAIN']) assert.equal(su.params.safeParse({ unit: 'nginx.service', signal: 'HUP', whom: bad }).success, false, JSON.stringify(bad));
  assert.equal(su.params.safeParse({ unit: 'nginx.service', signal: 'HUP', extra: 1 }).success, false);
  assert.equal(byName('SignalProcess').params.safeParse({ pid: 1234, signal: 'TERM', force: true }).success, false);
});

test('/proc/PID/stat is parsed even when the program name holds parentheses and spaces', () => {
  const st = parseStat('77 (a) (b) c) T 5 77 77 0 -1 2097152 0 0 0 0 0 0 0 0 20 0 1 0 4242 0 0\n');
  assert.deepEqual(st, { comm: 'a) (b) c', state: 'T', ppid: 5, flags: 2097152, startTicks: 4242 });
  assert.equal(parseStat('garbage'), null);
  assert.equal(parseStat('1 (x) S 0'), null);
});

test('TopProcesses and ProcessInfo run ps with fixed columns, never the command line', async () => {
  const cpu = await run('TopProcesses', { by: 'cpu' }, hostWith({}));
  assert.deepEqual(cpu.steps, [{ kind: 'command', program: 'ps', args: ['-eo', 'pid,user,pcpu,pmem,rss,comm', '--sort=-pcpu'] }]);
  const mem = await run('TopProcesses', { by: 'memory' }, hostWith({}));
  assert.deepEqual(mem.steps, [{ kind: 'command', program: 'ps', args: ['-eo', 'pid,user,pcpu,pmem,rss,comm', '--sort=-rss'] }]);
  const info = await run('ProcessInfo', { pid: 4242 }, hostWith(proc(4242, { uid: 1000 })));
  assert.deepEqual(info.steps, [{ kind: 'command', program: 'ps', args: ['-o', 'pid,ppid,user,stat,lstart,pcpu,pmem,rss,unit,comm', '-p', '4242'] }]);
  assert.equal(info.preview.change, null);
  assert.match(info.preview.summary, /sleep \(PID 4242, user alice, started 2026-11-29T\d\d:\d\d:\d\dZ, in victim\.service\)/);
  for (const steps of [cpu.steps, mem.steps, info.steps]) {
    for (const s of steps) assert.ok(s.kind === 'command' && !s.args.some((a) => /args|cmd|command/.test(a)), 'no command-line column');
  }
  await refused('ProcessInfo', { pid: 999 }, hostWith({}), 'no_such_process');
  await refused('ProcessInfo', { pid: 4243 }, hostWith(proc(4243, { tgid: 4242 })), 'thread_id');
});

test('SignalProcess: kill -s SIG -- PID, with the start time in the approved change', async () => {
  for (const signal of SIGNALS.filter((s) => s !== 'CONT' && s !== 'STOP')) {
    const r = await run('SignalProcess', { pid: 4242, signal }, hostWith(proc(4242)));
    assert.deepEqual(r.steps, [{ kind: 'command', program: 'kill', args: ['-s', signal, '--', '4242'] }], 'no undo: the job is never said to be reversible');
  }
  // STOP and CONT undo each other, for a plan that fails after them (the action itself is never reverted).
  const stop = await run('SignalProcess', { pid: 4242, signal: 'STOP' }, hostWith(proc(4242)));
  assert.deepEqual(stop.steps, [{ kind: 'command', program: 'kill', args: ['-s', 'STOP', '--', '4242'], undo: { kind: 'command', program: 'kill', args: ['-s', 'CONT', '--', '4242'] } }]);
  const r = await run('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(proc(4242, { uid: 1000 })));
  assert.deepEqual(r.preview.change, {
    pid: 4242,
    signal: 'SIGTERM',
    process: { comm: 'sleep', uid: 1000, user: 'alice', start_ticks: 398645, unit: 'victim.service' },
    text: 'sends SIGTERM to PID 4242 (sleep, run by alice, in victim.service)',
  });
  assert.match(r.preview.summary, /^Send SIGTERM to sleep \(PID 4242, user alice, started /);
  assert.deepEqual(Object.keys(r.shown as object).sort(), ['cgroup', 'comm', 'exists', 'pid', 'started', 'state', 'unit', 'user'], 'the preview shows no lineage, no command line');
  // A different process behind the same PID (reused): the change differs, so the daemon refuses the receipt.
  const reused = await run('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(proc(4242, { uid: 1000, start: 512000 })));
  assert.notDeepEqual(reused.preview.change, r.preview.change);
  // State changes (running <-> sleeping) do not change what was approved.
  const busy = await run('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(proc(4242, { uid: 1000, state: 'R' })));
  assert.deepEqual(busy.preview.change, r.preview.change);
  const cont = await run('SignalProcess', { pid: 4242, signal: 'CONT' }, hostWith(proc(4242, { state: 'T' })));
  assert.deepEqual(cont.steps, [{ kind: 'command', program: 'kill', args: ['-s', 'CONT', '--', '4242'], undo: { kind: 'command', program: 'kill', args: ['-s', 'STOP', '--', '4242'] } }]);
});

test('SignalProcess warnings: root, login sessions, SSH, stopped processes', async () => {
  const root = await run('SignalProcess', { pid: 4242, signal: 'KILL' }, hostWith(proc(4242, { uid: 0 })));
  assert.ok(root.preview.warnings!.includes('it runs as root'));
  const session = await run('SignalProcess', { pid: 4242, signal: 'HUP' }, hostWith(proc(4242, { uid: 1000, comm: 'bash', cgroup: '/user.slice/user-1000.slice/session-3.scope' })));
  assert.ok(session.preview.warnings!.some((w) => w.includes('login session (session-3.scope)')));
  const ssh = await run('SignalProcess', { pid: 4242, signal: 'HUP' }, hostWith(proc(4242, { comm: 'sshd', cgroup: '/system.slice/ssh.service' })));
  assert.ok(ssh.preview.warnings!.some((w) => w.startsWith('ssh.service is the SSH server')));
  const stopped = await run('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(proc(4242, { state: 'T' })));
  assert.ok(stopped.preview.warnings!.some((w) => w.includes('waits until it gets SIGCONT')));
});

test('SignalProcess refuses what must not be signalled', async () => {
  await refused('SignalProcess', { pid: 999, signal: 'TERM' }, hostWith({}), 'no_such_process');
  await refused('SignalProcess', { pid: 4243, signal: 'TERM' }, hostWith(proc(4243, { tgid: 4242 })), 'thread_id');
  await refused('SignalProcess', { pid: 50, signal: 'KILL' }, hostWith(proc(50, { comm: 'kworker/0:1', flags: 0x00208040, ppid: 2, cgroup: '/' })), 'kernel_thread');
  // The daemon itself (this process plays it) and its parents.
  await refused('SignalProcess', { pid: process.pid, signal: 'TERM' }, hostWith(proc(process.pid, { comm: 'node', ppid: 777 })), 'airlock_process');
  await refused('SignalProcess', { pid: 777, signal: 'STOP' }, hostWith({ ...proc(process.pid, { comm: 'node', ppid: 777 }), ...proc(777, { comm: 'bash', ppid: 1 }) }), 'airlock_process');
  // Any process of the daemon's own unit.
  const daemonUnit = { ...proc(process.pid, { comm: 'node', cgroup: '/system.slice/airlock.service' }), ...proc(4242, { cgroup: '/system.slice/airlock.service' }) };
  await refused('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(daemonUnit), 'airlock_unit');
  const other = { ...proc(process.pid, { comm: 'node', cgroup: '/system.slice/airlock-sandboxed.service' }) };
  for (const unit of ['systemd-journald.service', 'dbus.service', 'systemd-logind.service', 'airlock.service']) {
    await refused('SignalProcess', { pid: 4242, signal: 'HUP' }, hostWith({ ...other, ...proc(4242, { cgroup: `/system.slice/${unit}` }) }), 'protected_unit');
  }
  await refused('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith({ ...other, ...proc(4242, { comm: 'bash', cgroup: '/system.slice/emergency.service' }) }), 'rescue_unit');
  await refused('SignalProcess', { pid: 4242, signal: 'TERM' }, hostWith(proc(4242, { state: 'Z' })), 'zombie');
  await assertNoChange(run('SignalProcess', { pid: 4242, signal: 'STOP' }, hostWith(proc(4242, { state: 'T' }))), /already/);
  await assertNoChange(run('SignalProcess', { pid: 4242, signal: 'CONT' }, hostWith(proc(4242, { state: 'S' }))), /not|no /);
});

test('SignalUnit: systemctl kill with --signal and --kill-whom, the main process identified by its start time', async () => {
  const units = { 'nginx.service': {} };
  const r = await run('SignalUnit', { unit: 'nginx.service', signal: 'HUP' }, hostWith(proc(4242, { comm: 'nginx', cgroup: '/system.slice/nginx.service' }), units));
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'systemctl', args: ['kill', '--signal=HUP', '--kill-whom=main', '--', 'nginx.service'] }]);
  assert.deepEqual(r.preview.change, {
    unit: 'nginx.service',
    signal: 'SIGHUP',
    whom: 'main',
    main_process: { pid: 4242, comm: 'nginx', start_ticks: 398645 },
    text: `sends SIGHUP to its main process nginx (PID 4242, user root, started ${r.cur.main.started}, in nginx.service)`,
  });
  assert.ok(r.preview.sideEffects!.includes('Restart=on-failure: if it exits, systemd may start it again'));
  const all = await run('SignalUnit', { unit: 'nginx.service', signal: 'KILL', whom: 'all' }, hostWith({}, units));
  assert.deepEqual(all.steps, [{ kind: 'command', program: 'systemctl', args: ['kill', '--signal=KILL', '--kill-whom=all', '--', 'nginx.service'] }]);
  assert.deepEqual(all.preview.change, { unit: 'nginx.service', signal: 'SIGKILL', whom: 'all', text: 'sends SIGKILL to every process of the unit' });
  const stopAll = await run('SignalUnit', { unit: 'nginx.service', signal: 'STOP', whom: 'all' }, hostWith({}, units));
  assert.deepEqual(stopAll.steps, [
    {
      kind: 'command',
      program: 'systemctl',
      args: ['kill', '--signal=STOP', '--kill-whom=all', '--', 'nginx.service'],
      undo: { kind: 'command', program: 'systemctl', args: ['kill', '--signal=CONT', '--kill-whom=all', '--', 'nginx.service'] },
    },
  ]);
  const ssh = await run('SignalUnit', { unit: 'ssh.service', signal: 'HUP' }, hostWith(proc(4242, { comm: 'sshd', cgroup: '/system.slice/ssh.service' }), { 'ssh.service': { Names: 'ssh.service sshd.service' } }));
  assert.ok(ssh.preview.warnings!.some((w) => w.startsWith('ssh.service is the SSH server')));
});

test('SignalUnit refusals', async () => {
  const main = proc(4242, { cgroup: '/system.slice/nginx.service' });
  await refused('SignalUnit', { unit: 'nginx.service', signal: 'TERM' }, hostWith(main, {}), 'no_such_unit');
  await refused('SignalUnit', { unit: 'sshd.service', signal: 'HUP' }, hostWith(main, { 'sshd.service': { Id: 'ssh.service', Names: 'ssh.service sshd.service' } }), 'unit_alias');
  for (const unit of ['systemd-journald.service', 'dbus.service', 'systemd-logind.service', 'airlock.service']) {
    await refused('SignalUnit', { unit, signal: 'HUP' }, hostWith(main, { [unit]: {} }), 'protected_unit');
  }
  await refused('SignalUnit', { unit: 'rescue.service', signal: 'TERM' }, hostWith(main, { 'rescue.service': {} }), 'rescue_unit');
  const daemon = { ...main, ...proc(process.pid, { comm: 'node', cgroup: '/system.slice/airlock-sandboxed.service' }) };
  await refused('SignalUnit', { unit: 'airlock-sandboxed.service', signal: 'TERM' }, hostWith(daemon, { 'airlock-sandboxed.service': {} }), 'airlock_unit');
  const stopped = { ActiveState: 'inactive', SubState: 'dead', MainPID: '0' };
  await refused('SignalUnit', { unit: 'nginx.service', signal: 'TERM' }, hostWith(main, { 'nginx.service': stopped }), 'no_main_process');
  await refused('SignalUnit', { unit: 'nginx.service', signal: 'TERM', whom: 'all' }, hostWith(main, { 'nginx.service': stopped }), 'not_active');
  await assertNoChange(run('SignalUnit', { unit: 'nginx.service', signal: 'CONT' }, hostWith(main, { 'nginx.service': {} })), /not|no /);
  await assertNoChange(run('SignalUnit', { unit: 'nginx.service', signal: 'STOP' }, hostWith(proc(4242, { state: 'T' }), { 'nginx.service': {} })), /already/);
});
