/**
 * Journal queries (family 'logging'): lines of the whole system journal or of one unit,
 * and the kernel's messages of this boot, filtered by priority and start time from a
 * fixed vocabulary.
 */
import { z } from 'zod';
import { action, nothingToRead } from '../../action.js';
import { command } from '../../mechanism.js';
import { boundedString, params, unitName } from '../../params.js';

export const PRIORITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

/**
 * At most 2000 lines: the daemon releases at most MAX_OUTPUT_LINES (2000) lines of output
 * per job (src/daemon/output.ts), so a larger count would only come back truncated.
 */
export const MAX_QUERY_LINES = 2000;
export const journalQueryLines = z.number().int().min(1).max(MAX_QUERY_LINES);

const SINCE_FORMS = /^(?:today|yesterday|-[1-9][0-9]{0,3}(?:s|min|h|d|w)|(\d{4})-(\d\d)-(\d\d)(?:[ T]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(Z)?)?)$/;

function realDate(s: string): boolean {
  const m = SINCE_FORMS.exec(s);
  if (!m?.[1]) return true; // a keyword or a relative time
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${day}T00:00:00Z`);
  return Number(m[1]) >= 1970 && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(day);
}

/**
 * journalctl --since, from a fixed vocabulary: `today`, `yesterday`, a relative time
 * `-N` + s|min|h|d|w (e.g. -1h, -30min), or a date YYYY-MM-DD with an optional time
 * HH:MM[:SS] (space or T; host local time, or UTC with a final Z). It is passed as one
 * `--since=VALUE` argument, so the leading '-' of a relative time is never an option.
 */
export const journalSince = boundedString(25, 'since must be at most 25 characters')
  .refine((s) => SINCE_FORMS.test(s), 'since must be today, yesterday, -N followed by s, min, h, d or w (e.g. -1h, -30min), or YYYY-MM-DD[ HH:MM[:SS]] (T and a final Z allowed)')
  .refine(realDate, 'since names a date that does not exist');

/** The form systemd 252 parses: no T separator, UTC spelt out. */
export const sinceArgument = (since: string) => `--since=${since.replace('T', ' ').replace(/Z$/, ' UTC')}`;

export const journalQuery = action({
  name: 'JournalQuery',
  family: 'logging',
  description: `Read journal lines (1 to ${MAX_QUERY_LINES}) of the whole system or of one unit, optionally filtered by priority and start time, with ISO timestamps.`,
  // Medium: the whole journal holds what sudo ran (COMMAND= lines with their arguments), failed
  // logins (a password typed as a user name), kernel and audit messages; Debian lets only the
  // adm and systemd-journal groups read it. Risk is per action, not per parameter, so it is
  // medium even with a unit; UnitLogs (services) is the low read of one service's lines.
  risk: 'medium',
  readOnly: true,
  // Sensitive: journal lines of the whole system.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName.optional(), priority: z.enum(PRIORITIES).optional(), since: journalSince.optional(), lines: journalQueryLines }),
  files: [],
  example: { unit: 'ssh.service', priority: 'warning', since: '-1h', lines: 200 },
  current: nothingToRead,
  preview: ({ unit, priority, since, lines }) => ({
    summary: [
      since ? `Read the first ${lines} journal lines since ${since}` : `Read the last ${lines} journal lines`,
      unit ? `of ${unit}` : 'of the whole system journal',
      ...(priority ? [`at priority ${priority} or more severe`] : []),
    ].join(' '),
    change: null,
    warnings: unit ? [] : ['the whole system journal may hold secrets that programs logged (command lines run through sudo, mistyped passwords in login failures)'],
  }),
  mechanism: ({ unit, priority, since, lines }) => [
    command('journalctl', [
      '--no-pager',
      '-o',
      'short-iso',
      '-n',
      String(lines),
      ...(unit ? ['-u', unit] : []),
      ...(priority ? ['-p', priority] : []),
      ...(since ? [sinceArgument(since)] : []),
    ]),
  ],
});

export const kernelMessages = action({
  name: 'KernelMessages',
  family: 'logging',
  description: `Read the last kernel messages (1 to ${MAX_QUERY_LINES}) of the running boot from the journal, optionally at a priority or more severe, with ISO timestamps (journalctl --dmesg).`,
  // Medium: Debian sets kernel.dmesg_restrict=1, so only root reads the kernel log. It holds
  // device serial numbers, kernel addresses and the packets a firewall logs (who connected from where).
  risk: 'medium',
  readOnly: true,
  // Sensitive: kernel log lines.
  sensitive: true,
  reachesNetwork: false,
  params: params({ lines: journalQueryLines, priority: z.enum(PRIORITIES).optional() }),
  files: [],
  example: { lines: 200, priority: 'warning' as const },
  current: nothingToRead,
  preview: ({ lines, priority }) => ({
    summary: `Read the last ${lines} kernel messages of this boot${priority ? ` at priority ${priority} or more severe` : ''}`,
    change: null,
  }),
  mechanism: ({ lines, priority }) => [command('journalctl', ['--dmesg', '--no-pager', '-o', 'short-iso', '-n', String(lines), ...(priority ? ['-p', priority] : [])])],
});
