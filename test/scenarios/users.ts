/**
 * users family, for real in the throwaway overlay. Order matters: a group and a
 * user are created, changed in every way the family allows, then deleted again.
 * Every check reads /etc/passwd, /etc/shadow or /etc/group (or runs id/stat)
 * from outside the daemon.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

const USER = 'altest1';
const KEEP_HOME_USER = 'altest2';
const GROUP = 'altgrp';
/** A well-formed SHA-512 crypt string for no real password: lets LockUser/UnlockUser show the '!' mark. */
const FAKE_HASH = '$6$airlocktest$Q0aGq2fX0e1xQy9C3b8vYV8mJc7kq0N9wTnLr0c0y9yRkJ9m3s7Yt1lGq7bVZ6cW8d0sJc1n2aF3hK5pP6qR7.';

async function fileLines(box: SandboxView, path: string): Promise<string[][]> {
  const text = await box.readFile(path);
  assert.ok(text !== null, `${path} is missing`);
  return text.split('\n').filter(Boolean).map((l) => l.split(':'));
}

/** The fields of `name`'s line in a colon-separated account file, or undefined. */
async function entry(box: SandboxView, path: string, name: string): Promise<string[] | undefined> {
  return (await fileLines(box, path)).find((f) => f[0] === name);
}

async function members(box: SandboxView, group: string): Promise<string[]> {
  const g = await entry(box, '/etc/group', group);
  assert.ok(g, `group ${group} is missing from /etc/group`);
  return g[3] ? g[3].split(',') : [];
}

async function exists(box: SandboxView, path: string): Promise<boolean> {
  return (await box.run('/usr/bin/stat', ['-c', '%n', '--', path])).code === 0;
}

const out = (r: { output: string[] }) => r.output.join('\n');

