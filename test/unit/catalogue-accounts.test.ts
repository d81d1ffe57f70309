/**
 * accounts (actions of the users, privilege, ssh and identity families): declared risk and
 * flags, validators against injection, preview and mechanism argv (with undo) on typical and
 * edge states, and refusals with their codes. Runs against an in-memory host.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import { timeStatus } from '../../src/catalogue/families/identity/clock.js';
import { prettyHostname, setPrettyHostname } from '../../src/catalogue/families/identity/hostname.js';
import { validateSudoers } from '../../src/catalogue/families/privilege/validate-sudoers.js';
import { listSshSessions, localPortFilter, sshdPorts } from '../../src/catalogue/families/ssh/sessions.js';
import { testSshdConfig } from '../../src/catalogue/families/ssh/sshd-check.js';
import { parseEffective } from '../../src/catalogue/families/ssh/sshd-config.js';
import * as aging from '../../src/catalogue/families/users/password-aging.js';
import { parseAging } from '../../src/catalogue/families/users/password-aging.js';
import { setUserComment } from '../../src/catalogue/families/users/profile.js';
import * as sessions from '../../src/catalogue/families/users/sessions.js';
import { today } from '../../src/catalogue/families/users/shadow.js';
import type { CommandStep } from '../../src/catalogue/mechanism.js';
import { gecos, userName } from '../../src/catalogue/params.js';
import { rollbackAvailable } from '../../src/catalogue/rollback.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

/** What families/accounts.ts held: actions of four families, each now in its family's folder. */
const accounts = { ...aging, setUserComment, ...sessions, validateSudoers, testSshdConfig, listSshSessions, timeStatus, setPrettyHostname };
const actions = Object.values(accounts).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);

const HASH = '$6$salt$abcdefghijklmnopqrstuvwxyz0123456789';
const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
  'toor:x:0:0:second root:/root:/bin/bash',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'alice:x:1000:1000:Alice Liddell,,,:/home/alice:/bin/bash',
  'bob:x:1001:1001::/home/bob:/bin/bash',
  'carol:x:1002:1002::/home/carol:/bin/bash',
  'dave:x:1003:1003::/home/dave:/bin/bash',
  'erin:x:1004:1004::/home/erin:/bin/bash',
].join('\n');
const SHADOW = [
  'root:*:19000:0:99999:7:::',
  'daemon:*:19000:0:99999:7:::',
  `alice:${HASH}:19000:0:99999:7:::`,
  `bob:${HASH}:0:1:90:7:14::`,
  'carol:!:19000:0:99999:7:::',
  `dave:!${HASH}:19000:0:99999:7:::`,
  `erin:${HASH}:::::::`,
].join('\n');

interface World {
  tree?: Record<string, Node>;
  /** Paths of the default tree that this host lacks. */
  absent?: string[];
  programs?: Partial<Record<ProgramName, CommandOutput>>;
}
const ok = (stdout = ''): CommandOutput => ({ code: 0, stdout, stderr: '' });

const SSHD_T = 'port 22\nport 2222\nlistenaddress [::]:22\nlistenaddress 0.0.0.0:2222\nlistenaddress 10.0.0.1:8022\npasswordauthentication yes\n';

function hostWith(w: World = {}) {
  const tree: Record<string, Node> = {
    '/etc/passwd': PASSWD,
    '/etc/shadow': SHADOW,
    '/etc/group': 'root:x:0:\n',
    '/etc/sudoers': 'root ALL=(ALL:ALL) ALL\n@includedir /etc/sudoers.d\n',
    '/etc/ssh/sshd_config': 'Include /etc/ssh/sshd_config.d/*.conf\n',
    '/run/sshd': { dir: true },
    ...w.tree,
  };
  const answers: Partial<Record<ProgramName, CommandOutput>> = {
    visudo: ok('/etc/sudoers: parsed OK\n'),
    sshd: ok(SSHD_T),
    hostnamectl: ok('Old box\n'),
    timedatectl: ok('Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized=yes\n'),
    systemctl: ok('LoadState=loaded\nActiveState=active\nUnitFileState=enabled\nConditionResult=yes\n'),
    ...w.programs,
  };
  for (const p of w.absent ?? []) delete tree[p];
  return new FixtureHost(tree, (program) => answers[program] ?? { code: 127, stdout: '', stderr: 'not scripted' });
}
const without = (path: string) => hostWith({ absent: [path] });
const undoOf = (steps: unknown[]) => (steps[0] as CommandStep).undo;

