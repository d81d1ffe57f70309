/**
 * processes family, in the booted Debian test bed: victim processes are started as
 * transient services (systemd-run), then listed, inspected and signalled through the
 * daemon; each effect is read back from /proc and systemctl outside it.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const SYSTEMCTL = '/usr/bin/systemctl';
const VICTIM = 'airlock-victim.service';
const VICTIM2 = 'airlock-victim2.service';

async function startVictim(box: SandboxView, unit: string): Promise<number> {
  const r = await box.run('/usr/bin/systemd-run', [`--unit=${unit}`, '--property=Restart=no', '--', '/usr/bin/sleep', 'infinity']);
  assert.equal(r.code, 0, r.stderr);
  const pid = Number((await box.run(SYSTEMCTL, ['show', '-p', 'MainPID', '--value', '--', unit])).stdout.trim());
  assert.ok(pid > 1, `${unit} has a main process`);
  return pid;
}

/** The state letter of /proc/PID/stat (R, S, T, ...), or null when the process is gone. */
async function procState(box: SandboxView, pid: number): Promise<string | null> {
  const stat = await box.readFile(`/proc/${pid}/stat`);
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** ps output as rows of columns, without its header. */
function rows(output: string[]): { header: string[]; rows: string[][] } {
  const lines = output.join('\n').split('\n').filter((l) => l.trim());
  return { header: lines[0]!.trim().split(/\s+/), rows: lines.slice(1).map((l) => l.trim().split(/\s+/)) };
}

let victim = 0;
let victim2 = 0;

export const scenarios: Scenario[] = [
  {
    title: 'by memory',
    action: 'TopProcesses',
    params: { by: 'memory' },
    setup: async (box) => {
      victim = await startVictim(box, VICTIM);
    },
    check: async (_box, r) => {
      const t = rows(r.output);
      assert.deepEqual(t.header, ['PID', 'USER', '%CPU', '%MEM', 'RSS', 'COMMAND']);
      const rss = t.rows.map((c) => Number(c[4]));
      assert.ok(rss.every((v, i) => i === 0 || v <= rss[i - 1]!), `RSS non-increasing: ${rss.join(' ')}`);
      const victimRow = t.rows.find((c) => Number(c[0]) === victim);
      assert.deepEqual(victimRow && [victimRow[1], victimRow[5]], ['root', 'sleep']);
      assert.ok(t.rows.some((c) => c[0] === '1' && c[5] === 'systemd'));
      assert.ok(!r.output.join('\n').includes('infinity'), 'command lines are never shown');
    },
  },
  {
    title: 'by CPU',
    action: 'TopProcesses',
    params: { by: 'cpu' },
    check: async (_box, r) => {
      const t = rows(r.output);
      assert.deepEqual(t.header, ['PID', 'USER', '%CPU', '%MEM', 'RSS', 'COMMAND']);
      const cpu = t.rows.map((c) => Number(c[2]));
      assert.ok(cpu.every((v, i) => i === 0 || v <= cpu[i - 1]!), `%CPU non-increasing: ${cpu.join(' ')}`);
      assert.ok(t.rows.some((c) => Number(c[0]) === victim));
    },
  },
  {
    action: 'ProcessInfo',
    get params() {
      return { pid: victim };
    },
    check: async (_box, r) => {
      const t = rows(r.output);
      assert.deepEqual(t.header, ['PID', 'PPID', 'USER', 'STAT', 'STARTED', '%CPU', '%MEM', 'RSS', 'UNIT', 'COMMAND']);
      assert.equal(t.rows.length, 1);
      const row = t.rows[0]!;
      assert.deepEqual([row[0], row[1], row[2]], [String(victim), '1', 'root']);
      assert.deepEqual(row.slice(-2), [VICTIM, 'sleep']);
    },
  },
  {
    title: 'STOP freezes it',
    action: 'SignalProcess',
    get params() {
      return { pid: victim, signal: 'STOP' };
    },
    check: async (box) => {
      await waitFor('state T', async () => (await procState(box, victim)) === 'T');
    },
  },
  {
    title: 'CONT resumes it',
    action: 'SignalProcess',
    get params() {
      return { pid: victim, signal: 'CONT' };
    },
    check: async (box) => {
      await waitFor('state S', async () => (await procState(box, victim)) === 'S');
    },
  },
  {
    title: 'TERM ends it',
    action: 'SignalProcess',
    get params() {
      return { pid: victim, signal: 'TERM' };
    },
    check: async (box) => {
      await waitFor('the process to exit', async () => (await procState(box, victim)) === null);
      await waitFor(`${VICTIM} to stop`, async () => (await box.run(SYSTEMCTL, ['is-active', '--', VICTIM])).stdout.trim() !== 'active');
    },
  },
  {
    title: 'STOP to the main process of a unit',
    action: 'SignalUnit',
    params: { unit: VICTIM2, signal: 'STOP' },
    setup: async (box) => {
      victim2 = await startVictim(box, VICTIM2);
    },
    check: async (box) => {
      await waitFor('state T', async () => (await procState(box, victim2)) === 'T');
      assert.equal((await box.run(SYSTEMCTL, ['is-active', '--', VICTIM2])).stdout.trim(), 'active', 'a stopped process keeps its unit active');
    },
  },
  {
    title: 'KILL to every process of a unit',
    action: 'SignalUnit',
    params: { unit: VICTIM2, signal: 'KILL', whom: 'all' },
    check: async (box) => {
      await waitFor('the process to die', async () => (await procState(box, victim2)) === null);
      await waitFor(`${VICTIM2} to stop`, async () => (await box.run(SYSTEMCTL, ['is-active', '--', VICTIM2])).stdout.trim() !== 'active');
    },
  },
];
