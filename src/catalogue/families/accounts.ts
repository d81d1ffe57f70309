/**
 * Actions that round out four families; each declares its own family:
 *   users      per-account password ageing (chage), the comment (GECOS) field, who is logged in and when each account last was;
 *   privilege  a check of the whole sudo policy (visudo --check);
 *   ssh        a check of sshd's configuration (sshd -t) and the SSH connections open now;
 *   identity   the clock as systemd-timedated sees it, and the pretty host name (systemd-hostnamed).
 * Changes go through the tool that owns the data (chage, usermod, hostnamectl), never by editing
 * its files, and every change step carries the command that puts the previous value back.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host, type PasswdEntry } from '../action.js';
import { command, type CommandStep } from '../mechanism.js';
import { days, gecos, params, token, userName } from '../params.js';
import { readTimeState } from './locale.js';
import { readSudo, refuseWithoutSudo } from './privilege.js';
import { parseEffective, refuseWithoutSshd, SSHD_CONFIG } from './sshd.js';
import { account, refuseProtectedUser, shadowOf, today, toDate, usermod } from './users.js';
import { fixedRead } from '../lib/fixed-read.js';
import { requireUser } from '../lib/accounts.js';

const SHADOW = '/etc/shadow';
/** Debian's ssh.service creates it at start; sshd -t and -T refuse to run without it. */
const SSHD_PRIVSEP_DIR = '/run/sshd';
/** At most this many diagnostic lines of a check are quoted in a preview. */
const MAX_DIAGNOSTICS = 10;

// ================================================================ users: password ageing

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
  const fields = shadow
    .split('\n')
    .map((l) => l.split(':'))
    .find((f) => f[0] === name && f.length >= 8);
  if (!fields) return null;
  const aging: Record<string, number | null | undefined> = {};
  for (const [key, i] of Object.entries(AGING_FIELDS)) aging[key] = dayField(fields[i]);
  return Object.values(aging).includes(undefined) ? null : (aging as unknown as Aging);
}

