import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CommandOutput } from '../../src/catalogue/action.js';
import { actions as logging } from '../../src/catalogue/families/logging/index.js';
import { sinceArgument } from '../../src/catalogue/families/logging/journal-query.js';
import { journalSection, splitCatConfig } from '../../src/catalogue/families/logging/journald.js';
import { logrotateEntries, logrotatePolicy } from '../../src/catalogue/families/logging/logrotate-config.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// The family's actions that were diagnostics.ts are in catalogue-diagnostics.test.ts.
const FROM_DIAGNOSTICS = ['ListBoots', 'KernelMessages', 'ShowJournaldConfig', 'VerifyJournal'];
const actions = logging.filter((a) => !FROM_DIAGNOSTICS.includes(a.name));
const byName = (n: string) => actions.find((a) => a.name === n)!;
const ok = (stdout: string): CommandOutput => ({ code: 0, stdout, stderr: '' });

const DROPIN = '/etc/systemd/journald.conf.d/60-airlock.conf';
const MID = '0123456789abcdef0123456789abcdef';
const MAIN_CONF = '# /etc/systemd/journald.conf\n[Journal]\n#Storage=auto\n#SystemMaxUse=\n';

/** A directory the fixture reports with this owner and mode. */
type DirSpec = { uid: number; gid: number; mode: number };

/** A fixture host with the programs the logging actions read through. */
class LoggingHost extends FixtureHost {
  constructor(
    tree: Record<string, Node>,
    opts: { catConfig?: string; dirs?: Record<string, DirSpec>; logrotateOk?: boolean; listings?: Record<string, string[]> } = {},
  ) {
    super(tree, (program: ProgramName, args: string[]) => {
      if (program === 'systemd-analyze') return ok(opts.catConfig ?? MAIN_CONF);
      if (program === 'journalctl' && args[0] === '--disk-usage') return ok('Archived and active journals take up 24.0M in the file system.\n');
      if (program === 'logrotate' && args[0] === '-d') return { code: opts.logrotateOk === false ? 1 : 0, stdout: '', stderr: '' };
      if (program === 'ls' && args[0] === '-1') {
        const dir = args[args.length - 1]!;
        const names = opts.listings?.[dir] ?? [...new Set(Object.keys(tree).filter((p) => p.startsWith(dir + '/')).map((p) => p.slice(dir.length + 1).split('/')[0]!))];
        return names.length || opts.listings?.[dir] ? ok(names.map((n) => `${n}\n`).join('')) : { code: 2, stdout: '', stderr: 'No such file or directory' };
      }
      return { code: 127, stdout: '', stderr: `not scripted: ${program} ${args.join(' ')}` };
    });
    this.dirs = opts.dirs ?? {};
  }
  private readonly dirs: Record<string, DirSpec>;
  override async stat(path: string) {
    const d = this.dirs[path];
    if (d) return { ...d, size: 0, isFile: false, isDir: true, isSymlink: false };
    return super.stat(path);
  }
}

const { run, refused } = actionRunner(actions);

const bad = (name: string, params: Record<string, unknown>) => assert.equal(byName(name).params.safeParse(params).success, false, `${name} ${JSON.stringify(params)}`);
const good = (name: string, params: Record<string, unknown>) => assert.ok(byName(name).params.safeParse(params).success, `${name} ${JSON.stringify(params)}`);

test('logging actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined, string[]]> = {
    JournalQuery: ['medium', true, undefined, []],
    JournalDiskUsage: ['low', true, undefined, []],
    VacuumJournal: ['high', false, 'none', []],
    SetJournaldOption: ['medium', false, 'exact', [DROPIN]],
    ResetJournaldOption: ['medium', false, 'exact', [DROPIN]],
    ListLogrotateConfigs: ['low', true, undefined, []],
    ShowLogrotateConfig: ['low', true, undefined, ['/etc/logrotate.d/*']],
    SetLogrotatePolicy: ['medium', false, 'exact', ['/etc/logrotate.d/airlock-*']],
    RemoveLogrotatePolicy: ['medium', false, 'exact', ['/etc/logrotate.d/airlock-*']],
    RunLogrotate: ['medium', false, 'none', []],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'logging');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class, a.files], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false, `${a.name} extra key`);
  }
  // The journald settings probe journald running (their drop-in is probed as the file their step writes).
  for (const n of ['SetJournaldOption', 'ResetJournaldOption']) {
    const r = byName(n).rollback!;
    assert.deepEqual(r.class === 'exact' && r.state!({}, {}), [{ program: 'systemctl', args: ['is-active', '--', 'systemd-journald.service'] }], n);
  }
  // What cannot be undone says why, for the approver.
  for (const n of ['VacuumJournal', 'RunLogrotate']) {
    const r = byName(n).rollback!;
    assert.match(r.class === 'none' ? r.reason : '', /Airlock keeps no copy/, n);
  }
});

