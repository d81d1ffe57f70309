import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as cron from '../../src/catalogue/families/scheduling/cron.js';
import * as timers from '../../src/catalogue/families/scheduling/timers.js';
import { cronFileContent, parseCronFile } from '../../src/catalogue/families/scheduling/cron.js';
import { calendarExpression, cronSchedule, jobName, jobProgram } from '../../src/catalogue/families/scheduling/job-params.js';
import { parseTimerFile, timerContent } from '../../src/catalogue/families/scheduling/timers.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const scheduling = { ...cron, ...timers };
const actions = Object.values(scheduling).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\nalice:x:1000:1000::/home/alice:/bin/bash\n';
/** A root-owned ELF executable (what a job may run) and a root-owned script (which it may not). */
const EXE = { file: '\x7fELF\x02\x01', mode: 0o755 };
const SCRIPT = { file: '#!/bin/sh\n', mode: 0o755 };
/** A Debian-like tree: cron installed, programs of the allowlist root-owned executables, /bin a link. */
const TREE: Record<string, Node> = {
  '/': { dir: true },
  '/etc/passwd': PASSWD,
  '/etc/crontab': 'SHELL=/bin/sh\n17 * * * * root cd / && run-parts --report /etc/cron.hourly\n',
  '/etc/cron.d/e2scrub_all': '30 3 * * 0 root test -e /run/systemd/system || /usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron\n',
  '/etc/cron.d/.placeholder': '# DO NOT EDIT OR REMOVE\n',
  '/etc/cron.d/old.dpkg-old': 'x\n',
  '/etc/cron.daily/logrotate': SCRIPT,
  '/usr/local/sbin/backup.sh': SCRIPT,
  '/usr/local/bin/uptime-link': { link: '/usr/bin/true' },
  '/var/spool/cron/crontabs/alice': '# DO NOT EDIT\n* * * * * /home/alice/bin/x --token=secret\n',
  '/usr/local/sbin/backup': EXE,
  '/usr/sbin/fstrim': EXE,
  '/usr/bin/df': EXE,
  '/usr/bin/uptime': EXE,
  '/usr/bin/logger': EXE,
  '/usr/sbin/logrotate': EXE,
  '/etc/logrotate.conf': 'weekly\n',
  '/etc/logrotate.d/open': { file: 'x', mode: 0o666 },
  '/srv/data': { dir: true },
  '/usr/bin/true': EXE,
  '/usr/bin/README': { file: 'x', mode: 0o644 },
  '/usr/local/sbin/open': { file: '\x7fELF', mode: 0o777 },
  '/usr/bin/dash': EXE,
  '/bin': { link: '/usr/bin' },
  '/usr/bin/awk': { link: '/etc/alternatives/awk' },
};

/** `systemctl show` output: a loaded, running, enabled service unless told otherwise. */
function show(unit: string, p: Record<string, string> = {}): string {
  const base: Record<string, string> = { Id: unit, Names: unit, LoadState: 'loaded', ActiveState: 'active', SubState: 'running', UnitFileState: 'enabled', MainPID: '0', TriggeredBy: '', ...p };
  return Object.entries(base).map(([k, v]) => `${k}=${v}\n`).join('');
}
const NOT_FOUND = { LoadState: 'not-found', ActiveState: 'inactive', SubState: 'dead', UnitFileState: '' };