test('accounts actions are declared with their families, risk and flags', () => {
  const expected: Record<string, [string, string, boolean, boolean]> = {
    ShowPasswordAging: ['users', 'low', true, false],
    SetPasswordAging: ['users', 'high', false, true],
    ForcePasswordChange: ['users', 'high', false, true],
    SetUserComment: ['users', 'medium', false, true],
    ListSessions: ['users', 'low', true, false],
    LastLogins: ['users', 'medium', true, false],
    ValidateSudoers: ['privilege', 'low', true, false],
    TestSshdConfig: ['ssh', 'low', true, false],
    ListSshSessions: ['ssh', 'medium', true, false],
    TimeStatus: ['identity', 'low', true, false],
    SetPrettyHostname: ['identity', 'medium', false, true],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    // The last flag: a rollback is available (class exact or compensating, src/catalogue/rollback.ts).
    assert.deepEqual([a.family, a.risk, a.readOnly, rollbackAvailable(a)], expected[a.name], a.name);
    assert.equal(a.reboot, false, a.name);
    assert.deepEqual(a.files, [], `${a.name} touches files only through programs`);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
});

test('validators refuse injection strings', () => {
  for (const bad of INJECTIONS) {
    assert.equal(userName.safeParse(bad).success, false, `user ${JSON.stringify(bad)}`);
    // The comment and the pretty name admit spaces and apostrophes by design; everything else is refused.
    if (bad !== 'a b' && bad !== "a'b" && bad !== '') assert.equal(gecos.safeParse(bad).success, false, `comment ${JSON.stringify(bad)}`);
    if (bad !== 'a b' && bad !== "a'b") assert.equal(prettyHostname.safeParse(bad).success, false, `pretty ${JSON.stringify(bad)}`);
  }
  for (const bad of [' Box', 'Box ', 'a  b', '-x', 'Caf\u00e9', 'a\tb', 'x'.repeat(65), 'a"b', 'a\\b', 'a$b', 'a;b']) assert.equal(prettyHostname.safeParse(bad).success, false, bad);
  for (const good of ['Web server 1', "Bob's box", 'db-01.prod', 'x'.repeat(64)]) assert.ok(prettyHostname.safeParse(good).success, good);
  // Unknown keys, wrong types and out-of-range days are refused.
  const aging = byName('SetPasswordAging').params;
  for (const bad of [
    { user: 'alice' },
    { user: 'alice', maxdays: 0 },
    { user: 'alice', maxdays: 100000 },
    { user: 'alice', mindays: -1 },
    { user: 'alice', warndays: 366 },
    { user: 'alice', inactive: 1.5 },
    { user: 'alice', inactive: '5' },
    { user: 'alice', lastday: 0 },
    { user: '-alice', maxdays: 9 },
  ]) {
    assert.equal(aging.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.equal(byName('LastLogins').params.safeParse({ user: '1000-2000' }).success, false, 'no uid ranges');
  assert.equal(byName('ListSessions').params.safeParse({ all: true }).success, false);
  assert.equal(byName('SetUserComment').params.safeParse({ user: 'alice', comment: 'a:b' }).success, false);
  assert.equal(byName('SetUserComment').params.safeParse({ user: 'alice', comment: 'a,b' }).success, false);
});

test('parseAging reads days and empty fields, never more than the ageing fields', () => {
  assert.deepEqual(parseAging(SHADOW, 'bob'), { lastday: 0, mindays: 1, maxdays: 90, warndays: 7, inactive: 14 });
  assert.deepEqual(parseAging(SHADOW, 'erin'), { lastday: null, mindays: null, maxdays: null, warndays: null, inactive: null });
  assert.equal(parseAging(SHADOW, 'nobody'), null);
  assert.equal(parseAging('x:!:abc:0:99999:7:::\n', 'x'), null, 'malformed day');
  assert.equal(parseAging('x:!:1:2\n', 'x'), null, 'short line');
  assert.ok(!JSON.stringify(parseAging(SHADOW, 'alice')).includes('$6$'));
});

test('ShowPasswordAging and LastLogins: exact argv; unknown users refused', async () => {
  assert.deepEqual((await run('ShowPasswordAging', { user: 'alice' }, hostWith())).steps, [{ kind: 'command', program: 'chage', args: ['--list', '--iso8601', '--', 'alice'] }]);
  await refused('ShowPasswordAging', { user: 'zed' }, hostWith(), 'no_such_user', 'validation');
  assert.deepEqual((await run('LastLogins', {}, hostWith())).steps, [{ kind: 'command', program: 'lastlog', args: [] }]);
  assert.deepEqual((await run('LastLogins', { user: 'bob' }, hostWith())).steps, [{ kind: 'command', program: 'lastlog', args: ['--user', 'bob'] }]);
  await refused('LastLogins', { user: 'zed' }, hostWith(), 'no_such_user');
  assert.deepEqual((await run('ListSessions', {}, hostWith())).steps, [{ kind: 'command', program: 'who', args: ['--heading', '--users'] }]);
});

test('SetPasswordAging: changes only what differs, with the old values as undo', async () => {
  const { steps, preview, shown } = await run('SetPasswordAging', { user: 'alice', maxdays: 90, warndays: 7, inactive: 10 }, hostWith());
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'chage',
      args: ['--maxdays', '90', '--inactive', '10', '--', 'alice'],
      undo: { kind: 'command', program: 'chage', args: ['--maxdays', '99999', '--inactive', '-1', '--', 'alice'] },
    },
  ]);
  assert.deepEqual((preview.change as { set: unknown }).set, [
    { option: 'maxdays', from: 99999, to: 90 },
    { option: 'inactive', from: 'not set', to: 10 },
  ]);
  // alice's password dates from day 19000 (2022): with a 90-day maximum it has expired, and 10 days of grace are over.
  assert.ok(preview.warnings?.some((w) => w.includes('grace period is over')), JSON.stringify(preview.warnings));
  assert.ok(!JSON.stringify(shown).includes('$6$'), 'the hash never reaches the preview');
  const empty = await run('SetPasswordAging', { user: 'erin', mindays: 0 }, hostWith());
  assert.deepEqual(undoOf(empty.steps)?.args, ['--mindays', '-1', '--', 'erin'], 'an empty field is emptied again by -1');
});

