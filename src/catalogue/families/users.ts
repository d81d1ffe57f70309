/**
 * users family: local accounts and groups. Every change goes through shadow-utils
 * (useradd, usermod, userdel, groupadd, groupdel, gpasswd, chage), never by editing
 * /etc/passwd, /etc/shadow, /etc/group or /etc/gshadow directly, so their locking
 * and the consistency between the four files stay shadow-utils' job.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type GroupEntry, type Host, type PasswdEntry } from '../action.js';
import { command, fileScan, type CommandStep } from '../mechanism.js';
import { calendarDate, gecos, groupName, loginShell, params, userName } from '../params.js';
import { fixedRead } from '../lib/fixed-read.js';
import { isPrivilegedSystemGroup, isProtectedUser, PROTECTED_GROUPS } from '../lib/guards.js';
import { requireGroup, requireUser } from '../lib/accounts.js';

const ACCOUNT_DB = ['/etc/passwd', '/etc/shadow', '/etc/group', '/etc/gshadow'];
const DEFAULT_SHELL = '/bin/bash';
/** Homes that DeleteUser may remove recursively and CreateUser creates: /home/<name>, nothing else. */
const REMOVABLE_HOME = /^\/home\/[a-z_][a-z0-9_-]{0,31}$/;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------- state readers

/** Lock and expiry facts from a user's /etc/shadow line. The password hash itself never leaves this function. */
interface ShadowFacts {
  /** The password field starts with '!': password logins are refused. */
  locked: boolean;
  /** Something other than '!'/'*'/empty remains once the lock marks are stripped: unlocking gives a usable password. */
  hasPassword: boolean;
  /** Account expiry in days since 1970-01-01, null when it never expires. */
  expires: number | null;
}

async function shadowFacts(host: Host, name: string): Promise<ShadowFacts | null> {
  const fields = ((await host.readFile('/etc/shadow')) ?? '')
    .split('\n')
    .map((l) => l.split(':'))
    .find((f) => f[0] === name && f.length >= 8);
  const expiry = fields?.[7]?.trim() ?? '';
  if (!fields || !/^(|-1|[0-9]{1,7})$/.test(expiry)) return null;
  const password = fields[1]!;
  const bare = password.replace(/^!+/, '');
  return { locked: password.startsWith('!'), hasPassword: bare !== '' && !bare.startsWith('*'), expires: expiry === '' || expiry === '-1' ? null : Number(expiry) };
}

interface Account {
  user: PasswdEntry;
  /** Null when /etc/shadow has no well-formed line for the user (refused in check, after the protected-account refusal). */
  shadow: ShadowFacts | null;
}

/** A user's passwd entry and shadow facts: what the account-state actions (lock, unlock, expiry) build on. */
export async function account(host: Host, name: string): Promise<Account> {
  const user = await requireUser(host, name);
  return { user, shadow: await shadowFacts(host, name) };
}

export function shadowOf(cur: Account): ShadowFacts {
  if (!cur.shadow) {
    throw new AirlockError('conflict', 'no_shadow_entry', `${cur.user.name} has no well-formed line in /etc/shadow`, 'repair the account databases (pwck) by hand first');
  }
  return cur.shadow;
}

interface Membership {
  user: PasswdEntry;
  group: GroupEntry;
  /** Listed in the group's member field (a supplementary member). */
  member: boolean;
  /** The group is the user's primary group (gid in /etc/passwd). */
  primary: boolean;
}

async function membership(host: Host, user: string, group: string): Promise<Membership> {
  const u = await requireUser(host, user);
  const g = await requireGroup(host, group);
  return { user: u, group: g, member: g.members.includes(user), primary: u.gid === g.gid };
}

export const today = () => Math.floor(Date.now() / DAY_MS);
const toDays = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
export const toDate = (days: number) => new Date(days * DAY_MS).toISOString().slice(0, 10);
const expiryText = (days: number | null) => (days === null ? 'never' : toDate(days));

// ---------------------------------------------------------------- refusals

export function refuseProtectedUser(u: PasswdEntry): void {
  if (isProtectedUser(u)) {
    throw new AirlockError(
      'authorization',
      'protected_account',
      `${u.name} (uid ${u.uid}) is a protected account: root, nobody and system accounts below uid 1000 are not changed through Airlock`,
      'a person changes this account by hand',
    );
  }
}

