/**
 * Scheduling: cron jobs and systemd timers that run a program at set times.
 * Airlock writes only files of its own: /etc/cron.d/airlock-NAME (one job line: a
 * program and fixed arguments in an alphabet cron's /bin/sh reads nothing into) and
 * /etc/systemd/system/airlock-NAME.timer (activating an existing service). It removes
 * only those. What runs passes the one check for commands run on the agent's behalf
 * (../lib/agent-command.ts): for a cron job the program and its arguments, for a timer
 * every command its service runs (root wrote their arguments in the unit; a template
 * instance, whose name the agent would choose and systemd pastes into them, is refused).
 * Listing cron jobs is a sensitive read: command lines in crontabs may carry passwords.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host, type PasswdEntry } from '../action.js';
import { command, fileDelete, fileScan, fileWrite, type CommandStep, type Step } from '../mechanism.js';
import { absolutePath, params, serviceOnly, token, userName } from '../params.js';
import { agentCommandRefusal, commandArgument, commandArguments, MAX_COMMAND_ARGS, throwRefusal, type CommandRefusal } from '../lib/agent-command.js';
import { describeState, readUnit, refuseUnusableUnit, type UnitState } from '../lib/systemd.js';
import { isProtectedUser } from '../lib/guards.js';
import { requireUser } from '../lib/accounts.js';

// ---------------------------------------------------------------- parameters

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

// ---------------------------------------------------------------- shared readers

const CRON_D = '/etc/cron.d';
const CRONTAB = '/etc/crontab';
const USER_CRONTABS = '/var/spool/cron/crontabs';
const RUN_PARTS_DIRS = ['hourly', 'daily', 'weekly', 'monthly'].map((p) => `/etc/cron.${p}`);
/** cron reads only /etc/cron.d files named like this (run-parts rules); others (.placeholder, x.dpkg-old) it ignores. */
const CRON_D_NAME = /^[A-Za-z0-9_-]+$/;

const cronFile = (name: string) => `${CRON_D}/airlock-${name}`;
const timerName = (name: string) => `airlock-${name}.timer`;
const TIMER_DIR = '/etc/systemd/system';
const timerPath = (name: string) => `${TIMER_DIR}/${timerName(name)}`;

/** Names in a directory (ls, one per line), or null when it is not a directory. Each name is stat()ed again by the caller. */
async function listDirectory(host: Host, dir: string): Promise<string[] | null> {
  if (!(await host.stat(dir))?.isDir) return null;
  const r = await host.run('ls', ['-1A', '--quoting-style=literal', '--', dir]);
  if (r.code !== 0) throw new AirlockError('execution', 'unreadable_directory', `ls could not list ${dir} (exit status ${r.code})`);
  return r.stdout.split('\n').filter(Boolean);
}

/** The regular files (not links) among `names` in `dir` whose name matches `re`: what a fileScan may read. */
async function regularFiles(host: Host, dir: string, names: string[], re: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const n of names.filter((x) => re.test(x)).sort()) {
    const st = await host.stat(`${dir}/${n}`);
    if (st?.isFile && !st.isSymlink) out.push(`${dir}/${n}`);
  }
  return out;
}

export interface CronJob {
  schedule: string;
  user: string;
  program: string;
  args: string[];
}

/** The job lines of an Airlock cron file that have exactly the shape AddCronJob writes; anything else is only counted. */
export function parseCronFile(text: string): { jobs: CronJob[]; otherLines: number } {
  const jobs: CronJob[] = [];
  let otherLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line === 'SHELL=/bin/sh' || line === `PATH=${CRON_PATH}`) continue;
    const f = line.split(/\s+/);
    const n = f[0]?.startsWith('@') ? 1 : 5;
    const job = { schedule: f.slice(0, n).join(' '), user: f[n] ?? '', program: f[n + 1] ?? '', args: f.slice(n + 2) };
    const ok =
      f.length >= n + 2 &&
      cronSchedule.safeParse(job.schedule).success &&
      userName.safeParse(job.user).success &&
      jobProgram.safeParse(job.program).success &&
      commandArguments.safeParse(job.args).success;
    if (ok) jobs.push(job);
    else otherLines++;
  }
  return { jobs, otherLines };
}

const CRON_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** What the cron daemon is doing: jobs run only while it runs. */
async function cronState(host: Host): Promise<UnitState> {
  return readUnit(host, 'cron.service');
}

function cronWarnings(cron: UnitState): string[] {
  return cron.active === 'active' ? [] : [`cron.service is ${describeState(cron)}: jobs run only while cron runs`];
}

