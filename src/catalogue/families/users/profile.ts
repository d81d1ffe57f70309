/** The account's entry in /etc/passwd: its login shell and its comment (GECOS) field. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type PasswdEntry, unchanged } from '../../action.js';
import { gecos, loginShell, params, userName } from '../../params.js';
import { requireUser } from '../../lib/accounts.js';
import { refuseProtectedUser } from './refusals.js';
import { usermod } from './usermod.js';
import { exactPasswdLine } from './account-state.js';

const interactive = (shell: string) => !/\/(nologin|false)$/.test(shell);

export const setUserShell = action({
  name: 'SetUserShell',
  family: 'users',
  description: "Change a user's login shell to one of a fixed list (nologin and false refuse interactive logins).",
  risk: 'high',
  rollback: exactPasswdLine,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, shell: loginShell }),
  files: [],
  example: { user: 'deploy', shell: '/usr/sbin/nologin' },
  current: async ({ user, shell }, host) => ({ user: await requireUser(host, user), shellPresent: (await host.stat(shell)) !== null }),
  check: ({ user, shell }, cur) => {
    refuseProtectedUser(cur.user);
    if (cur.user.shell === shell) return unchanged(`${user}'s shell is already ${shell}`);
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

export const setUserComment = action({
  name: 'SetUserComment',
  family: 'users',
  description: "Set a user's comment (the GECOS field of /etc/passwd, often the full name) with usermod --comment; an empty comment clears it.",
  risk: 'medium',
  rollback: exactPasswdLine,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, comment: gecos }),
  files: [],
  example: { user: 'deploy', comment: 'Deploy bot' },
  current: ({ user }, host) => requireUser(host, user),
  check: ({ user, comment }, u: PasswdEntry) => {
    if (u.uid === 0) throw new AirlockError('authorization', 'protected_account', `${user} has uid 0: root's entry in /etc/passwd is not changed through Airlock`, 'a person changes it by hand');
    if (u.gecos === comment) return unchanged(`${user}'s comment is already ${JSON.stringify(comment)}`);
  },
  preview: ({ user, comment }, u) => ({
    summary: comment === '' ? `Clear the comment of ${user}` : `Set the comment of ${user} to ${JSON.stringify(comment)}`,
    change: { file: '/etc/passwd', user, comment: { from: u.gecos, to: comment } },
    sideEffects: ['finger, getent and mail clients show the new comment; nothing else reads it'],
    // Debian's adduser writes "Full Name,Room,Work phone,Home phone": the whole field is replaced.
    warnings: u.gecos.includes(',') ? [`the old comment has comma-separated parts (${u.gecos}); all of them are replaced`] : [],
  }),
  mechanism: ({ user, comment }, u) => [usermod(['--comment', comment], user, usermod(['--comment', u.gecos], user))],
});