test('SetPasswordAging: expiry warnings follow the dates', async () => {
  const recent = today() - 10;
  const h = hostWith({ tree: { '/etc/shadow': `alice:${HASH}:${recent}:0:99999:7:::\n` } });
  assert.deepEqual((await run('SetPasswordAging', { user: 'alice', maxdays: 30 }, h)).preview.warnings, []);
  const w = (await run('SetPasswordAging', { user: 'alice', maxdays: 5 }, h)).preview.warnings ?? [];
  assert.ok(w.some((x) => x.includes('must change it first')), JSON.stringify(w));
  const warn = (await run('SetPasswordAging', { user: 'alice', maxdays: 30, warndays: 30 }, h)).preview.warnings ?? [];
  assert.ok(warn.some((x) => x.includes('warndays 30 is not below maxdays 30')), JSON.stringify(warn));
});

test('SetPasswordAging refusals', async () => {
  await refused('SetPasswordAging', { user: 'root', maxdays: 90 }, hostWith(), 'protected_account', 'authorization');
  await refused('SetPasswordAging', { user: 'daemon', maxdays: 90 }, hostWith(), 'protected_account');
  await refused('SetPasswordAging', { user: 'nobody', maxdays: 90 }, hostWith(), 'protected_account');
  await refused('SetPasswordAging', { user: 'zed', maxdays: 90 }, hostWith(), 'no_such_user');
  await assertNoChange(run('SetPasswordAging', { user: 'alice', maxdays: 99999, warndays: 7 }, hostWith()), /already/);
  await refused('SetPasswordAging', { user: 'alice', mindays: 10, maxdays: 5 }, hostWith(), 'min_above_max', 'validation');
  await refused('SetPasswordAging', { user: 'bob', mindays: 100 }, hostWith(), 'min_above_max', 'validation');
  await refused('SetPasswordAging', { user: 'alice', maxdays: 9 }, hostWith({ tree: { '/etc/shadow': 'root:*:1:0:99999:7:::\n' } }), 'no_shadow_entry');
  await refused('SetPasswordAging', { user: 'alice', maxdays: 9 }, hostWith({ tree: { '/etc/shadow': `alice:${HASH}:x1:0:99999:7:::\n` } }), 'no_shadow_entry');
});