// ---------------------------------------------------------------- cron

interface CronListing {
  crontab: boolean;
  cronD: string[];
  userCrontabs: string[];
  runParts: string[];
}

export const listCronJobs = action({
  name: 'ListCronJobs',
  family: 'scheduling',
  description:
    'Read the cron jobs: /etc/crontab, every file cron reads in /etc/cron.d, the users\' crontabs, and the scripts in /etc/cron.{hourly,daily,weekly,monthly} (a sensitive read: command lines may hold secrets).',
  // Medium: crontab command lines often carry passwords and tokens.
  risk: 'medium',
  readOnly: true,
  // Sensitive: crontab command lines, which often carry passwords and tokens.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [CRONTAB, `${CRON_D}/*`, `${USER_CRONTABS}/*`],
  example: {},
  current: async (_p, host): Promise<CronListing> => {
    const cronD = await listDirectory(host, CRON_D);
    const spool = await listDirectory(host, USER_CRONTABS);
    const runParts: string[] = [];
    for (const d of RUN_PARTS_DIRS) if ((await host.stat(d))?.isDir) runParts.push(d);
    const crontab = await host.stat(CRONTAB);
    return {
      crontab: crontab?.isFile === true && !crontab.isSymlink,
      cronD: cronD ? await regularFiles(host, CRON_D, cronD, CRON_D_NAME) : [],
      userCrontabs: spool ? await regularFiles(host, USER_CRONTABS, spool, /^[a-z_][a-z0-9_-]{0,31}$/) : [],
      runParts,
    };
  },
  check: (_p, cur) => {
    if (!cur.crontab && cur.cronD.length === 0 && cur.userCrontabs.length === 0 && cur.runParts.length === 0) {
      throw new AirlockError('unsupported_platform', 'no_cron', `this host has no ${CRONTAB}, no cron.d files, no user crontabs and no cron.daily directories`, 'install cron');
    }
  },
  preview: (_p, cur) => ({
    summary: `Read ${[cur.crontab ? CRONTAB : '', ...cur.cronD, ...cur.userCrontabs].filter(Boolean).length} crontab file(s)${cur.runParts.length ? ` and list ${cur.runParts.join(', ')}` : ''}`,
    change: null,
  }),
  mechanism: (_p, cur) => [
    ...(cur.crontab ? [fileScan(CRONTAB)] : []),
    ...cur.cronD.map(fileScan),
    ...cur.userCrontabs.map(fileScan),
    ...(cur.runParts.length ? [command('ls', ['-l', '--time-style=long-iso', '--', ...cur.runParts])] : []),
  ],
});

interface AddCronState {
  path: string;
  exists: boolean;
  cronDir: boolean;
  user: PasswdEntry;
  /** Why the job's command may not run (../lib/agent-command.ts), or null. */
  refusal: CommandRefusal | null;
  cron: UnitState;
}

/** Programs that, run without arguments, take the host down: allowed, with a warning. */
const POWER_PROGRAMS = ['reboot', 'poweroff', 'halt', 'shutdown', 'telinit', 'init', 'systemctl'];

/** The job's command line as cron's /bin/sh reads it: its words need no quoting (jobProgram, commandArgument). */
const jobCommand = (program: string, args: readonly string[]) => [program, ...args].join(' ');

/** The whole cron.d file AddCronJob writes: a fixed environment and one line. */
export function cronFileContent(name: string, schedule: string, user: string, program: string, args: readonly string[] = []): string {
  return [`# Written by Airlock (AddCronJob ${name}); RemoveCronJob removes it.`, 'SHELL=/bin/sh', `PATH=${CRON_PATH}`, `${schedule} ${user} ${jobCommand(program, args)}`, ''].join('\n');
}

