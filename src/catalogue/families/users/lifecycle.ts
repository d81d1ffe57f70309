/** Creating and deleting accounts: useradd with a home of its own, userdel with or without it. */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { gecos, groupName, LOGIN_NAME, loginShell, params, userName } from '../../params.js';
import { PROTECTED_GROUPS } from '../../lib/guards.js';
import { requireUser } from '../../lib/accounts.js';
import { refuseProtectedGroup, refuseProtectedUser, refuseSystemGroup } from './refusals.js';
import { exact, noRollback } from '../../rollback.js';
import { ACCOUNT_DB, newAccountProbes } from './account-state.js';

const DEFAULT_SHELL = '/bin/bash';
/** Homes that DeleteUser may remove recursively and CreateUser creates: /home/<name>, nothing else. */
const REMOVABLE_HOME = new RegExp(`^/home/${LOGIN_NAME.source.slice(1, -1)}$`);

export const createUser = action({
  name: 'CreateUser',
  family: 'users',
  description: 'Create a local user with a home in /home, a group of its own, a login shell from a fixed list and no password (log in with an SSH key).',
  risk: 'high',
  // userdel -r takes out every line useradd added (the user's own group included) and removes the home it made.
  rollback: exact(({ user, groups = [] }: { user: string; groups?: string[] }, cur: { home: string }) => newAccountProbes(user, groups, cur.home)),
  readOnly: false,
  runsPrograms: false,
  params: params({
    user: userName,
    comment: gecos.optional(),
    shell: loginShell.optional(),
    groups: z
      .array(groupName)
      .max(16, 'at most 16 supplementary groups')
      .refine((g) => new Set(g).size === g.length, 'groups must not repeat')
      .optional(),
  }),
  files: [],
  example: { user: 'deploy', comment: 'Deploy bot', shell: '/bin/bash', groups: ['www-data'] },
  current: async ({ user, groups = [] }, host) => {
    const [users, allGroups] = [await host.users(), await host.groups()];
    const home = `/home/${user}`;
    return {
      home,
      userExists: users.some((u) => u.name === user),
      groupExists: allGroups.some((g) => g.name === user),
      homeExists: (await host.stat(home)) !== null,
      missingGroups: groups.filter((g) => !allGroups.some((e) => e.name === g)),
      joining: allGroups.filter((e) => groups.includes(e.name)),
    };
  },
  check: ({ user, groups = [] }, cur) => {
    if (cur.userExists) throw new AirlockError('conflict', 'user_exists', `a user named ${user} already exists`);
    // useradd -U creates a group named after the user: a protected name would create a protected group.
    refuseProtectedGroup(user);
    groups.forEach(refuseProtectedGroup);
    cur.joining.forEach(refuseSystemGroup);
    if (cur.groupExists) throw new AirlockError('conflict', 'group_exists', `a group named ${user} already exists; the new user's own group would collide with it`, 'choose another user name');
    if (cur.homeExists) {
      throw new AirlockError('conflict', 'home_exists', `${cur.home} already exists: the new user would take over whatever it holds`, `move ${cur.home} away or choose another user name`);
    }
    if (cur.missingGroups.length) {
      throw new AirlockError('validation', 'no_such_group', `no such group: ${cur.missingGroups.join(', ')}`, 'create it first with CreateGroup, or list groups with ListGroups');
    }
  },
  preview: ({ user, comment, shell, groups = [] }, cur) => ({
    summary: `Create user ${user} with home ${cur.home}`,
    change: {
      user,
      uid: 'next free uid from 1000',
      primary_group: `${user} (new, next free gid from 1000)`,
      home: `${cur.home} (new, copied from /etc/skel)`,
      shell: shell ?? DEFAULT_SHELL,
      comment: comment ?? '',
      supplementary_groups: groups,
      // What the field holds is what the masker judges: `none` is no password (src/mask/values.ts),
      // so an approver is not shown a hidden value that does not exist.
      password: 'none',
      password_logins: 'refused (SSH keys only)',
      files_changed: ACCOUNT_DB,
    },
    sideEffects: [`${user} can log in only once an SSH key is authorized for it (AddAuthorizedKey)`],
  }),
  mechanism: ({ user, comment, shell, groups = [] }, cur) => [
    command(
      'useradd',
      [
        '-m',
        '-d',
        cur.home,
        '-U',
        '-s',
        shell ?? DEFAULT_SHELL,
        ...(comment ? ['--comment', comment] : []),
        ...(groups.length ? ['-G', groups.join(',')] : []),
        '--',
        user,
      ],
      { undo: command('userdel', ['-r', '--', user]) },
    ),
  ],
  effects: ({ user, comment, shell, groups = [] }, cur) => [{ kind: 'user', user, home: cur.home, shell: shell ?? DEFAULT_SHELL, comment: comment ?? '', groups }],
});