test('ForcePasswordChange: chage --lastday 0, undo restores the old day', async () => {
  const { steps, preview } = await run('ForcePasswordChange', { user: 'alice' }, hostWith());
  assert.deepEqual(steps, [
    { kind: 'command', program: 'chage', args: ['--lastday', '0', '--', 'alice'], undo: { kind: 'command', program: 'chage', args: ['--lastday', '19000', '--', 'alice'] } },
  ]);
  assert.deepEqual((preview.change as { last_password_change: unknown }).last_password_change, { from: '2022-01-08', to: 'must change at the next login' });
  const erin = await run('ForcePasswordChange', { user: 'erin' }, hostWith());
  assert.deepEqual(undoOf(erin.steps)?.args, ['--lastday', '-1', '--', 'erin']);
});

test('ForcePasswordChange refusals', async () => {
  await refused('ForcePasswordChange', { user: 'root' }, hostWith(), 'protected_account', 'authorization');
  await refused('ForcePasswordChange', { user: 'toor' }, hostWith(), 'protected_account');
  await assertNoChange(run('ForcePasswordChange', { user: 'bob' }, hostWith()), /already/);
  await refused('ForcePasswordChange', { user: 'carol' }, hostWith(), 'no_usable_password', 'conflict');
  await refused('ForcePasswordChange', { user: 'dave' }, hostWith(), 'no_usable_password', 'conflict');
  await refused('ForcePasswordChange', { user: 'zed' }, hostWith(), 'no_such_user');
});

test('SetUserComment: usermod --comment with the old comment as undo; refuses uid 0; the same comment is no change', async () => {
  const { steps, preview } = await run('SetUserComment', { user: 'alice', comment: "Alice O'Hara" }, hostWith());
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'usermod',
      args: ['--comment', "Alice O'Hara", '--', 'alice'],
      undo: { kind: 'command', program: 'usermod', args: ['--comment', 'Alice Liddell,,,', '--', 'alice'] },
    },
  ]);
  assert.ok(preview.warnings?.some((w) => w.includes('comma-separated')));
  const clear = await run('SetUserComment', { user: 'alice', comment: '' }, hostWith());
  assert.deepEqual((clear.steps[0] as CommandStep).args, ['--comment', '', '--', 'alice']);
  assert.match(clear.preview.summary, /^Clear/);
  const bob = await run('SetUserComment', { user: 'bob', comment: 'Bob' }, hostWith());
  assert.deepEqual(undoOf(bob.steps)?.args, ['--comment', '', '--', 'bob']);
  await refused('SetUserComment', { user: 'root', comment: 'x' }, hostWith(), 'protected_account', 'authorization');
  await refused('SetUserComment', { user: 'toor', comment: 'x' }, hostWith(), 'protected_account');
  await assertNoChange(run('SetUserComment', { user: 'bob', comment: '' }, hostWith()), /already/);
  await refused('SetUserComment', { user: 'zed', comment: 'x' }, hostWith(), 'no_such_user');
});

