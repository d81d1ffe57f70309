/**
 * Cron (family 'scheduling'): the cron jobs read (a sensitive read: command lines in
 * crontabs may carry passwords), and Airlock's own jobs, one file /etc/cron.d/airlock-NAME
 * each holding one job line, added and removed. What a job runs passes the one check for
 * commands run on the agent's behalf (../../lib/agent-command.ts).
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, type PasswdEntry } from '../../action.js';
import { command, fileDelete, fileScan, fileWrite } from '../../mechanism.js';
import { LOGIN_NAME, params, userName } from '../../params.js';
import { agentCommandRefusal, commandArgument, commandArguments, MAX_COMMAND_ARGS, throwRefusal, type CommandRefusal } from '../../lib/agent-command.js';
import { describeState, readUnit, type UnitState } from '../../lib/systemd.js';
import { isProtectedUser } from '../../lib/guards.js';
import { requireUser } from '../../lib/accounts.js';
import { cronSchedule, jobName, jobProgram } from './job-params.js';
import { exact } from '../../rollback.js';

const CRON_D = '/etc/cron.d';
const CRONTAB = '/etc/crontab';
const USER_CRONTABS = '/var/spool/cron/crontabs';
const RUN_PARTS_DIRS = ['hourly', 'daily', 'weekly', 'monthly'].map((p) => `/etc/cron.${p}`);
/** cron reads only /etc/cron.d files named like this (run-parts rules); others (.placeholder, x.dpkg-old) it ignores. */
const CRON_D_NAME = /^[A-Za-z0-9_-]+$/;

const cronFile = (name: string) => `${CRON_D}/airlock-${name}`;

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
      userCrontabs: spool ? await regularFiles(host, USER_CRONTABS, spool, LOGIN_NAME) : [],
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
  /** Why the job's command may not run (../../lib/agent-command.ts), or null. */
  refusal: CommandRefusal | null;
  cron: UnitState;
}

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
    'Run one command line (a program on the allowlist, with fixed arguments that fit one of its usage lines) as a user on a cron schedule, in a new file /etc/cron.d/airlock-NAME.',
  risk: 'high',
  rollback: exact(),
  readOnly: false,
  runsPrograms: true,
  params: params({ name: jobName, schedule: cronSchedule, user: userName, program: jobProgram, args: z.array(commandArgument).max(MAX_COMMAND_ARGS).optional().describe('fixed arguments (none when omitted)') }),
  files: [`${CRON_D}/airlock-*`],
  example: { name: 'nightly-trim', schedule: '30 2 * * *', user: 'root', program: '/usr/sbin/fstrim', args: ['--all'] },
  current: async ({ name, user, program, args }, host): Promise<AddCronState> => ({
    path: cronFile(name),
    exists: (await host.stat(cronFile(name))) !== null,
    cronDir: (await host.stat(CRON_D))?.isDir === true,
    user: await requireUser(host, user),
    refusal: await agentCommandRefusal(host, { what: 'the cron job', program, args: args ?? [] }),
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
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
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
