import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as privilege from '../../src/catalogue/families/privilege.js';
import { grantFileText, grantRule, parseGrantFile, refusedProgram, untrustedProgram } from '../../src/catalogue/families/privilege.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const actions = Object.values(privilege).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;

const SUDOERS = 'Defaults env_reset\nroot ALL=(ALL:ALL) ALL\n%sudo ALL=(ALL:ALL) ALL\n\n@includedir /etc/sudoers.d\n';
const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www:/var/www:/usr/sbin/nologin\nalice:x:1000:1000::/home/alice:/bin/bash\n';
const GROUP = 'root:x:0:\nsudo:x:27:\nalice:x:1000:\nops:x:1001:alice,bob\n';
const EXE = (mode = 0o755): Node => ({ file: '\x7fELF', mode });
const ALICE_GRANT = '# Airlock sudo grant "uptime": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\nalice ALL=(root) NOPASSWD: /usr/bin/uptime\n';

interface Opts {
  tree?: Record<string, Node>;
  visudo?: number;
  listing?: string[];
  owners?: Record<string, number>;
}

/** A host with sudo installed, a valid policy, alice and group ops, and a few root-owned programs. */
function host(o: Opts = {}) {
  const tree: Record<string, Node> = {
    '/etc/sudoers': { file: SUDOERS, mode: 0o440 },
    '/etc/sudoers.d/README': { file: '# comments only\n', mode: 0o440 },
    '/etc/passwd': PASSWD,
    '/etc/group': GROUP,
    '/usr/bin/uptime': EXE(),
    '/usr/bin/df': EXE(),
    '/usr/sbin/nginx-reload': EXE(0o750),
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
  a.check?.(p, cur);
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

const grant = (p: Record<string, unknown> = {}) => ({ name: 'uptime', user: 'alice', commands: ['/usr/bin/uptime'], ...p });

test('privilege actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, boolean]> = {
    ListSudoGrants: ['medium', true, false],
    ShowSudoPolicyFor: ['medium', true, false],
    CreateSudoGrant: ['high', false, true],
    RevokeSudoGrant: ['high', false, true],
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
    assert.equal(create.safeParse({ name: 'x', group: bad, commands: ['/usr/bin/uptime'] }).success, false, `group ${JSON.stringify(bad)}`);
    assert.equal(byName('ShowSudoPolicyFor').params.safeParse({ user: bad }).success, false, `policy user ${JSON.stringify(bad)}`);
  }
  const badPaths = [
    ...INJECTIONS,
    ...INJECTIONS.map((s) => `/usr/bin/${s}`),
    'ALL', 'uptime', 'usr/bin/uptime', '/usr/bin/*', '/usr/bin/up?ime', '/usr/bin/[a]', '/usr/bin/', '//usr/bin/uptime', '/usr/./bin/uptime', '/usr/../bin/sh',
    '/usr/bin/a b', '/usr/bin/a,b', '/usr/bin/a:b', '/usr/bin/a=b', '/usr/bin/a\\b', '/usr/bin/a"b', '/usr/bin/.hidden', '/usr/bin/-x', '/' + 'a'.repeat(300),
  ];
  for (const bad of badPaths) assert.equal(create.safeParse(grant({ commands: [bad] })).success, false, `command ${JSON.stringify(bad)}`);
  for (const good of ['/usr/bin/uptime', '/usr/local/sbin/reload-app', '/opt/app/bin/app_ctl-2.1', '/usr/bin/g++x']) assert.ok(create.safeParse(grant({ commands: [good] })).success, good);
});

test('a grant names exactly one user or group, 1 to 16 distinct programs, and nothing else', () => {
  const create = byName('CreateSudoGrant').params;
  assert.ok(create.safeParse(grant()).success);
  assert.ok(create.safeParse({ name: 'ops', group: 'ops', commands: ['/usr/bin/df'], nopasswd: true }).success);
  assert.equal(create.safeParse({ name: 'x', commands: ['/usr/bin/df'] }).success, false, 'no principal');
  assert.equal(create.safeParse(grant({ group: 'ops' })).success, false, 'both user and group');
  assert.equal(create.safeParse(grant({ commands: [] })).success, false, 'no program');
  assert.equal(create.safeParse(grant({ commands: Array.from({ length: 17 }, (_, i) => `/usr/bin/p${i}`) })).success, false, '17 programs');
  assert.ok(create.safeParse(grant({ commands: Array.from({ length: 16 }, (_, i) => `/usr/bin/p${i}`) })).success, '16 programs');
  assert.equal(create.safeParse(grant({ commands: ['/usr/bin/df', '/usr/bin/df'] })).success, false, 'duplicate');
  assert.equal(create.safeParse(grant({ commands: '/usr/bin/df' })).success, false, 'a string, not a list');
  assert.equal(create.safeParse(grant({ nopasswd: 'yes' })).success, false);
  assert.equal(create.safeParse(grant({ runas: 'root' })).success, false, 'unknown key');
  assert.equal(byName('ListSudoGrants').params.safeParse({ all: true }).success, false);
});