test('ValidateSudoers: visudo --check; the preview quotes diagnoses, never policy text', async () => {
  const { steps, preview } = await run('ValidateSudoers', {}, hostWith());
  assert.deepEqual(steps, [{ kind: 'command', program: 'visudo', args: ['--check'] }]);
  assert.deepEqual(preview.warnings, []);
  const broken = hostWith({ programs: { visudo: { code: 1, stdout: '', stderr: '/etc/sudoers.d/bad:1:9: syntax error\nalice ALL=(ALL) SECRETCMD\n        ^~~\n' } } });
  const b = await run('ValidateSudoers', {}, broken);
  assert.deepEqual(b.preview.warnings, ['visudo reports now: /etc/sudoers.d/bad:1:9: syntax error']);
  assert.ok(!JSON.stringify(b.preview).includes('SECRETCMD'));
  const perms = await run('ValidateSudoers', {}, hostWith({ programs: { visudo: { code: 1, stdout: '/etc/sudoers: parsed OK\n', stderr: '/etc/sudoers.d/x: bad permissions, should be mode 0440\n' } } }));
  assert.deepEqual(perms.preview.warnings, ['visudo reports now: /etc/sudoers.d/x: bad permissions, should be mode 0440']);
  const silent = await run('ValidateSudoers', {}, hostWith({ programs: { visudo: { code: 1, stdout: '', stderr: '' } } }));
  assert.deepEqual(silent.preview.warnings, ['visudo reports now: exit status 1, no diagnosis']);
  await refused('ValidateSudoers', {}, without('/etc/sudoers'), 'sudo_missing', 'unsupported_platform');
});

test('TestSshdConfig: sshd -t; reports problems and a missing /run/sshd; refuses without sshd', async () => {
  const { steps, preview } = await run('TestSshdConfig', {}, hostWith());
  assert.deepEqual(steps, [{ kind: 'command', program: 'sshd', args: ['-t'] }]);
  assert.deepEqual(preview.warnings, []);
  const bad = await run('TestSshdConfig', {}, hostWith({ programs: { sshd: { code: 255, stdout: '', stderr: '/etc/ssh/sshd_config.d/x.conf: line 1: Bad configuration option: Foo\n/etc/ssh/sshd_config.d/x.conf: terminating, 1 bad configuration options\n' } } }));
  assert.equal(bad.preview.warnings?.length, 2);
  assert.match(bad.preview.warnings![0]!, /line 1: Bad configuration option: Foo/);
  const noPrivsep = await run('TestSshdConfig', {}, without('/run/sshd'));
  assert.ok(noPrivsep.preview.warnings?.some((w) => w.includes('/run/sshd is missing')));
  await refused('TestSshdConfig', {}, without('/etc/ssh/sshd_config'), 'sshd_missing', 'unsupported_platform');
});

test('sshdPorts and localPortFilter: numbers from sshd -T only', () => {
  assert.deepEqual(sshdPorts(parseEffective(SSHD_T)), [22, 2222, 8022]);
  assert.deepEqual(sshdPorts(parseEffective('port 22\nlistenaddress [fe80::1%eth0]:22\nport x\nport 70000\n')), [22]);
  assert.deepEqual(sshdPorts(new Map()), []);
  assert.deepEqual(localPortFilter([22]), ['(', 'sport', '=', ':22', ')']);
  assert.deepEqual(localPortFilter([22, 2222]), ['(', 'sport', '=', ':22', 'or', 'sport', '=', ':2222', ')']);
});

