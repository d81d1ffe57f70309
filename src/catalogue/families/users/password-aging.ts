/**
 * Password ageing (chage): what /etc/shadow's ageing fields say, setting them, and forcing
 * a change at the next login. Every change step carries the chage that puts the old values back.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { days, params, userName } from '../../params.js';
import { forcedChangeLocksOut } from '../../lib/guards.js';
import { requireUser } from '../../lib/accounts.js';
import { refuseProtectedUser } from './refusals.js';
import { account, SHADOW, shadowFields, shadowOf, today, toDate } from './shadow.js';
import { exactShadowLine } from './account-state.js';

/** The chage options SetPasswordAging takes, named as chage's long options. */
const AGING_OPTIONS = ['mindays', 'maxdays', 'warndays', 'inactive'] as const;
type AgingOption = (typeof AGING_OPTIONS)[number];

/** The ageing fields of a user's /etc/shadow line, in days; null where the field is empty (no limit). */
export interface Aging {
  /** Day of the last password change (days since 1970-01-01); 0 means "must change at the next login". */
  lastday: number | null;
  mindays: number | null;
  maxdays: number | null;
  warndays: number | null;
  inactive: number | null;
}

/** /etc/shadow field numbers (0 is the name; 1, the hash, is never kept). */
const AGING_FIELDS: Record<keyof Aging, number> = { lastday: 2, mindays: 3, maxdays: 4, warndays: 5, inactive: 6 };

/** A day count as /etc/shadow holds it: empty (or -1, as chage writes it back) is no value; anything else is malformed. */
function dayField(f: string | undefined): number | null | undefined {
  if (f === '' || f === '-1') return null;
  return f !== undefined && /^[0-9]{1,7}$/.test(f) ? Number(f) : undefined;
}

/** The ageing fields of `name` in /etc/shadow's text, or null when it has no well-formed line. */
export function parseAging(shadow: string, name: string): Aging | null {
  const fields = shadowFields(shadow, name);
  if (!fields) return null;
  const aging: Record<string, number | null | undefined> = {};
  for (const [key, i] of Object.entries(AGING_FIELDS)) aging[key] = dayField(fields[i]);
  return Object.values(aging).includes(undefined) ? null : (aging as unknown as Aging);
}

/** The account state of ./shadow.ts (passwd entry, lock facts) plus the ageing fields and today's day number. */
async function agingAccount(host: Host, name: string) {
  const base = await account(host, name);
  return { ...base, aging: parseAging((await host.readFile(SHADOW)) ?? '', name), today: today() };
}
type AgingAccount = Awaited<ReturnType<typeof agingAccount>>;

/** What a preview shows of that state: the ageing numbers, not the lock facts or anything else of /etc/shadow. */
const showAging = (cur: AgingAccount) => ({ user: cur.user.name, uid: cur.user.uid, aging: cur.aging });

/** The protected-account refusal first, then one for a missing or malformed /etc/shadow line. */
function agingOf(cur: AgingAccount): Aging {
  refuseProtectedUser(cur.user);
  shadowOf(cur);
  if (!cur.aging) throw new AirlockError('conflict', 'no_shadow_entry', `${cur.user.name}'s /etc/shadow line has malformed ageing fields`, 'repair the account databases (pwck) by hand first');
  return cur.aging;
}

const dayText = (n: number | null) => (n === null ? 'not set' : n);
const lastdayText = (n: number | null) => (n === null ? 'not set' : n === 0 ? 'must change at the next login' : toDate(n));

/** `chage --OPTION N ... -- USER`; a null value is -1, which empties the field again. */
const chage = (values: Array<[keyof Aging, number | null]>, user: string, undo?: CommandStep): CommandStep =>
  command('chage', [...values.flatMap(([o, v]) => [`--${o}`, v === null ? '-1' : String(v)]), '--', user], undo ? { undo } : {});

/** Which logins the ageing refuses today, said for a person. */
function agingWarnings(user: string, a: Aging, day: number): string[] {
  if (a.lastday === 0) return [`${user} must already change the password at the next login`];
  if (a.lastday === null || a.maxdays === null || a.maxdays >= 99999) return [];
  const expired = a.lastday + a.maxdays;
  if (expired > day) return [];
  if (a.inactive !== null && expired + a.inactive <= day) {
    return [`${user}'s password expired on ${toDate(expired)} and the ${a.inactive}-day grace period is over: every login, SSH keys included, is refused until a person sets a new password`];
  }
  return [`${user}'s password expired on ${toDate(expired)}: the next login, SSH keys included, must change it first, and logins without a terminal (scp, rsync, automation) are refused until then`];
}

export const showPasswordAging = action({
  name: 'ShowPasswordAging',
  family: 'users',
  // Low: dates and day counts of the ageing policy, no password material (chage -l never prints the hash).
  description: "Show a user's password ageing (chage --list): last change, expiry, inactivity, account expiry, minimum and maximum days, warning days.",
  risk: 'low',
  readOnly: true,
  // Sensitive: a user's password ageing (shadow data).
  sensitive: true,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => requireUser(host, user),
  preview: ({ user }) => ({ summary: `Show the password ageing of ${user}`, change: null }),
  mechanism: ({ user }) => [command('chage', ['--list', '--iso8601', '--', user])],
});

