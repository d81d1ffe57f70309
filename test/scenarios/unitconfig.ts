/**
 * Unit configuration actions (services family), in the booted Debian test bed: cron.service
 * gets Airlock drop-ins for its restart policy and resource limits, which are shown and then
 * removed; logrotate.timer (enabled and active in the test bed) is disabled and enabled again;
 * a hand-written drop-in is loaded by DaemonReload. Every effect is checked with systemctl and
 * the file system from outside the daemon. The container cannot write its cgroup controllers,
 * so limits are checked as systemd reports them, not as the kernel enforces them.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const UNIT = 'cron.service';
const TIMER = 'logrotate.timer';
const DIR = `/etc/systemd/system/${UNIT}.d`;
const SYSTEMCTL = '/usr/bin/systemctl';
/** A drop-in only root may read, as a person might write one with a secret in it. */
const SECRET_DROPIN = `${DIR}/10-local.conf`;
const SECRET = 'hunter2-airlock-test';

async function systemctl(box: SandboxView, ...args: string[]): Promise<string> {
  return (await box.run(SYSTEMCTL, args)).stdout.trim();
}
const property = (box: SandboxView, unit: string, p: string) => systemctl(box, 'show', '-p', p, '--value', '--', unit);
const lines = (output: string[]) => output.join('\n').split('\n').filter(Boolean);

/** list-unit-files rows as unit -> state. */
const unitFileRows = (text: string) => new Map(text.split('\n').filter((l) => l.trim()).map((l) => l.trim().split(/\s+/)).map((c) => [c[0]!, c[1]!] as const));

let cronPid = '';

