/**
 * The one allowlist of command lines root runs later on the agent's behalf: a sudo grant,
 * a cron job, the commands of the service a timer starts (./agent-command.ts). One row per
 * program, by its real path, with the usage lines it may be run with (./command-grammar.ts).
 * Anything else is refused, and the refusal shows this table.
 *
 * What an administrator legitimately schedules or grants: restart a service, refresh or
 * upgrade packages, rotate logs, vacuum the journal, trim file systems, delete old files
 * under a data, cache, log or backup directory root owns, log a line, read disk and memory use. Left out on purpose:
 * every program that runs another (shells, interpreters, env, nice, timeout, cgexec, sudo,
 * su, runuser, setpriv, chroot, the loader, xargs; find -exec), and every option that runs
 * a program or writes a file the agent names (find -exec/-fprint, apt-get -o, logrotate
 * --state, journalctl --output-fields are simply not in a grammar). Copying programs (tar,
 * rsync, cp) are out too: run as root they read any file (/etc/shadow, private keys) and
 * write it where others may read it. A person writes any other rule, job or unit by hand.
 */
import type { ValueType } from './command-grammar.js';
import { parseGrammar, type Grammar } from './command-grammar.js';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LOG_DIR } from '../../protocol/defaults.js';

/**
 * The record no housekeeping job may delete from: Airlock's checkpoints, its own code (this
 * module's checkout, three levels up in src/ and in dist/ alike), the audit and journal logs.
 */
const EVIDENCE = [DEFAULT_LOG_DIR, fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, ''), '/var/log/audit', '/var/log/journal'];
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const DF_FIELD = '(source|fstype|itotal|iused|iavail|ipcent|size|used|avail|pcent|file|target)';
const PATH_SYNTAX = /^\/[A-Za-z0-9._/@+=:,-]{0,254}$/;

/** The parameter types of the usage lines below. A value never starts with '-' (command-grammar.ts). */
export const VALUE_TYPES = {
  /** A service by name; no template instance (systemd pastes the instance name into the unit's command lines). */
  SERVICE: {
    syntax: /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,200}\.service$/,
    describe: 'a service unit name (name.service, no template instance name@x.service)',
    sample: 'cron.service',
  },
  INT: { syntax: /^[0-9]{1,6}$/, describe: 'a whole number (at most 6 digits)', sample: '7' },
  SIZE: { syntax: /^[0-9]{1,6}[KMG]$/, describe: 'a size: a number and K, M or G', sample: '500M' },
  AGE: {
    syntax: /^[0-9]{1,6}(s|min|h|d|weeks|months|years)$/,
    describe: 'a time span: a number and s, min, h, d, weeks, months or years',
    sample: '2weeks',
  },
  TAG: { syntax: /^[A-Za-z0-9_.-]{1,32}$/, describe: 'a syslog tag: up to 32 letters, digits, _ . -', sample: 'airlock' },
  PRIORITY: {
    syntax: /^(user|daemon|cron|local[0-7])\.(emerg|alert|crit|err|warning|notice|info|debug)$/,
    describe: 'a syslog priority facility.level (user, daemon, cron, local0-7; emerg .. debug)',
    sample: 'user.info',
  },
  WORD: { syntax: /^[A-Za-z0-9_.,:=+@]{1,64}$/, describe: 'a word of a log message: letters, digits and _ . , : = + @', sample: 'ran' },
  FIELDS: {
    syntax: new RegExp(`^${DF_FIELD}(,${DF_FIELD}){0,11}$`),
    describe: 'df output fields separated by commas (source, fstype, size, used, avail, pcent, target, ...)',
    sample: 'source,size',
  },
  PATH: {
    syntax: PATH_SYNTAX,
    describe: 'an absolute path whose every directory only root can change (the trusted-path rule)',
    path: 'any',
    sample: '/srv',
  },
  DIR: {
    syntax: PATH_SYNTAX,
    describe: 'an existing directory that only root can change, under directories only root can change',
    path: 'dir',
    sample: '/srv',
  },
  /**
   * Where old files are deleted: data, caches, logs and backups, never the system's own trees (/etc, /usr,
   * /boot, /), nor what makes the record: Airlock's checkpoints and code, the audit and journal logs.
   */
  CLEANUP_DIR: {
    syntax: new RegExp(`^(?!(?:${EVIDENCE.map(escapeRegExp).join('|')})(?:/|$))/(srv|opt|var/cache|var/log|var/backups)(/[A-Za-z0-9._@+=:,-]{1,64}){1,8}$`),
    describe: `a directory below /srv, /opt, /var/cache, /var/log or /var/backups that only root can change, under directories only root can change; not in ${EVIDENCE.join(', ')}`,
    path: 'dir',
    sample: '/var/cache/apt',
  },
  LOGROTATE_CONF: {
    syntax: /^\/etc\/logrotate\.(conf|d\/[A-Za-z0-9_.-]{1,64})$/,
    describe: "/etc/logrotate.conf or a file in /etc/logrotate.d: root's own file, writable by root alone (its scripts run as root)",
    path: 'config',
    sample: '/etc/logrotate.conf',
  },
} as const satisfies Record<string, ValueType>;