test('JournalQuery parameters: unit, priority, since and lines are allowlists', () => {
  for (const s of INJECTIONS) {
    bad('JournalQuery', { unit: s, lines: 10 });
    bad('JournalQuery', { unit: `${s}.service`, lines: 10 });
    bad('JournalQuery', { priority: s, lines: 10 });
    bad('JournalQuery', { since: s, lines: 10 });
  }
  for (const u of ['x*.service', 'x?.service', '[a].service', 'ssh.bogus', '-u.service']) bad('JournalQuery', { unit: u, lines: 1 });
  assert.equal((byName('JournalQuery').params.parse({ unit: 'ssh', lines: 1 }) as { unit: string }).unit, 'ssh.service', 'as systemctl reads it');
  for (const s of ['-1', '-1y', '-99999h', '+1h', 'now', 'tomorrow', '1h ago', '2024-02-30', '2024-13-01', '1969-12-31', '2024-01-01 24:00', '2024-01-01 12:60', '2024-01-01Z', '2024-01-01 12:00 UTC', '2024-1-1', ' today', 'today ', '--since=x', '-rf', '-1h;id']) {
    bad('JournalQuery', { since: s, lines: 1 });
  }
  for (const s of ['today', 'yesterday', '-1h', '-30min', '-90s', '-2d', '-1w', '2024-02-29', '2024-01-31 23:59', '2024-01-31T23:59:59', '2024-01-31T23:59:59Z']) good('JournalQuery', { since: s, lines: 1 });
  for (const p of ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug']) good('JournalQuery', { priority: p, lines: 1 });
  for (const p of ['3', 'error', 'warn', 'ERR', 0]) bad('JournalQuery', { priority: p, lines: 1 });
  for (const l of [0, -1, 2001, 1.5, '10', null, Number.NaN, Infinity]) bad('JournalQuery', { lines: l });
  for (const l of [1, 2000]) good('JournalQuery', { lines: l });
  bad('JournalQuery', {}); // lines is required
});

test('JournalQuery argv: each filter one argument, --since as one --since=VALUE argument in the form systemd 252 parses', async () => {
  const host = new LoggingHost({});
  assert.deepEqual((await run('JournalQuery', { lines: 50 }, host)).steps, [{ kind: 'command', program: 'journalctl', args: ['--no-pager', '-o', 'short-iso', '-n', '50'] }]);
  const all = await run('JournalQuery', { unit: 'ssh.service', priority: 'warning', since: '-1h', lines: 200 }, host);
  assert.deepEqual(all.steps, [{ kind: 'command', program: 'journalctl', args: ['--no-pager', '-o', 'short-iso', '-n', '200', '-u', 'ssh.service', '-p', 'warning', '--since=-1h'] }]);
  assert.equal(all.preview.summary, 'Read the first 200 journal lines since -1h of ssh.service at priority warning or more severe');
  assert.deepEqual(all.preview.warnings, []);
  const whole = await run('JournalQuery', { lines: 5 }, host);
  assert.equal(whole.preview.summary, 'Read the last 5 journal lines of the whole system journal');
  assert.ok(whole.preview.warnings!.some((w) => w.includes('secrets')));
  assert.equal(sinceArgument('2024-01-31T23:59:59Z'), '--since=2024-01-31 23:59:59 UTC');
  assert.equal(sinceArgument('2024-01-31 23:59'), '--since=2024-01-31 23:59');
  assert.equal(sinceArgument('yesterday'), '--since=yesterday');
  assert.deepEqual(host.calls, [], 'a query reads nothing before it is approved');
});

test('JournalDiskUsage and ListLogrotateConfigs are fixed argv and take no parameters', async () => {
  const host = new LoggingHost({});
  assert.deepEqual((await run('JournalDiskUsage', {}, host)).steps, [{ kind: 'command', program: 'journalctl', args: ['--disk-usage'] }]);
  assert.deepEqual((await run('ListLogrotateConfigs', {}, host)).steps, [{ kind: 'command', program: 'ls', args: ['-l', '--', '/etc/logrotate.d'] }]);
  bad('JournalDiskUsage', { x: 1 });
  bad('ListLogrotateConfigs', { dir: '/etc' });
});

// ---------------------------------------------------------------- vacuum

const journalTree = (names: string[]): Record<string, Node> => ({
  '/etc/machine-id': `${MID}\n`,
  ...Object.fromEntries(names.map((n) => [`/var/log/journal/${MID}/${n}`, 'x'.repeat(100)])),
});

test('VacuumJournal takes exactly one of a size and an age, each from a fixed vocabulary', () => {
  for (const s of INJECTIONS) {
    bad('VacuumJournal', { maxSize: s });
    bad('VacuumJournal', { maxAge: s });
  }
  for (const s of ['100', '100m', '0M', '-1M', '1.5G', '1P', '1000000M', '100 M', '100MB']) bad('VacuumJournal', { maxSize: s });
  for (const s of ['2', '2weeks ', '0d', '1fortnight', '-2d', '1.5d', '2 weeks', '2W']) bad('VacuumJournal', { maxAge: s });
  bad('VacuumJournal', {});
  bad('VacuumJournal', { maxSize: '100M', maxAge: '2weeks' });
  for (const s of ['1K', '500M', '2G']) good('VacuumJournal', { maxSize: s });
  for (const s of ['30s', '10min', '12h', '7d', '2weeks', '6months', '1years']) good('VacuumJournal', { maxAge: s });
});

test('VacuumJournal: argv, the files it may delete, and a refusal when nothing is archived', async () => {
  const host = new LoggingHost(journalTree(['system.journal', 'system@0001-0002.journal', 'user-1000@0003.journal', 'user-1000.journal', 'system@x.journal~', 'notes.txt']));
  const size = await run('VacuumJournal', { maxSize: '100M' }, host);
  assert.deepEqual(size.steps, [{ kind: 'command', program: 'journalctl', args: ['--vacuum-size=100M'] }]);
  const change = size.preview.change as { may_delete: string[]; directories: string[] };
  assert.deepEqual(change.directories, [`/var/log/journal/${MID}`]);
  assert.deepEqual(
    change.may_delete,
    ['system@0001-0002.journal', 'system@x.journal~', 'user-1000@0003.journal'].map((n) => `/var/log/journal/${MID}/${n}`),
  );
  assert.deepEqual(size.shown, { usage: 'Archived and active journals take up 24.0M in the file system.', directories: [`/var/log/journal/${MID}`], archived_files: 3 });
  assert.ok(size.preview.sideEffects!.some((s) => s.includes('no undo')));
  assert.deepEqual((await run('VacuumJournal', { maxAge: '2weeks' }, host)).steps, [{ kind: 'command', program: 'journalctl', args: ['--vacuum-time=2weeks'] }]);
  await refused('VacuumJournal', { maxSize: '1K' }, new LoggingHost(journalTree(['system.journal', 'user-1000.journal'])), 'nothing_to_vacuum');
  await refused('VacuumJournal', { maxSize: '1K' }, new LoggingHost({ '/etc/machine-id': '../../etc\n' }), 'nothing_to_vacuum');
});

// ---------------------------------------------------------------- journald

const catConfig = (...files: Array<[string, string]>) => MAIN_CONF + files.map(([f, t]) => `\n# ${f}\n${t}`).join('');

test('SetJournaldOption: each option takes only its own kind of value', () => {
  for (const option of ['SystemMaxUse', 'SystemKeepFree', 'MaxRetentionSec', 'Storage', 'Compress', 'RateLimitIntervalSec']) {
    for (const s of INJECTIONS) bad('SetJournaldOption', { option, value: s });
    bad('SetJournaldOption', { option, value: 5 });
  }
  for (const s of INJECTIONS) bad('SetJournaldOption', { option: s, value: 'yes' });
  bad('SetJournaldOption', { option: 'SystemMaxUse', value: '2weeks' });
  bad('SetJournaldOption', { option: 'SystemMaxUse', value: '50%' });
  bad('SetJournaldOption', { option: 'MaxRetentionSec', value: '500M' });
  bad('SetJournaldOption', { option: 'Storage', value: 'disk' });
  bad('SetJournaldOption', { option: 'Compress', value: 'true' });
  bad('SetJournaldOption', { option: 'Compress', value: true });
  bad('SetJournaldOption', { option: 'RateLimitBurst', value: '5000' });
  bad('SetJournaldOption', { option: 'RateLimitBurst', value: -1 });
  bad('SetJournaldOption', { option: 'RateLimitBurst', value: 1.5 });
  bad('SetJournaldOption', { option: 'ForwardToSyslog', value: 'no' });
  bad('SetJournaldOption', { option: 'SystemMaxUse' });
  for (const [option, value] of [
    ['SystemMaxUse', '500M'],
    ['SystemKeepFree', '1G'],
    ['MaxRetentionSec', '1months'],
    ['Storage', 'volatile'],
    ['Compress', 'no'],
    ['RateLimitIntervalSec', '0'],
    ['RateLimitIntervalSec', '30s'],
    ['RateLimitBurst', 0],
    ['RateLimitBurst', 10000],
  ] as const) {
    good('SetJournaldOption', { option, value });
  }
  for (const s of INJECTIONS) bad('ResetJournaldOption', { option: s });
  bad('ResetJournaldOption', { option: 'SystemMaxUse', value: '1M' });
});

const HEADER = '# Written by Airlock (SetJournaldOption, ResetJournaldOption): change it through those actions.\n[Journal]\n';
const RESET_FAILED = { kind: 'command', program: 'systemctl', args: ['reset-failed', '--', 'systemd-journald.service'], undo: { kind: 'command', program: 'systemctl', args: ['restart', '--', 'systemd-journald.service'] } };
const RESTART = { kind: 'command', program: 'systemctl', args: ['restart', '--', 'systemd-journald.service'], noUndo: 'undone_earlier' };

test('SetJournaldOption writes the drop-in keeping its other options, after resetting the start limit, then restarts journald', async () => {
  const fresh = await run('SetJournaldOption', { option: 'SystemMaxUse', value: '500M' }, new LoggingHost({}));
  assert.deepEqual(fresh.steps, [RESET_FAILED, { kind: 'fileWrite', path: DROPIN, content: `${HEADER}SystemMaxUse=500M\n`, mode: 0o644, parent: { mode: 0o755 } }, RESTART]);
  assert.deepEqual(fresh.preview.change, { file: DROPIN, option: 'SystemMaxUse', from: 'the built-in default', to: '500M', content: `${HEADER}SystemMaxUse=500M\n`, restarts: 'systemd-journald.service' });

  const existing = `${HEADER}SystemMaxUse=500M\nCompress=no\n`;
  const host = new LoggingHost({ [DROPIN]: existing }, { catConfig: catConfig([DROPIN, existing]) });
  const replace = await run('SetJournaldOption', { option: 'SystemMaxUse', value: '1G' }, host);
  assert.equal((replace.steps[1] as { content: string }).content, `${HEADER}SystemMaxUse=1G\nCompress=no\n`);
  assert.equal((replace.preview.change as { from: string }).from, `500M (from ${DROPIN})`);
  const add = await run('SetJournaldOption', { option: 'RateLimitBurst', value: 5000 }, host);
  assert.equal((add.steps[1] as { content: string }).content, `${HEADER}SystemMaxUse=500M\nCompress=no\nRateLimitBurst=5000\n`);
  assert.ok(add.preview.warnings!.some((w) => w.includes('rate limiting')));
  const none = await run('SetJournaldOption', { option: 'Storage', value: 'none' }, host);
  assert.ok(none.preview.warnings!.some((w) => w.includes('drops every log message')));
});

test('SetJournaldOption: the same value is no change; refuses an option a later drop-in overrides; earlier files do not matter', async () => {
  const text = `${HEADER}Compress=no\n`;
  await assertNoChange(run('SetJournaldOption', { option: 'Compress', value: 'no' }, new LoggingHost({ [DROPIN]: text }, { catConfig: catConfig([DROPIN, text]) })), /already/);
  const later = catConfig(['/usr/lib/systemd/journald.conf.d/10-vendor.conf', '[Journal]\nCompress=yes\n'], [DROPIN, text], ['/etc/systemd/journald.conf.d/99-local.conf', '[Journal]\nSystemMaxUse=1G\n']);
  const host = new LoggingHost({ [DROPIN]: text }, { catConfig: later });
  await refused('SetJournaldOption', { option: 'SystemMaxUse', value: '2G' }, host, 'overridden');
  await run('SetJournaldOption', { option: 'Compress', value: 'yes' }, host); // 10-vendor.conf comes before ours
  // Set elsewhere to the same value and not overridden: a no-op too.
  await assertNoChange(run('SetJournaldOption', { option: 'Storage', value: 'persistent' }, new LoggingHost({}, { catConfig: catConfig(['/etc/systemd/journald.conf.d/10-a.conf', '[Journal]\nStorage=persistent\n']) })), /already/);
  // A main file under /usr/lib sorts after "60-airlock.conf" by name, but is read before every drop-in.
  await run('SetJournaldOption', { option: 'SystemMaxUse', value: '2G' }, new LoggingHost({}, { catConfig: catConfig(['/usr/lib/systemd/journald.conf', '[Journal]\nSystemMaxUse=1G\n']) }));
  // A later drop-in counts even when ours does not exist yet.
  await refused('SetJournaldOption', { option: 'SystemMaxUse', value: '2G' }, new LoggingHost({}, { catConfig: catConfig(['/run/systemd/journald.conf.d/70-x.conf', '[Journal]\nSystemMaxUse=1G\n']) }), 'overridden');
  const broken = new FixtureHost({}, () => ({ code: 1, stdout: '', stderr: '' }));
  await refused('SetJournaldOption', { option: 'Compress', value: 'no' }, broken, 'journald_config_unreadable');
});

test('ResetJournaldOption removes one option, deletes the file with the last one, and refuses options it did not set', async () => {
  const text = `${HEADER}SystemMaxUse=500M\nCompress=no\n`;
  const host = new LoggingHost({ [DROPIN]: text }, { catConfig: catConfig([DROPIN, text]) });
  const one = await run('ResetJournaldOption', { option: 'SystemMaxUse' }, host);
  assert.deepEqual(one.steps, [RESET_FAILED, { kind: 'fileWrite', path: DROPIN, content: `${HEADER}Compress=no\n`, mode: 0o644, parent: { mode: 0o755 } }, RESTART]);
  assert.equal((one.preview.change as { from: string }).from, '500M');
  const last = `${HEADER}Compress=no\n`;
  const gone = await run('ResetJournaldOption', { option: 'Compress' }, new LoggingHost({ [DROPIN]: last }, { catConfig: catConfig([DROPIN, last]) }));
  assert.deepEqual(gone.steps, [RESET_FAILED, { kind: 'fileDelete', path: DROPIN }, RESTART]);
  assert.equal((gone.preview.change as { deletes_file: boolean }).deletes_file, true);
  await assertNoChange(run('ResetJournaldOption', { option: 'Storage' }, host), /not|no /);
  await assertNoChange(run('ResetJournaldOption', { option: 'Storage' }, new LoggingHost({})), /not|no /);
});

test('journald parsers: cat-config files and [Journal] assignments', () => {
  const files = splitCatConfig(catConfig([DROPIN, '[Journal]\nA=1\n']));
  assert.deepEqual(files.map((f) => f.file), ['/etc/systemd/journald.conf', DROPIN]);
  assert.deepEqual(journalSection('# c\n[Other]\nA=0\n[Journal]\n#B=2\n; C=3\nA = 1\nD=\nE=x=y\n'), [
    ['A', '1'],
    ['D', ''],
    ['E', 'x=y'],
  ]);
});

// ---------------------------------------------------------------- logrotate

const LR = '/etc/logrotate.d';
const POLICY = `${LR}/airlock-myapp`;
const ROOT_DIR: DirSpec = { uid: 0, gid: 0, mode: 0o755 };
const baseTree: Record<string, Node> = {
  '/etc/logrotate.conf': 'weekly\nrotate 4\ncreate\ninclude /etc/logrotate.d\n/var/log/wtmp {\n  monthly\n}\n',
  [`${LR}/apt`]: '/var/log/apt/term.log {\n  rotate 12\n}\n\n/var/log/apt/history.log {\n  rotate 12\n}\n',
  [`${LR}/rsyslog`]: '/var/log/syslog\n/var/log/mail.log\n{\n\trotate 4\n\tpostrotate\n\t\t/usr/lib/rsyslog/rsyslog-rotate { }\n\tendscript\n}\n',
  [`${LR}/nginx`]: '"/var/log/nginx/*.log" {\n  daily\n}\n',
  '/var/log/myapp/app.log': 'log line\n',
};
const lrHost = (tree: Record<string, Node> = {}, opts: { dirs?: Record<string, DirSpec>; logrotateOk?: boolean; listings?: Record<string, string[]> } = {}) =>
  new LoggingHost({ ...baseTree, ...tree }, { dirs: { '/var/log/myapp': ROOT_DIR, '/var/log/other': ROOT_DIR, ...opts.dirs }, ...opts });
const policy = (over: Record<string, unknown> = {}) => ({ name: 'myapp', path: '/var/log/myapp/app.log', rotate: 14, frequency: 'daily', compress: true, ...over });

test('logrotate parameters: names, paths, counts and sizes are allowlists', () => {
  for (const s of INJECTIONS) {
    for (const a of ['SetLogrotatePolicy', 'RemoveLogrotatePolicy', 'RunLogrotate']) bad(a, a === 'SetLogrotatePolicy' ? policy({ name: s }) : { name: s });
    bad('ShowLogrotateConfig', { name: s });
    bad('SetLogrotatePolicy', policy({ path: s }));
    bad('SetLogrotatePolicy', policy({ path: `/var/log/${s}` }));
    bad('SetLogrotatePolicy', policy({ maxsize: s }));
  }
  for (const n of ['MyApp', 'my.app', 'a/b', '..', '.hidden', 'x'.repeat(49), 'airlock-*']) bad('RunLogrotate', { name: n });
  for (const n of ['.', '..', '.x', 'a/b', '../shadow', 'x'.repeat(101)]) bad('ShowLogrotateConfig', { name: n });
  for (const n of ['apt', 'php8.2-fpm', 'airlock-myapp', 'unattended-upgrades']) good('ShowLogrotateConfig', { name: n });
  for (const p of [
    '/etc/passwd',
    '/var/log',
    '/var/log/',
    '/var/logs/x.log',
    '/var/log/*.log',
    '/var/log/app/*',
    '/var/log/app/x*.log',
    '/var/log/app/*.txt',
    '/var/log/app/?.log',
    '/var/log/app/[ab].log',
    '/var/log/app/{a,b}.log',
    '/var/log/*/app.log',
    '/var/log/../etc/shadow',
    '/var/log/app/../../../etc/shadow',
    '/var/log/./app.log',
    '/var/log//app.log',
    '/var/log/app/',
    '/var/log/.hidden/x.log',
    '/var/log/journal/x.journal',
    '/var/log/journal',
    'var/log/app.log',
    '/var/log/a b.log',
    '/var/log/app.log\n/etc/shadow',
    '/var/log/app.log {',
  ]) {
    bad('SetLogrotatePolicy', policy({ path: p }));
  }
  for (const p of ['/var/log/app.log', '/var/log/myapp/app.log', '/var/log/myapp/*.log', '/var/log/a/b/c-1_2.log', '/var/log/syslog']) good('SetLogrotatePolicy', policy({ path: p }));
  for (const r of [0, 366, -1, 1.5, '7', null]) bad('SetLogrotatePolicy', policy({ rotate: r }));
  for (const f of ['hourly', 'yearly', 'Daily', '']) bad('SetLogrotatePolicy', policy({ frequency: f }));
  for (const c of ['yes', 1, null]) bad('SetLogrotatePolicy', policy({ compress: c }));
  for (const m of ['0', '10K', '10m', '1T', '1.5M', '10 M']) bad('SetLogrotatePolicy', policy({ maxsize: m }));
  for (const m of ['100', '100k', '10M', '1G']) good('SetLogrotatePolicy', policy({ maxsize: m }));
  bad('SetLogrotatePolicy', { name: 'myapp', path: '/var/log/x.log' });
});

const MYAPP_POLICY = '# Written by Airlock (SetLogrotatePolicy myapp); RemoveLogrotatePolicy removes it.\n/var/log/myapp/app.log {\n\tdaily\n\trotate 14\n\tmaxsize 100M\n\tcompress\n\tmissingok\n\tnotifempty\n\tcopytruncate\n}\n';

test('SetLogrotatePolicy writes the policy file, then checks the whole configuration with logrotate -d', async () => {
  const host = lrHost();
  const r = await run('SetLogrotatePolicy', policy({ maxsize: '100M' }), host);
  assert.deepEqual(r.steps, [
    { kind: 'fileWrite', path: POLICY, content: MYAPP_POLICY, mode: 0o644 },
    { kind: 'command', program: 'logrotate', args: ['-d', '--', '/etc/logrotate.conf'], paths: ['/var/log/myapp/app.log'], noUndo: 'changes_nothing' },
  ]);
  assert.equal(r.preview.summary, 'Create the logrotate policy airlock-myapp for /var/log/myapp/app.log');
  assert.equal((r.preview.change as { content: string }).content, MYAPP_POLICY);
  assert.deepEqual(r.preview.warnings, []);
  assert.ok(host.calls.some(([p, a]) => p === 'logrotate' && a.join(' ') === '-d -- /etc/logrotate.conf'), 'the baseline check is read before');
  // An already broken configuration: only the new file is checked, and the preview says so.
  const alone = await run('SetLogrotatePolicy', policy({ path: '/var/log/myapp/*.log', compress: false }), lrHost({}, { logrotateOk: false }));
  assert.deepEqual(alone.steps[1], { kind: 'command', program: 'logrotate', args: ['-d', '--', POLICY], paths: ['/var/log/myapp/*.log'], noUndo: 'changes_nothing' });
  assert.match((alone.steps[0] as { content: string }).content, /^\/var\/log\/myapp\/\*\.log \{\n\tdaily\n\trotate 14\n\tnocompress\n/m);
  assert.ok(alone.preview.warnings!.some((w) => w.includes('already reports errors')));
  // Replacing its own file is not a clash with itself; the same content is a no-op.
  const replaced = await run('SetLogrotatePolicy', policy({ rotate: 7 }), lrHost({ [POLICY]: MYAPP_POLICY }));
  assert.equal(replaced.preview.summary, 'Replace the logrotate policy airlock-myapp for /var/log/myapp/app.log');
  assert.equal((replaced.preview.change as { replaces: string }).replaces, MYAPP_POLICY);
  await assertNoChange(run('SetLogrotatePolicy', policy({ maxsize: '100M' }), lrHost({ [POLICY]: MYAPP_POLICY })), /already/);
  assert.equal(logrotatePolicy('myapp', { path: '/var/log/myapp/app.log', rotate: 14, frequency: 'daily', compress: true, maxsize: '100M' }), MYAPP_POLICY);
});

test('SetLogrotatePolicy refuses a log another configuration rotates, and unsafe or missing places', async () => {
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/apt/history.log' }), lrHost({}, { dirs: { '/var/log/apt': ROOT_DIR } }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/syslog' }), lrHost({}, { dirs: { '/var/log': ROOT_DIR } }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/mail.log' }), lrHost({}, { dirs: { '/var/log': ROOT_DIR } }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/wtmp' }), lrHost({}, { dirs: { '/var/log': ROOT_DIR } }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/nginx/access.log' }), lrHost({}, { dirs: { '/var/log/nginx': ROOT_DIR } }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/apt/*.log' }), lrHost({}, { dirs: { '/var/log/apt': ROOT_DIR } }), 'already_rotated');
  // Another Airlock policy naming the same log clashes too.
  await refused('SetLogrotatePolicy', policy({ name: 'other' }), lrHost({ [POLICY]: MYAPP_POLICY }), 'already_rotated');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/missing/app.log' }), lrHost(), 'no_such_directory');
  // The trusted-path rule: the log's directory and every one above it root's alone, no link on the way.
  await refused('SetLogrotatePolicy', policy(), lrHost({}, { dirs: { '/var/log/myapp': { uid: 0, gid: 0, mode: 0o1777 } } }), 'untrusted_path', 'authorization');
  await refused('SetLogrotatePolicy', policy(), lrHost({}, { dirs: { '/var/log/myapp': { uid: 0, gid: 33, mode: 0o775 } } }), 'untrusted_path');
  await refused('SetLogrotatePolicy', policy(), lrHost({}, { dirs: { '/var/log/myapp': { uid: 1000, gid: 1000, mode: 0o755 } } }), 'untrusted_path');
  // Writable by root's own group is refused too (logrotate itself would accept it): the rule has no exceptions.
  await refused('SetLogrotatePolicy', policy(), lrHost({}, { dirs: { '/var/log/myapp': { uid: 0, gid: 0, mode: 0o775 } } }), 'untrusted_path');
  await refused('SetLogrotatePolicy', policy(), lrHost({ '/var/log/myapp/app.log': { link: '/etc/shadow' } }), 'untrusted_path');
  // A link above the log's directory: /var/log/agent/root -> / makes .../root/etc/shadow /etc/shadow.
  const linked = { '/var/log/agent': { dir: true as const, uid: 1001 }, '/var/log/agent/root': { link: '/' }, '/var/log/agent/root/etc/shadow': 'x' };
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/agent/root/etc/shadow' }), lrHost(linked), 'untrusted_path');
  await refused('SetLogrotatePolicy', policy({ path: '/var/log/agent/*.log' }), lrHost(linked), 'untrusted_path');
  await refused('SetLogrotatePolicy', policy(), lrHost({ '/var/log/myapp/app.log': { dir: true } }), 'not_a_file');
  const absent = await run('SetLogrotatePolicy', policy({ path: '/var/log/myapp/new.log' }), lrHost());
  assert.ok(absent.preview.warnings!.some((w) => w.includes('does not exist yet')));
});