function refuseSystemGroup(g: GroupEntry): void {
  if (isPrivilegedSystemGroup(g)) {
    throw new AirlockError('authorization', 'protected_group', `${g.name} is a system group (gid ${g.gid}); system groups can grant device, log or key access`, 'a person adds members to it by hand');
  }
}

function refuseProtectedGroup(name: string): void {
  if (PROTECTED_GROUPS.includes(name)) {
    throw new AirlockError(
      'authorization',
      'protected_group',
      `${name} is a protected group: its membership confers administration or an Airlock role`,
      'a person changes this group by hand',
    );
  }
}

const interactive = (shell: string) => !/\/(nologin|false)$/.test(shell);
const systemAccountWarning = (u: PasswdEntry) => (u.uid < 1000 ? [`${u.name} is a system account (uid ${u.uid}): services running as it are affected`] : []);

// ---------------------------------------------------------------- mechanism pieces

export const usermod = (options: string[], user: string, undo?: CommandStep): CommandStep => command('usermod', [...options, '--', user], undo ? { undo } : {});
/** gpasswd takes the user as the argument of -d, the group as its one operand. */
const removeFromGroup = (user: string, group: string, undo?: CommandStep): CommandStep => command('gpasswd', ['-d', user, '--', group], undo ? { undo } : {});
const addToGroup = (user: string, group: string, undo?: CommandStep): CommandStep => usermod(['-a', '-G', group], user, undo);
const setExpiry = (user: string, days: number | null, undo?: CommandStep): CommandStep =>
  command('chage', ['-E', days === null ? '-1' : toDate(days), '--', user], undo ? { undo } : {});

// ---------------------------------------------------------------- reads

export const listUsers = fixedRead({
  name: 'ListUsers',
  sensitive: false,
  reachesNetwork: false,
  family: 'users',
  description: 'List the local accounts in /etc/passwd (names, uids, homes, shells; no password data).',
  summary: 'Read /etc/passwd',
  files: ['/etc/passwd'],
  steps: [fileScan('/etc/passwd')],
});

export const listGroups = fixedRead({
  name: 'ListGroups',
  sensitive: false,
  reachesNetwork: false,
  family: 'users',
  description: 'List the local groups and their members in /etc/group.',
  summary: 'Read /etc/group',
  files: ['/etc/group'],
  steps: [fileScan('/etc/group')],
});

export const userInfo = action({
  name: 'UserInfo',
  family: 'users',
  description: "Show a user's uid, primary group and supplementary groups (id).",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => requireUser(host, user),
  preview: ({ user }, u) => ({ summary: `Show uid, gid and groups of ${user} (uid ${u.uid}, home ${u.home}, shell ${u.shell})`, change: null }),
  mechanism: ({ user }) => [command('id', ['--', user])],
});

// ---------------------------------------------------------------- accounts

export const createUser = action({
  name: 'CreateUser',
  family: 'users',
  description: 'Create a local user with a home in /home, a group of its own, a login shell from a fixed list and no password (log in with an SSH key).',
  risk: 'high',
  rollback: true,
  readOnly: false,
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
      password: 'none: password logins are refused',
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
});

