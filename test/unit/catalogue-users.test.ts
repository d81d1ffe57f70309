/**
 * users family: parameter schemas refuse injection, checks refuse what is unsafe,
 * and mechanisms are exactly the expected argv. Runs against an in-memory host.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyAction, Host } from '../../src/catalogue/action.js';
import { findAction } from '../../src/catalogue/index.js';
import { reversibleWhenDone, type Step } from '../../src/catalogue/mechanism.js';
import type { FinishedChange } from '../../src/catalogue/change-record.js';
import { probeState } from '../../src/catalogue/lib/state-probes.js';
import type { StateProbe } from '../../src/catalogue/rollback.js';
import { calendarDate, gecos } from '../../src/catalogue/params.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { parseGroup, parsePasswd } from '../../src/protocol/account-files.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { maskDeep } from '../../src/mask/deep.js';
import { assertNoChange, checked } from './catalogue-fixture-host.js';

const HASH = '$6$salt$abcdefghijklmnopqrstuvwxyz0123456789';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
  'www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'alice:x:1000:1000:Alice:/home/alice:/bin/bash',
  'bob:x:1001:1001::/home/bob:/bin/bash',
  'carol:x:1002:1002::/home/carol:/bin/bash',
  'web:x:1003:1003::/srv/www:/bin/sh',
  'twin:x:1004:1004::/home/bob:/bin/bash',
  'guest:x:1005:2002::/home/guest:/bin/bash',
].join('\n');

const GROUP = [
  'root:x:0:',
  'adm:x:4:alice',
  'sudo:x:27:alice',
  'www-data:x:33:',
  'users:x:100:bob',
  'docker:x:998:',
  'nogroup:x:65534:',
  'alice:x:1000:',
  'bob:x:1001:',
  'carol:x:1002:',
  'web:x:1003:',
  'twin:x:1004:',
  'team:x:2000:carol',
  'empty:x:2001:',
  'visitors:x:2002:',
].join('\n');

const SHADOW = [
  'root:*:19000:0:99999:7:::',
  'daemon:*:19000:0:99999:7:::',
  `alice:${HASH}:19000:0:99999:7:::`,
  `bob:!${HASH}:19000:0:99999:7::22281:`,
  'carol:!:19000:0:99999:7:::',
  'web:*:19000:0:99999:7:::',
  'twin:!:19000:0:99999:7:::',
  'guest:!:19000:0:99999:7:::',
].join('\n');

/** The groups' lines as groupadd and gpasswd write them; DeleteGroup compares its group's with what its undo makes. */
const GSHADOW = GROUP.split('\n')
  .map((l) => l.split(':'))
  .map((f) => `${f[0]}:!::${f[3]}`)
  .join('\n');

function fakeHost(opts: { files?: Record<string, string>; procs?: number; paths?: string[] } = {}): Host {
  const files: Record<string, string> = { '/etc/passwd': PASSWD, '/etc/group': GROUP, '/etc/shadow': SHADOW, '/etc/gshadow': GSHADOW, ...opts.files };
  const paths = new Set(['/bin/bash', '/bin/sh', '/usr/bin/bash', '/usr/sbin/nologin', '/bin/false', '/home/alice', '/home/bob', ...(opts.paths ?? [])]);
  return {
    platform: 'debian',
    readFile: async (p) => files[p] ?? null,
    stat: async (p) => (paths.has(p) ? { mode: 0o755, uid: 0, gid: 0, size: 0, isFile: false, isDir: true, isSymlink: false } : null),
    trustedPath: async (p) => assert.fail(`users actions hand no path to a program by name (${p})`),
    fileHead: async () => null,
    run: async (program: ProgramName, _args: string[]) => {
      assert.equal(program, 'ps');
      return { code: opts.procs ? 0 : 1, stdout: Array.from({ length: opts.procs ?? 0 }, (_, i) => ` ${100 + i}\n`).join(''), stderr: '' };
    },
    users: async () => parsePasswd(files['/etc/passwd'] ?? ''),
    groups: async () => parseGroup(files['/etc/group'] ?? ''),
    finishedChange: async () => null,
    checkStaged: async () => assert.fail('users actions check no configuration text'),
  };
}

function act(name: string): AnyAction {
  const a = findAction(name);
  assert.ok(a, `${name} is not in the catalogue`);
  return a;
}

/** params → current → check → mechanism, as the daemon does it. */
async function plan(name: string, raw: Record<string, unknown>, host: Host = fakeHost()): Promise<{ steps: Step[]; preview: ReturnType<AnyAction['preview']>; current: unknown }> {
  const a = act(name);
  const p = a.params.parse(raw);
  const current = await a.current(p, host);
  checked(a, p, current);
  return { steps: a.mechanism(p, current), preview: a.preview(p, current), current };
}

