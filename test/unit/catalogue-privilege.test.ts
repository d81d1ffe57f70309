import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import { grantCommand, grantFileText, grantRule, parseGrantFile } from '../../src/catalogue/families/privilege/grant-file.js';
import * as policyReads from '../../src/catalogue/families/privilege/policy-reads.js';
import * as sudoGrants from '../../src/catalogue/families/privilege/sudo-grants.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

/** What families/privilege.ts held (ValidateSudoers, of the same family, came from accounts.ts and is tested there). */
const privilege = { ...policyReads, ...sudoGrants };
const actions = Object.values(privilege).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;

const SUDOERS = 'Defaults env_reset\nroot ALL=(ALL:ALL) ALL\n%sudo ALL=(ALL:ALL) ALL\n\n@includedir /etc/sudoers.d\n';
const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www:/var/www:/usr/sbin/nologin\nalice:x:1000:1000::/home/alice:/bin/bash\n';
const GROUP = 'root:x:0:\nsudo:x:27:\nalice:x:1000:\nops:x:1001:alice,bob\n';
const EXE = (mode = 0o755): Node => ({ file: '\x7fELF', mode });
const ALICE_GRANT = '# Airlock sudo grant "uptime": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\nalice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/uptime ""\n';

interface Opts {
  tree?: Record<string, Node>;
  visudo?: number;
  listing?: string[];
  owners?: Record<string, number>;
}

/** A host with sudo installed, a valid policy, alice and group ops, and a few root-owned programs. */
function host(o: Opts = {}) {
  const tree: Record<string, Node> = {
    '/': { dir: true },
    '/etc/sudoers': { file: SUDOERS, mode: 0o440 },
    '/etc/sudoers.d/README': { file: '# comments only\n', mode: 0o440 },
    '/etc/passwd': PASSWD,
    '/etc/group': GROUP,
    '/usr/bin/uptime': EXE(),
    '/usr/bin/df': EXE(),
    '/usr/bin/free': EXE(),
    ...o.tree,
  };
  const h = new FixtureHost(tree, (program: ProgramName, args: string[]): CommandOutput => {
    if (program === 'visudo') return { code: o.visudo ?? 0, stdout: '', stderr: o.visudo ? 'syntax error' : '' };
    if (program === 'ls') return { code: 0, stdout: (o.listing ?? ['README']).map((l) => `${l}\n`).join(''), stderr: '' };
    return { code: 127, stdout: '', stderr: `not scripted: ${program} ${args.join(' ')}` };
  });
  // Ownership the fixture cannot express: paths listed in `owners` belong to that uid.
  const stat = h.stat.bind(h);
  h.stat = async (p: string) => {
    const st = await stat(p);
    return st && o.owners?.[p] !== undefined ? { ...st, uid: o.owners[p]! } : st;
  };
  return h;
}

async function run(name: string, params: Record<string, unknown>, h: FixtureHost) {
  const a = byName(name);
  const p = a.params.parse(params);
  const cur = await a.current(p, h);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), cur, shown: a.shown ? a.shown(cur) : cur };
}

