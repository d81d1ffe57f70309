/** Rules of the scheduling family: cron jobs and systemd timers that Airlock creates. */
import { missing, rule, step, steps, takeUnit, takeUser } from '../rule.js';
import { type Clause } from '../words.js';

interface Schedule {
  cron: string;
  calendar: string;
}

/** "every night at 2:30", "daily", "hourly", "every 15 minutes", "every sunday at 4". */
function schedule(c: Clause): Schedule | null {
  const at = c.after(['at'], (t) => /^([01]?\d|2[0-3])(:[0-5]\d)?(am|pm)?$/.test(t.low));
  let hour = 0;
  let minute = 0;
  if (at !== null) {
    const m = /^(\d{1,2})(?::(\d{2}))?(am|pm)?$/.exec(at.toLowerCase())!;
    hour = Number(m[1]) % 24 + (m[3] === 'pm' && Number(m[1]) < 12 ? 12 : 0);
    minute = Number(m[2] ?? 0);
  }
  const hh = String(hour).padStart(2, '0');
  const mm = String(minute).padStart(2, '0');
  const minutes = c.before(['minutes', 'mins', 'min'], (t) => /^\d{1,2}$/.test(t.low));
  if (minutes !== null && Number(minutes) >= 1 && Number(minutes) <= 59) {
    c.take('every');
    return { cron: `*/${Number(minutes)} * * * *`, calendar: `*:0/${Number(minutes)}` };
  }
  if (c.takeAny(['hourly', 'every hour'])) return { cron: `${minute} * * * *`, calendar: `*-*-* *:${mm}:00` };
  if (c.takeAny(['weekly', 'every week', 'every sunday', 'sundays', 'on sundays'])) return { cron: `${minute} ${hour} * * 0`, calendar: `Sun *-*-* ${hh}:${mm}:00` };
  if (c.takeAny(['monthly', 'every month'])) return { cron: `${minute} ${hour} 1 * *`, calendar: `*-*-01 ${hh}:${mm}:00` };
  if (c.takeAny(['daily', 'every day', 'every night', 'nightly', 'each night', 'each day', 'every morning']) || at !== null) return { cron: `${minute} ${hour} * * *`, calendar: `*-*-* ${hh}:${mm}:00` };
  return null;
}

const NAME_PART = (s: string) => s.toLowerCase().replace(/\.(service|timer)$/, '').replace(/[^a-z0-9_-]/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40);

export const schedulingRules = [
  rule('scheduling.list-cron', [['cron', 'crontab', 'crontabs', 'cron jobs', 'cronjobs', 'scheduled jobs', 'scheduled tasks']], () => steps(step('ListCronJobs', {}, 'every cron job on this host')),
    { also: ['list', 'show', 'which', 'what', 'are', 'there', 'all', 'jobs', 'job', 'the', 'configured', 'runs', 'run'], unless: ['add', 'create', 'remove', 'delete', 'every', 'daily', 'nightly', 'hourly', 'weekly', 'at', 'logs', 'log', 'errors', 'warnings', 'since', 'journal'] }),
  rule('scheduling.add-cron', [['run', 'schedule', 'add', 'create', 'cron']], (c, ctx) => {
    const program = c.takeToken((t) => !t.literal && /^\/[A-Za-z0-9/._-]+$/.test(t.raw) && /\/s?bin\//.test(t.raw));
    if (program === null) return missing('the program (an absolute path such as /usr/sbin/fstrim)');
    const when = schedule(c);
    const user = c.after(['as'], (t) => /^[a-z_][a-z0-9_-]{0,31}$/.test(t.low)) ?? (takeUser(c, ctx) ?? null);
    const args = c.takeTokens((t) => !t.literal && /^-{1,2}[A-Za-z0-9][A-Za-z0-9._/@+=:,-]*$/.test(t.raw));
    if (when === null) return missing('when to run it (daily, every night at 2:30, hourly, every 15 minutes)');
    if (user === null) ctx.assumed.push('the cron job runs as root (say "as USER" for another account)');
    const name = NAME_PART(program.split('/').pop()!);
    return steps(step('AddCronJob', { name, schedule: when.cron, user: user ?? 'root', program, ...(args.length > 0 ? { args } : {}) }, `run ${program} on "${when.cron}"`));
  }, { needs: (c) => c.tokens.some((t) => /^\/[A-Za-z0-9/._-]+$/.test(t.raw) && /\/s?bin\//.test(t.raw)), also: ['a', 'job', 'cron job', 'every', 'at', 'on', 'with', 'the'] }),
  rule('scheduling.remove-cron', [['remove', 'delete', 'drop', 'disable'], ['cron job', 'cron', 'cronjob', 'job']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9_-]{0,39}$/.test(t.low));
    return name === null ? missing('which cron job (its name)') : steps(step('RemoveCronJob', { name: name.toLowerCase() }, `delete the cron job ${name}`));
  }, { also: ['the', 'called', 'named'] }),
  rule('scheduling.create-timer', [['run', 'schedule', 'start', 'trigger', 'timer', 'create']], (c, ctx) => {
    const when = schedule(c);
    c.takeAny(['timer', 'a timer', 'systemd timer']);
    const unit = takeUnit(c, ctx);
    if (unit === null) return missing('which service the timer starts');
    if (when === null) return missing('when (daily, every night at 2:30, hourly, weekly)');
    return steps(step('CreateTimer', { name: NAME_PART(unit), onCalendar: when.calendar, unit }, `start ${unit} on "${when.calendar}"`));
  }, { needs: (c) => c.tokens.some((t) => /\.service$/.test(t.low)) && ['every', 'daily', 'nightly', 'hourly', 'weekly', 'monthly', 'at'].some((w) => c.has(w)), also: ['a', 'with', 'on', 'the', 'every'] }),
  rule('scheduling.remove-timer', [['remove', 'delete', 'drop'], ['timer']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9_.-]{0,50}$/.test(t.low));
    if (name === null) return missing('which timer (its name)');
    const n = name.toLowerCase().replace(/^airlock-/, '').replace(/\.timer$/, '');
    return steps(step('RemoveTimer', { name: n }, `stop and delete the timer ${n}`));
  }, { also: ['the', 'called', 'named', 'systemd'] }),
];