async function refused(name: string, raw: Record<string, unknown>, code: string, host: Host = fakeHost()): Promise<void> {
  await assert.rejects(plan(name, raw, host), (e: unknown) => {
    assert.ok(e instanceof AirlockError, `expected an AirlockError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

const ACTIONS = [
  'ListUsers',
  'ListGroups',
  'UserInfo',
  'CreateUser',
  'DeleteUser',
  'LockUser',
  'UnlockUser',
  'SetUserShell',
  'SetAccountExpiry',
  'AddUserToGroup',
  'RemoveUserFromGroup',
  'CreateGroup',
  'DeleteGroup',
];

const INJECTIONS = ['; rm -rf /', '$(id)', '`id`', '-rf', '--help', '../etc', 'a\u0000b', 'a\nb', 'x'.repeat(10_000), '', ' ', 'Root', 'a b', 'a/b', 'a:b', 'a,b'];

describe('users family declarations', () => {
  it('declares every action with the family, platforms and a valid example', () => {
    for (const name of ACTIONS) {
      const a = act(name);
      assert.equal(a.family, 'users');
      assert.deepEqual(a.platforms, ['debian', 'ubuntu']);
      assert.ok(a.params.safeParse(a.example).success, `${name}'s example does not validate`);
    }
  });

  it('reads are low and read-only, changes are not', () => {
    for (const name of ['ListUsers', 'ListGroups', 'UserInfo']) {
      assert.equal(act(name).risk, 'low');
      assert.equal(act(name).readOnly, true);
    }
    for (const name of ACTIONS.slice(3)) {
      assert.equal(act(name).readOnly, false, name);
      assert.equal(act(name).risk, name === 'CreateGroup' ? 'medium' : 'high', name);
    }
  });

  it('previews CreateUser with no password as none, and the daemon masks nothing of it (issue 23)', async () => {
    const { preview } = await plan('CreateUser', { user: 'dave' });
    const change = preview.change as Record<string, unknown>;
    assert.equal(change.password, 'none');
    const shown = maskDeep(preview.change);
    assert.deepEqual(shown.counts, {}, JSON.stringify(shown.value));
    assert.deepEqual(shown.value, preview.change);
  });

  it('declares how each change is undone, and its steps carry what that class needs', async () => {
    const samples: Record<string, Record<string, unknown>> = {
      CreateUser: { user: 'dave' },
      LockUser: { user: 'alice' },
      UnlockUser: { user: 'bob' },
      SetUserShell: { user: 'alice', shell: '/usr/sbin/nologin' },
      SetAccountExpiry: { user: 'alice', date: '2030-01-01' },
      AddUserToGroup: { user: 'alice', group: 'users' },
      RemoveUserFromGroup: { user: 'bob', group: 'users' },
      CreateGroup: { group: 'ops' },
      DeleteUser: { user: 'carol', removeHome: false },
      DeleteGroup: { group: 'team' },
      SetPasswordAging: { user: 'alice', maxdays: 90 },
      ForcePasswordChange: { user: 'alice' },
      SetUserComment: { user: 'alice', comment: 'Alice A.' },
    };
    // One account's or group's lines (another account made meanwhile is no drift), and what useradd makes besides.
    const lines = (name: string, ...files: string[]) => files.map((file) => ({ file, lines: `${name}:` }));
    const groupLines = (g: string) => lines(g, '/etc/group', '/etc/gshadow');
    const probes: Record<string, StateProbe[]> = {
      CreateUser: [...lines('dave', '/etc/passwd', '/etc/shadow', '/etc/group', '/etc/gshadow', '/etc/subuid', '/etc/subgid'), { file: '/home/dave' }, { program: 'ls', args: ['-lAR', '--time-style=+%s', '--', '/home/dave'] }, { file: '/var/mail/dave' }],
      LockUser: lines('alice', '/etc/shadow'),
      UnlockUser: lines('bob', '/etc/shadow'),
      SetUserShell: lines('alice', '/etc/passwd'),
      SetAccountExpiry: lines('alice', '/etc/shadow'),
      AddUserToGroup: groupLines('users'),
      RemoveUserFromGroup: groupLines('users'),
      CreateGroup: groupLines('ops'),
      // Its lines, wherever groupadd puts them back.
      DeleteGroup: groupLines('team'),
      SetPasswordAging: lines('alice', '/etc/shadow'),
      ForcePasswordChange: lines('alice', '/etc/shadow'),
      SetUserComment: lines('alice', '/etc/passwd'),
    };
    for (const [name, raw] of Object.entries(samples)) {
      const a = act(name);
      assert.ok(!a.readOnly);
      const { steps, current } = await plan(name, raw);
      const r = a.rollback!;
      if (r.class === 'none') {
        assert.equal(name, 'DeleteUser');
        assert.match(r.reason, /password hash/);
        continue;
      }
      assert.equal(r.class, name === 'DeleteGroup' ? 'compensating' : 'exact', name);
      if (r.class === 'compensating') assert.equal(r.inverse, 'CreateGroup');
      assert.ok(reversibleWhenDone(steps), `${name}: a command step has neither undo nor noUndo`);
      for (const s of steps) if (s.kind === 'command') assert.ok(s.undo, `${name}: ${s.program} changes the account files, so it needs an undo`);
      assert.ok(r.state, `${name} declares no state probes`);
      assert.deepEqual(r.state(a.params.parse(raw), current), probes[name], name);
    }
    // The groups a new user joins are its state too.
    const joined = await plan('CreateUser', { user: 'dave', groups: ['users', 'team'] });
    const cu = act('CreateUser').rollback!;
    assert.ok(cu.class === 'exact' && cu.state);
    assert.deepEqual(cu.state(act('CreateUser').params.parse({ user: 'dave', groups: ['users', 'team'] }), joined.current).slice(4, 8), [...groupLines('users'), ...groupLines('team')]);
  });

  it('RevertTransaction of DeleteGroup: made again where the group is still gone, refused once it is back', async () => {
    const revert = act('RevertTransaction');
    const del = act('DeleteGroup');
    // The probes read the files' lines only: a regular file for each.
    const probeHost = (files: Record<string, string>) => ({
      readFile: async (p: string) => files[p] ?? null,
      stat: async (p: string) => (p in files ? { mode: 0o644, uid: 0, gid: 0, size: files[p]!.length, isFile: true, isDir: false, isSymlink: false } : null),
      run: async (program: ProgramName) => assert.fail(`no program reads DeleteGroup's state (${program})`),
    });
    const drop = (text: string) => text.split('\n').filter((l) => !l.startsWith('team:')).join('\n');
    const before = { '/etc/group': GROUP, '/etc/gshadow': GSHADOW };
    const after = { '/etc/group': drop(GROUP), '/etc/gshadow': drop(GSHADOW) };
    const { steps, current } = await plan('DeleteGroup', { group: 'team' });
    const rb = del.rollback!;
    assert.ok(rb.class === 'compensating' && rb.state);
    const probes = rb.state({ group: 'team' }, current);
    const change: FinishedChange = {
      transactionId: 'tx_0123456789abcdef01234567',
      actionName: 'DeleteGroup',
      stepActions: [],
      risk: 'high',
      state: 'Succeeded',
      summary: 'Delete group team (gid 2000)',
      kept: steps.flatMap((s) => (s.kind === 'command' && s.undo ? [{ kind: 'command' as const, undo: s.undo, redo: { ...s, undo: undefined } }] : [])),
      probes,
      before: await probeState(probes, probeHost(before)),
      after: await probeState(probes, probeHost(after)),
    };
    assert.notDeepEqual(change.before, change.after, 'the probes see the group go');
    const hostWith = (files: Record<string, string>): Host => ({ ...fakeHost({ files }), ...probeHost(files), finishedChange: async () => change });
    // The revert's state read and its refusals, as the daemon runs them.
    const tx = { transaction_id: change.transactionId };
    const read = async (files: Record<string, string>) => {
      const cur = await revert.current(tx, hostWith(files));
      checked(revert, tx, cur);
      return cur;
    };
    // As the change left it: the revert is planned, groupadd with the gid first, then the members set again.
    const ok = await read(after);
    assert.deepEqual(
      revert.mechanism(tx, ok).map((s) => (s.kind === 'command' ? [s.program, ...s.args] : s.kind)),
      [
        ['groupadd', '-g', '2000', '--', 'team'],
        ['gpasswd', '-M', 'carol', '--', 'team'],
      ],
    );
    // Another group made since is not this change's state: no drift.
    await read({ ...after, '/etc/group': `${after['/etc/group']}\nlater:x:2100:`, '/etc/gshadow': `${after['/etc/gshadow']}\nlater:!::` });
    // A group of that name made since is: the revert names the lines that changed.
    const remade = { ...after, '/etc/group': `${after['/etc/group']}\nteam:x:2200:` };
    await assert.rejects(read(remade), (e: unknown) => {
      assert.ok(e instanceof AirlockError && e.code === 'drifted', String(e));
      assert.match(e.message, /\/etc\/group lines team:… changed since/);
      return true;
    });
  });
});

