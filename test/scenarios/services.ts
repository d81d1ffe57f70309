/**
 * services family, in the booted Debian test bed (systemd as PID 1): a demo unit is
 * installed where packages put theirs, then started, reloaded, restarted, enabled,
 * disabled, stopped, masked and unmasked through the daemon, each effect checked
 * with systemctl and the file system from outside it.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const UNIT = 'airlock-demo.service';
const CHILD = 'airlock-child.service';
const FAILING = 'airlock-fail.service';
const UNIT_DIR = '/usr/lib/systemd/system';
const SYSTEMCTL = '/usr/bin/systemctl';

const DEMO = `[Unit]
Description=Airlock demo
[Service]
ExecStartPre=/usr/bin/echo airlock-demo starting
ExecStart=/usr/bin/sleep infinity
ExecReload=/usr/bin/true
[Install]
WantedBy=multi-user.target
`;
/** Requires= the demo, so stopping the demo stops it too. */
const DEMO_CHILD = `[Unit]
Requires=${UNIT}
After=${UNIT}
[Service]
ExecStart=/usr/bin/sleep infinity
`;
const FAIL = `[Service]
Type=oneshot
ExecStart=/usr/bin/false
`;

async function systemctl(box: SandboxView, ...args: string[]): Promise<string> {
  return (await box.run(SYSTEMCTL, args)).stdout.trim();
}
const mainPid = async (box: SandboxView, unit: string) => Number(await systemctl(box, 'show', '-p', 'MainPID', '--value', '--', unit));
const linkOf = async (box: SandboxView, path: string) => {
  const r = await box.run('/usr/bin/readlink', ['--', path]);
  return r.code === 0 ? r.stdout.trim() : null;
};

async function install(box: SandboxView, files: Record<string, string>): Promise<void> {
  assert.ok(box.writeFile, 'the scenario runner must provide writeFile');
  for (const [name, text] of Object.entries(files)) await box.writeFile(`${UNIT_DIR}/${name}`, text);
  assert.equal((await box.run(SYSTEMCTL, ['daemon-reload'])).code, 0);
}

/** ListServices output as unit -> [load, active, sub]. */
const serviceRows = (output: string[]) =>
  new Map(
    output
      .join('\n')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/))
      .map((c) => [c[0]!, c.slice(1, 4)] as const),
  );

let pidAfterStart = 0;