export const addCronJob = action({
  name: 'AddCronJob',
  family: 'scheduling',
  description:
    'Run one command line (a root-owned ELF program in a system binary directory, not a shell, interpreter or program runner, with fixed arguments) as a user on a cron schedule, in a new file /etc/cron.d/airlock-NAME.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: jobName, schedule: cronSchedule, user: userName, program: jobProgram, args: z.array(commandArgument).max(MAX_COMMAND_ARGS).optional().describe('fixed arguments (none when omitted)') }),
  files: [`${CRON_D}/airlock-*`],
  example: { name: 'nightly-trim', schedule: '30 2 * * *', user: 'root', program: '/usr/sbin/fstrim', args: ['--all'] },
  current: async ({ name, user, program, args }, host): Promise<AddCronState> => ({
    path: cronFile(name),
    exists: (await host.stat(cronFile(name))) !== null,
    cronDir: (await host.stat(CRON_D))?.isDir === true,
    user: await requireUser(host, user),
    refusal: await agentCommandRefusal(host, { what: 'the cron job', program, args: args ?? [], argsFrom: 'agent' }),
    cron: await cronState(host),
  }),
  check: ({ name }, cur) => {
    if (!cur.cronDir || cur.cron.load === 'not-found') throw new AirlockError('unsupported_platform', 'no_cron', `cron is not installed here (no ${CRON_D} or no cron.service)`, 'install cron');
    if (cur.exists) throw new AirlockError('conflict', 'already_exists', `${cur.path} already exists`, `RemoveCronJob removes it, or pick another name than ${name}`);
    throwRefusal(cur.refusal);
  },
  preview: ({ name, schedule, user, program, args }, cur) => ({
    summary: `Run ${jobCommand(program, args ?? [])} as ${user} ${schedule.startsWith('@') ? schedule : `at cron schedule "${schedule}"`}`,
    change: {
      file: cur.path,
      mode: '0644',
      owner: 'root:root',
      content: cronFileContent(name, schedule, user, program, args).split('\n').filter(Boolean),
      job: { schedule, user, program, args: args ?? [] },
    },
    sideEffects: [
      `cron picks up the new file within a minute and runs ${jobCommand(program, args ?? [])} ${schedule === '@reboot' ? 'at each boot' : 'at every matching minute'}, as ${user}, with /bin/sh and PATH=${CRON_PATH}`,
      "the program's output is mailed to the user when a mailer is installed, and otherwise discarded",
    ],
    warnings: [
      ...(cur.user.uid === 0 ? [`it runs as root: whatever ${program} does, it does with full control of this host`] : isProtectedUser(cur.user) ? [`${user} is a system account (uid ${cur.user.uid})`] : []),
      ...(POWER_PROGRAMS.includes(program.split('/').pop()!) ? [`${program} shuts down or restarts the host: on a schedule this can keep it down or rebooting`] : []),
      ...cronWarnings(cur.cron),
    ],
  }),
  mechanism: ({ name, schedule, user, program, args }, cur) => [fileWrite(cur.path, cronFileContent(name, schedule, user, program, args), { mode: 0o644, owner: { uid: 0, gid: 0 } })],
});

export const removeCronJob = action({
  name: 'RemoveCronJob',
  family: 'scheduling',
  description: 'Delete a cron job that AddCronJob created (the file /etc/cron.d/airlock-NAME).',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: jobName }),
  files: [`${CRON_D}/airlock-*`],
  example: { name: 'nightly-backup' },
  current: async ({ name }, host) => {
    const text = await host.readFile(cronFile(name));
    return { path: cronFile(name), exists: text !== null, ...parseCronFile(text ?? '') };
  },
  check: ({ name }, cur) => {
    if (!cur.exists) throw new AirlockError('validation', 'no_such_job', `there is no Airlock cron job ${name} (${cur.path})`, 'ListCronJobs lists the cron jobs');
  },
  preview: ({ name }, cur) => ({
    summary: `Remove the cron job ${name} (${cur.path})`,
    change: { file: cur.path, deletes: true, removes_jobs: cur.jobs, other_lines: cur.otherLines },
    sideEffects: ['cron stops running it within a minute; a run in progress is not stopped'],
    warnings: cur.otherLines ? [`the file holds ${cur.otherLines} line(s) Airlock did not write (not shown); they are deleted too`] : [],
  }),
  mechanism: (_p, cur) => [fileDelete(cur.path)],
});

// ---------------------------------------------------------------- systemd timers

/** What `systemd-analyze calendar` makes of an expression: its normalised form, or systemd's complaint. */
async function normaliseCalendar(host: Host, expr: string): Promise<{ ok: true; normalized: string } | { ok: false; error: string }> {
  const r = await host.run('systemd-analyze', ['calendar', '--', expr]);
  const m = /^\s*Normalized form: (.+)$/m.exec(r.stdout);
  if (r.code !== 0 || !m) return { ok: false, error: r.stderr.trim().split('\n')[0] || `systemd-analyze exited with status ${r.code}` };
  return { ok: true, normalized: m[1]!.trim() };
}