describe('users parameter schemas', () => {
  const stringFields: Array<[string, Record<string, unknown>, string]> = [
    ['UserInfo', { user: 'alice' }, 'user'],
    ['CreateUser', { user: 'dave' }, 'user'],
    ['DeleteUser', { user: 'alice', removeHome: false }, 'user'],
    ['LockUser', { user: 'alice' }, 'user'],
    ['UnlockUser', { user: 'alice' }, 'user'],
    ['SetUserShell', { user: 'alice', shell: '/bin/bash' }, 'user'],
    ['SetUserShell', { user: 'alice', shell: '/bin/bash' }, 'shell'],
    ['SetAccountExpiry', { user: 'alice', date: 'never' }, 'user'],
    ['SetAccountExpiry', { user: 'alice', date: 'never' }, 'date'],
    ['AddUserToGroup', { user: 'alice', group: 'users' }, 'user'],
    ['AddUserToGroup', { user: 'alice', group: 'users' }, 'group'],
    ['RemoveUserFromGroup', { user: 'alice', group: 'users' }, 'user'],
    ['RemoveUserFromGroup', { user: 'alice', group: 'users' }, 'group'],
    ['CreateGroup', { group: 'ops' }, 'group'],
    ['DeleteGroup', { group: 'ops' }, 'group'],
  ];

  it('refuses injection strings in every name, shell and date field', () => {
    for (const [name, base, field] of stringFields) {
      assert.ok(act(name).params.safeParse(base).success, `${name} base sample`);
      for (const bad of INJECTIONS) {
        assert.equal(act(name).params.safeParse({ ...base, [field]: bad }).success, false, `${name}.${field} accepted ${JSON.stringify(bad.slice(0, 40))}`);
      }
    }
  });

  it('refuses injection in CreateUser comment and groups', () => {
    const p = act('CreateUser').params;
    for (const bad of ['; rm -rf /', '$(id)', '`id`', '-rf', '--help', '../etc', 'a\u0000b', 'a\nb', 'x'.repeat(65), 'a:b', 'a,b']) {
      assert.equal(p.safeParse({ user: 'dave', comment: bad }).success, false, `comment ${JSON.stringify(bad.slice(0, 40))}`);
    }
    for (const bad of INJECTIONS) {
      assert.equal(p.safeParse({ user: 'dave', groups: ['users', bad] }).success, false, `group ${JSON.stringify(bad.slice(0, 40))}`);
    }
    assert.ok(p.safeParse({ user: 'dave', comment: "Dave O'Neil (ops) - 2nd", groups: ['users', 'www-data'] }).success);
  });

  it('refuses a shell outside the fixed list, including paths that resolve to one', () => {
    const p = act('SetUserShell').params;
    for (const bad of ['/bin/zsh', '/tmp/sh', 'bash', '/bin/../bin/bash', '/bin//bash', '/bin/bash ', '/usr/bin/python3']) {
      assert.equal(p.safeParse({ user: 'alice', shell: bad }).success, false, bad);
    }
    assert.equal(act('CreateUser').params.safeParse({ user: 'dave', shell: '/tmp/sh' }).success, false);
  });

  it('limits supplementary groups to 16 distinct names', () => {
    const p = act('CreateUser').params;
    const many = Array.from({ length: 17 }, (_, i) => `g${i}`);
    assert.equal(p.safeParse({ user: 'dave', groups: many }).success, false);
    assert.ok(p.safeParse({ user: 'dave', groups: many.slice(0, 16) }).success);
    assert.equal(p.safeParse({ user: 'dave', groups: ['users', 'users'] }).success, false);
    assert.equal(p.safeParse({ user: 'dave', groups: 'users' }).success, false);
  });

  it('is strict and typed: unknown keys and wrong types are refused', () => {
    assert.equal(act('CreateUser').params.safeParse({ user: 'dave', uid: 0 }).success, false);
    assert.equal(act('CreateUser').params.safeParse({ user: 'dave', home: '/root' }).success, false);
    assert.equal(act('DeleteUser').params.safeParse({ user: 'alice', removeHome: 'true' }).success, false);
    assert.equal(act('DeleteUser').params.safeParse({ user: 'alice' }).success, false);
    assert.equal(act('ListUsers').params.safeParse({ path: '/etc/shadow' }).success, false);
    assert.equal(act('UserInfo').params.safeParse({ user: 0 }).success, false);
  });

  it("takes 'never' or a real date for the account expiry", () => {
    const p = act('SetAccountExpiry').params;
    for (const ok of ['never', '2031-01-02', '2024-02-29', '1970-01-02']) assert.ok(p.safeParse({ user: 'alice', date: ok }).success, ok);
    for (const bad of ['-1', '0', 'Never', 'tomorrow', '1970-01-01', '2031-02-30', '2031-1-2', '22281', '2031-01-02T00:00:00Z', null, 22281]) {
      assert.equal(p.safeParse({ user: 'alice', date: bad }).success, false, String(bad));
    }
  });
});

