/**
 * logging family, in the booted Debian test bed (systemd-journald and logrotate for
 * real): journal queries checked against journalctl run from outside the daemon,
 * vacuum checked on the journal directory, journald options on the drop-in and on
 * what the restarted journald reports, logrotate policies on /etc/logrotate.d, on
 * `logrotate -d` and on the rotated files, and a policy that clashes with another
 * configuration rolled back.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const JOURNALCTL = '/usr/bin/journalctl';
const LOGROTATE = '/usr/sbin/logrotate';
const DROPIN = '/etc/systemd/journald.conf.d/60-airlock.conf';
const DEMO_DIR = '/var/log/airlock-demo';
const DEMO_LOG = `${DEMO_DIR}/app.log`;
const DEMO_POLICY = '/etc/logrotate.d/airlock-demo';
const CLASH_DIR = '/var/log/airlock-clash';

const lines = (output: string[]) => output.join('\n').split('\n').filter(Boolean);
const ISO_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} /;

async function run(box: SandboxView, program: string, ...args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function write(box: SandboxView, path: string, content: string): Promise<void> {
  assert.ok(box.writeFile, 'the scenario runner must provide writeFile');
  await box.writeFile(path, content);
}

/** The journal files of the persistent journal directory. */
async function journalFiles(box: SandboxView): Promise<string[]> {
  const id = (await box.readFile('/etc/machine-id'))!.trim();
  return (await run(box, '/usr/bin/ls', '-1', '--', `/var/log/journal/${id}`)).split('\n').filter((n) => n.endsWith('.journal') || n.endsWith('.journal~'));
}
const archived = (files: string[]) => files.filter((n) => n.includes('@') || n.endsWith('~'));

/** Archives the active journal files (so there is something to vacuum) and returns the archived ones. */
async function rotateJournal(box: SandboxView): Promise<string[]> {
  await run(box, JOURNALCTL, '--rotate');
  const files = archived(await journalFiles(box));
  assert.ok(files.length > 0, 'journalctl --rotate archived the active files');
  return files;
}

/** The size limit journald announced when it last started ("System Journal (...) is 8.0M, max 50.0M, 42.0M free."). */
async function journaldMax(box: SandboxView): Promise<string> {
  const out = await run(box, JOURNALCTL, '-u', 'systemd-journald.service', '--no-pager', '-o', 'cat');
  const last = out.split('\n').filter((l) => l.startsWith('System Journal')).pop() ?? '';
  const m = /max ([0-9.]+[KMGT]?)/.exec(last);
  assert.ok(m, `a "System Journal ... max" line in ${JSON.stringify(out)}`);
  return m[1]!;
}

async function journaldActive(box: SandboxView): Promise<void> {
  assert.equal((await run(box, '/usr/bin/systemctl', 'is-active', 'systemd-journald.service')).trim(), 'active');
}

let maxBefore = '';