/** users.ts's account state (passwd entry, lock facts) plus the ageing fields and today's day number. */
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
  rollback: true,
  readOnly: false,
  params: agingParams,
  files: [],
  example: { user: 'deploy', maxdays: 90, warndays: 14 },
  current: ({ user }, host) => agingAccount(host, user),
  shown: showAging,
  check: (p, cur) => {
    const now = agingOf(cur);
    if (agingChanges(p, now).length === 0) throw new AirlockError('conflict', 'no_change', `${p.user}'s password ageing already has these values`);
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
  rollback: true,
  readOnly: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: ({ user }, host) => agingAccount(host, user),
  shown: showAging,
  check: ({ user }, cur) => {
    if (agingOf(cur).lastday === 0) throw new AirlockError('conflict', 'already_forced', `${user} must already change the password at the next login`);
    const shadow = shadowOf(cur);
    if (shadow.locked || !shadow.hasPassword) {
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

// ================================================================ users: comment, sessions, logins

export const setUserComment = action({
  name: 'SetUserComment',
  family: 'users',
  description: "Set a user's comment (the GECOS field of /etc/passwd, often the full name) with usermod --comment; an empty comment clears it.",
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ user: userName, comment: gecos }),
  files: [],
  example: { user: 'deploy', comment: 'Deploy bot' },
  current: ({ user }, host) => requireUser(host, user),
  check: ({ user, comment }, u: PasswdEntry) => {
    if (u.uid === 0) throw new AirlockError('authorization', 'protected_account', `${user} has uid 0: root's entry in /etc/passwd is not changed through Airlock`, 'a person changes it by hand');
    if (u.gecos === comment) throw new AirlockError('conflict', 'no_change', `${user}'s comment is already ${JSON.stringify(comment)}`);
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

// ================================================================ privilege and ssh: configuration checks

/**
 * The lines of a checker's stderr worth quoting: those `keep` accepts, at most MAX_DIAGNOSTICS,
 * each cut to 300 characters; the exit status when none is.
 */
function diagnostics(r: { code: number; stderr: string }, keep: RegExp): string[] {
  if (r.code === 0) return [];
  const lines = r.stderr.split('\n').filter((l) => keep.test(l)).slice(0, MAX_DIAGNOSTICS).map((l) => l.slice(0, 300));
  return lines.length ? lines : [`exit status ${r.code}, no diagnosis`];
}

/** visudo's own diagnoses: `FILE:LINE:COL: message` or `FILE: message`. Not the policy line it echoes after a syntax error, nor the caret under it. */
const VISUDO_DIAGNOSIS = /^\/[^\s:]+:(\d+:\d+:)? \S/;

export const validateSudoers = action({
  name: 'ValidateSudoers',
  family: 'privilege',
  description: 'Check the whole sudo policy (/etc/sudoers and every file it includes) with visudo --check: syntax, ownership and modes. Succeeds when sudo would accept it; fails with the first error otherwise.',
  risk: 'low',
  readOnly: true,
  // Sensitive: visudo quotes the offending sudoers line when the policy has a syntax error.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const sudo = await readSudo(host, false);
    return { sudo, problems: sudo.installed ? diagnostics(await host.run('visudo', ['--check']), VISUDO_DIAGNOSIS) : [] };
  },
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: (_p, cur) => ({
    summary: 'Check the whole sudo policy with visudo --check',
    change: null,
    // File, line and message only: the preview quotes no policy text.
    warnings: cur.problems.map((p) => `visudo reports now: ${p}`),
  }),
  mechanism: () => [command('visudo', ['--check'])],
});

const sshdInstalled = async (host: Host): Promise<boolean> => (await host.stat(SSHD_CONFIG)) !== null;
const privsepWarning = (missing: boolean) =>
  missing ? [`${SSHD_PRIVSEP_DIR} is missing (ssh.service creates it when it starts): sshd refuses to check its configuration without it; StartService ssh.service first`] : [];

export const testSshdConfig = action({
  name: 'TestSshdConfig',
  family: 'ssh',
  description: "Check the SSH server's configuration and host keys with sshd -t, as a reload would read them. Succeeds when sshd accepts it; fails with sshd's error otherwise.",
  risk: 'low',
  readOnly: true,
  // Sensitive: sshd -t quotes the configuration lines it cannot accept.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const installed = await sshdInstalled(host);
    return {
      installed,
      // sshd's messages name the file, the line and the keyword or value it rejects; its configuration holds no secrets.
      problems: installed ? diagnostics(await host.run('sshd', ['-t']), /\S/) : [],
      privsepMissing: installed && (await host.stat(SSHD_PRIVSEP_DIR)) === null,
    };
  },
  check: (_p, cur) => refuseWithoutSshd(cur.installed),
  preview: (_p, cur) => ({
    summary: 'Check the SSH server configuration with sshd -t',
    change: null,
    warnings: [...cur.problems.map((p) => `sshd -t reports now: ${p}`), ...privsepWarning(cur.privsepMissing)],
  }),
  mechanism: () => [command('sshd', ['-t'])],
});

const SSH_PORT = 22;
const MAX_PORTS = 16;

/** The ports sshd listens on, from `sshd -T`: every `port` line and the port of every `listenaddress`. */
export function sshdPorts(effective: Map<string, string[]>): number[] {
  const listen = (effective.get('listenaddress') ?? []).map((a) => /:(\d+)$/.exec(a)?.[1] ?? '');
  const ports = [...(effective.get('port') ?? []), ...listen].filter((p) => /^[0-9]{1,5}$/.test(p)).map(Number).filter((n) => n >= 1 && n <= 65535);
  return [...new Set(ports)].sort((a, b) => a - b).slice(0, MAX_PORTS);
}

/**
 * ss's selection of sockets whose local port is one of `ports`: `( sport = :22 or sport = :2222 )`.
 * ss has no selection by process, and its expression is the only way to keep other connections
 * out of the output; this one is built from fixed words and numbers sshd reported, never from a parameter.
 */
export function localPortFilter(ports: number[]): string[] {
  return ['(', ...ports.flatMap((p, i) => [...(i > 0 ? ['or'] : []), 'sport', '=', `:${p}`]), ')'];
}

export const listSshSessions = action({
  name: 'ListSshSessions',
  family: 'ssh',
  // Medium: it shows who is connected and from which addresses.
  description: "List the SSH connections open now: established TCP connections to sshd's ports with the sshd processes serving them (ss), then the sshd processes with the user each one serves (ps).",
  risk: 'medium',
  readOnly: true,
  // Sensitive: other users' SSH connections and the addresses they come from.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const installed = await sshdInstalled(host);
    const t = installed ? await host.run('sshd', ['-T']) : null;
    const ports = t?.code === 0 ? sshdPorts(parseEffective(t.stdout)) : [];
    return { installed, portsKnown: ports.length > 0, ports: ports.length ? ports : [SSH_PORT], privsepMissing: installed && (await host.stat(SSHD_PRIVSEP_DIR)) === null };
  },
  check: (_p, cur) => refuseWithoutSshd(cur.installed),
  preview: (_p, cur) => ({
    summary: `List the SSH connections open now (sshd port${cur.ports.length > 1 ? 's' : ''} ${cur.ports.join(', ')})`,
    change: null,
    warnings: cur.portsKnown ? [] : [`sshd -T could not say which ports sshd listens on, so connections to port ${SSH_PORT} are listed`, ...privsepWarning(cur.privsepMissing)],
  }),
  mechanism: (_p, cur) => [
    command('ss', ['-H', '-t', '-n', '-p', 'state', 'established', ...localPortFilter(cur.ports)]),
    // OpenSSH 9.8 and later serve each connection from a separate sshd-session process; ps exits 1 when none runs.
    command('ps', ['-C', 'sshd,sshd-session', '-o', 'pid=,user:32=,lstart=,args='], { okCodes: [0, 1] }),
  ],
});

// ================================================================ identity: clock and pretty host name

export const timeStatus = action({
  name: 'TimeStatus',
  family: 'identity',
  description: 'Show the clock as systemd-timedated sees it (timedatectl show): time zone, local time, whether the RTC keeps local time, NTP on and synchronised.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readTimeState(host),
  preview: (_p, cur) => ({ summary: `Show the clock (time zone ${cur.timezone || 'unknown'}, NTP ${cur.ntp ? 'on' : 'off'}, ${cur.synchronized ? '' : 'not '}synchronised)`, change: null }),
  mechanism: () => [command('timedatectl', ['show'])],
});

/** A pretty host name: words of letters, digits and . _ ' - separated by single spaces. */
export const prettyHostname = token(/^[A-Za-z0-9._'-]+( [A-Za-z0-9._'-]+)*$/, "pretty host name (letters, digits, . _ ' - and single spaces between words)", 64);

