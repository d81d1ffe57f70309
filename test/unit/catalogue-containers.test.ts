import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as lifecycle from '../../src/catalogue/families/containers/lifecycle.js';
import * as reads from '../../src/catalogue/families/containers/reads.js';
import { stopTimeout } from '../../src/catalogue/families/containers/lifecycle.js';
import { containerRef, parseInspect } from '../../src/catalogue/families/containers/podman.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS } from './catalogue-fixture-host.js';

const containers = { ...reads, ...lifecycle };
const actions = Object.values(containers).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);

const ID = 'f3a1c2d4e5b60718293a4b5c6d7e8f90123456789abcdef0123456789abcdef0';
const VERSION = 'podman version 4.3.1';

interface Box {
  id?: string;
  name?: string;
  status?: string;
  autoRemove?: boolean;
  labels?: Record<string, string>;
}

/** What `podman container inspect` prints for one container (the fields that matter, plus secrets that must not leak). */
const inspectJson = (b: Box) =>
  JSON.stringify([
    {
      Id: b.id ?? ID,
      Name: b.name ?? 'web',
      ImageName: 'localhost/airlock-busybox:latest',
      State: { Status: b.status ?? 'running', Running: (b.status ?? 'running') === 'running', Pid: 4242 },
      Config: { Env: ['DB_PASSWORD=hunter2', 'PATH=/usr/bin'], Cmd: ['/bin/busybox', 'tail'], Labels: b.labels ?? null },
      HostConfig: { AutoRemove: b.autoRemove ?? false },
    },
  ]);