export const deleteUser = action({
  name: 'DeleteUser',
  family: 'users',
  description: 'Delete a local user, and with removeHome its home directory under /home and its mail spool.',
  risk: 'high',
  readOnly: false,
  // shadow-utils takes a hash only in argv (useradd -p, usermod -p), where any user reads it (/proc/PID/cmdline) and the
  // signed log would keep it: so no undo makes the account again, even without removeHome.
  rollback: noRollback("The account's /etc/shadow line, its password hash with it, is deleted, and Airlock never passes a password hash in a command line to make it again; with removeHome its home and mail spool are deleted for good."),
  runsPrograms: false,
  params: params({ user: userName, removeHome: z.boolean() }),
  files: [],
  example: { user: 'deploy', removeHome: false },
  current: async ({ user }, host) => {
    const u = await requireUser(host, user);
    const [users, groups] = [await host.users(), await host.groups()];
    const procs = await host.run('ps', ['-o', 'pid=', '-u', String(u.uid)]);
    const ownGroup = groups.find((g) => g.gid === u.gid && g.name === user);
    return {
      user: u,
      sharesHome: users.some((o) => o.name !== user && o.home === u.home),
      memberOf: groups.filter((g) => g.members.includes(user)).map((g) => g.name),
      // userdel removes the user's own group (USERGROUPS_ENAB) unless it is someone else's primary group.
      removesGroup: ownGroup !== undefined && !users.some((o) => o.name !== user && o.gid === u.gid),
      processes: procs.stdout.split('\n').filter((l) => l.trim() !== '').length,
    };
  },
  check: ({ removeHome }, cur) => {
    refuseProtectedUser(cur.user);
    if (cur.processes > 0) {
      throw new AirlockError('conflict', 'user_busy', `${cur.user.name} has ${cur.processes} running process(es); userdel refuses a user who is logged in`, 'end the sessions and services of this user first');
    }
    if (removeHome && !REMOVABLE_HOME.test(cur.user.home)) {
      throw new AirlockError('authorization', 'home_not_removable', `${cur.user.name}'s home ${cur.user.home} is not a directory /home/<name>; Airlock removes only those`, 'delete with removeHome: false');
    }
    if (removeHome && cur.sharesHome) {
      throw new AirlockError('conflict', 'home_shared', `another account uses ${cur.user.home} as its home too`, 'delete with removeHome: false');
    }
  },
  preview: ({ user, removeHome }, cur) => ({
    summary: `Delete user ${user} (uid ${cur.user.uid})${removeHome ? ` and remove ${cur.user.home}` : ''}`,
    change: {
      removes_account: user,
      files_changed: ACCOUNT_DB,
      removes_group: cur.removesGroup ? user : null,
      leaves_groups: cur.memberOf,
      removes_directories: removeHome ? [cur.user.home, `/var/mail/${user}`] : [],
    },
    sideEffects: [
      ...(removeHome ? [`everything under ${cur.user.home} is deleted for good`] : [`${cur.user.home} stays, owned by the now unused uid ${cur.user.uid}`]),
      `files elsewhere owned by uid ${cur.user.uid} stay, and go to any user later given that uid`,
    ],
    warnings: cur.memberOf.filter((g) => PROTECTED_GROUPS.includes(g)).map((g) => `${user} is in the protected group ${g}: this removes an administrator`),
  }),
  mechanism: ({ user, removeHome }) => [command('userdel', [...(removeHome ? ['-r'] : []), '--', user])],
});