test('shells, editors, interpreters and other programs that give root are refused by base name', () => {
  for (const p of [
    '/bin/sh', '/usr/bin/bash', '/usr/bin/dash', '/usr/bin/zsh', '/usr/bin/su', '/usr/bin/sudo', '/usr/bin/sudoedit', '/usr/bin/env', '/usr/bin/vi', '/usr/bin/vim.basic',
    '/usr/bin/vim.tiny', '/usr/bin/nano', '/usr/bin/less', '/usr/bin/more', '/usr/bin/man', '/usr/bin/find', '/usr/bin/awk', '/usr/bin/gawk', '/usr/bin/perl', '/usr/bin/perl5.36.0',
    '/usr/bin/python3', '/usr/bin/python3.11', '/usr/bin/ruby3.1', '/usr/bin/node', '/usr/bin/systemctl', '/usr/bin/docker', '/usr/bin/podman', '/usr/bin/tar', '/usr/bin/rsync',
    '/usr/bin/apt', '/usr/bin/apt-get', '/usr/bin/dpkg', '/usr/bin/cp', '/usr/bin/tee', '/usr/bin/dd', '/usr/bin/chmod', '/usr/bin/cat', '/usr/sbin/visudo', '/usr/bin/passwd',
    '/usr/sbin/usermod', '/usr/bin/xargs', '/usr/bin/journalctl', '/usr/bin/emacs-nox', '/usr/bin/pip3', '/usr/bin/x86_64-linux-gnu-gcc-12', '/usr/bin/busybox',
  ]) {
    assert.ok(refusedProgram(p), p);
  }
  for (const p of ['/usr/bin/uptime', '/usr/bin/df', '/usr/sbin/nginx-reload', '/usr/bin/free', '/usr/local/bin/backup-now']) assert.equal(refusedProgram(p), null, p);
});

test('CreateSudoGrant writes a 0440 drop-in, checks it with visudo -c -f, then the whole policy', async () => {
  const h = host();
  const { steps, preview } = await run('CreateSudoGrant', grant({ commands: ['/usr/bin/uptime', '/usr/bin/df'], nopasswd: true }), h);
  assert.deepEqual(steps, [
    {
      kind: 'fileWrite',
      path: '/etc/sudoers.d/60-airlock-uptime',
      content: '# Airlock sudo grant "uptime": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\nalice ALL=(root) NOPASSWD: /usr/bin/uptime, /usr/bin/df\n',
      mode: 0o440,
      owner: { uid: 0, gid: 0 },
    },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet', '--file', '/etc/sudoers.d/60-airlock-uptime'] },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet'] },
  ]);
  const change = preview.change as { rule: string; file: string; mode: string };
  assert.equal(change.rule, 'alice ALL=(root) NOPASSWD: /usr/bin/uptime, /usr/bin/df');
  assert.equal(change.mode, '0440');
  assert.ok(preview.warnings!.some((w) => /NOPASSWD/.test(w)));
  assert.ok(h.calls.some(([p, a]) => p === 'visudo' && a.join(' ') === '--check --quiet'), 'the current policy is checked before the preview');
});

test('CreateSudoGrant for a group writes %group and warns about its members; with a password, no NOPASSWD', async () => {
  const { steps, preview } = await run('CreateSudoGrant', { name: 'ops-df', group: 'ops', commands: ['/usr/bin/df'] }, host());
  assert.equal((steps[0] as { content: string }).content.split('\n')[1], '%ops ALL=(root) /usr/bin/df');
  assert.ok(preview.warnings!.some((w) => /group ops \(now: alice, bob\)/.test(w)));
  assert.ok(!preview.warnings!.some((w) => /NOPASSWD/.test(w)));
  const sys = await run('CreateSudoGrant', { name: 'web', user: 'www-data', commands: ['/usr/sbin/nginx-reload'] }, host());
  assert.ok(sys.preview.warnings!.some((w) => /system account/.test(w)));
});