/** The whole timer unit CreateTimer writes. */
export function timerContent(name: string, onCalendar: string, unit: string): string {
  return [
    `# Written by Airlock (CreateTimer ${name}); RemoveTimer removes it.`,
    '[Unit]',
    `Description=Airlock timer ${name}: starts ${unit}`,
    '',
    '[Timer]',
    `OnCalendar=${onCalendar}`,
    `Unit=${unit}`,
    'Persistent=true',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
}

/** OnCalendar= and Unit= of a timer file, for the preview; nothing else of it is shown. */
export function parseTimerFile(text: string): { onCalendar: string[]; unit: string } {
  let section = '';
  const out = { onCalendar: [] as string[], unit: '' };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1]!;
    else if (section === 'Timer' && line.startsWith('OnCalendar=')) out.onCalendar.push(line.slice('OnCalendar='.length));
    else if (section === 'Timer' && line.startsWith('Unit=')) out.unit = line.slice('Unit='.length);
  }
  return out;
}

const systemctl = (...args: string[]): CommandStep => command('systemctl', args);

/** Every command systemd runs for a service's start, reload and stop, in the order it runs them. */
const EXEC_PROPERTIES = ['ExecCondition', 'ExecStartPre', 'ExecStart', 'ExecStartPost', 'ExecReload', 'ExecStop', 'ExecStopPost'];

/**
 * The programs a service runs (`systemctl show`: `{ path=/usr/bin/x ; argv[]=... }` per
 * command), or null when systemd did not report them. Their arguments are root's, from
 * the unit file; only the programs are the agent's choice, by choosing the unit.
 */
