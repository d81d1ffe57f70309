/** Whether and how a user may log in: the password lock (usermod -L/-U) and the account expiry (chage -E). */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { calendarDate, params, userName } from '../../params.js';
import { refuseProtectedUser } from './refusals.js';
import { account, shadowOf, today, toDate, toDays } from './shadow.js';
import { usermod } from './usermod.js';
import { exactShadowLine } from './account-state.js';

const expiryText = (days: number | null) => (days === null ? 'never' : toDate(days));
const setExpiry = (user: string, days: number | null, undo?: CommandStep): CommandStep =>
  command('chage', ['-E', days === null ? '-1' : toDate(days), '--', user], undo ? { undo } : {});

export const lockUser = action({
  name: 'LockUser',
  family: 'users',
  description: "Lock a user's password (usermod -L): password logins are refused; SSH key logins are not.",
  risk: 'high',
  rollback: exactShadowLine,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => account(host, user),
  check: ({ user }, cur) => {
    refuseProtectedUser(cur.user);
    const shadow = shadowOf(cur);
    if (shadow.locked) return unchanged(`${user}'s password is already locked${shadow.hasPassword ? '' : ' (it has no password at all)'}`);
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
  rollback: exactShadowLine,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => account(host, user),
  check: ({ user }, cur) => {
    refuseProtectedUser(cur.user);
    const shadow = shadowOf(cur);
    if (!shadow.locked) return unchanged(`${user}'s password is not locked`);
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

export const setAccountExpiry = action({
  name: 'SetAccountExpiry',
  family: 'users',
  description: "Set the date from which every login of a user is refused (SSH keys included), or 'never'.",
  risk: 'high',
  rollback: exactShadowLine,
  readOnly: false,
  runsPrograms: false,
  params: params({
    user: userName,
    date: z.union([z.literal('never'), calendarDate.refine((d) => d > '1970-01-01', 'date must be after 1970-01-01')]),
  }),
  files: [],
  example: { user: 'contractor', date: '2031-06-30' },
  current: async ({ user }, host) => ({ ...(await account(host, user)), today: today() }),
  check: ({ user, date }, cur) => {
    refuseProtectedUser(cur.user);
    if (expiryText(shadowOf(cur).expires) === date) return unchanged(`${user}'s account expiry is already ${date}`);
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