/** Scripted programs: systemctl show, systemd-analyze calendar (accepts what the table knows), ls of the tree's directories. */
function hostWith(tree: Record<string, Node> = TREE, units: Record<string, Record<string, string>> = { 'cron.service': {} }, calendars: Record<string, string> = { daily: '*-*-* 00:00:00', '*:0/15': '*-*-* *:00/15:00' }) {
  const host: FixtureHost = new FixtureHost(tree, (program: ProgramName, args: string[]) => {
    const last = args[args.length - 1]!;
    // The commands a service runs: `{ path=... ; argv[]=... }` per command, as systemctl show prints ExecStart=.
    if (program === 'systemctl' && args[0] === 'show' && args.some((a) => a.includes('ExecStart'))) {
      const exec = units[last]?.ExecStart ?? (units[last] ? '/usr/sbin/fstrim --all' : '');
      const line = (c: string) => `ExecStart={ path=${c.split(' ')[0]} ; argv[]=${c} ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n`;
      return { code: 0, stdout: exec.split(' && ').filter(Boolean).map(line).join(''), stderr: '' };
    }
    if (program === 'systemctl' && args[0] === 'show') return { code: 0, stdout: show(last, units[last] ?? NOT_FOUND), stderr: '' };
    if (program === 'systemd-analyze' && args[0] === 'calendar') {
      const n = calendars[last];
      return n ? { code: 0, stdout: `  Original form: ${last}\nNormalized form: ${n}\n    Next elapse: Mon 2026-11-30 00:00:00 UTC\n`, stderr: '' } : { code: 1, stdout: '', stderr: `Failed to parse calendar specification '${last}': Invalid argument\n` };
    }
    if (program === 'ls' && args[0] === '-1A') {
      const names = Object.keys(tree).filter((p) => p.startsWith(last + '/') && !p.slice(last.length + 1).includes('/')).map((p) => p.slice(last.length + 1));
      return { code: 0, stdout: names.map((n) => n + '\n').join(''), stderr: '' };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
  return host;
}

const { run, refused } = actionRunner(actions);

const BRIEF_INJECTIONS = ['; rm -rf /', '$(id)', '`id`', '-rf', '--help', '../etc', 'a\u0000b', 'a\nb', 'x'.repeat(5000), ''];

test('scheduling actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    ListCronJobs: ['medium', true, undefined],
    AddCronJob: ['high', false, 'exact'],
    RemoveCronJob: ['high', false, 'exact'],
    CreateTimer: ['high', false, 'exact'],
    RemoveTimer: ['high', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'scheduling');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
  assert.deepEqual(byName('AddCronJob').files, ['/etc/cron.d/airlock-*']);
  assert.deepEqual(byName('RemoveCronJob').files, ['/etc/cron.d/airlock-*']);
  assert.deepEqual(byName('CreateTimer').files, ['/etc/systemd/system/airlock-*.timer']);
  assert.deepEqual(byName('RemoveTimer').files, ['/etc/systemd/system/airlock-*.timer']);
});

test('job names refuse injections, dots, upper case and long names', () => {
  for (const bad of [...INJECTIONS, 'a.b', 'Backup', '-x', '_x', 'a/b', 'x'.repeat(41), 'airlock x', 'a%b']) assert.equal(jobName.safeParse(bad).success, false, JSON.stringify(bad));
  for (const ok of ['backup', 'nightly-backup', 'db_dump2', '0x', 'x'.repeat(40)]) assert.ok(jobName.safeParse(ok).success, ok);
});

test('cron schedules are validated field by field', () => {
  const good = ['* * * * *', '30 2 * * *', '*/15 * * * *', '0 */2 * * 1-5', '0,15,30,45 8-18 * * mon', '5 4 1 jan *', '0 0 1-31/2 * 7', '59 23 31 12 0', '@reboot', '@hourly', '@daily', '@weekly', '@monthly', '@yearly', '0 3 * * SUN'];
  for (const s of good) assert.ok(cronSchedule.safeParse(s).success, s);
  const bad = [
    ...INJECTIONS,
    '* * * *',
    '* * * * * *',
    '60 * * * *',
    '* 24 * * *',
    '* * 0 * *',
    '* * * 13 *',
    '* * * * 8',
    '5/10 * * * *',
    '10-5 * * * *',
    '*/0 * * * *',
    '*/99 * * * *',
    '* * * jan-mar *',
    '* * * * mon,tue',
    '*  * * * *',
    ' * * * * *',
    '@every',
    '@annually',
    '@reboot ',
    '* * * * *; id',
    '* * * * * root',
    '* * * * $(id)',
    '1,,2 * * * *',
    '% * * * *',
    '0x1 * * * *',
    '001 * * * *',
  ];
  for (const s of bad) assert.equal(cronSchedule.safeParse(s).success, false, JSON.stringify(s));
  assert.match(cronSchedule.safeParse('60 * * * *').error!.issues[0]!.message, /minute 60 is outside 0-59/);
});

test('cron programs are absolute paths without shell characters', () => {
  for (const bad of [...INJECTIONS, 'usr/bin/true', '/usr/bin/true now', '/usr/bin/../bin/sh', '/usr/bin/./true', '//usr/bin/true', '/usr/bin/', '/usr/bin/true%', '/usr/bin/tr*e', '/usr/bin/true;id', '/tmp/$(id)', '/usr/bin/true\t-x', '/' + 'x'.repeat(300)]) {
    assert.equal(jobProgram.safeParse(bad).success, false, JSON.stringify(bad));
  }
  for (const ok of ['/usr/local/sbin/backup', '/usr/bin/true', '/opt/app-1.2/bin/run_job']) assert.ok(jobProgram.safeParse(ok).success, ok);
});

test('calendar expressions refuse injections before systemd-analyze sees them', () => {
  for (const bad of [...BRIEF_INJECTIONS, 'a|b', 'a&b', "a'b", 'a"b', 'a>b', '%H', 'daily ', ' daily', 'Mon  *-*-*', '/./x', 'x'.repeat(101)]) {
    assert.equal(calendarExpression.safeParse(bad).success, false, JSON.stringify(bad));
  }
  for (const ok of ['daily', 'Mon..Fri *-*-* 03:00:00', '*:0/15', '*-*-* 02:30:00 Europe/Berlin', 'Sat,Sun 10:00', '*-02~1 00:00', 'America/New_York']) {
    assert.ok(calendarExpression.safeParse(ok).success, ok);
  }
});

test('ListCronJobs scans every file cron reads and lists the run-parts directories', async () => {
  const r = await run('ListCronJobs', {}, hostWith());
  assert.deepEqual(r.steps, [
    { kind: 'fileScan', path: '/etc/crontab' },
    { kind: 'fileScan', path: '/etc/cron.d/e2scrub_all' },
    { kind: 'fileScan', path: '/var/spool/cron/crontabs/alice' },
    { kind: 'command', program: 'ls', args: ['-l', '--time-style=long-iso', '--', '/etc/cron.daily'] },
  ]);
  assert.equal(r.preview.change, null);
  assert.ok(!JSON.stringify(r.shown).includes('secret'), 'the preview holds names, never crontab content');
  for (const s of r.steps) if (s.kind === 'fileScan') assert.ok(byName('ListCronJobs').files.some((g) => g === s.path || g.endsWith('/*') && s.path.startsWith(g.slice(0, -1))), s.path);
  await refused('ListCronJobs', {}, hostWith({ '/etc/passwd': PASSWD }), 'no_cron');
});

test('AddCronJob writes one root-owned 0644 file with a fixed environment and one line', async () => {
  const r = await run('AddCronJob', { name: 'backup', schedule: '30 2 * * *', user: 'alice', program: '/usr/bin/uptime' }, hostWith());
  const content = '# Written by Airlock (AddCronJob backup); RemoveCronJob removes it.\nSHELL=/bin/sh\nPATH=/usr/sbin:/usr/bin:/sbin:/bin\n30 2 * * * alice /usr/bin/uptime\n';
  assert.equal(cronFileContent('backup', '30 2 * * *', 'alice', '/usr/bin/uptime'), content);
  assert.deepEqual(r.steps, [{ kind: 'fileWrite', path: '/etc/cron.d/airlock-backup', content, mode: 0o644, owner: { uid: 0, gid: 0 } }]);
  assert.deepEqual((r.preview.change as { job: unknown }).job, { schedule: '30 2 * * *', user: 'alice', program: '/usr/bin/uptime', args: [] });
  // Fixed arguments go on the line as they are: their alphabet means nothing to cron's /bin/sh.
  const dfArgs = ['-h', '--output=source,size', '/srv/data'];
  const withArgs = await run('AddCronJob', { name: 'trim', schedule: '@daily', user: 'root', program: '/usr/bin/df', args: dfArgs }, hostWith());
  assert.equal((withArgs.steps[0] as { content: string }).content.split('\n')[3], '@daily root /usr/bin/df -h --output=source,size /srv/data');
  assert.deepEqual(parseCronFile((withArgs.steps[0] as { content: string }).content).jobs, [{ schedule: '@daily', user: 'root', program: '/usr/bin/df', args: dfArgs }]);
  for (const bad of ['a b', '%', 'x;id', '$(id)', '`id`', 'a|b', 'a>b', "'", '"', '*', '~', '#x', 'a&b', 'rel/path']) {
    assert.equal(byName('AddCronJob').params.safeParse({ name: 'x', schedule: '@daily', user: 'root', program: '/usr/bin/true', args: [bad] }).success, false, JSON.stringify(bad));
  }
  assert.deepEqual(r.preview.warnings, []);
  const root = await run('AddCronJob', { name: 'boot', schedule: '@reboot', user: 'root', program: '/usr/bin/uptime' }, hostWith(TREE, { 'cron.service': { ActiveState: 'inactive', SubState: 'dead' } }));
  assert.ok(root.preview.warnings!.some((w) => w.startsWith('it runs as root')));
  assert.ok(root.preview.warnings!.some((w) => w.startsWith('cron.service is inactive')));
  assert.ok(root.preview.sideEffects![0]!.includes('at each boot'));
  const sys = await run('AddCronJob', { name: 'n', schedule: '@daily', user: 'nobody', program: '/usr/bin/uptime' }, hostWith());
  assert.ok(sys.preview.warnings!.some((w) => w.includes('system account')));
});

test('AddCronJob refusals', async () => {
  const p = { name: 'backup', schedule: '30 2 * * *', user: 'alice', program: '/usr/sbin/fstrim', args: ['--all'] };
  await refused('AddCronJob', p, hostWith({ ...TREE, '/etc/cron.d/airlock-backup': 'x\n' }), 'already_exists');
  await refused('AddCronJob', { ...p, user: 'mallory' }, hostWith(), 'no_such_user');
  await refused('AddCronJob', p, hostWith(TREE, {}), 'no_cron');
  // A program off the allowlist is refused whatever it is, and the refusal lists what is allowed.
  for (const program of ['/usr/local/sbin/backup', '/usr/local/sbin/missing', '/bin/true', '/usr/bin/true', '/usr/bin/awk', '/usr/bin/dash', '/usr/bin/env', '/opt/app/run']) {
    await assert.rejects(
      run('AddCronJob', { ...p, program }, hostWith()),
      (e: unknown) => e instanceof AirlockError && e.code === 'program_refused' && e.message.includes(`${program} is not one of the programs`) && e.message.includes('/usr/sbin/fstrim: fstrim [ --verbose ] --all'),
      program,
    );
  }
  // A program of the table whose file is not what the table means.
  for (const [node, code, why] of [
    [undefined, 'untrusted_program', /does not exist/],
    [{ link: '/usr/bin/true' }, 'untrusted_program', /\/usr\/sbin\/fstrim is a symbolic link/],
    [{ file: 'x', mode: 0o644 }, 'untrusted_program', /not executable/],
    [{ file: '\x7fELF', mode: 0o777 }, 'untrusted_program', /writable by its group or by others \(mode 0777\)/],
    [SCRIPT, 'not_a_binary', /a script: what runs is its interpreter/],
  ] as const) {
    const tree: Record<string, Node> = { ...TREE };
    if (node === undefined) delete tree['/usr/sbin/fstrim'];
    else tree['/usr/sbin/fstrim'] = node;
    await assert.rejects(run('AddCronJob', p, hostWith(tree)), (e: unknown) => e instanceof AirlockError && e.code === code && why.test(e.message), why.source);
  }
  // A second name (hard link) for a program: it may be a shell under a harmless name.
  const linked = new FixtureHost(TREE, (program, args) => (program === 'systemctl' ? { code: 0, stdout: show(args[args.length - 1]!), stderr: '' } : { code: 127, stdout: '', stderr: '' }), 'debian', { '/usr/sbin/fstrim': 2 });
  await assert.rejects(run('AddCronJob', p, linked), (e: unknown) => e instanceof AirlockError && e.code === 'untrusted_program' && /2 names \(hard links\)/.test(e.message));
  // Arguments outside the program's usage lines; the refusal shows them.
  for (const args of [['--freeze', '/'], [], ['--all', '--all'], ['-a'], ['/srv/data', '--all']]) {
    await assert.rejects(
      run('AddCronJob', { ...p, args }, hostWith()),
      (e: unknown) => e instanceof AirlockError && e.code === 'arguments_refused' && e.hint!.includes('fstrim [ --verbose ] DIR') && e.message.includes('DIR is an existing directory'),
      args.join(' '),
    );
  }
  // A file an argument names: in a directory others can write (or a file), missing where a directory is asked, or root's script not root's alone.
  const refusedArg = (program: string, args: string[], why: RegExp) =>
    assert.rejects(run('AddCronJob', { ...p, program, args }, hostWith()), (e: unknown) => e instanceof AirlockError && e.code === 'untrusted_argument' && why.test(e.message), args.join(' '));
  await refusedArg('/usr/bin/df', ['/usr/local/sbin/open/x'], /\/usr\/local\/sbin\/open is not a directory/);
  await refusedArg('/usr/sbin/fstrim', ['/srv/missing'], /not an existing directory/);
  await refusedArg('/usr/bin/df', ['/usr/bin/dash'], /names an executable file/);
  await refusedArg('/usr/sbin/logrotate', ['/etc/logrotate.d/open'], /root runs what it says, yet it is writable by its group or by others \(mode 0666\)/);
  await run('AddCronJob', { ...p, program: '/usr/sbin/logrotate', args: ['--force', '/etc/logrotate.conf'] }, hostWith());
  await run('AddCronJob', { ...p, args: ['--verbose', '/srv/data'] }, hostWith());
  // A program in a directory someone else owns could be swapped: refused.
  class NotRootDir extends FixtureHost {
    override async stat(path: string) {
      const st = await super.stat(path);
      return st && path === '/usr/sbin' ? { ...st, uid: 1000 } : st;
    }
  }
  const h = new NotRootDir(TREE, (program, args) => (program === 'systemctl' ? { code: 0, stdout: show(args[args.length - 1]!), stderr: '' } : { code: 127, stdout: '', stderr: '' }));
  await assert.rejects(run('AddCronJob', p, h), (e: unknown) => e instanceof AirlockError && e.code === 'untrusted_program' && /\/usr\/sbin belongs to uid 1000, not root/.test(e.message));
});

test('RemoveCronJob deletes only airlock-NAME and shows only lines of the shape Airlock writes', async () => {
  const file = cronFileContent('backup', '30 2 * * *', 'alice', '/usr/local/sbin/backup') + 'MAILTO=x\n* * * * * root curl -H "token: s3cret" http://x\n';
  const r = await run('RemoveCronJob', { name: 'backup' }, hostWith({ ...TREE, '/etc/cron.d/airlock-backup': file }));
  assert.deepEqual(r.steps, [{ kind: 'fileDelete', path: '/etc/cron.d/airlock-backup' }]);
  assert.deepEqual(r.preview.change, { file: '/etc/cron.d/airlock-backup', deletes: true, removes_jobs: [{ schedule: '30 2 * * *', user: 'alice', program: '/usr/local/sbin/backup', args: [] }], other_lines: 2 });
  assert.ok(!JSON.stringify(r.shown).includes('s3cret') && !JSON.stringify(r.preview).includes('s3cret'), 'hand-written lines are never shown');
  assert.ok(r.preview.warnings!.some((w) => w.includes('2 line(s) Airlock did not write')));
  assert.deepEqual(parseCronFile('@daily root /usr/bin/true\n'), { jobs: [{ schedule: '@daily', user: 'root', program: '/usr/bin/true', args: [] }], otherLines: 0 });
  assert.deepEqual(parseCronFile('@daily root /usr/bin/true $(id)\n').otherLines, 1, 'a line with a shell character is not one Airlock wrote');
  await refused('RemoveCronJob', { name: 'backup' }, hostWith(), 'no_such_job');
  for (const bad of [...INJECTIONS, 'e2scrub_all/../x', '../crontab']) assert.equal(byName('RemoveCronJob').params.safeParse({ name: bad }).success, false, JSON.stringify(bad));
});

const TIMER_UNITS = { 'cron.service': {}, 'backup.service': { ActiveState: 'inactive', SubState: 'dead', UnitFileState: 'static' } };
/** The first step of CreateTimer and RemoveTimer: the timer as systemd holds it, carrying the reload that comes last in an undo. */
const loaded = (timer: string) => ({
  kind: 'command',
  program: 'systemctl',
  args: ['show', '--no-pager', '-p', 'LoadState,UnitFileState,ActiveState', '--', timer],
  undo: { kind: 'command', program: 'systemctl', args: ['daemon-reload'] },
});
/** What both probe besides the timer file. */
const timerProbes = (timer: string) => [`systemctl is-enabled -- ${timer}`, `systemctl is-active --quiet -- ${timer}`, `systemctl show --no-pager -p LoadState -- ${timer}`];
const probesOf = (name: string, params: Record<string, unknown>, cur: unknown) => {
  const a = byName(name);
  assert.equal(a.rollback?.class, 'exact');
  return (a.rollback.state?.(a.params.parse(params), cur) ?? []).map((p) => ('file' in p ? p.file : [p.program, ...p.args].join(' ')));
};

test('CreateTimer writes the timer, verifies it, reloads systemd and enables it now', async () => {
  const r = await run('CreateTimer', { name: 'backup', onCalendar: 'daily', unit: 'backup.service' }, hostWith(TREE, TIMER_UNITS));
  const content = timerContent('backup', 'daily', 'backup.service');
  assert.equal(
    content,
    '# Written by Airlock (CreateTimer backup); RemoveTimer removes it.\n[Unit]\nDescription=Airlock timer backup: starts backup.service\n\n[Timer]\nOnCalendar=daily\nUnit=backup.service\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n',
  );
  const path = '/etc/systemd/system/airlock-backup.timer';
  assert.deepEqual(r.steps, [
    loaded('airlock-backup.timer'),
    { kind: 'fileWrite', path, content, mode: 0o644, owner: { uid: 0, gid: 0 } },
    { kind: 'command', program: 'systemd-analyze', args: ['verify', '--man=no', '--', path], noUndo: 'changes_nothing' },
    { kind: 'command', program: 'systemctl', args: ['daemon-reload'], noUndo: 'undone_earlier' },
    { kind: 'command', program: 'systemctl', args: ['enable', '--now', '--', 'airlock-backup.timer'], undo: { kind: 'command', program: 'systemctl', args: ['disable', '--now', '--', 'airlock-backup.timer'] } },
  ]);
  assert.deepEqual((r.preview.change as { on_calendar: unknown }).on_calendar, { given: 'daily', normalized: '*-*-* 00:00:00' });
  assert.deepEqual((r.preview.change as { runs: unknown }).runs, ['/usr/sbin/fstrim --all'], 'the approver sees what the service runs');
  assert.deepEqual(parseTimerFile(content), { onCalendar: ['daily'], unit: 'backup.service' });
  assert.deepEqual(probesOf('CreateTimer', { name: 'backup', onCalendar: 'daily', unit: 'backup.service' }, r.cur), timerProbes('airlock-backup.timer'));
  const triggered = await run('CreateTimer', { name: 'b2', onCalendar: '*:0/15', unit: 'backup.service' }, hostWith(TREE, { 'backup.service': { TriggeredBy: 'backup.timer' } }));
  assert.deepEqual(triggered.preview.warnings, ['backup.service is already started by backup.timer']);
});

test('CreateTimer refusals', async () => {
  const p = { name: 'backup', onCalendar: 'daily', unit: 'backup.service' };
  await refused('CreateTimer', { ...p, onCalendar: 'bogus' }, hostWith(TREE, TIMER_UNITS), 'bad_calendar');
  await refused('CreateTimer', { ...p, onCalendar: 'a b' }, hostWith(TREE, TIMER_UNITS), 'bad_calendar');
  await refused('CreateTimer', p, hostWith({ ...TREE, '/etc/systemd/system/airlock-backup.timer': 'x' }, TIMER_UNITS), 'already_exists');
  await refused('CreateTimer', p, hostWith(TREE, { ...TIMER_UNITS, 'airlock-backup.timer': {} }), 'already_exists');
  await refused('CreateTimer', { ...p, unit: 'nope.service' }, hostWith(TREE, TIMER_UNITS), 'no_such_unit');
  await refused('CreateTimer', { ...p, unit: 'systemd-journald.service' }, hostWith(TREE, { 'systemd-journald.service': {} }), 'protected_unit');
  await refused('CreateTimer', { ...p, unit: 'emergency.service' }, hostWith(TREE, { 'emergency.service': {} }), 'rescue_unit');
  await refused('CreateTimer', { ...p, unit: 'sshd.service' }, hostWith(TREE, { 'sshd.service': { Id: 'ssh.service' } }), 'unit_alias');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { LoadState: 'masked', UnitFileState: 'masked' } }), 'unit_masked');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { LoadState: 'bad-setting' } }), 'unit_not_loaded');
  // What the service runs passes the one check for commands run on the agent's behalf.
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/sbin/fstrim --all && /usr/bin/dash' } }), 'program_refused', 'authorization');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/local/sbin/backup' } }), 'program_refused', 'authorization');
  await refused('CreateTimer', p, hostWith({ ...TREE, '/usr/sbin/logrotate': SCRIPT }, { 'backup.service': { ExecStart: '/usr/sbin/logrotate /etc/logrotate.conf' } }), 'not_a_binary');
  // Root wrote the unit's arguments, but the agent chooses that root runs them on a schedule: they fit a usage line too.
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/sbin/fstrim --freeze /' } }), 'arguments_refused', 'authorization');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/sbin/logrotate /etc/logrotate.d/open' } }), 'untrusted_argument');
  // An argument holding " ; " (the separator of systemctl show's fields) stays in argv, and is refused there.
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/sbin/fstrim --all ; x' } }), 'bad_argument');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '/usr/sbin/fstrim --verbose --all x' } }), 'arguments_refused', 'authorization');
  await refused('CreateTimer', p, hostWith(TREE, { 'backup.service': { ExecStart: '' } }), 'unit_commands_unknown');
  // A template instance: the agent would choose the text systemd pastes into its command lines.
  await refused('CreateTimer', { ...p, unit: 'backup@x.service' }, hostWith(TREE, { 'backup@x.service': {} }), 'template_instance', 'authorization');
  const c = byName('CreateTimer');
  for (const bad of ['backup.timer', 'getty@.service', ...INJECTIONS]) assert.equal(c.params.safeParse({ ...p, unit: bad }).success, false, bad);
});