export const scenarios: Scenario[] = [
  {
    action: 'ListUsers',
    params: {},
    check: async (_box, r) => assert.match(out(r), /^root:x:0:0:/m),
  },
  {
    action: 'ListGroups',
    params: {},
    check: async (_box, r) => assert.match(out(r), /^root:x:0:/m),
  },
  {
    title: 'UserInfo of root',
    action: 'UserInfo',
    params: { user: 'root' },
    check: async (_box, r) => assert.match(out(r), /uid=0\(root\) gid=0\(root\)/),
  },
  {
    action: 'CreateGroup',
    params: { group: GROUP },
    check: async (box) => {
      const g = await entry(box, '/etc/group', GROUP);
      assert.ok(g, `${GROUP} is not in /etc/group`);
      assert.ok(Number(g[2]) >= 1000, `gid ${g[2]} is below 1000`);
      assert.deepEqual(await members(box, GROUP), []);
      assert.ok(await entry(box, '/etc/gshadow', GROUP), `${GROUP} is not in /etc/gshadow`);
    },
  },
  {
    action: 'CreateUser',
    params: { user: USER, comment: 'Airlock Test', shell: '/bin/bash', groups: [GROUP] },
    check: async (box) => {
      const p = await entry(box, '/etc/passwd', USER);
      assert.ok(p, `${USER} is not in /etc/passwd`);
      assert.ok(Number(p[2]) >= 1000, `uid ${p[2]} is below 1000`);
      assert.equal(p[4], 'Airlock Test');
      assert.equal(p[5], `/home/${USER}`);
      assert.equal(p[6], '/bin/bash');
      const own = await entry(box, '/etc/group', USER);
      assert.ok(own, `the user's own group ${USER} was not created`);
      assert.equal(own[2], p[3], 'the primary gid is not the new group');
      assert.deepEqual(await members(box, GROUP), [USER]);
      const s = await entry(box, '/etc/shadow', USER);
      assert.ok(s, `${USER} is not in /etc/shadow`);
      assert.equal(s[1], '!', 'a new user must have no usable password');
      const st = await box.run('/usr/bin/stat', ['-c', '%U %G', '--', `/home/${USER}`]);
      assert.equal(st.stdout.trim(), `${USER} ${USER}`);
      assert.ok((await box.readFile(`/home/${USER}/.profile`)) !== null, '/etc/skel was not copied');
      const id = await box.run('/usr/bin/id', ['-nG', '--', USER]);
      assert.deepEqual(id.stdout.trim().split(' ').sort(), [GROUP, USER].sort());
    },
  },
  {
    title: `UserInfo of ${USER}`,
    action: 'UserInfo',
    params: { user: USER },
    check: async (_box, r) => assert.match(out(r), new RegExp(`uid=\\d+\\(${USER}\\) gid=\\d+\\(${USER}\\) groups=.*\\(${GROUP}\\)`)),
  },
  {
    action: 'SetUserShell',
    params: { user: USER, shell: '/usr/sbin/nologin' },
    check: async (box) => assert.equal((await entry(box, '/etc/passwd', USER))?.[6], '/usr/sbin/nologin'),
  },
  {
    action: 'LockUser',
    params: { user: USER },
    // A fresh account has no password ('!'), which LockUser rightly refuses as already locked: give it one.
    setup: async (box) => {
      const r = await box.run('/usr/sbin/usermod', ['-p', FAKE_HASH, '--', USER]);
      assert.equal(r.code, 0, r.stderr);
    },
    check: async (box) => assert.equal((await entry(box, '/etc/shadow', USER))?.[1], `!${FAKE_HASH}`),
  },
  {
    action: 'UnlockUser',
    params: { user: USER },
    check: async (box) => assert.equal((await entry(box, '/etc/shadow', USER))?.[1], FAKE_HASH),
  },
  {
    title: 'SetAccountExpiry to a date',
    action: 'SetAccountExpiry',
    params: { user: USER, date: '2031-01-02' },
    // /etc/shadow keeps days since 1970-01-01: 2031-01-02 is day 22281.
    check: async (box) => assert.equal((await entry(box, '/etc/shadow', USER))?.[7], '22281'),
  },
  {
    title: 'SetAccountExpiry back to never',
    action: 'SetAccountExpiry',
    params: { user: USER, date: 'never' },
    check: async (box) => assert.equal((await entry(box, '/etc/shadow', USER))?.[7], ''),
  },
  {
    action: 'AddUserToGroup',
    params: { user: USER, group: 'users' },
    check: async (box) => {
      assert.ok((await members(box, 'users')).includes(USER), `${USER} is not in group users`);
      assert.match((await box.run('/usr/bin/id', ['-nG', '--', USER])).stdout, /\busers\b/);
    },
  },
  {
    action: 'RemoveUserFromGroup',
    params: { user: USER, group: GROUP },
    check: async (box) => {
      assert.deepEqual(await members(box, GROUP), []);
      assert.doesNotMatch((await box.run('/usr/bin/id', ['-nG', '--', USER])).stdout, new RegExp(`\\b${GROUP}\\b`));
    },
  },
  {
    action: 'DeleteGroup',
    params: { group: GROUP },
    check: async (box) => {
      assert.equal(await entry(box, '/etc/group', GROUP), undefined);
      assert.equal(await entry(box, '/etc/gshadow', GROUP), undefined);
    },
  },
  {
    title: `CreateUser ${KEEP_HOME_USER} with defaults`,
    action: 'CreateUser',
    params: { user: KEEP_HOME_USER },
    check: async (box) => {
      const p = await entry(box, '/etc/passwd', KEEP_HOME_USER);
      assert.ok(p, `${KEEP_HOME_USER} is not in /etc/passwd`);
      assert.equal(p[6], '/bin/bash');
      assert.ok(await exists(box, `/home/${KEEP_HOME_USER}`));
    },
  },
  {
    title: 'DeleteUser keeping the home',
    action: 'DeleteUser',
    params: { user: KEEP_HOME_USER, removeHome: false },
    check: async (box) => {
      assert.equal(await entry(box, '/etc/passwd', KEEP_HOME_USER), undefined);
      assert.equal(await entry(box, '/etc/shadow', KEEP_HOME_USER), undefined);
      assert.equal(await entry(box, '/etc/group', KEEP_HOME_USER), undefined, 'the user group should go with the user');
      assert.ok(await exists(box, `/home/${KEEP_HOME_USER}/.profile`), 'the home must stay');
    },
  },
  {
    title: 'DeleteUser removing the home',
    action: 'DeleteUser',
    params: { user: USER, removeHome: true },
    check: async (box) => {
      assert.equal(await entry(box, '/etc/passwd', USER), undefined);
      assert.equal(await entry(box, '/etc/shadow', USER), undefined);
      assert.equal(await entry(box, '/etc/group', USER), undefined);
      assert.ok(!(await members(box, 'users')).includes(USER), `${USER} is still listed in group users`);
      assert.equal(await exists(box, `/home/${USER}`), false, `/home/${USER} is still there`);
    },
  },
];
