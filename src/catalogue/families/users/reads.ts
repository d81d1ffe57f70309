/** Reads of the account databases: the users, the groups, one user's ids. */
import { action } from '../../action.js';
import { command, fileScan } from '../../mechanism.js';
import { params, userName } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { requireUser } from '../../lib/accounts.js';

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
