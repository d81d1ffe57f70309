/** Who is logged in now (utmp) and when each account last logged in (lastlog). */
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, userName } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { requireUser } from '../../lib/accounts.js';

// Who rather than loginctl: without pam_systemd (containers, minimal installs) logind registers no
// session at all, while every terminal login, local or over SSH, is in utmp.
export const listSessions = fixedRead({
  name: 'ListSessions',
  // Sensitive: who is logged in now, on which terminal, from which remote host.
  sensitive: true,
  reachesNetwork: false,
  family: 'users',
  description: 'List who is logged in now (who, from utmp): user, terminal, login time, idle time, login process and remote host.',
  summary: 'List the users logged in now (who)',
  steps: [command('who', ['--heading', '--users'])],
});

export const lastLogins = action({
  name: 'LastLogins',
  family: 'users',
  // Medium: it tells when and from where other people log in.
  description: 'Show when and from where each account (or one user) last logged in (lastlog, from /var/log/lastlog).',
  risk: 'medium',
  readOnly: true,
  // Sensitive: other users' logins and where they came from.
  sensitive: true,
  reachesNetwork: false,
  params: params({ user: userName.optional() }),
  files: [],
  example: { user: 'deploy' },
  current: async ({ user }, host) => (user === undefined ? null : requireUser(host, user)),
  preview: ({ user }) => ({ summary: user === undefined ? 'Show the last login of every account' : `Show the last login of ${user}`, change: null }),
  // The user is the argument of --user (lastlog also takes a uid range there; the validator admits names only).
  mechanism: ({ user }) => [command('lastlog', user === undefined ? [] : ['--user', user])],
});