describe('shared validators added for users', () => {
  it('calendarDate accepts real dates only', () => {
    for (const ok of ['1970-01-01', '2000-02-29', '2024-02-29', '2031-12-31', '2999-01-01']) assert.ok(calendarDate.safeParse(ok).success, ok);
    const bad = ['2023-02-29', '2031-02-30', '2031-04-31', '2031-13-01', '2031-00-10', '2031-01-00', '1969-12-31', '31-01-02', '2031/01/02', ' 2031-01-02', '2031-01-02\n', '2031-01-02; rm -rf /', '$(id)', '`id`', '-2031-01-02', '--help', '../etc', 'a\u0000b', 'x'.repeat(10_000), ''];
    for (const b of bad) assert.equal(calendarDate.safeParse(b).success, false, JSON.stringify(b.slice(0, 40)));
  });

  it("gecos refuses a leading '-' as every other shared validator does", () => {
    assert.equal(gecos.safeParse('-rf').success, false);
    assert.equal(gecos.safeParse('--help').success, false);
    assert.ok(gecos.safeParse('Deploy bot - ops').success);
    assert.ok(gecos.safeParse('').success);
  });
});

describe('users mechanisms', () => {
  it('ListUsers and ListGroups scan one file each, and nothing secret', async () => {
    assert.deepEqual((await plan('ListUsers', {})).steps, [{ kind: 'fileScan', path: '/etc/passwd' }]);
    assert.deepEqual((await plan('ListGroups', {})).steps, [{ kind: 'fileScan', path: '/etc/group' }]);
    assert.deepEqual(act('ListUsers').files, ['/etc/passwd']);
    assert.deepEqual(act('ListGroups').files, ['/etc/group']);
  });

  it('UserInfo runs id with -- before the name', async () => {
    assert.deepEqual((await plan('UserInfo', { user: 'alice' })).steps, [{ kind: 'command', program: 'id', args: ['--', 'alice'] }]);
    await refused('UserInfo', { user: 'zed' }, 'no_such_user');
  });

  it('CreateUser builds one useradd with an undo', async () => {
    const { steps, preview } = await plan('CreateUser', { user: 'dave', comment: 'Dave (ops)', shell: '/usr/sbin/nologin', groups: ['users', 'www-data'] });
    assert.deepEqual(steps, [
      {
        kind: 'command',
        program: 'useradd',
        args: ['-m', '-d', '/home/dave', '-U', '-s', '/usr/sbin/nologin', '--comment', 'Dave (ops)', '-G', 'users,www-data', '--', 'dave'],
        undo: { kind: 'command', program: 'userdel', args: ['-r', '--', 'dave'] },
      },
    ]);
    assert.match(preview.summary, /dave/);
    const minimal = await plan('CreateUser', { user: 'dave' });
    assert.deepEqual((minimal.steps[0] as { args: string[] }).args, ['-m', '-d', '/home/dave', '-U', '-s', '/bin/bash', '--', 'dave']);
  });

  it('DeleteUser runs userdel, with -r only when asked', async () => {
    assert.deepEqual((await plan('DeleteUser', { user: 'carol', removeHome: false })).steps, [{ kind: 'command', program: 'userdel', args: ['--', 'carol'] }]);
    const withHome = await plan('DeleteUser', { user: 'carol', removeHome: true });
    assert.deepEqual(withHome.steps, [{ kind: 'command', program: 'userdel', args: ['-r', '--', 'carol'] }]);
    assert.ok(withHome.preview.sideEffects?.some((s) => s.includes('/home/carol')));
  });

  it('LockUser and UnlockUser are usermod -L / -U, each the undo of the other', async () => {
    assert.deepEqual((await plan('LockUser', { user: 'alice' })).steps, [
      { kind: 'command', program: 'usermod', args: ['-L', '--', 'alice'], undo: { kind: 'command', program: 'usermod', args: ['-U', '--', 'alice'] } },
    ]);
    assert.deepEqual((await plan('UnlockUser', { user: 'bob' })).steps, [
      { kind: 'command', program: 'usermod', args: ['-U', '--', 'bob'], undo: { kind: 'command', program: 'usermod', args: ['-L', '--', 'bob'] } },
    ]);
  });

  it('never lets the password hash into the current state or the preview', async () => {
    for (const [name, raw] of [
      ['LockUser', { user: 'alice' }],
      ['UnlockUser', { user: 'bob' }],
      ['SetAccountExpiry', { user: 'alice', date: '2030-01-01' }],
    ] as const) {
      const { current, preview } = await plan(name, raw);
      assert.ok(!JSON.stringify(current).includes('$6$'), `${name} current state carries the hash`);
      assert.ok(!JSON.stringify(preview).includes('$6$'), `${name} preview carries the hash`);
    }
  });

  it('SetUserShell undoes to the previous shell', async () => {
    assert.deepEqual((await plan('SetUserShell', { user: 'alice', shell: '/usr/sbin/nologin' })).steps, [
      {
        kind: 'command',
        program: 'usermod',
        args: ['-s', '/usr/sbin/nologin', '--', 'alice'],
        undo: { kind: 'command', program: 'usermod', args: ['-s', '/bin/bash', '--', 'alice'] },
      },
    ]);
  });

  it('SetAccountExpiry uses chage -E with a date or -1, undone to the previous value', async () => {
    assert.deepEqual((await plan('SetAccountExpiry', { user: 'alice', date: '2031-01-02' })).steps, [
      {
        kind: 'command',
        program: 'chage',
        args: ['-E', '2031-01-02', '--', 'alice'],
        undo: { kind: 'command', program: 'chage', args: ['-E', '-1', '--', 'alice'] },
      },
    ]);
    // bob expires on day 22281 = 2031-01-02
    const { steps, preview } = await plan('SetAccountExpiry', { user: 'bob', date: 'never' });
    assert.deepEqual(steps, [
      {
        kind: 'command',
        program: 'chage',
        args: ['-E', '-1', '--', 'bob'],
        undo: { kind: 'command', program: 'chage', args: ['-E', '2031-01-02', '--', 'bob'] },
      },
    ]);
    assert.match(preview.summary, /from 2031-01-02 to never/);
    const past = await plan('SetAccountExpiry', { user: 'alice', date: '2001-01-01' });
    assert.ok(past.preview.warnings?.some((w) => /SSH keys/.test(w)), 'a past date must warn that every login is refused');
  });

  it('group membership: usermod -a -G to add, gpasswd -d to remove, each undoing the other', async () => {
    assert.deepEqual((await plan('AddUserToGroup', { user: 'alice', group: 'users' })).steps, [
      {
        kind: 'command',
        program: 'usermod',
        args: ['-a', '-G', 'users', '--', 'alice'],
        undo: { kind: 'command', program: 'gpasswd', args: ['-d', 'alice', '--', 'users'] },
      },
    ]);
    assert.deepEqual((await plan('RemoveUserFromGroup', { user: 'bob', group: 'users' })).steps, [
      {
        kind: 'command',
        program: 'gpasswd',
        args: ['-d', 'bob', '--', 'users'],
        // The member list as it was, so bob is back at his place in it (usermod -a would append him).
        undo: { kind: 'command', program: 'gpasswd', args: ['-M', 'bob', '--', 'users'] },
      },
    ]);
    // A stale name in the list (no such account) makes gpasswd -M refuse: the undo appends instead.
    const stale = fakeHost({ files: { '/etc/group': GROUP.replace('users:x:100:bob', 'users:x:100:gone,bob') } });
    assert.deepEqual((await plan('RemoveUserFromGroup', { user: 'bob', group: 'users' }, stale)).steps[0], {
      kind: 'command',
      program: 'gpasswd',
      args: ['-d', 'bob', '--', 'users'],
      undo: { kind: 'command', program: 'usermod', args: ['-a', '-G', 'users', '--', 'bob'] },
    });
  });

  it('CreateGroup and DeleteGroup', async () => {
    assert.deepEqual((await plan('CreateGroup', { group: 'ops' })).steps, [
      { kind: 'command', program: 'groupadd', args: ['--', 'ops'], undo: { kind: 'command', program: 'groupdel', args: ['--', 'ops'] } },
    ]);
    // Undone by groupadd with the same gid (compensating: its line comes back at the end of the files).
    assert.deepEqual((await plan('DeleteGroup', { group: 'empty' })).steps, [
      { kind: 'command', program: 'groupdel', args: ['--', 'empty'], undo: { kind: 'command', program: 'groupadd', args: ['-g', '2001', '--', 'empty'] } },
    ]);
    // With members, they leave first: the undos, last first, make the group and then list them in both files.
    const team = await plan('DeleteGroup', { group: 'team' });
    assert.deepEqual(team.steps, [
      { kind: 'command', program: 'gpasswd', args: ['-M', '', '--', 'team'], undo: { kind: 'command', program: 'gpasswd', args: ['-M', 'carol', '--', 'team'] } },
      { kind: 'command', program: 'groupdel', args: ['--', 'team'], undo: { kind: 'command', program: 'groupadd', args: ['-g', '2000', '--', 'team'] } },
    ]);
    assert.deepEqual(team.preview.warnings, ['carol lose membership of team']);
    // What a revert cannot make again is said before approval: a group password (never shown) and stale member names.
    const odd = fakeHost({
      files: { '/etc/group': GROUP.replace('team:x:2000:carol', 'team:x:2000:carol,gone'), '/etc/gshadow': GSHADOW.replace('team:!::carol', `team:${HASH}:alice:carol,gone`) },
    });
    const oddPlan = await plan('DeleteGroup', { group: 'team' }, odd);
    assert.deepEqual(oddPlan.steps[0], { kind: 'command', program: 'gpasswd', args: ['-M', '', '--', 'team'], undo: { kind: 'command', program: 'gpasswd', args: ['-M', 'carol', '--', 'team'] } });
    assert.ok(oddPlan.preview.warnings?.some((w) => /members without an account \(gone\) are not listed again by a revert/.test(w)), JSON.stringify(oddPlan.preview.warnings));
    assert.ok(oddPlan.preview.warnings?.some((w) => /group password or administrators/.test(w)), JSON.stringify(oddPlan.preview.warnings));
    assert.ok(!JSON.stringify([oddPlan.preview, oddPlan.current, oddPlan.steps]).includes('$6$'), 'the gshadow hash is compared, never kept or shown');
  });

  it('uses no program outside the users set, and never a shell', async () => {
    const allowed = new Set(['id', 'ps', 'useradd', 'userdel', 'usermod', 'groupadd', 'groupdel', 'gpasswd', 'chage']);
    const all: Step[] = [];
    const collect = (s: Step) => {
      all.push(s);
      if (s.kind === 'command' && s.undo) collect(s.undo);
    };
    for (const [name, raw] of [
      ['UserInfo', { user: 'alice' }],
      ['CreateUser', { user: 'dave', groups: ['users'] }],
      ['DeleteUser', { user: 'carol', removeHome: true }],
      ['LockUser', { user: 'alice' }],
      ['UnlockUser', { user: 'bob' }],
      ['SetUserShell', { user: 'alice', shell: '/bin/sh' }],
      ['SetAccountExpiry', { user: 'alice', date: '2030-01-01' }],
      ['AddUserToGroup', { user: 'alice', group: 'users' }],
      ['RemoveUserFromGroup', { user: 'bob', group: 'users' }],
      ['CreateGroup', { group: 'ops' }],
      ['DeleteGroup', { group: 'empty' }],
      ['DeleteGroup', { group: 'team' }],
    ] as const) {
      (await plan(name, raw)).steps.forEach(collect);
    }
    for (const s of all) {
      assert.equal(s.kind, 'command');
      if (s.kind === 'command') {
        assert.ok(allowed.has(s.program), s.program);
        const op = s.args.indexOf('--');
        assert.ok(op >= 0 && op === s.args.length - 2, `${s.program} ${s.args.join(' ')}: '--' must come right before the one operand`);
      }
    }
  });
});

