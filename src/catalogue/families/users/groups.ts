/** Groups: creating and deleting them, and a user's supplementary memberships (never of a protected group). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type GroupEntry, type Host, type PasswdEntry, unchanged } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { groupName, params, userName } from '../../params.js';
import { requireGroup, requireUser } from '../../lib/accounts.js';
import { refuseProtectedGroup, refuseSystemGroup } from './refusals.js';
import { usermod } from './usermod.js';
import { compensating } from '../../rollback.js';
import { exactGroupLines, GROUP, GSHADOW, groupLines } from './account-state.js';

interface Membership {
  user: PasswdEntry;
  group: GroupEntry;
  /** Listed in the group's member field (a supplementary member). */
  member: boolean;
  /** The group is the user's primary group (gid in /etc/passwd). */
  primary: boolean;
  /** Every name in the member field is an account: gpasswd -M, which refuses unknown names, can set the list back. */
  membersKnown: boolean;
}

async function membership(host: Host, user: string, group: string): Promise<Membership> {
  const u = await requireUser(host, user);
  const g = await requireGroup(host, group);
  const known = new Set((await host.users()).map((e) => e.name));
  return { user: u, group: g, member: g.members.includes(user), primary: u.gid === g.gid, membersKnown: g.members.every((m) => known.has(m)) };
}

/** gpasswd takes the user as the argument of -d, the group as its one operand. */
const removeFromGroup = (user: string, group: string, undo?: CommandStep): CommandStep => command('gpasswd', ['-d', user, '--', group], undo ? { undo } : {});
/**
 * `gpasswd -M a,b -- GROUP` sets the member list of /etc/group and /etc/gshadow as given, in that
 * order: what puts back a list a member left from its middle (usermod -a would append at the end).
 */
const setMembers = (members: string[], group: string, undo?: CommandStep): CommandStep => command('gpasswd', ['-M', members.join(','), '--', group], undo ? { undo } : {});
const addToGroup = (user: string, group: string, undo?: CommandStep): CommandStep => usermod(['-a', '-G', group], user, undo);
const systemAccountWarning = (u: PasswdEntry) => (u.uid < 1000 ? [`${u.name} is a system account (uid ${u.uid}): services running as it are affected`] : []);

export const addUserToGroup = action({
  name: 'AddUserToGroup',
  family: 'users',
  description: 'Add a user to a supplementary group (never a protected one such as sudo).',
  risk: 'high',
  // usermod -a appends the user to the member lists; gpasswd -d takes it out again.
  rollback: exactGroupLines,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, group: groupName }),
  files: [],
  example: { user: 'deploy', group: 'www-data' },
  current: ({ user, group }, host) => membership(host, user, group),
  check: ({ user, group }, cur) => {
    refuseProtectedGroup(group);
    refuseSystemGroup(cur.group);
    if (cur.member || cur.primary) return unchanged(`${user} is already in ${group}${cur.primary ? ' (its primary group)' : ''}`);
  },
  preview: ({ user, group }, cur) => ({
    summary: `Add ${user} to group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], group, members: { from: cur.group.members, to: [...cur.group.members, user] } },
    sideEffects: [`${user} gets the group's access at its next login; open sessions keep their old groups`],
    warnings: systemAccountWarning(cur.user),
  }),
  mechanism: ({ user, group }) => [addToGroup(user, group, removeFromGroup(user, group))],
  effects: ({ user, group }) => [{ kind: 'member', user, group, member: true }],
});

