/**
 * What a scheduled job is made of (family 'scheduling'): its name, a cron schedule (five
 * fields or an @-schedule, checked field by field), the program a cron job runs, and a
 * systemd OnCalendar= expression. Each is an allowlist of characters cron's /bin/sh and
 * systemd read nothing into.
 */
import { absolutePath, token } from '../../params.js';

/** The NAME of airlock-NAME: a cron.d file name (run-parts rules: no dots) and a unit name alike. */
export const jobName = token(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'job name (lower-case letters, digits, - and _)', 40);

/** The @-schedules cron understands that this family accepts. */
export const CRON_MACROS = ['@reboot', '@hourly', '@daily', '@weekly', '@monthly', '@yearly'];

interface CronField {
  what: string;
  min: number;
  max: number;
  names?: string[];
}
const CRON_FIELDS: CronField[] = [
  { what: 'minute', min: 0, max: 59 },
  { what: 'hour', min: 0, max: 23 },
  { what: 'day of month', min: 1, max: 31 },
  { what: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { what: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/** Why one of the five fields is not cron syntax (`*`, `N`, `N-M`, each with an optional `/STEP`, comma lists, one name alone), or null. */
function cronFieldProblem(text: string, f: CronField): string | null {
  if (f.names?.includes(text.toLowerCase())) return null;
  const items = text.split(',');
  if (items.length > 60) return `${f.what} lists more than 60 items`;
  for (const item of items) {
    const m = /^(?:\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/.exec(item);
    if (!m) return `${f.what} "${item}" is not *, N or N-M (optionally with /STEP)${f.names ? `, nor a single three-letter name (${f.names[0]}, ${f.names[1]}, ...)` : ''}`;
    const [, lo, hi, step] = m;
    if (lo !== undefined) {
      const a = Number(lo);
      const b = hi === undefined ? a : Number(hi);
      if (a < f.min || b > f.max) return `${f.what} ${item} is outside ${f.min}-${f.max}`;
      if (a > b) return `${f.what} range ${item} runs backwards`;
      if (step !== undefined && hi === undefined) return `${f.what} "${item}": a step needs a range or *, as in */${step} or ${lo}-${f.max}/${step}`;
    }
    if (step !== undefined && (Number(step) < 1 || Number(step) > f.max)) return `${f.what} step /${step} is outside 1-${f.max}`;
  }
  return null;
}

/** Why a schedule is not one cron accepts, or null: five fields separated by single spaces, or an @-schedule. */
export function cronScheduleProblem(s: string): string | null {
  if (s.startsWith('@')) return CRON_MACROS.includes(s) ? null : `${s} is not one of ${CRON_MACROS.join(', ')}`;
  const fields = s.split(' ');
  if (fields.length !== 5) return 'a schedule is five fields separated by single spaces (minute hour day-of-month month day-of-week), or @hourly, @daily, ...';
  for (const [i, f] of fields.entries()) {
    const problem = cronFieldProblem(f, CRON_FIELDS[i]!);
    if (problem) return problem;
  }
  return null;
}

export const cronSchedule = token(/^[A-Za-z0-9*@/, -]+$/, 'cron schedule', 100).superRefine((s, ctx) => {
  const problem = cronScheduleProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * The program a job runs: an absolute, normalised path of letters, digits and / . _ -
 * only. Cron hands the line to /bin/sh; these characters mean nothing to it, nor do
 * those of its arguments (commandArgument: no space, quote, %, $, ; or other shell character).
 */
export const jobProgram = token(/^\/[A-Za-z0-9/._-]+$/, 'program (an absolute path of letters, digits and / . _ -)', 255).refine(
  (s) => absolutePath.safeParse(s).success,
  "program path must be normalised: no '..', '.', '//' or trailing '/'",
);

/** An OnCalendar= expression ("Mon..Fri *-*-* 03:00:00", "daily", "*:0/15", "Europe/Berlin" zones); systemd-analyze checks the rest. */
export const calendarExpression = token(/^[A-Za-z0-9*:/.,~_ -]+$/, 'calendar expression (systemd.time OnCalendar=)', 100)
  .refine((s) => !/\.\/|\/\./.test(s), "calendar expression must not hold './' or '/.'")
  .refine((s) => s.trim() === s && !s.includes('  '), 'calendar expression must not have leading, trailing or double spaces');