export interface AgentProgram {
  /** The real path: no link on the way, one name (./agent-command.ts). */
  program: string;
  /** Its usage lines: the base name, then the arguments in the syntax of ./command-grammar.ts. */
  usage: readonly string[];
}

export const AGENT_PROGRAMS: readonly AgentProgram[] = [
  {
    program: '/usr/bin/systemctl',
    usage: ['systemctl [ --no-block ] start|stop|restart|try-restart|reload|reload-or-restart SERVICE...'],
  },
  {
    program: '/usr/bin/apt-get',
    usage: ['apt-get [ -q|-qq ] update', 'apt-get [ -q|-qq ] -y upgrade|dist-upgrade', 'apt-get [ -q|-qq ] clean|autoclean'],
  },
  { program: '/usr/sbin/logrotate', usage: ['logrotate [ --force ] [ --verbose ] LOGROTATE_CONF'] },
  {
    program: '/usr/bin/journalctl',
    usage: ['journalctl --rotate', 'journalctl --vacuum-size=SIZE', 'journalctl --vacuum-time=AGE', 'journalctl --vacuum-files=INT'],
  },
  { program: '/usr/sbin/fstrim', usage: ['fstrim [ --verbose ] --all', 'fstrim [ --verbose ] DIR'] },
  {
    program: '/usr/bin/find',
    usage: ['find CLEANUP_DIR [ -xdev ] [ -mindepth INT ] [ -maxdepth INT ] [ -type f|d ] -mtime|-mmin +INT -delete'],
  },
  { program: '/usr/bin/logger', usage: ['logger [ -t TAG ] [ -p PRIORITY ] WORD...'] },
  { program: '/usr/bin/df', usage: ['df [ -h ] [ --output=FIELDS ] [ PATH... ]'] },
  { program: '/usr/bin/free', usage: ['free [ -b|-k|-m|-g|-h ] [ -w ] [ -t ]'] },
  { program: '/usr/bin/uptime', usage: ['uptime [ -p|-s ]'] },
];

/** Each program's grammars, parsed once (a table error throws at load, and in the unit test). */
export const AGENT_GRAMMARS: ReadonlyMap<string, readonly Grammar[]> = new Map(
  AGENT_PROGRAMS.map((p) => [p.program, p.usage.map((u) => parseGrammar(u, VALUE_TYPES))]),
);

/** The table as a person reads it in a refusal (one line: messages are escaped for a terminal): each program and its usage lines. */
export function allowedText(): string {
  return AGENT_PROGRAMS.map((p) => `${p.program}: ${p.usage.join(' or ')}`).join('; ');
}

/** The types a program's usage lines name, with what each means. */
export function typesText(program: string): string {
  const usage = AGENT_PROGRAMS.find((p) => p.program === program)?.usage ?? [];
  const used = new Set(usage.flatMap((u) => [...u.matchAll(/[A-Z][A-Z_]*/g)].map((m) => m[0])));
  return Object.entries(VALUE_TYPES)
    .filter(([name]) => used.has(name))
    .map(([name, t]) => `${name} is ${t.describe}`)
    .join('; ');
}