export const scenarios: Scenario[] = [
  {
    action: 'JournalDiskUsage',
    params: {},
    check: async (_box, r) => assert.match(r.output.join('\n'), /^Archived and active journals take up [0-9.]+[BKMGT] in the file system\.$/m),
  },
  {
    title: 'one unit, few lines',
    action: 'JournalQuery',
    params: { unit: 'systemd-journald.service', lines: 5 },
    check: async (box, r) => {
      const got = lines(r.output);
      assert.ok(got.length > 0 && got.length <= 5, `${got.length} lines`);
      assert.ok(got.every((l) => ISO_LINE.test(l)), 'short-iso timestamps');
      const expected = (await run(box, JOURNALCTL, '--no-pager', '-o', 'short-iso', '-n', '5', '-u', 'systemd-journald.service')).split('\n').filter(Boolean);
      assert.deepEqual(got, expected);
    },
  },
  {
    title: 'whole journal by priority since today',
    action: 'JournalQuery',
    params: { priority: 'err', since: 'today', lines: 2000 },
    setup: async (box) => {
      await run(box, '/usr/bin/logger', '-p', 'user.err', '-t', 'airlock-probe', 'probe at err');
      await run(box, '/usr/bin/logger', '-p', 'user.info', '-t', 'airlock-probe', 'probe at info');
    },
    check: async (_box, r) => {
      const got = lines(r.output);
      assert.ok(got.some((l) => l.includes('airlock-probe') && l.endsWith('probe at err')), 'the err message');
      assert.ok(!got.some((l) => l.endsWith('probe at info')), 'no info message at priority err');
    },
  },
  {
    title: 'relative since: the first lines of the last hour',
    action: 'JournalQuery',
    params: { since: '-1h', lines: 3 },
    check: async (box, r) => {
      const got = lines(r.output);
      assert.equal(got.length, 3);
      const expected = (await run(box, JOURNALCTL, '--no-pager', '-o', 'short-iso', '-n', '3', '--since=-1h')).split('\n').filter(Boolean);
      assert.deepEqual(got, expected);
    },
  },
  {
    action: 'SetJournaldOption',
    params: { option: 'SystemMaxUse', value: '50M' },
    setup: async (box) => {
      // A baseline: journald announces its limit when it starts.
      await run(box, '/usr/bin/systemctl', 'restart', 'systemd-journald.service');
      maxBefore = await journaldMax(box);
    },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), '# Written by Airlock (SetJournaldOption, ResetJournaldOption): change it through those actions.\n[Journal]\nSystemMaxUse=50M\n');
      await journaldActive(box);
      assert.equal(await journaldMax(box), '50.0M', 'the restarted journald uses the new limit');
      assert.notEqual(maxBefore, '50.0M');
    },
  },
  {
    title: 'a second option is added to the same drop-in',
    action: 'SetJournaldOption',
    params: { option: 'Compress', value: 'no' },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN))!, /\n\[Journal\]\nSystemMaxUse=50M\nCompress=no\n$/);
      await journaldActive(box);
    },
  },
  {
    title: 'a numeric option',
    action: 'SetJournaldOption',
    params: { option: 'RateLimitBurst', value: 5000 },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN))!, /\nSystemMaxUse=50M\nCompress=no\nRateLimitBurst=5000\n$/);
      const config = await run(box, '/usr/bin/systemd-analyze', 'cat-config', 'systemd/journald.conf');
      assert.ok(config.endsWith(`# ${DROPIN}\n${(await box.readFile(DROPIN))!}`), 'journald reads the drop-in last');
    },
  },
  {
    action: 'ResetJournaldOption',
    params: { option: 'SystemMaxUse' },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN))!, /\n\[Journal\]\nCompress=no\nRateLimitBurst=5000\n$/);
      await journaldActive(box);
      assert.equal(await journaldMax(box), maxBefore, 'journald is back to its former limit');
    },
  },
  {
    title: 'one more option removed',
    action: 'ResetJournaldOption',
    params: { option: 'Compress' },
    check: async (box) => assert.match((await box.readFile(DROPIN))!, /\n\[Journal\]\nRateLimitBurst=5000\n$/),
  },
  {
    title: 'the last option: the drop-in is deleted',
    action: 'ResetJournaldOption',
    params: { option: 'RateLimitBurst' },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), null);
      await journaldActive(box);
    },
  },
  {
    title: 'down to a size',
    action: 'VacuumJournal',
    params: { maxSize: '1K' },
    setup: async (box) => void (await rotateJournal(box)),
    check: async (box) => {
      const files = await journalFiles(box);
      assert.deepEqual(archived(files), [], 'every archived file deleted');
      assert.ok(files.includes('system.journal'), 'the active file is kept');
    },
  },
  {
    title: 'older than an age',
    action: 'VacuumJournal',
    params: { maxAge: '1s' },
    setup: async (box) => {
      const before = await rotateJournal(box);
      assert.ok(before.length > 0);
      await new Promise((r) => setTimeout(r, 2100));
    },
    check: async (box) => assert.deepEqual(archived(await journalFiles(box)), []),
  },
  {
    action: 'ListLogrotateConfigs',
    params: {},
    check: async (box, r) => {
      const names = lines(r.output).map((l) => l.split(/\s+/).pop());
      for (const n of ['apt', 'dpkg', 'btmp', 'wtmp']) assert.ok(names.includes(n), `${n} in ${JSON.stringify(names)}`);
      assert.deepEqual(lines(r.output), (await run(box, '/usr/bin/ls', '-l', '--', '/etc/logrotate.d')).split('\n').filter(Boolean));
    },
  },
  {
    action: 'ShowLogrotateConfig',
    params: { name: 'dpkg' },
    check: async (box, r) => assert.equal(r.output.join('\n') + '\n', await box.readFile('/etc/logrotate.d/dpkg')),
  },
  {
    title: 'one file',
    action: 'SetLogrotatePolicy',
    params: { name: 'demo', path: DEMO_LOG, rotate: 3, frequency: 'daily', compress: true, maxsize: '10M' },
    setup: async (box) => {
      await run(box, '/usr/bin/mkdir', '-p', '--', DEMO_DIR);
      await write(box, DEMO_LOG, 'first line\nsecond line\n');
    },
    check: async (box) => {
      assert.equal(
        await box.readFile(DEMO_POLICY),
        `# Written by Airlock (SetLogrotatePolicy demo); RemoveLogrotatePolicy removes it.\n${DEMO_LOG} {\n\tdaily\n\trotate 3\n\tmaxsize 10M\n\tcompress\n\tmissingok\n\tnotifempty\n\tcopytruncate\n}\n`,
      );
      const debug = await box.run(LOGROTATE, ['-d', '/etc/logrotate.conf']);
      assert.equal(debug.code, 0, debug.stderr);
      assert.ok(debug.stderr.includes(`rotating pattern: ${DEMO_LOG}  after 1 days (3 rotations)\nempty log files are not rotated, log files >= 10485760 are rotated earlier`), debug.stderr);
    },
  },
  {
    action: 'RunLogrotate',
    params: { name: 'demo' },
    check: async (box) => {
      assert.equal(await box.readFile(DEMO_LOG), '', 'copytruncate leaves the log empty in place');
      assert.equal(await run(box, '/usr/bin/gzip', '-dc', '--', `${DEMO_LOG}.1.gz`), 'first line\nsecond line\n');
      assert.match((await box.readFile('/var/lib/logrotate/status'))!, new RegExp(`"${DEMO_LOG}" \\d{4}-`));
    },
  },
  {
    title: 'replaced with a glob',
    action: 'SetLogrotatePolicy',
    params: { name: 'demo', path: `${DEMO_DIR}/*.log`, rotate: 2, frequency: 'weekly', compress: false },
    check: async (box) => {
      assert.equal(
        await box.readFile(DEMO_POLICY),
        `# Written by Airlock (SetLogrotatePolicy demo); RemoveLogrotatePolicy removes it.\n${DEMO_DIR}/*.log {\n\tweekly\n\trotate 2\n\tnocompress\n\tmissingok\n\tnotifempty\n\tcopytruncate\n}\n`,
      );
      assert.equal((await box.run(LOGROTATE, ['-d', '/etc/logrotate.conf'])).code, 0);
    },
  },
  {
    title: 'a log another file already names (through a ? glob): logrotate -d fails, the file is removed again',
    action: 'SetLogrotatePolicy',
    params: { name: 'clash', path: `${CLASH_DIR}/x.log`, rotate: 1, frequency: 'monthly', compress: false },
    expect: 'RolledBack',
    setup: async (box) => {
      await run(box, '/usr/bin/mkdir', '-p', '--', CLASH_DIR);
      await write(box, `${CLASH_DIR}/x.log`, 'x\n');
      await write(box, '/etc/logrotate.d/zz-clash', `${CLASH_DIR}/?.log {\n\trotate 1\n}\n`);
    },
    check: async (box) => {
      assert.equal(await box.readFile('/etc/logrotate.d/airlock-clash'), null, 'the policy file was restored (removed)');
      await run(box, '/usr/bin/rm', '-f', '--', '/etc/logrotate.d/zz-clash');
      assert.equal((await box.run(LOGROTATE, ['-d', '/etc/logrotate.conf'])).code, 0);
    },
  },
  {
    action: 'RemoveLogrotatePolicy',
    params: { name: 'demo' },
    check: async (box) => {
      assert.equal(await box.readFile(DEMO_POLICY), null);
      assert.equal(await box.readFile(DEMO_LOG), '', 'the log stays');
      assert.ok((await box.readFile(`${DEMO_LOG}.1.gz`)) !== null, 'its rotated copy stays');
    },
  },
];