test('ShowLogrotateConfig reads one file of /etc/logrotate.d; RemoveLogrotatePolicy deletes only airlock-NAME', async () => {
  assert.deepEqual((await run('ShowLogrotateConfig', { name: 'apt' }, lrHost())).steps, [{ kind: 'fileScan', path: `${LR}/apt` }]);
  await refused('ShowLogrotateConfig', { name: 'nope' }, lrHost(), 'not_found');
  await refused('ShowLogrotateConfig', { name: 'evil' }, lrHost({ [`${LR}/evil`]: { link: '/etc/shadow' } }), 'not_a_file');
  const rm = await run('RemoveLogrotatePolicy', { name: 'myapp' }, lrHost({ [POLICY]: MYAPP_POLICY }));
  assert.deepEqual(rm.steps, [{ kind: 'fileDelete', path: POLICY }]);
  assert.deepEqual(rm.preview.change, { deletes: POLICY, content: MYAPP_POLICY, logs: ['/var/log/myapp/app.log'] });
  await refused('RemoveLogrotatePolicy', { name: 'apt' }, lrHost(), 'no_such_policy');
});

test('RunLogrotate forces one policy file, and refuses a missing policy or one with no log yet', async () => {
  const r = await run('RunLogrotate', { name: 'myapp' }, lrHost({ [POLICY]: MYAPP_POLICY }));
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'logrotate', args: ['-f', '--', POLICY], paths: ['/var/log/myapp/app.log'] }]);
  assert.deepEqual((r.preview.change as { logs: string[] }).logs, ['/var/log/myapp/app.log']);
  const glob = MYAPP_POLICY.replace('/var/log/myapp/app.log', '/var/log/myapp/*.log');
  const g = await run('RunLogrotate', { name: 'myapp' }, lrHost({ [POLICY]: glob, '/var/log/myapp/b.log': '', '/var/log/myapp/c.txt': 'x', '/var/log/myapp/app.log.1': 'x' }));
  assert.deepEqual((g.preview.change as { logs: string[] }).logs, ['/var/log/myapp/app.log', '/var/log/myapp/b.log']);
  assert.ok(g.preview.sideEffects!.some((s) => s.includes('b.log: 0B now (empty')));
  await refused('RunLogrotate', { name: 'myapp' }, lrHost(), 'no_such_policy');
  await refused('RunLogrotate', { name: 'myapp' }, lrHost({ [POLICY]: MYAPP_POLICY.replace('app.log', 'gone.log') }), 'nothing_to_rotate');
  // A policy that was safe when written, under a directory that is not root's alone now: refused before anything is listed.
  await refused('RunLogrotate', { name: 'myapp' }, lrHost({ [POLICY]: MYAPP_POLICY }, { dirs: { '/var/log/myapp': { uid: 1001, gid: 1001, mode: 0o755 } } }), 'untrusted_path', 'authorization');
  await refused('RunLogrotate', { name: 'myapp' }, lrHost({ [POLICY]: glob }, { dirs: { '/var/log/myapp': { uid: 0, gid: 0, mode: 0o777 } } }), 'untrusted_path');
});

test('logrotateEntries: patterns before each block, scripts and global directives skipped', () => {
  assert.deepEqual(logrotateEntries(baseTree['/etc/logrotate.conf'] as string), ['/var/log/wtmp']);
  assert.deepEqual(logrotateEntries(baseTree[`${LR}/rsyslog`] as string), ['/var/log/syslog', '/var/log/mail.log']);
  assert.deepEqual(logrotateEntries(baseTree[`${LR}/nginx`] as string), ['/var/log/nginx/*.log']);
  assert.deepEqual(logrotateEntries('/a /b {\n prerotate\n  if x; then { y; } fi\n endscript\n}\n# /c {\n/d { rotate 1 }\n/e\n{\n}\n'), ['/a', '/b', '/d', '/e']);
  assert.deepEqual(logrotateEntries(''), []);
});
