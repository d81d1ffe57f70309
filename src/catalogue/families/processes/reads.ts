/**
 * Processes, read: every process by CPU or memory, as a tree, or of one user, and one
 * process in detail or its resource limits. Every read shows the program name only,
 * never the command line (it may hold passwords and tokens).
 */
import { z } from 'zod';
import { action, nothingToRead } from '../../action.js';
import { command, fileScan } from '../../mechanism.js';
import { params, userName } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { requireUser } from '../../lib/accounts.js';
import { describeProcess, processId, readProcess, refuseMissingProcess, showProcess } from './process-state.js';

const PS_TOP_COLUMNS = 'pid,user,pcpu,pmem,rss,comm';
const PS_INFO_COLUMNS = 'pid,ppid,user,stat,lstart,pcpu,pmem,rss,unit,comm';

export const topProcesses = action({
  name: 'TopProcesses',
  family: 'processes',
  description:
    'List every process, highest CPU or resident memory first: pid, user, %CPU, %MEM, RSS in KiB and program name (never the command line, which may hold secrets).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  // ps has no option that limits its rows, so no count: the first lines are the top ones.
  params: params({ by: z.enum(['cpu', 'memory']).describe('cpu: by %CPU; memory: by resident memory (RSS)') }),
  files: [],
  example: { by: 'memory' as const },
  current: nothingToRead,
  preview: ({ by }) => ({ summary: `List processes by ${by === 'cpu' ? 'CPU use' : 'resident memory'}, highest first`, change: null }),
  mechanism: ({ by }) => [command('ps', ['-eo', PS_TOP_COLUMNS, `--sort=${by === 'cpu' ? '-pcpu' : '-rss'}`])],
});

export const processInfo = action({
  name: 'ProcessInfo',
  family: 'processes',
  description: 'Show one process: parent, user, state, start time, CPU and memory use, systemd unit and program name (never its command line).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ pid: processId }),
  files: [],
  example: { pid: 1234 },
  current: ({ pid }, host) => readProcess(host, pid),
  shown: showProcess,
  check: ({ pid }, cur) => refuseMissingProcess(pid, cur),
  preview: (_p, cur) => ({ summary: `Show process ${describeProcess(cur)}`, change: null }),
  // ps does not accept `--`; the pid is a validated integer, the argument of -p.
  mechanism: ({ pid }) => [command('ps', ['-o', PS_INFO_COLUMNS, '-p', String(pid)])],
});

/** Any process id, init included: these are reads (the kernel's PID_MAX_LIMIT is 4194304). */
const anyProcessId = z.number().int().min(1).max(4_194_304).describe('a process id (1 to 4194304)');

const PS_TREE_COLUMNS = 'pid,ppid,user,stat,comm';
const PS_USER_COLUMNS = 'pid,ppid,stat,lstart,pcpu,pmem,rss,unit,comm';

export const processTree = fixedRead({
  name: 'ProcessTree',
  sensitive: false,
  reachesNetwork: false,
  family: 'processes',
  description: 'Show every process as a tree (children indented under their parent): pid, parent, user, state and program name (never the command line, which may hold secrets).',
  summary: 'Show the process tree (ps --forest)',
  steps: [command('ps', ['-e', '--forest', '-o', PS_TREE_COLUMNS])],
});

export const processesOfUser = action({
  name: 'ProcessesOfUser',
  family: 'processes',
  description: 'List the processes running as one user (effective user id): pid, parent, state, start time, CPU and memory use, systemd unit and program name (never the command line).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'www-data' },
  current: ({ user }, host) => requireUser(host, user),
  shown: (u) => ({ user: u.name, uid: u.uid }),
  preview: ({ user }, u) => ({ summary: `List the processes of ${user} (uid ${u.uid})`, change: null }),
  // ps takes no `--`: the uid, a number, is the argument of --user. Exit 1: the user runs nothing now.
  mechanism: (_p, u) => [command('ps', ['-o', PS_USER_COLUMNS, '--user', String(u.uid)], { okCodes: [0, 1] })],
});

export const processLimits = action({
  name: 'ProcessLimits',
  family: 'processes',
  description: 'Show the resource limits of one process, soft and hard (/proc/PID/limits: open files, processes, locked memory, core size, ...).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ pid: anyProcessId }),
  files: ['/proc/*/limits'],
  example: { pid: 1234 },
  current: ({ pid }, host) => readProcess(host, pid),
  check: ({ pid }, cur) => refuseMissingProcess(pid, cur),
  preview: (_p, cur) => ({ summary: `Read the resource limits of ${describeProcess(cur)}`, change: null }),
  mechanism: ({ pid }) => [fileScan(`/proc/${pid}/limits`)],
});