export const removeUserFromGroup = action({
  name: 'RemoveUserFromGroup',
  family: 'users',
  description: 'Remove a user from a supplementary group (never a protected one such as sudo).',
  risk: 'high',
  rollback: exactGroupLines,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, group: groupName }),
  files: [],
  example: { user: 'deploy', group: 'www-data' },
  current: ({ user, group }, host) => membership(host, user, group),
  check: ({ user, group }, cur) => {
    refuseProtectedGroup(group);
    if (cur.primary) throw new AirlockError('conflict', 'not_member', `${group} is ${user}'s primary group, not a supplementary one; it cannot be removed this way`);
    if (!cur.member) return unchanged(`${user} is not a member of ${group}`);
  },
  preview: ({ user, group }, cur) => ({
    summary: `Remove ${user} from group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], group, members: { from: cur.group.members, to: cur.group.members.filter((m) => m !== user) } },
    sideEffects: [`open sessions of ${user} keep the group until they end`],
    warnings: systemAccountWarning(cur.user),
  }),
  // The undo sets the member list read, so the user is back where it was in it; with a stale name
  // in the list gpasswd -M would refuse, so it appends the user instead (the state check then says the order differs).
  mechanism: ({ user, group }, cur) => [removeFromGroup(user, group, cur.membersKnown ? setMembers(cur.group.members, group) : addToGroup(user, group))],
  effects: ({ user, group }) => [{ kind: 'member', user, group, member: false }],
});

export const createGroup = action({
  name: 'CreateGroup',
  family: 'users',
  description: 'Create an empty local group with the next free gid from 1000.',
  risk: 'medium',
  rollback: exactGroupLines,
  readOnly: false,
  runsPrograms: false,
  params: params({ group: groupName }),
  files: [],
  example: { group: 'deployers' },
  current: async ({ group }, host) => ({ exists: (await host.groups()).some((g) => g.name === group) }),
  check: ({ group }, cur) => {
    refuseProtectedGroup(group);
    if (cur.exists) return unchanged(`a group named ${group} already exists`);
  },
  preview: ({ group }) => ({
    summary: `Create group ${group}`,
    change: { files_changed: ['/etc/group', '/etc/gshadow'], adds_group: group, gid: 'next free gid from 1000', members: [] },
  }),
  mechanism: ({ group }) => [command('groupadd', ['--', group], { undo: command('groupdel', ['--', group]) })],
  effects: ({ group }) => [{ kind: 'group', group }],
});

/** A group's line in a colon-separated file's text, or null. */
const lineOf = (text: string | null, name: string) => (text ?? '').split('\n').find((l) => l.startsWith(`${name}:`)) ?? null;

export const deleteGroup = action({
  name: 'DeleteGroup',
  family: 'users',
  description: "Delete a local group that is no user's primary group (never a protected or system group).",
  risk: 'high',
  readOnly: false,
  // groupadd puts the group back with its gid, gpasswd -M its members: the same lines, now at the ends of the files.
  rollback: compensating('CreateGroup', ({ group }: { group: string }) => groupLines(group)),
  runsPrograms: false,
  params: params({ group: groupName }),
  files: [],
  example: { group: 'deployers' },
  current: async ({ group }, host) => {
    const g = await requireGroup(host, group);
    const users = await host.users();
    const known = new Set(users.map((u) => u.name));
    const members = g.members.join(',');
    // What the undo makes again is exactly these two lines; the gshadow line is compared, never kept or shown (it may hold a hash).
    const asMade = lineOf(await host.readFile(GROUP), group) === `${group}:x:${g.gid}:${members}` && lineOf(await host.readFile(GSHADOW), group) === `${group}:!::${members}`;
    return { group: g, primaryOf: users.filter((u) => u.gid === g.gid).map((u) => u.name), unknownMembers: g.members.filter((m) => !known.has(m)), asMade };
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
    warnings: [
      ...(cur.group.members.length ? [`${cur.group.members.join(', ')} lose membership of ${group}`] : []),
      ...(cur.unknownMembers.length ? [`members without an account (${cur.unknownMembers.join(', ')}) are not listed again by a revert`] : []),
      ...(cur.asMade ? [] : [`${group}'s entry holds more than groupadd writes (a group password or administrators in /etc/gshadow): a revert makes the group again without it`]),
    ],
  }),
  // The members leave first, so that the undos, last first, make the group again and then set its
  // member list in both files (groupadd -U would list them in /etc/group only).
  mechanism: ({ group }, cur) => {
    const members = cur.group.members.filter((m) => !cur.unknownMembers.includes(m));
    return [
      ...(cur.group.members.length ? [setMembers([], group, setMembers(members, group))] : []),
      command('groupdel', ['--', group], { undo: command('groupadd', ['-g', String(cur.group.gid), '--', group]) }),
    ];
  },
});