export const scenarios: Scenario[] = [
  {
    action: 'ListServices',
    params: {},
    setup: (box) => install(box, { [UNIT]: DEMO, [CHILD]: DEMO_CHILD }),
    check: async (box, r) => {
      const rows = serviceRows(r.output);
      assert.deepEqual(rows.get('dbus.service'), ['loaded', 'active', 'running']);
      assert.deepEqual(rows.get('rescue.service'), ['loaded', 'inactive', 'dead']);
      // list-units shows the units systemd holds in memory: the demo, never referenced yet, is not one of them.
      const real = (await systemctl(box, 'list-units', '--type=service', '--all', '--plain', '--no-legend')).split('\n').map((l) => l.split(/\s+/)[0]!);
      assert.deepEqual([...rows.keys()].sort(), real.filter(Boolean).sort());
    },
  },
  {
    action: 'ServiceStatus',
    params: { unit: UNIT },
    check: async (_box, r) => {
      const lines = r.output.join('\n').split('\n');
      for (const l of ['Id=airlock-demo.service', 'LoadState=loaded', 'ActiveState=inactive', 'SubState=dead', 'UnitFileState=disabled', 'MainPID=0']) {
        assert.ok(lines.includes(l), `${l} in ${JSON.stringify(lines)}`);
      }
      assert.ok(lines.includes('disabled'), 'the is-enabled answer');
    },
  },
  {
    action: 'StartService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'active');
      pidAfterStart = await mainPid(box, UNIT);
      assert.ok(pidAfterStart > 1, 'a main process');
      assert.equal(await systemctl(box, 'is-enabled', '--', UNIT), 'disabled', 'starting does not enable');
    },
  },
  {
    title: 'the started demo unit is listed',
    action: 'ListServices',
    params: {},
    check: async (_box, r) => assert.deepEqual(serviceRows(r.output).get(UNIT), ['loaded', 'active', 'running']),
  },
  {
    action: 'ReloadService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'active');
      assert.equal(await mainPid(box, UNIT), pidAfterStart, 'a reload keeps the process');
      const journal = (await box.run('/usr/bin/journalctl', ['-u', UNIT, '--no-pager', '-o', 'cat'])).stdout;
      assert.match(journal, /Reloaded airlock-demo\.service/);
    },
  },
  {
    action: 'RestartService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'active');
      const pid = await mainPid(box, UNIT);
      assert.ok(pid > 1 && pid !== pidAfterStart, `a new main process (${pidAfterStart} -> ${pid})`);
    },
  },
  {
    action: 'EnableService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-enabled', '--', UNIT), 'enabled');
      assert.equal(await linkOf(box, `/etc/systemd/system/multi-user.target.wants/${UNIT}`), `/lib/systemd/system/${UNIT}`);
    },
  },
  {
    action: 'DisableService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-enabled', '--', UNIT), 'disabled');
      assert.equal(await linkOf(box, `/etc/systemd/system/multi-user.target.wants/${UNIT}`), null);
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'active', 'disabling does not stop');
    },
  },
  {
    title: 'a unit that another one requires',
    action: 'StopService',
    params: { unit: UNIT },
    setup: async (box) => {
      assert.equal((await box.run(SYSTEMCTL, ['start', '--', CHILD])).code, 0);
      assert.equal(await systemctl(box, 'is-active', '--', CHILD), 'active');
    },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'inactive');
      assert.equal(await systemctl(box, 'is-active', '--', CHILD), 'inactive', 'the unit that requires it stopped too');
      assert.equal(await mainPid(box, UNIT), 0);
    },
  },
  {
    action: 'MaskService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await linkOf(box, `/etc/systemd/system/${UNIT}`), '/dev/null');
      assert.equal(await systemctl(box, 'is-enabled', '--', UNIT), 'masked');
      assert.notEqual((await box.run(SYSTEMCTL, ['start', '--', UNIT])).code, 0, 'a masked unit cannot start');
    },
  },
  {
    action: 'UnmaskService',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await box.readFile(`/etc/systemd/system/${UNIT}`), null);
      assert.equal(await linkOf(box, `/etc/systemd/system/${UNIT}`), null);
      assert.equal(await systemctl(box, 'is-enabled', '--', UNIT), 'disabled');
    },
  },
  {
    action: 'UnitLogs',
    params: { unit: UNIT, lines: 30 },
    check: async (_box, r) => {
      const lines = r.output.join('\n').split('\n').filter(Boolean);
      assert.ok(lines.length > 0 && lines.length <= 30, `${lines.length} lines`);
      assert.ok(lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} /.test(l)), 'short-iso timestamps');
      assert.ok(lines.some((l) => l.includes('airlock-demo starting')), "the unit's own output");
      assert.ok(lines.some((l) => l.includes('Stopped airlock-demo.service')), "systemd's lines about the unit");
    },
  },
  {
    title: 'default line count',
    action: 'UnitLogs',
    params: { unit: UNIT },
    check: async (box, r) => {
      const lines = r.output.join('\n').split('\n').filter(Boolean);
      const all = (await box.run('/usr/bin/journalctl', ['-u', UNIT, '--no-pager', '-o', 'short-iso'])).stdout.split('\n').filter(Boolean);
      assert.equal(lines.length, Math.min(all.length, 100));
      assert.deepEqual(lines, all.slice(-lines.length));
    },
  },
  {
    action: 'FailedUnits',
    params: {},
    setup: async (box) => {
      await install(box, { [FAILING]: FAIL });
      assert.notEqual((await box.run(SYSTEMCTL, ['start', '--', FAILING])).code, 0);
    },
    check: async (_box, r) => {
      const row = r.output.join('\n').split('\n').find((l) => l.startsWith(FAILING));
      assert.ok(row, `${FAILING} listed in ${JSON.stringify(r.output)}`);
      assert.deepEqual(row.trim().split(/\s+/).slice(1, 4), ['loaded', 'failed', 'failed']);
    },
  },
  {
    action: 'ListTimers',
    params: {},
    check: async (box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /^NEXT\s+LEFT\s+LAST\s+PASSED\s+UNIT\s+ACTIVATES/m);
      const timers = (await systemctl(box, 'list-units', '--type=timer', '--all', '--plain', '--no-legend')).split('\n').map((l) => l.split(/\s+/)[0]!).filter(Boolean);
      assert.ok(timers.includes('apt-daily.timer'), 'the test bed has apt-daily.timer');
      for (const t of timers) assert.ok(text.includes(t), `${t} listed`);
      assert.match(text, new RegExp(`^${timers.length} timers listed\\.$`, 'm'));
    },
  },
  {
    title: 'a timer',
    action: 'StopService',
    params: { unit: 'apt-daily.timer' },
    setup: async (box) => assert.equal(await systemctl(box, 'is-active', '--', 'apt-daily.timer'), 'active'),
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-active', '--', 'apt-daily.timer'), 'inactive');
      assert.equal(await systemctl(box, 'is-enabled', '--', 'apt-daily.timer'), 'enabled', 'stopping does not disable');
    },
  },
];