export const setPrettyHostname = action({
  name: 'SetPrettyHostname',
  family: 'identity',
  description: "Set the host's pretty name (free-form, e.g. \"Web server 1\") through systemd-hostnamed, which keeps it as PRETTY_HOSTNAME in /etc/machine-info; the host name itself is not changed.",
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ pretty: prettyHostname }),
  files: [],
  example: { pretty: 'Web server 1' },
  current: async (_p, host) => {
    const r = await host.run('hostnamectl', ['--pretty', 'status']);
    // hostnamectl prints the name and a newline; spaces inside and around it are part of it.
    return r.code === 0 ? { pretty: r.stdout.replace(/\n$/, ''), error: '' } : { pretty: null, error: r.stderr.trim().split('\n').pop()?.slice(0, 200) ?? '' };
  },
  check: ({ pretty }, cur) => {
    if (cur.pretty === null) {
      throw new AirlockError('execution', 'hostnamed_unreachable', `hostnamectl could not read the pretty host name (${cur.error || 'no error text'}), so it could not be put back`, 'is systemd the init system, with dbus running?');
    }
    if (cur.pretty === pretty) throw new AirlockError('conflict', 'no_change', `the pretty host name is already ${JSON.stringify(pretty)}`);
  },
  preview: ({ pretty }, cur) => ({
    summary: `Set the pretty host name from ${cur.pretty ? JSON.stringify(cur.pretty) : '(none)'} to ${JSON.stringify(pretty)}`,
    change: { pretty_hostname: { from: cur.pretty, to: pretty }, file: '/etc/machine-info', text: 'systemd-hostnamed writes PRETTY_HOSTNAME= in /etc/machine-info; /etc/hostname and the running host name stay as they are' },
    sideEffects: ['hostnamectl and desktop or network browsers that ask systemd-hostnamed show the new name'],
  }),
  mechanism: ({ pretty }, cur) => [
    command('hostnamectl', ['set-hostname', '--pretty', '--', pretty], { undo: command('hostnamectl', ['set-hostname', '--pretty', '--', cur.pretty ?? '']) }),
  ],
});