async function refused(name: string, params: Record<string, unknown>, h: FixtureHost, code: string, message?: RegExp) {
  await assert.rejects(run(name, params, h), (e: unknown) => {
    assert.ok(e instanceof AirlockError, String(e));
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const grant = (p: Record<string, unknown> = {}) => ({ name: 'uptime', user: 'alice', program: '/usr/bin/uptime', args: [], ...p });

test('privilege actions are declared with the expected risk and flags', () => {
  // Exact from files alone: a grant is its drop-in (restored from the snapshot, and probed), sudo keeps no state of it.
  const expected: Record<string, [string, boolean, unknown]> = {
    ListSudoGrants: ['medium', true, undefined],
    ShowSudoPolicyFor: ['medium', true, undefined],
    CreateSudoGrant: ['high', false, { class: 'exact' }],
    RevokeSudoGrant: ['high', false, { class: 'exact' }],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'privilege');
    assert.deepEqual([a.risk, a.readOnly, a.rollback], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
  assert.deepEqual(byName('CreateSudoGrant').files, ['/etc/sudoers.d/60-airlock-*']);
  assert.deepEqual(byName('RevokeSudoGrant').files, ['/etc/sudoers.d/60-airlock-*']);
});

test('grant names, users, groups and program paths refuse injections', () => {
  const create = byName('CreateSudoGrant').params;
  for (const bad of [...INJECTIONS, 'a.b', 'Upper', 'a/b', 'x'.repeat(41), '60-airlock-x/../y', 'a~']) {
    assert.equal(create.safeParse(grant({ name: bad })).success, false, `name ${JSON.stringify(bad)}`);
    assert.equal(byName('RevokeSudoGrant').params.safeParse({ name: bad }).success, false, `revoke ${JSON.stringify(bad)}`);
  }
  for (const bad of [...INJECTIONS, 'ALL', '%sudo', 'Alice', 'a:b', 'a,b']) {
    assert.equal(create.safeParse(grant({ user: bad })).success, false, `user ${JSON.stringify(bad)}`);
    assert.equal(create.safeParse({ name: 'x', group: bad, program: '/usr/bin/uptime', args: [] }).success, false, `group ${JSON.stringify(bad)}`);
    assert.equal(byName('ShowSudoPolicyFor').params.safeParse({ user: bad }).success, false, `policy user ${JSON.stringify(bad)}`);
  }
  const badPaths = [
    ...INJECTIONS,
    ...INJECTIONS.map((s) => `/usr/bin/${s}`),
    'ALL', 'uptime', 'usr/bin/uptime', '/usr/bin/*', '/usr/bin/up?ime', '/usr/bin/[a]', '/usr/bin/', '//usr/bin/uptime', '/usr/./bin/uptime', '/usr/../bin/sh',
    '/usr/bin/a b', '/usr/bin/a,b', '/usr/bin/a:b', '/usr/bin/a=b', '/usr/bin/a\\b', '/usr/bin/a"b', '/usr/bin/.hidden', '/usr/bin/-x', '/' + 'a'.repeat(300),
  ];
  for (const bad of badPaths) assert.equal(create.safeParse(grant({ program: bad })).success, false, `program ${JSON.stringify(bad)}`);
  for (const good of ['/usr/bin/uptime', '/usr/local/sbin/reload-app', '/opt/app/bin/app_ctl-2.1', '/usr/bin/g++x']) assert.ok(create.safeParse(grant({ program: good })).success, good);
  // Arguments: nothing sudoers would read as a pattern, a separator or "no arguments", nothing relative.
  const badArgs = [...INJECTIONS.filter((s) => !/^-/.test(s)), '', '*', 'a*', '?', '[a]', 'a b', 'a\tb', '\\', '"', '""', "'", '!x', '#x', '^x', '$x', '%x', '~', 'a;b', 'a|b', 'a&b', 'a>b', '(a)', 'x/y', './x', '../x', '/a/../b', '/a//b', '/a/', '--f=x/y', 'x'.repeat(256)];
  for (const bad of badArgs) assert.equal(create.safeParse(grant({ args: [bad] })).success, false, `argument ${JSON.stringify(bad)}`);
  for (const good of [['-h'], ['--output=source,size', '/'], ['restart', 'nginx.service'], ['-o', 'user@host:1'], ['--level=+3'], ['--config=/etc/app.conf']]) assert.ok(create.safeParse(grant({ args: good })).success, JSON.stringify(good));
});

test('a grant names exactly one user or group, one program and its exact arguments, and nothing else', () => {
  const create = byName('CreateSudoGrant').params;
  assert.ok(create.safeParse(grant()).success);
  assert.ok(create.safeParse({ name: 'ops', group: 'ops', program: '/usr/bin/df', args: ['-h'], nopasswd: true }).success);
  assert.equal(create.safeParse({ name: 'x', program: '/usr/bin/df', args: [] }).success, false, 'no principal');
  assert.equal(create.safeParse(grant({ group: 'ops' })).success, false, 'both user and group');
  const free = create.safeParse({ name: 'x', user: 'alice', program: '/usr/bin/df' });
  assert.equal(free.success, false, 'free arguments: no args at all');
  assert.match(free.error!.issues[0]!.message, /name the exact arguments \(\[\] for none\)/);
  assert.equal(create.safeParse(grant({ args: '-h' })).success, false, 'a string, not a list');
  assert.equal(create.safeParse(grant({ args: Array.from({ length: 33 }, () => '-v') })).success, false, '33 arguments');
  assert.equal(create.safeParse(grant({ commands: ['/usr/bin/df'] })).success, false, 'the old shape: programs with any arguments');
  assert.equal(create.safeParse(grant({ nopasswd: 'yes' })).success, false);
  assert.equal(create.safeParse(grant({ runas: 'root' })).success, false, 'unknown key');
  assert.equal(byName('ListSudoGrants').params.safeParse({ all: true }).success, false);
});

test('the sudoers command: exact arguments, escaped as sudoers(5) asks, and "" for none', () => {
  assert.equal(grantCommand({ program: '/usr/bin/uptime', args: [] }), '/usr/bin/uptime ""');
  assert.equal(grantCommand({ program: '/usr/bin/df', args: ['-h', '--output=source,size', 'a:b'] }), '/usr/bin/df -h --output\\=source\\,size a\\:b');
});

test('CreateSudoGrant writes a 0440 drop-in, checks it with visudo -c -f, then the whole policy', async () => {
  const h = host();
  const { steps, preview } = await run('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['-h', '--output=source,size', '/'], nopasswd: true }), h);
  assert.deepEqual(steps, [
    {
      kind: 'fileWrite',
      path: '/etc/sudoers.d/60-airlock-uptime',
      content: '# Airlock sudo grant "uptime": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\nalice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/df -h --output\\=source\\,size /\n',
      mode: 0o440,
      owner: { uid: 0, gid: 0 },
    },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet', '--file', '/etc/sudoers.d/60-airlock-uptime'], noUndo: 'changes_nothing' },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet'], noUndo: 'changes_nothing' },
  ]);
  const change = preview.change as { rule: string; file: string; mode: string; command: unknown };
  assert.equal(change.rule, 'alice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/df -h --output\\=source\\,size /');
  assert.deepEqual(change.command, { program: '/usr/bin/df', args: ['-h', '--output=source,size', '/'] });
  assert.match(preview.summary, /run `\/usr\/bin\/df -h --output=source,size \/` as root/);
  assert.ok(preview.sideEffects!.some((e) => /exactly these arguments, and sudo refuses any other/.test(e)));
  assert.equal(change.mode, '0440');
  assert.ok(preview.warnings!.some((w) => /NOPASSWD/.test(w)));
  assert.ok(h.calls.some(([p, a]) => p === 'visudo' && a.join(' ') === '--check --quiet'), 'the current policy is checked before the preview');
});

test('CreateSudoGrant for a group writes %group and warns about its members; with a password, no NOPASSWD', async () => {
  const { steps, preview } = await run('CreateSudoGrant', { name: 'ops-df', group: 'ops', program: '/usr/bin/df', args: [] }, host());
  assert.equal((steps[0] as { content: string }).content.split('\n')[1], '%ops ALL=(root) NOEXEC: /usr/bin/df ""');
  assert.ok(preview.warnings!.some((w) => /group ops \(now: alice, bob\)/.test(w)));
  assert.ok(!preview.warnings!.some((w) => /NOPASSWD/.test(w)));
  const sys = await run('CreateSudoGrant', { name: 'web', user: 'www-data', program: '/usr/bin/free', args: ['-h'] }, host());
  assert.ok(sys.preview.warnings!.some((w) => /system account/.test(w)));
});

test('CreateSudoGrant refusals', async () => {
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers': undefined as unknown as Node } }), 'sudo_missing');
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers': 'root ALL=(ALL:ALL) ALL\n' } }), 'dropins_ignored');
  await refused('CreateSudoGrant', grant(), host({ visudo: 1 }), 'sudoers_invalid');
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers.d/60-airlock-uptime': ALICE_GRANT } }), 'grant_exists');
  await refused('CreateSudoGrant', grant({ user: 'root' }), host(), 'root_grant');
  await refused('CreateSudoGrant', { name: 'r', group: 'root', program: '/usr/bin/df', args: [] }, host(), 'root_grant');
  await refused('CreateSudoGrant', grant({ user: 'mallory' }), host(), 'no_such_user');
  await refused('CreateSudoGrant', { name: 'g', group: 'nogroup', program: '/usr/bin/df', args: [] }, host(), 'no_such_group');
  // Off the allowlist, whatever the file: refused, and the refusal lists what is allowed.
  for (const program of ['/usr/bin/missing', '/usr/local/bin/x', '/home/alice/bin/tool', '/usr/bin', '/bin/uptime', '/usr/sbin/nginx-reload']) {
    await refused('CreateSudoGrant', grant({ program }), host({ tree: { '/usr/local/bin/x': EXE(), '/usr/sbin/nginx-reload': EXE() } }), 'program_refused', /is not one of the programs .*; these are, each with its usage: \/usr\/bin\/systemctl: systemctl /);
  }
  // On the allowlist, but the file there is not what the table means.
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': undefined as unknown as Node } }), 'untrusted_program', /does not exist/);
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': { link: '/usr/bin/df' } } }), 'untrusted_program', /symbolic link/);
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': EXE(0o757) } }), 'untrusted_program', /writable/);
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': EXE(0o775) } }), 'untrusted_program', /writable/);
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': EXE(0o644) } }), 'untrusted_program', /not executable/);
  await refused('CreateSudoGrant', grant(), host({ owners: { '/usr/bin/uptime': 1000 } }), 'untrusted_program', /\/usr\/bin\/uptime: it belongs to uid 1000, not root/);
  await refused('CreateSudoGrant', grant(), host({ owners: { '/usr': 1000 } }), 'untrusted_program', /\/usr belongs to uid 1000, not root/);
  await refused('CreateSudoGrant', grant(), host({ tree: { '/usr/bin/uptime': { file: '#!/bin/sh\nexec uptime\n', mode: 0o755 } } }), 'not_a_binary', /a script/);
  // Arguments outside the usage lines, and files someone other than root could change or redirect.
  await refused('CreateSudoGrant', grant({ args: ['-V'] }), host(), 'arguments_refused', /fits none of the usage lines Airlock allows for it \(uptime \[ -p\|-s \]: argument 1 \(-V\) is not expected there\)/);
  await refused('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['--file=/tmp/x'] }), host(), 'arguments_refused');
  await refused('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['/home/alice/x'] }), host({ tree: { '/home/alice/notes': 'x' }, owners: { '/home/alice': 1000 } }), 'untrusted_argument', /\/home\/alice belongs to uid 1000, not root/);
  await refused('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['/tmp/x'] }), host({ tree: { '/tmp': { dir: true, mode: 0o1777 } } }), 'untrusted_argument', /\/tmp is writable by others/);
  await refused('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['/etc/link/x'] }), host({ tree: { '/etc/link': { link: '/home/alice' } } }), 'untrusted_argument', /symbolic link/);
  // A missing file under a directory only root can write can only be created by root: allowed.
  assert.ok(await run('CreateSudoGrant', grant({ program: '/usr/bin/df', args: ['/srv/not-yet'] }), host()));
});

test('RevokeSudoGrant deletes the drop-in and checks the whole policy; refusals', async () => {
  const h = host({ tree: { '/etc/sudoers.d/60-airlock-uptime': { file: ALICE_GRANT, mode: 0o440 } } });
  const { steps, preview } = await run('RevokeSudoGrant', { name: 'uptime' }, h);
  assert.deepEqual(steps, [
    { kind: 'fileDelete', path: '/etc/sudoers.d/60-airlock-uptime' },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet'], noUndo: 'changes_nothing' },
  ]);
  assert.equal((preview.change as { rule: string }).rule, 'alice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/uptime ""');
  assert.match(preview.summary, /alice loses `\/usr\/bin\/uptime`/);
  await assertNoChange(run('RevokeSudoGrant', { name: 'other' }, h), /not|no /);
  await refused('RevokeSudoGrant', { name: 'uptime' }, host({ tree: { '/etc/sudoers.d/60-airlock-uptime': { link: '/etc/shadow' } } }), 'not_a_file');
  await refused('RevokeSudoGrant', { name: 'uptime' }, host({ visudo: 1, tree: { '/etc/sudoers.d/60-airlock-uptime': ALICE_GRANT } }), 'sudoers_invalid');
  const odd = await run('RevokeSudoGrant', { name: 'uptime' }, host({ tree: { '/etc/sudoers.d/60-airlock-uptime': 'alice ALL=(ALL) ALL\n' } }));
  assert.ok(odd.preview.warnings!.some((w) => /not in the shape Airlock writes/.test(w)));
});

test('ListSudoGrants greps /etc/sudoers and the drop-ins sudo reads, in its order', async () => {
  const h = host({ listing: ['README', '60-airlock-uptime', '10-ops', 'old.dpkg-old', 'backup~', 'with\\ space', '60-airlock-df'] });
  const { steps, preview, shown } = await run('ListSudoGrants', {}, h);
  assert.deepEqual(h.calls.find(([p]) => p === 'ls'), ['ls', ['-1', '-A', '--quoting-style=escape', '--', '/etc/sudoers.d']]);
  assert.deepEqual(steps, [
    {
      kind: 'command',
      program: 'grep',
      args: [
        '-H', '-n', '-v', '-E', '-e', '^[[:space:]]*$', '-e', '^[[:space:]]*#([^0-9i]|i[^n]|in[^c]|$)', '--',
        '/etc/sudoers', '/etc/sudoers.d/10-ops', '/etc/sudoers.d/60-airlock-df', '/etc/sudoers.d/60-airlock-uptime', '/etc/sudoers.d/README',
      ],
      okCodes: [0, 1],
    },
  ]);
  assert.deepEqual((shown as { grants: string[] }).grants, ['df', 'uptime']);
  assert.match(preview.summary, /4 drop-in\(s\).*2 Airlock grant/);
  assert.ok(preview.warnings!.some((w) => /1 drop-in\(s\) with unusual names/.test(w)));
  await refused('ListSudoGrants', {}, host({ tree: { '/etc/sudoers': undefined as unknown as Node } }), 'sudo_missing');
  const grepComment = new RegExp(steps[0]!.kind === 'command' ? steps[0]!.args[7]!.replace('[[:space:]]', '\\s') : '');
  for (const comment of ['# a comment', '#', '  # indented', '#Defaults:%sudo env_keep']) assert.ok(grepComment.test(comment), comment);
  for (const kept of ['#include /etc/x', '#includedir /etc/sudoers.d', '#1000 ALL=(ALL) ALL', 'alice ALL=(root) /usr/bin/df']) assert.ok(!grepComment.test(kept), kept);
});

test('ShowSudoPolicyFor asks cvtsudoers for the rules that match the user; sudo is never run', async () => {
  const { steps } = await run('ShowSudoPolicyFor', { user: 'alice' }, host());
  assert.deepEqual(steps, [{ kind: 'command', program: 'cvtsudoers', args: ['-f', 'sudoers', '-M', '-p', '-m', 'user=alice', '--', '/etc/sudoers'] }]);
  await refused('ShowSudoPolicyFor', { user: 'mallory' }, host(), 'no_such_user');
  await refused('ShowSudoPolicyFor', { user: 'alice' }, host({ tree: { '/etc/sudoers': undefined as unknown as Node } }), 'sudo_missing');
});

test('grant files round-trip through their parser', () => {
  const g = { principal: { kind: 'group' as const, name: 'ops' }, program: '/usr/bin/df', args: ['-h', '--output=source,size', 'a:b'], nopasswd: false };
  assert.deepEqual(parseGrantFile(grantFileText('ops', g)), g);
  assert.equal(grantRule(g), '%ops ALL=(root) NOEXEC: /usr/bin/df -h --output\\=source\\,size a\\:b');
  const none = { principal: { kind: 'user' as const, name: 'alice' }, program: '/usr/bin/uptime', args: [], nopasswd: true };
  assert.deepEqual(parseGrantFile(grantFileText('up', none)), none);
  assert.equal(parseGrantFile('alice ALL=(ALL) ALL\n'), null);
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df ""\nbob ALL=(root) /usr/bin/df ""\n'), null, 'one rule only');
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df\n'), null, 'a rule with free arguments is not one Airlock writes');
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df, /usr/bin/uptime\n'), null, 'the old shape: several programs with free arguments');
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df *\n'), null, 'a wildcard');
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df --output=source\n'), null, 'an unescaped =');
});