/** A host with podman installed (or not) and, by name or id, these containers. */
function hostWith(opts: { podman?: boolean; boxes?: Box[]; inspectError?: string } = {}) {
  const boxes = opts.boxes ?? [{}];
  return new FixtureHost({}, (program: ProgramName, args: string[]): CommandOutput => {
    if (program !== 'podman') return { code: 127, stdout: '', stderr: 'not scripted' };
    if (opts.podman === false) throw new AirlockError('unsupported_platform', 'program_missing', 'this host has no trusted podman binary');
    if (args[0] === '--version') return { code: 0, stdout: `${VERSION}\n`, stderr: '' };
    if (args[0] === 'container' && args[1] === 'inspect' && args[2] === '--') {
      if (opts.inspectError) return { code: 125, stdout: '', stderr: opts.inspectError };
      const ref = args[3]!;
      const b = boxes.find((x) => (x.name ?? 'web') === ref || (x.id ?? ID).startsWith(ref));
      return b ? { code: 0, stdout: inspectJson(b), stderr: '' } : { code: 125, stdout: '[]\n', stderr: `Error: no such container ${ref}\n` };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

const podman = (args: string[], timeoutMs = 60_000) => ({ kind: 'command', program: 'podman', args, timeoutMs });
/** The undo of a start: stopped again with podman's default timeout. */
const STOP_AGAIN = podman(['stop', '--time', '10', '--', ID], 70_000);

test('containers actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    ListContainers: ['low', true, undefined],
    ListImages: ['low', true, undefined],
    InspectContainer: ['medium', true, undefined],
    ContainerLogs: ['medium', true, undefined],
    StartContainer: ['medium', false, 'exact'],
    StopContainer: ['medium', false, 'exact'],
    RestartContainer: ['medium', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'containers');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.deepEqual(a.files, []);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
});

test('container references: podman names and ids only, never option-like', () => {
  for (const ok of ['web', 'Web-1', 'a', '0abc', 'my_app.v2', ID, ID.slice(0, 12), 'x'.repeat(128)]) assert.ok(containerRef.safeParse(ok).success, ok);
  for (const bad of [...INJECTIONS, '-web', '--all', '_web', '.web', 'a..b', 'web/1', 'web:latest', 'a=b', 'x'.repeat(129), 'wéb', 'web\t', ' web']) {
    assert.equal(containerRef.safeParse(bad).success, false, JSON.stringify(bad));
  }
  for (const a of actions.filter((x) => x.name !== 'ListContainers' && x.name !== 'ListImages')) {
    for (const bad of INJECTIONS) assert.equal(a.params.safeParse({ container: bad }).success, false, `${a.name} accepted ${JSON.stringify(bad)}`);
  }
});

test('numbers are bounded: stop timeout 0..300, log lines 1..1000', () => {
  for (const ok of [0, 1, 10, 300]) assert.ok(stopTimeout.safeParse(ok).success, String(ok));
  for (const bad of [-1, 301, 1.5, '10', Number.NaN, Infinity]) assert.equal(stopTimeout.safeParse(bad).success, false, String(bad));
  const logs = byName('ContainerLogs').params;
  for (const bad of [0, 1001, 2.5, '5', -1]) assert.equal(logs.safeParse({ container: 'web', lines: bad }).success, false, String(bad));
  assert.equal(byName('StopContainer').params.safeParse({ container: 'web', time: 5 }).success, false, 'unknown keys are refused');
});

test('parseInspect keeps only id, name, image, state and the systemd label: never the environment', () => {
  const c = parseInspect(inspectJson({ labels: { PODMAN_SYSTEMD_UNIT: 'container-web.service' }, autoRemove: true }))!;
  assert.deepEqual(c, { id: ID, name: 'web', image: 'localhost/airlock-busybox:latest', status: 'running', autoRemove: true, systemdUnit: 'container-web.service' });
  assert.equal(parseInspect('[]'), null);
});

test('every action refuses with podman_missing when podman is not installed', async () => {
  for (const a of actions) {
    const p = a.name.startsWith('List') ? {} : { container: 'web' };
    await refused(a.name, p, hostWith({ podman: false }), 'podman_missing', 'unsupported_platform');
  }
  await assert.rejects(run('StartContainer', { container: 'web' }, hostWith({ podman: false })), (e: AirlockError) => /InstallPackage/.test(e.hint ?? ''));
});

test('ListContainers and ListImages: fixed argv', async () => {
  const ps = await run('ListContainers', {}, hostWith());
  assert.deepEqual(ps.steps, [podman(['ps', '--all', '--format', 'json'])]);
  assert.match(ps.preview.summary, /podman version 4\.3\.1/);
  assert.deepEqual((await run('ListImages', {}, hostWith())).steps, [podman(['images', '--format', 'json'])]);
});

test('InspectContainer and ContainerLogs act on the full id; the preview shows state, never the environment', async () => {
  const h = hostWith();
  const inspect = await run('InspectContainer', { container: 'web' }, h);
  assert.deepEqual(inspect.steps, [podman(['container', 'inspect', '--', ID])]);
  assert.ok(h.calls.some(([p, a]) => p === 'podman' && a.join(' ') === 'container inspect -- web'), 'the state comes from podman itself');
  assert.match(inspect.preview.summary, /web \(f3a1c2d4e5b6, image localhost\/airlock-busybox:latest, running\)/);
  assert.ok(inspect.preview.warnings?.some((w) => w.includes('environment')));
  assert.doesNotMatch(JSON.stringify([inspect.preview, inspect.shown]), /hunter2|DB_PASSWORD|busybox", "tail/);

  const logs = await run('ContainerLogs', { container: ID.slice(0, 12), lines: 20 }, hostWith());
  assert.deepEqual(logs.steps, [podman(['logs', '--tail', '20', '--', ID])]);
  assert.deepEqual((await run('ContainerLogs', { container: 'web' }, hostWith())).steps, [podman(['logs', '--tail', '100', '--', ID])]);
  await refused('ContainerLogs', { container: 'db' }, hostWith(), 'no_such_container', 'validation');
  await refused('InspectContainer', { container: 'db' }, hostWith(), 'no_such_container', 'validation');
});

test('StartContainer: podman start -- ID from a stopped state; refuses a running, paused or busy one', async () => {
  for (const status of ['exited', 'created', 'stopped', 'configured']) {
    const { steps, preview } = await run('StartContainer', { container: 'web' }, hostWith({ boxes: [{ status }] }));
    assert.deepEqual(steps, [{ ...podman(['start', '--', ID]), undo: STOP_AGAIN }]);
    assert.deepEqual(preview.change, { container: 'web', id: ID, image: 'localhost/airlock-busybox:latest', state: { from: status, to: 'running' } });
  }
  await assertNoChange(run('StartContainer', { container: 'web' }, hostWith()), /already/);
  await refused('StartContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'paused' }] }), 'container_paused', 'conflict');
  await refused('StartContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'removing' }] }), 'container_busy', 'conflict');
  await refused('StartContainer', { container: 'db' }, hostWith(), 'no_such_container');
});

test('StopContainer: bounded --time, a step limit that outlasts it; refuses a stopped one', async () => {
  const { steps, preview } = await run('StopContainer', { container: 'web' }, hostWith());
  assert.deepEqual(steps, [{ ...podman(['stop', '--time', '10', '--', ID], 70_000), undo: podman(['start', '--', ID]) }]);
  assert.deepEqual(preview.change, { container: 'web', id: ID, image: 'localhost/airlock-busybox:latest', state: { from: 'running', to: 'exited' }, kill_after_seconds: 10 });
  assert.deepEqual(preview.warnings, []);
  const slow = await run('StopContainer', { container: 'web', timeout: 300 }, hostWith());
  assert.deepEqual(slow.steps, [{ ...podman(['stop', '--time', '300', '--', ID], 360_000), undo: podman(['start', '--', ID]) }]);
  const kill = await run('StopContainer', { container: 'web', timeout: 0 }, hostWith());
  assert.ok(kill.preview.warnings?.some((w) => w.includes('SIGKILL')));
  const rm = await run('StopContainer', { container: 'web' }, hostWith({ boxes: [{ autoRemove: true, labels: { PODMAN_SYSTEMD_UNIT: 'container-web.service' } }] }));
  assert.equal((rm.preview.change as { state: { to: string } }).state.to, 'removed');
  assert.ok(rm.preview.sideEffects?.some((s) => s.includes('--rm')));
  assert.ok(rm.preview.warnings?.some((w) => w.includes('container-web.service')));
  // Made with --rm, it is removed as it stops: no undo is claimed, so the job is never said to be reversible.
  assert.deepEqual(rm.steps, [podman(['stop', '--time', '10', '--', ID], 70_000)]);
  assert.ok(rm.preview.warnings?.some((w) => w.includes('cannot be undone')));
  for (const status of ['exited', 'created', 'stopped']) await assertNoChange(run('StopContainer', { container: 'web' }, hostWith({ boxes: [{ status }] })), /not|no /);
  await refused('StopContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'paused' }] }), 'container_paused');
  await refused('StopContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'stopping' }] }), 'container_busy');
});

test('RestartContainer: running or stopped; refuses paused and busy', async () => {
  const { steps, preview } = await run('RestartContainer', { container: 'web', timeout: 3 }, hostWith());
  assert.deepEqual(steps, [{ ...podman(['restart', '--time', '3', '--', ID], 63_000), noUndo: 'leaves_state' }], 'a running container restarted runs again: an event');
  assert.equal((preview.change as { kill_after_seconds?: number }).kill_after_seconds, 3);
  const stopped = await run('RestartContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'exited' }] }));
  assert.deepEqual(stopped.steps, [{ ...podman(['restart', '--time', '10', '--', ID], 70_000), undo: STOP_AGAIN }], 'a stopped one is started: undone as a start');
  assert.ok(stopped.preview.sideEffects?.some((s) => s.includes('is not running')));
  assert.equal((stopped.preview.change as { kill_after_seconds?: number }).kill_after_seconds, undefined);
  await refused('RestartContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'paused' }] }), 'container_paused');
  await refused('RestartContainer', { container: 'web' }, hostWith({ boxes: [{ status: 'removing' }] }), 'container_busy');
});

test('every change probes whether the container runs, by its full id: the same read before it and after its undo', async () => {
  for (const [name, status] of [['StartContainer', 'exited'], ['StopContainer', 'running'], ['RestartContainer', 'running']] as const) {
    const a = byName(name);
    const { cur } = await run(name, { container: 'web' }, hostWith({ boxes: [{ status }] }));
    assert.equal(a.rollback?.class, 'exact');
    assert.deepEqual(a.rollback.state?.({ container: 'web' }, cur), [{ program: 'podman', args: ['container', 'inspect', '--format', '{{.State.Running}}', '--', ID] }], name);
  }
});

test('a podman failure other than "no such container" is an execution error, not a missing container', async () => {
  await refused('StopContainer', { container: 'web' }, hostWith({ inspectError: 'Error: database is locked\n' }), 'podman_failed', 'execution');
});