export const deleteUser = action({
  name: 'DeleteUser',
  family: 'users',
  description: 'Delete a local user, and with removeHome its home directory under /home and its mail spool.',
  risk: 'high',
  readOnly: false,
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

export const lockUser = action({
  name: 'LockUser',
  family: 'users',
  description: "Lock a user's password (usermod -L): password logins are refused; SSH key logins are not.",
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => account(host, user),
  check: ({ user }, cur) => {
    refuseProtectedUser(cur.user);
    const shadow = shadowOf(cur);
    if (shadow.locked) throw new AirlockError('conflict', 'already_locked', `${user}'s password is already locked${shadow.hasPassword ? '' : ' (it has no password at all)'}`);
  },
  preview: ({ user }, cur) => ({
    summary: `Lock the password of ${user}`,
    change: { file: '/etc/shadow', password_field: "gets the lock mark '!' in front" },
    sideEffects: ['sessions already open stay open'],
    warnings: [
      `logins with an SSH key still work; to refuse every login set an expiry in the past with SetAccountExpiry`,
      ...(shadowOf(cur).hasPassword ? [] : [`${user} has no password, so password logins were refused already`]),
    ],
  }),
  mechanism: ({ user }) => [usermod(['-L'], user, usermod(['-U'], user))],
});

export const unlockUser = action({
  name: 'UnlockUser',
  family: 'users',
  description: "Unlock a user's locked password (usermod -U) so that password logins work again.",
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => account(host, user),
  check: ({ user }, cur) => {
    refuseProtectedUser(cur.user);
    const shadow = shadowOf(cur);
    if (!shadow.locked) throw new AirlockError('conflict', 'not_locked', `${user}'s password is not locked`);
    if (!shadow.hasPassword) {
      throw new AirlockError('conflict', 'no_password', `${user} has no password behind the lock; unlocking would change nothing (or leave a passwordless account)`, 'log in with an SSH key instead');
    }
  },
  preview: ({ user }, cur) => {
    const { expires } = shadowOf(cur);
    return {
      summary: `Unlock the password of ${user}`,
      change: { file: '/etc/shadow', password_field: "loses the lock mark '!'" },
      sideEffects: [`${user} can log in with the password it had before it was locked`],
      warnings: expires !== null && expires <= today() ? [`the account itself expired on ${toDate(expires)}: logins stay refused until SetAccountExpiry changes that`] : [],
    };
  },
  mechanism: ({ user }) => [usermod(['-U'], user, usermod(['-L'], user))],
});

export const setUserShell = action({
  name: 'SetUserShell',
  family: 'users',
  description: "Change a user's login shell to one of a fixed list (nologin and false refuse interactive logins).",
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ user: userName, shell: loginShell }),
  files: [],
  example: { user: 'deploy', shell: '/usr/sbin/nologin' },
  current: async ({ user, shell }, host) => ({ user: await requireUser(host, user), shellPresent: (await host.stat(shell)) !== null }),
  check: ({ user, shell }, cur) => {
    refuseProtectedUser(cur.user);
    if (cur.user.shell === shell) throw new AirlockError('conflict', 'no_change', `${user}'s shell is already ${shell}`);
    if (!cur.shellPresent) throw new AirlockError('conflict', 'shell_missing', `${shell} does not exist on this host`, 'choose another shell');
  },
  preview: ({ user, shell }, cur) => ({
    summary: `Change the login shell of ${user} from ${cur.user.shell || '(none)'} to ${shell}`,
    change: { file: '/etc/passwd', user, shell: { from: cur.user.shell, to: shell } },
    sideEffects: ['open sessions keep their shell; the change applies to the next login'],
    warnings: !interactive(shell) ? [`${user} can no longer open an interactive session (SSH port forwarding and file transfer may still work)`] : [],
  }),
  mechanism: ({ user, shell }, cur) => [usermod(['-s', shell], user, usermod(['-s', cur.user.shell], user))],
});

export const setAccountExpiry = action({
  name: 'SetAccountExpiry',
  family: 'users',
  description: "Set the date from which every login of a user is refused (SSH keys included), or 'never'.",
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({
    user: userName,
    date: z.union([z.literal('never'), calendarDate.refine((d) => d > '1970-01-01', 'date must be after 1970-01-01')]),
  }),
  files: [],
  example: { user: 'contractor', date: '2031-06-30' },
  current: async ({ user }, host) => ({ ...(await account(host, user)), today: today() }),
  check: ({ user, date }, cur) => {
    refuseProtectedUser(cur.user);
    if (expiryText(shadowOf(cur).expires) === date) throw new AirlockError('conflict', 'no_change', `${user}'s account expiry is already ${date}`);
  },
  preview: ({ user, date }, cur) => {
    const days = date === 'never' ? null : toDays(date);
    const from = expiryText(shadowOf(cur).expires);
    return {
      summary: `Set the account expiry of ${user} from ${from} to ${date}`,
      change: { file: '/etc/shadow', user, account_expires: { from, to: date } },
      sideEffects: ['sessions already open stay open'],
      warnings: days !== null && days <= cur.today ? [`${date} is not in the future: every login of ${user} is refused from now on, SSH keys included`] : [],
    };
  },
  mechanism: ({ user, date }, cur) => [setExpiry(user, date === 'never' ? null : toDays(date), setExpiry(user, shadowOf(cur).expires))],
});

// ---------------------------------------------------------------- groups