describe('users refusals', () => {
  it('refuses protected accounts for every account change', async () => {
    for (const user of ['root', 'daemon', 'www-data', 'nobody']) {
      await refused('DeleteUser', { user, removeHome: false }, 'protected_account');
      await refused('LockUser', { user }, 'protected_account');
      await refused('UnlockUser', { user }, 'protected_account');
      await refused('SetUserShell', { user, shell: '/bin/false' }, 'protected_account');
      await refused('SetAccountExpiry', { user, date: '2001-01-01' }, 'protected_account');
    }
  });

  it('refuses protected groups for membership, creation and deletion', async () => {
    for (const group of ['sudo', 'adm', 'root', 'docker']) {
      await refused('AddUserToGroup', { user: 'bob', group }, 'protected_group');
      await refused('CreateUser', { user: 'dave', groups: ['users', group] }, 'protected_group');
      await refused('DeleteGroup', { group }, 'protected_group');
    }
    await refused('RemoveUserFromGroup', { user: 'alice', group: 'sudo' }, 'protected_group');
    for (const group of ['wheel', 'airlock-admin', 'airlock-approvers']) await refused('CreateGroup', { group }, 'protected_group');
    // useradd -U would create a group of the user's name
    await refused('CreateUser', { user: 'wheel' }, 'protected_group');
    await refused('CreateUser', { user: 'airlock-admin' }, 'protected_group');
  });

  it('CreateUser refuses what already exists or is missing', async () => {
    await refused('CreateUser', { user: 'alice' }, 'user_exists');
    await refused('CreateUser', { user: 'team' }, 'group_exists');
    await refused('CreateUser', { user: 'dave' }, 'home_exists', fakeHost({ paths: ['/home/dave'] }));
    await refused('CreateUser', { user: 'dave', groups: ['nosuch'] }, 'no_such_group');
  });

  it('DeleteUser refuses busy users, homes outside /home and shared homes', async () => {
    await refused('DeleteUser', { user: 'carol', removeHome: false }, 'user_busy', fakeHost({ procs: 2 }));
    await refused('DeleteUser', { user: 'web', removeHome: true }, 'home_not_removable');
    await refused('DeleteUser', { user: 'bob', removeHome: true }, 'home_shared');
    await plan('DeleteUser', { user: 'web', removeHome: false });
    await refused('DeleteUser', { user: 'zed', removeHome: false }, 'no_such_user');
  });

  it('LockUser and UnlockUser refuse changes that would do nothing or harm', async () => {
    await assertNoChange(plan('LockUser', { user: 'bob' }), /already/);
    await assertNoChange(plan('LockUser', { user: 'carol' }), /already/);
    await assertNoChange(plan('UnlockUser', { user: 'alice' }), /not|no /);
    // carol's field is a bare '!': unlocking would leave a passwordless account
    await refused('UnlockUser', { user: 'carol' }, 'no_password');
    await refused('LockUser', { user: 'dave' }, 'no_such_user');
    const noShadowLine = fakeHost({ files: { '/etc/shadow': 'root:*:19000:0:99999:7:::' } });
    await refused('LockUser', { user: 'alice' }, 'no_shadow_entry', noShadowLine);
    const badExpiry = fakeHost({ files: { '/etc/shadow': SHADOW.replace(`alice:${HASH}:19000:0:99999:7:::`, `alice:${HASH}:19000:0:99999:7::soon:`) } });
    await refused('SetAccountExpiry', { user: 'alice', date: 'never' }, 'no_shadow_entry', badExpiry);
  });

  it('SetUserShell and SetAccountExpiry: a no-op is no change; a missing shell is refused', async () => {
    await assertNoChange(plan('SetUserShell', { user: 'alice', shell: '/bin/bash' }), /already/);
    await refused('SetUserShell', { user: 'alice', shell: '/bin/false' }, 'shell_missing', { ...fakeHost(), stat: async () => null });
    await assertNoChange(plan('SetAccountExpiry', { user: 'alice', date: 'never' }), /already/);
    await assertNoChange(plan('SetAccountExpiry', { user: 'bob', date: '2031-01-02' }), /already/);
  });

  it('membership changes that would change nothing are no change; a primary group is refused', async () => {
    await assertNoChange(plan('AddUserToGroup', { user: 'bob', group: 'users' }), /already/);
    await assertNoChange(plan('AddUserToGroup', { user: 'alice', group: 'alice' }), /already/);
    await assertNoChange(plan('RemoveUserFromGroup', { user: 'alice', group: 'users' }), /not|no /);
    await refused('RemoveUserFromGroup', { user: 'alice', group: 'alice' }, 'not_member');
    await refused('AddUserToGroup', { user: 'alice', group: 'nosuch' }, 'no_such_group');
  });

  it('group creation and deletion refuse existing, system and primary groups', async () => {
    await assertNoChange(plan('CreateGroup', { group: 'team' }), /a group named team already exists/);
    await refused('DeleteGroup', { group: 'users' }, 'protected_group');
    await refused('DeleteGroup', { group: 'nogroup' }, 'protected_group');
    await refused('DeleteGroup', { group: 'alice' }, 'primary_group');
    // visitors (gid 2002) is guest's primary group although the names differ
    await refused('DeleteGroup', { group: 'visitors' }, 'primary_group');
    await refused('DeleteGroup', { group: 'nosuch' }, 'no_such_group');
  });
});