test('RemoveTimer disables it now, deletes its file and reloads systemd; the undo restores the state it had', async () => {
  const path = '/etc/systemd/system/airlock-backup.timer';
  const tree = { ...TREE, [path]: timerContent('backup', 'daily', 'backup.service') };
  const r = await run('RemoveTimer', { name: 'backup' }, hostWith(tree, { 'airlock-backup.timer': { ActiveState: 'active', SubState: 'waiting', UnitFileState: 'enabled' } }));
  const disable = { kind: 'command', program: 'systemctl', args: ['disable', '--now', '--', 'airlock-backup.timer'] };
  assert.deepEqual(r.steps, [
    loaded('airlock-backup.timer'),
    { ...disable, undo: { kind: 'command', program: 'systemctl', args: ['enable', '--now', '--', 'airlock-backup.timer'] } },
    { kind: 'fileDelete', path },
    { kind: 'command', program: 'systemctl', args: ['daemon-reload'], noUndo: 'undone_earlier' },
  ]);
  assert.deepEqual(probesOf('RemoveTimer', { name: 'backup' }, r.cur), timerProbes('airlock-backup.timer'));
  assert.deepEqual(r.preview.change, {
    file: path,
    deletes: true,
    timer: 'airlock-backup.timer',
    activates: 'backup.service',
    on_calendar: ['daily'],
    text: `stops and disables airlock-backup.timer, deletes ${path}, reloads systemd`,
  });
  const idle = await run('RemoveTimer', { name: 'backup' }, hostWith(tree, { 'airlock-backup.timer': { ActiveState: 'inactive', SubState: 'dead', UnitFileState: 'disabled' } }));
  assert.deepEqual(idle.steps[1], { ...disable, noUndo: 'changes_nothing' }, 'nothing to restore');
  const startedOnly = await run('RemoveTimer', { name: 'backup' }, hostWith(tree, { 'airlock-backup.timer': { ActiveState: 'active', UnitFileState: 'disabled' } }));
  assert.deepEqual(startedOnly.steps[1], { ...disable, undo: { kind: 'command', program: 'systemctl', args: ['start', '--', 'airlock-backup.timer'] } });
  await refused('RemoveTimer', { name: 'backup' }, hostWith(), 'no_such_timer');
  for (const bad of [...INJECTIONS, 'x.timer', '../apt-daily']) assert.equal(byName('RemoveTimer').params.safeParse({ name: bad }).success, false, JSON.stringify(bad));
  // Any valid name addresses airlock-NAME.timer only: a distro timer is out of reach.
  const distro = await run('RemoveTimer', { name: 'apt-daily' }, hostWith({ ...TREE, '/etc/systemd/system/airlock-apt-daily.timer': '[Timer]\nOnCalendar=daily\n' }));
  assert.equal((distro.preview.change as { timer: string }).timer, 'airlock-apt-daily.timer');
});