export const scenarios: Scenario[] = [
  {
    title: 'timers only',
    action: 'ListUnitFiles',
    params: { type: 'timer' },
    check: async (box, r) => {
      const rows = unitFileRows(r.output.join('\n'));
      assert.equal(rows.get(TIMER), 'enabled');
      assert.equal(rows.get('systemd-tmpfiles-clean.timer'), 'static');
      assert.ok([...rows.keys()].every((u) => u.endsWith('.timer')), 'only timers');
      assert.deepEqual(rows, unitFileRows(await systemctl(box, 'list-unit-files', '--no-legend', '--type=timer')));
    },
  },
  {
    title: 'every type',
    action: 'ListUnitFiles',
    params: {},
    check: async (_box, r) => {
      const rows = unitFileRows(r.output.join('\n'));
      assert.equal(rows.get(UNIT), 'enabled');
      assert.equal(rows.get('sshd.service'), 'alias');
      assert.equal(rows.get('ssh.socket'), 'disabled');
      assert.equal(rows.get(TIMER), 'enabled');
    },
  },
  {
    action: 'ShowUnitFile',
    params: { unit: UNIT },
    check: async (_box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /^# \/lib\/systemd\/system\/cron\.service$/m);
      assert.match(text, /^ExecStart=\/usr\/sbin\/cron -f \$EXTRA_OPTS$/m);
      assert.match(text, /^Restart=on-failure$/m);
    },
  },
  {
    action: 'SetRestartPolicy',
    params: { unit: UNIT, restart: 'always', restartSec: 7 },
    setup: async (box) => {
      assert.equal(await property(box, UNIT, 'Restart'), 'on-failure', 'the packaged policy');
      cronPid = await property(box, UNIT, 'MainPID');
    },
    check: async (box, r) => {
      assert.equal(await property(box, UNIT, 'Restart'), 'always');
      assert.equal(await property(box, UNIT, 'RestartUSec'), '7s');
      assert.equal(await box.readFile(`${DIR}/airlock-restart.conf`), '# Written by Airlock; ResetServiceOverrides removes it.\n[Service]\nRestart=always\nRestartSec=7s\n');
      assert.equal(await property(box, UNIT, 'NeedDaemonReload'), 'no', 'systemd was reloaded');
      assert.equal(await property(box, UNIT, 'MainPID'), cronPid, 'cron keeps running');
      // The output holds the values before and after.
      assert.deepEqual(lines(r.output), ['Restart=on-failure', 'RestartUSec=100ms', 'Restart=always', 'RestartUSec=7s']);
    },
  },
  {
    title: 'cron really restarts after its process dies',
    action: 'SetRestartPolicy',
    params: { unit: UNIT, restart: 'always', restartSec: 1 },
    check: async (box) => {
      assert.equal(await property(box, UNIT, 'RestartUSec'), '1s');
      assert.equal((await box.run('/usr/bin/kill', ['-KILL', cronPid])).code, 0);
      let pid = '';
      for (let i = 0; i < 100 && (pid === '' || pid === '0' || pid === cronPid); i++) {
        await new Promise((res) => setTimeout(res, 100));
        pid = await property(box, UNIT, 'MainPID');
      }
      assert.ok(pid !== '0' && pid !== cronPid, `systemd started cron again (${cronPid} -> ${pid})`);
      assert.equal(await systemctl(box, 'is-active', '--', UNIT), 'active');
    },
  },
  {
    action: 'SetResourceLimits',
    params: { unit: UNIT, memoryMax: '256M', cpuQuota: 50, tasksMax: 64, limitNofile: 4096 },
    check: async (box) => {
      assert.equal(await property(box, UNIT, 'MemoryMax'), String(256 * 1024 * 1024));
      assert.equal(await property(box, UNIT, 'CPUQuotaPerSecUSec'), '500ms');
      assert.equal(await property(box, UNIT, 'TasksMax'), '64');
      assert.equal(await property(box, UNIT, 'LimitNOFILE'), '4096');
      assert.equal(await box.readFile(`${DIR}/airlock-limits.conf`), '# Written by Airlock; ResetServiceOverrides removes it.\n[Service]\nMemoryMax=256M\nCPUQuota=50%\nTasksMax=64\nLimitNOFILE=4096\n');
      assert.equal(await property(box, UNIT, 'Restart'), 'always', 'the restart drop-in still applies');
    },
  },
  {
    title: 'the file holds exactly the limits given',
    action: 'SetResourceLimits',
    params: { unit: UNIT, tasksMax: 'infinity' },
    check: async (box) => {
      assert.equal(await property(box, UNIT, 'TasksMax'), 'infinity');
      assert.equal(await property(box, UNIT, 'MemoryMax'), 'infinity', 'MemoryMax is no longer set');
      assert.equal(await property(box, UNIT, 'LimitNOFILE'), '524288', 'back to the default hard limit');
    },
  },
  {
    action: 'ShowServiceOverrides',
    params: { unit: UNIT },
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile(SECRET_DROPIN, `[Service]\nEnvironment=TOKEN=${SECRET}\n`);
      assert.equal((await box.run('/usr/bin/chmod', ['0600', '--', SECRET_DROPIN])).code, 0);
      assert.equal((await box.run(SYSTEMCTL, ['daemon-reload'])).code, 0);
    },
    check: async (_box, r) => {
      const out = lines(r.output);
      assert.deepEqual(out, [
        `${DIR}/airlock-limits.conf:1:# Written by Airlock; ResetServiceOverrides removes it.`,
        `${DIR}/airlock-limits.conf:2:[Service]`,
        `${DIR}/airlock-limits.conf:3:TasksMax=infinity`,
        `${DIR}/airlock-restart.conf:1:# Written by Airlock; ResetServiceOverrides removes it.`,
        `${DIR}/airlock-restart.conf:2:[Service]`,
        `${DIR}/airlock-restart.conf:3:Restart=always`,
        `${DIR}/airlock-restart.conf:4:RestartSec=1s`,
      ]);
      assert.ok(!r.output.join('\n').includes(SECRET), 'a drop-in only root may read is not shown');
    },
  },
  {
    title: 'with a drop-in only root may read',
    action: 'ShowUnitFile',
    params: { unit: UNIT },
    check: async (_box, r) => {
      // Read as nobody, systemctl cat stops at the root-only drop-in (the first in name order): the unit file alone is shown.
      const text = r.output.join('\n');
      assert.match(text, /^# \/lib\/systemd\/system\/cron\.service$/m);
      assert.ok(!text.includes(SECRET), 'the root-only drop-in is not shown');
      assert.ok(!text.includes('airlock-restart.conf'), text);
    },
  },
  {
    action: 'ResetServiceOverrides',
    params: { unit: UNIT },
    check: async (box) => {
      assert.equal(await box.readFile(`${DIR}/airlock-restart.conf`), null);
      assert.equal(await box.readFile(`${DIR}/airlock-limits.conf`), null);
      assert.match((await box.readFile(SECRET_DROPIN)) ?? '', /TOKEN=/, "a person's drop-in stays");
      assert.equal(await property(box, UNIT, 'Restart'), 'on-failure', 'back to the packaged policy');
      assert.equal(await property(box, UNIT, 'RestartUSec'), '100ms');
      assert.notEqual(await property(box, UNIT, 'TasksMax'), 'infinity', 'TasksMax back to the default');
      assert.equal(await property(box, UNIT, 'DropInPaths'), SECRET_DROPIN);
    },
  },
  {
    action: 'DisableTimer',
    params: { unit: TIMER },
    setup: async (box) => {
      assert.equal(await systemctl(box, 'is-enabled', '--', TIMER), 'enabled');
      assert.equal(await systemctl(box, 'is-active', '--', TIMER), 'active');
    },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-enabled', '--', TIMER), 'disabled');
      assert.equal(await systemctl(box, 'is-active', '--', TIMER), 'inactive');
      assert.equal((await box.run('/usr/bin/readlink', ['--', `/etc/systemd/system/timers.target.wants/${TIMER}`])).code, 1, 'the link is gone');
    },
  },
  {
    action: 'EnableTimer',
    params: { unit: TIMER },
    check: async (box) => {
      assert.equal(await systemctl(box, 'is-enabled', '--', TIMER), 'enabled');
      assert.equal(await systemctl(box, 'is-active', '--', TIMER), 'active');
      assert.equal((await box.run('/usr/bin/readlink', ['--', `/etc/systemd/system/timers.target.wants/${TIMER}`])).stdout.trim(), `/lib/systemd/system/${TIMER}`);
      assert.match(await systemctl(box, 'list-timers', '--no-legend', '--', TIMER), /logrotate\.service/);
    },
  },
  {
    action: 'DaemonReload',
    params: {},
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile(`${DIR}/20-description.conf`, '[Unit]\nDescription=cron, described by a drop-in\n');
      assert.equal(await property(box, UNIT, 'NeedDaemonReload'), 'yes');
    },
    check: async (box) => {
      assert.equal(await property(box, UNIT, 'NeedDaemonReload'), 'no');
      assert.equal(await property(box, UNIT, 'Description'), 'cron, described by a drop-in');
    },
  },
];