test('ListSshSessions: ss on the ports sshd reports, then the sshd processes', async () => {
  const { steps, preview } = await run('ListSshSessions', {}, hostWith());
  assert.deepEqual(steps, [
    { kind: 'command', program: 'ss', args: ['-H', '-t', '-n', '-p', 'state', 'established', '(', 'sport', '=', ':22', 'or', 'sport', '=', ':2222', 'or', 'sport', '=', ':8022', ')'] },
    { kind: 'command', program: 'ps', args: ['-C', 'sshd,sshd-session', '-o', 'pid=,user:32=,lstart=,args='], okCodes: [0, 1] },
  ]);
  assert.match(preview.summary, /ports 22, 2222, 8022/);
  assert.deepEqual(preview.warnings, []);
  // sshd -T failing (no /run/sshd): port 22, said so.
  const fallback = await run('ListSshSessions', {}, hostWith({ programs: { sshd: { code: 255, stdout: '', stderr: 'Missing privilege separation directory: /run/sshd' } } }));
  assert.deepEqual((fallback.steps[0] as CommandStep).args.slice(6), ['(', 'sport', '=', ':22', ')']);
  assert.ok(fallback.preview.warnings?.some((w) => w.includes('port 22')));
  await refused('ListSshSessions', {}, without('/etc/ssh/sshd_config'), 'sshd_missing', 'unsupported_platform');
});

test('TimeStatus: timedatectl show, summarised in the preview; refuses when timedated is unreachable', async () => {
  const { steps, preview } = await run('TimeStatus', {}, hostWith());
  assert.deepEqual(steps, [{ kind: 'command', program: 'timedatectl', args: ['show'] }]);
  assert.equal(preview.summary, 'Show the clock (time zone Etc/UTC, NTP on, synchronised)');
  await refused('TimeStatus', {}, hostWith({ programs: { timedatectl: { code: 1, stdout: '', stderr: 'Failed to connect to bus' } } }), 'timedated_unreachable', 'execution');
});

test('SetPrettyHostname: hostnamectl set-hostname --pretty, the old name as undo', async () => {
  const h = hostWith();
  const { steps, preview } = await run('SetPrettyHostname', { pretty: "Bob's web box" }, h);
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'hostnamectl',
      args: ['set-hostname', '--pretty', '--', "Bob's web box"],
      undo: { kind: 'command', program: 'hostnamectl', args: ['set-hostname', '--pretty', '--', 'Old box'] },
    },
  ]);
  assert.deepEqual((preview.change as { pretty_hostname: unknown }).pretty_hostname, { from: 'Old box', to: "Bob's web box" });
  assert.ok(h.calls.some(([p, a]) => p === 'hostnamectl' && a.join(' ') === '--pretty status'));
  // No pretty name yet: the undo clears it again; spaces around an existing one are kept.
  const none = await run('SetPrettyHostname', { pretty: 'Box' }, hostWith({ programs: { hostnamectl: ok('\n') } }));
  assert.deepEqual(undoOf(none.steps)?.args, ['set-hostname', '--pretty', '--', '']);
  const spaced = await run('SetPrettyHostname', { pretty: 'Box' }, hostWith({ programs: { hostnamectl: ok('  Box  \n') } }));
  assert.deepEqual(undoOf(spaced.steps)?.args, ['set-hostname', '--pretty', '--', '  Box  ']);
  await assertNoChange(run('SetPrettyHostname', { pretty: 'Old box' }, hostWith()), /already/);
  await refused('SetPrettyHostname', { pretty: 'Box' }, hostWith({ programs: { hostnamectl: { code: 1, stdout: '', stderr: 'Failed to connect to bus: No such file or directory' } } }), 'hostnamed_unreachable', 'execution');
});