export async function readUnitPrograms(host: Host, unit: string): Promise<string[] | null> {
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', EXEC_PROPERTIES.join(','), '--', unit]);
  if (r.code !== 0) return null;
  return [...r.stdout.matchAll(/\{ path=(\S+) ;/g)].map((m) => m[1]!);
}

/** Why the timer may not start this service: a template instance, a command the one check refuses, or commands unknown. */
async function timerTargetRefusal(host: Host, unit: string, programs: string[] | null): Promise<CommandRefusal | null> {
  const what = `the timer for ${unit}`;
  if (unit.includes('@')) {
    const instance = unit.slice(unit.indexOf('@') + 1, unit.lastIndexOf('.'));
    return {
      category: 'authorization',
      code: 'template_instance',
      message: `refusing ${what}: it is an instance of a template unit, and systemd pastes the instance name (${instance}) into the template's command lines (%i), so the name would be a command argument the agent chose`,
      hint: 'a person writes a unit of its own for this job',
    };
  }
  if (!programs || programs.length === 0) {
    return { category: 'validation', code: 'unit_commands_unknown', message: `refusing ${what}: systemd reported no command for it`, hint: 'ServiceStatus and ShowUnitFile show what systemd found' };
  }
  for (const program of programs) {
    const r = await agentCommandRefusal(host, { what, program, args: [], argsFrom: 'unit' });
    if (r) return r;
  }
  return null;
}

export const createTimer = action({
  name: 'CreateTimer',
  family: 'scheduling',
  description:
    'Start an existing service on a calendar schedule with a new timer /etc/systemd/system/airlock-NAME.timer (Persistent=true), enabled and started now. Every program the service runs must be a root-owned ELF executable in a system binary directory and not a shell, interpreter or program runner; template instances are refused.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: jobName, onCalendar: calendarExpression, unit: serviceOnly }),
  files: [`${TIMER_DIR}/airlock-*.timer`],
  example: { name: 'nightly-backup', onCalendar: '*-*-* 02:30:00', unit: 'backup.service' },
  current: async ({ name, onCalendar, unit }, host) => {
    const programs = await readUnitPrograms(host, unit);
    return {
      path: timerPath(name),
      timer: timerName(name),
      fileExists: (await host.stat(timerPath(name))) !== null,
      timerUnit: await readUnit(host, timerName(name)),
      calendar: await normaliseCalendar(host, onCalendar),
      target: await readUnit(host, unit),
      /** What the service runs, checked like every command run on the agent's behalf. */
      programs,
      refusal: await timerTargetRefusal(host, unit, programs),
    };
  },
  check: ({ unit }, cur) => {
    if (cur.fileExists || cur.timerUnit.load !== 'not-found') {
      throw new AirlockError('conflict', 'already_exists', `${cur.timer} already exists${cur.fileExists ? ` (${cur.path})` : ''}`, 'RemoveTimer removes it, or pick another name');
    }
    if (!cur.calendar.ok) throw new AirlockError('validation', 'bad_calendar', `systemd does not accept this calendar expression: ${cur.calendar.error}`, 'see systemd.time(7), e.g. "daily", "Mon..Fri *-*-* 03:00:00", "*:0/15"');
    refuseUnusableUnit(unit, cur.target);
    if (cur.target.load === 'masked' || cur.target.unitFile.startsWith('masked')) throw new AirlockError('conflict', 'unit_masked', `${unit} is masked, so no timer can start it`, 'UnmaskService unmasks it');
    if (cur.target.load !== 'loaded') throw new AirlockError('conflict', 'unit_not_loaded', `${unit} did not load (LoadState=${cur.target.load})`, 'ServiceStatus and UnitLogs show what systemd found wrong');
    throwRefusal(cur.refusal);
  },
  preview: ({ name, onCalendar, unit }, cur) => {
    const normalized = cur.calendar.ok ? cur.calendar.normalized : '';
    return {
      summary: `Start ${unit} on schedule "${onCalendar}" (${normalized}) with ${cur.timer}`,
      change: {
        file: cur.path,
        mode: '0644',
        owner: 'root:root',
        content: timerContent(name, onCalendar, unit).split('\n'),
        timer: cur.timer,
        activates: unit,
        runs: cur.programs ?? [],
        on_calendar: { given: onCalendar, normalized },
        text: `writes ${cur.path}, checks it with systemd-analyze verify, reloads systemd, then enables and starts ${cur.timer}`,
      },
      sideEffects: [
        `systemd starts ${unit} at every ${normalized}; a run missed while the host was off happens at the next boot (Persistent=true)`,
        `${cur.timer} starts at boot from now on (linked into timers.target.wants)`,
        `if ${unit} is still running when the timer elapses, nothing more happens for that elapse`,
      ],
      warnings: cur.target.triggeredBy.length ? [`${unit} is already started by ${cur.target.triggeredBy.join(', ')}`] : [],
    };
  },
  mechanism: ({ name, onCalendar, unit }, cur) => [
    fileWrite(cur.path, timerContent(name, onCalendar, unit), { mode: 0o644, owner: { uid: 0, gid: 0 } }),
    // A unit file systemd cannot parse fails the job here, before it is loaded; the file step is then undone.
    command('systemd-analyze', ['verify', '--man=no', '--', cur.path]),
    systemctl('daemon-reload'),
    { ...systemctl('enable', '--now', '--', cur.timer), undo: systemctl('disable', '--now', '--', cur.timer) },
  ],
});

export const removeTimer = action({
  name: 'RemoveTimer',
  family: 'scheduling',
  description: 'Stop, disable and delete a timer that CreateTimer created (/etc/systemd/system/airlock-NAME.timer); the service it started stays.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: jobName }),
  files: [`${TIMER_DIR}/airlock-*.timer`],
  example: { name: 'nightly-backup' },
  current: async ({ name }, host) => {
    const text = await host.readFile(timerPath(name));
    return { path: timerPath(name), timer: timerName(name), exists: text !== null, ...parseTimerFile(text ?? ''), state: await readUnit(host, timerName(name)) };
  },
  check: ({ name }, cur) => {
    if (!cur.exists) throw new AirlockError('validation', 'no_such_timer', `there is no Airlock timer ${name} (${cur.path})`, 'ListTimers lists the timers');
  },
  preview: ({ name }, cur) => ({
    summary: `Remove the timer ${cur.timer} (${describeState(cur.state)})`,
    change: {
      file: cur.path,
      deletes: true,
      timer: cur.timer,
      activates: cur.unit,
      on_calendar: cur.onCalendar,
      text: `stops and disables ${cur.timer}, deletes ${cur.path}, reloads systemd`,
    },
    sideEffects: [`${cur.unit || 'the service it activates'} is no longer started on schedule; a run in progress is not stopped`, `the name ${name} is free again`],
  }),
  mechanism: (_p, cur) => {
    const enabled = cur.state.unitFile === 'enabled';
    const active = cur.state.active === 'active';
    // If a later step fails, the file comes back first (it was deleted after this step), then this undo restores the run state.
    const undo = enabled ? systemctl('enable', ...(active ? ['--now'] : []), '--', cur.timer) : active ? systemctl('start', '--', cur.timer) : undefined;
    const steps: Step[] = [{ ...systemctl('disable', '--now', '--', cur.timer), ...(undo ? { undo } : {}) }, fileDelete(cur.path), systemctl('daemon-reload')];
    return steps;
  },
});