const agingParams = params({
  user: userName,
  mindays: days(0, 99999).optional(),
  maxdays: days(1, 99999).optional(),
  warndays: days(0, 365).optional(),
  inactive: days(0, 99999).optional(),
}).refine((p) => AGING_OPTIONS.some((o) => p[o] !== undefined), 'give at least one of mindays, maxdays, warndays, inactive');
type AgingParams = z.infer<typeof agingParams>;

/** The options asked for whose value differs from /etc/shadow's, in a fixed order. */
function agingChanges(p: AgingParams, now: Aging): Array<{ option: AgingOption; from: number | null; to: number }> {
  return AGING_OPTIONS.flatMap((option) => {
    const to = p[option];
    return to === undefined || now[option] === to ? [] : [{ option, from: now[option], to }];
  });
}
const agingAfter = (p: AgingParams, now: Aging): Aging => ({ ...now, ...Object.fromEntries(AGING_OPTIONS.filter((o) => p[o] !== undefined).map((o) => [o, p[o]!])) });

export const setPasswordAging = action({
  name: 'SetPasswordAging',
  family: 'users',
  description: "Set a user's password ageing with chage: minimum days between changes (0-99999), maximum days a password is valid (1-99999), warning days (0-365), days after expiry before the account is disabled (0-99999).",
  risk: 'high',
  rollback: exactShadowLine,
  readOnly: false,
  runsPrograms: false,
  params: agingParams,
  files: [],
  example: { user: 'deploy', maxdays: 90, warndays: 14 },
  current: ({ user }, host) => agingAccount(host, user),
  shown: showAging,
  check: (p, cur) => {
    const now = agingOf(cur);
    if (agingChanges(p, now).length === 0) return unchanged(`${p.user}'s password ageing already has these values`);
    const after = agingAfter(p, now);
    if (after.mindays !== null && after.maxdays !== null && after.mindays > after.maxdays) {
      throw new AirlockError('validation', 'min_above_max', `mindays ${after.mindays} would exceed maxdays ${after.maxdays}: ${p.user} could never change the password before it expires`, 'lower mindays or raise maxdays');
    }
  },
  preview: (p, cur) => {
    const now = agingOf(cur);
    const changes = agingChanges(p, now);
    const after = agingAfter(p, now);
    return {
      summary: `Set the password ageing of ${p.user}: ${changes.map((c) => `${c.option} ${dayText(c.from)} -> ${c.to}`).join(', ')}`,
      change: { file: SHADOW, user: p.user, set: changes.map(({ option, from, to }) => ({ option, from: dayText(from), to })) },
      sideEffects: ['applies from the next login or password change; open sessions are not affected'],
      warnings: [
        ...agingWarnings(p.user, after, cur.today),
        ...(after.warndays !== null && after.maxdays !== null && after.warndays >= after.maxdays ? [`warndays ${after.warndays} is not below maxdays ${after.maxdays}: ${p.user} is warned from the day a password is set`] : []),
      ],
    };
  },
  mechanism: (p, cur) => {
    const changes = agingChanges(p, agingOf(cur));
    return [chage(changes.map((c) => [c.option, c.to]), p.user, chage(changes.map((c) => [c.option, c.from]), p.user))];
  },
});

export const forcePasswordChange = action({
  name: 'ForcePasswordChange',
  family: 'users',
  description: 'Expire a user\'s password (chage --lastday 0) so that the next login must choose a new one before it gets a shell.',
  risk: 'high',
  rollback: exactShadowLine,
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => agingAccount(host, user),
  shown: showAging,
  check: ({ user }, cur) => {
    if (agingOf(cur).lastday === 0) return unchanged(`${user} must already change the password at the next login`);
    const shadow = shadowOf(cur);
    if (forcedChangeLocksOut(shadow)) {
      // pam_unix asks for the current password first: with none (or a locked one) the change cannot succeed, so every login would fail.
      throw new AirlockError(
        'conflict',
        'no_usable_password',
        `${user}'s password is ${shadow.hasPassword ? 'locked' : 'not set'}: the change demanded at the next login could not succeed, so every login, SSH keys included, would be refused`,
        'give the account a usable password first (UnlockUser), or refuse logins on purpose with SetAccountExpiry',
      );
    }
  },
  preview: ({ user }, cur) => ({
    summary: `Make ${user} change the password at the next login`,
    change: { file: SHADOW, user, last_password_change: { from: lastdayText(agingOf(cur).lastday), to: lastdayText(0) } },
    sideEffects: [`the next login of ${user}, SSH keys included, asks for the current password and a new one before anything else; open sessions are not affected`],
    warnings: [`logins without a terminal (scp, rsync, git over SSH, automation) are refused until ${user} has changed the password in an interactive login`],
  }),
  mechanism: ({ user }, cur) => [chage([['lastday', 0]], user, chage([['lastday', agingOf(cur).lastday]], user))],
});