test('CreateSudoGrant refusals', async () => {
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers': undefined as unknown as Node } }), 'sudo_missing');
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers': 'root ALL=(ALL:ALL) ALL\n' } }), 'dropins_ignored');
  await refused('CreateSudoGrant', grant(), host({ visudo: 1 }), 'sudoers_invalid');
  await refused('CreateSudoGrant', grant(), host({ tree: { '/etc/sudoers.d/60-airlock-uptime': ALICE_GRANT } }), 'grant_exists');
  await refused('CreateSudoGrant', grant({ user: 'root' }), host(), 'root_grant');
  await refused('CreateSudoGrant', { name: 'r', group: 'root', commands: ['/usr/bin/df'] }, host(), 'root_grant');
  await refused('CreateSudoGrant', grant({ user: 'mallory' }), host(), 'no_such_user');
  await refused('CreateSudoGrant', { name: 'g', group: 'nogroup', commands: ['/usr/bin/df'] }, host(), 'no_such_group');
  for (const p of ['/usr/bin/bash', '/usr/bin/vim', '/usr/bin/python3.11', '/usr/bin/systemctl', '/usr/bin/tar']) {
    await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/uptime', p] }), host({ tree: { [p]: EXE() } }), 'program_refused', /root access/);
  }
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/missing'] }), host(), 'untrusted_program', /does not exist/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/editor-link'] }), host({ tree: { '/usr/bin/editor-link': { link: '/usr/bin/uptime' } } }), 'untrusted_program', /symbolic link/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/w-able'] }), host({ tree: { '/usr/bin/w-able': EXE(0o757) } }), 'untrusted_program', /writable/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/g-able'] }), host({ tree: { '/usr/bin/g-able': EXE(0o775) } }), 'untrusted_program', /writable/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/noexec'] }), host({ tree: { '/usr/bin/noexec': EXE(0o644) } }), 'untrusted_program', /not executable/);
  await refused('CreateSudoGrant', grant({ commands: ['/home/alice/bin/tool'] }), host({ tree: { '/home/alice/bin/tool': EXE() }, owners: { '/home/alice': 1000 } }), 'untrusted_program', /\/home\/alice is not owned by root/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin/mine'] }), host({ tree: { '/usr/bin/mine': EXE() }, owners: { '/usr/bin/mine': 1000 } }), 'untrusted_program', /not owned by root/);
  await refused('CreateSudoGrant', grant({ commands: ['/usr/bin'] }), host(), 'untrusted_program', /not a regular file/);
});

test('untrustedProgram walks every directory of the path', async () => {
  assert.equal(await untrustedProgram(host(), '/usr/bin/uptime'), null);
  assert.match((await untrustedProgram(host({ tree: { '/bin': { link: 'usr/bin' }, '/bin/uptime': EXE() } }), '/bin/uptime'))!, /\/bin is a symbolic link/);
  assert.match((await untrustedProgram(host({ tree: { '/opt': EXE() , '/opt/x': EXE() } }), '/opt/x'))!, /\/opt is not a directory/);
});

test('RevokeSudoGrant deletes the drop-in and checks the whole policy; refusals', async () => {
  const h = host({ tree: { '/etc/sudoers.d/60-airlock-uptime': { file: ALICE_GRANT, mode: 0o440 } } });
  const { steps, preview } = await run('RevokeSudoGrant', { name: 'uptime' }, h);
  assert.deepEqual(steps, [
    { kind: 'fileDelete', path: '/etc/sudoers.d/60-airlock-uptime' },
    { kind: 'command', program: 'visudo', args: ['--check', '--quiet'] },
  ]);
  assert.equal((preview.change as { rule: string }).rule, 'alice ALL=(root) NOPASSWD: /usr/bin/uptime');
  assert.match(preview.summary, /alice loses \/usr\/bin\/uptime/);
  await refused('RevokeSudoGrant', { name: 'other' }, h, 'no_such_grant');
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
  const g = { principal: { kind: 'group' as const, name: 'ops' }, commands: ['/usr/bin/df', '/usr/bin/uptime'], nopasswd: false };
  assert.deepEqual(parseGrantFile(grantFileText('ops', g)), g);
  assert.equal(grantRule(g), '%ops ALL=(root) /usr/bin/df, /usr/bin/uptime');
  assert.equal(parseGrantFile('alice ALL=(ALL) ALL\n'), null);
  assert.equal(parseGrantFile('alice ALL=(root) /usr/bin/df\nbob ALL=(root) /usr/bin/df\n'), null, 'one rule only');
});