export const addUserToGroup = action({
  name: 'AddUserToGroup',
  family: 'users',
  description: 'Add a user to a supplementary group (never a protected one such as sudo).',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ user: userName, group: groupName }),
  files: [],
  example: { user: 'deploy', group: 'www-data' },
  current: ({ user, group }, host) => membership(host, user, group),
  check: ({ user, group }, cur) => {
    refuseProtectedGroup(group);
    refuseSystemGroup(cur.group);
    if (cur.member || cur.primary) throw new AirlockError('conflict', 'already_member', `${user} is already in ${group}${cur.primary ? ' (its primary group)' : ''}`);
  },
  preview: ({ user, group }, cur) => ({
    summary: `Add ${user} to group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], group, members: { from: cur.group.members, to: [...cur.group.members, user] } },
    sideEffects: [`${user} gets the group's access at its next login; open sessions keep their old groups`],
    warnings: systemAccountWarning(cur.user),
  }),
  mechanism: ({ user, group }) => [addToGroup(user, group, removeFromGroup(user, group))],
});

export const removeUserFromGroup = action({
  name: 'RemoveUserFromGroup',
  family: 'users',
  description: 'Remove a user from a supplementary group (never a protected one such as sudo).',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ user: userName, group: groupName }),
  files: [],
  example: { user: 'deploy', group: 'www-data' },
  current: ({ user, group }, host) => membership(host, user, group),
  check: ({ user, group }, cur) => {
    refuseProtectedGroup(group);
    if (!cur.member) {
      throw new AirlockError(
        'conflict',
        'not_member',
        cur.primary ? `${group} is ${user}'s primary group, not a supplementary one; it cannot be removed this way` : `${user} is not a member of ${group}`,
      );
    }
  },
  preview: ({ user, group }, cur) => ({
    summary: `Remove ${user} from group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], group, members: { from: cur.group.members, to: cur.group.members.filter((m) => m !== user) } },
    sideEffects: [`open sessions of ${user} keep the group until they end`],
    warnings: systemAccountWarning(cur.user),
  }),
  mechanism: ({ user, group }) => [removeFromGroup(user, group, addToGroup(user, group))],
});

export const createGroup = action({
  name: 'CreateGroup',
  family: 'users',
  description: 'Create an empty local group with the next free gid from 1000.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ group: groupName }),
  files: [],
  example: { group: 'deployers' },
  current: async ({ group }, host) => ({ exists: (await host.groups()).some((g) => g.name === group) }),
  check: ({ group }, cur) => {
    refuseProtectedGroup(group);
    if (cur.exists) throw new AirlockError('conflict', 'group_exists', `a group named ${group} already exists`);
  },
  preview: ({ group }) => ({
    summary: `Create group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], adds_group: group, gid: 'next free gid from 1000', members: [] },
  }),
  mechanism: ({ group }) => [command('groupadd', ['--', group], { undo: command('groupdel', ['--', group]) })],
});

export const deleteGroup = action({
  name: 'DeleteGroup',
  family: 'users',
  description: "Delete a local group that is no user's primary group (never a protected or system group).",
  risk: 'high',
  readOnly: false,
  params: params({ group: groupName }),
  files: [],
  example: { group: 'deployers' },
  current: async ({ group }, host) => {
    const g = await requireGroup(host, group);
    return { group: g, primaryOf: (await host.users()).filter((u) => u.gid === g.gid).map((u) => u.name) };
  },
  check: ({ group }, cur) => {
    refuseProtectedGroup(group);
    if (cur.group.gid < 1000 || cur.group.gid === 65534) {
      throw new AirlockError('authorization', 'protected_group', `${group} is a system group (gid ${cur.group.gid}); Airlock does not delete those`, 'a person deletes this group by hand');
    }
    if (cur.primaryOf.length) {
      throw new AirlockError('conflict', 'primary_group', `${group} is the primary group of ${cur.primaryOf.join(', ')}`, 'delete or move those users first');
    }
  },
  preview: ({ group }, cur) => ({
    summary: `Delete group ${group} (gid ${cur.group.gid})`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], removes_group: group, members_lose_it: cur.group.members },
    sideEffects: [`files owned by gid ${cur.group.gid} stay, and go to any group later given that gid`],
    warnings: cur.group.members.length ? [`${cur.group.members.join(', ')} lose membership of ${group}`] : [],
  }),
  mechanism: ({ group }) => [command('groupdel', ['--', group])],
});
