/**
 * Processes: the busiest processes, one process in detail, and a signal to one
 * process or to a service's processes. Every read shows the program name only,
 * never the command line (it may hold passwords and tokens). A process is named by
 * its PID and identified by its start time, so an approval to signal PID 123 can
 * never reach another process that got the same PID in the meantime. Airlock's own
 * process and its ancestors, kernel threads, and the services the host cannot lose
 * (the journal, the system bus, logind, Airlock) are never signalled.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Host } from '../action.js';
import { command } from '../mechanism.js';
import { params, serviceOnly } from '../params.js';
import { allNames, describeState, parseShow, readUnit, refuseProtectedUnit, refuseUnusableUnit, serviceOfCgroup, type UnitState } from '../lib/systemd.js';
import { LIFELINE_UNITS } from '../lib/guards.js';

// ---------------------------------------------------------------- parameters

/** A process id: 2 to 4194304 (the kernel's PID_MAX_LIMIT); PID 1 is init and never a target. */
export const processId = z.number().int().min(2, 'PID 1 is init; Airlock never signals it').max(4_194_304).describe('a process id (2 to 4194304)');

/** The signals the catalogue sends: a fixed list, by name. */
export const SIGNALS = ['TERM', 'INT', 'HUP', 'KILL', 'USR1', 'USR2', 'STOP', 'CONT'] as const;
export type SignalName = (typeof SIGNALS)[number];
export const signalName = z.enum(SIGNALS).describe('TERM, INT, HUP, KILL, USR1, USR2, STOP or CONT');

/** A .service unit (not a timer: timers have no processes); a template needs its instance. */

/** What each signal does by default, for the preview. */
const SIGNAL_EFFECT: Record<SignalName, string> = {
  TERM: 'SIGTERM asks it to exit: most programs clean up and exit, some ignore or handle it',
  INT: 'SIGINT interrupts it as Ctrl-C would: most programs exit',
  HUP: 'SIGHUP makes many daemons reload their configuration; programs that do not handle it exit',
  KILL: 'SIGKILL ends it at once: it cannot clean up, and unsaved data or half-written files may be lost',
  USR1: 'SIGUSR1 means what the program defines (log reopen, status dump, ...); a program that does not handle it exits',
  USR2: 'SIGUSR2 means what the program defines; a program that does not handle it exits',
  STOP: 'SIGSTOP freezes it until SIGCONT: it keeps its memory and connections but does nothing',
  CONT: 'SIGCONT resumes it after SIGSTOP',
};

// ---------------------------------------------------------------- the shared state reader

/** One process as /proc describes it; `exists` false when the PID is free. */
export interface ProcessState {
  pid: number;
  exists: boolean;
  comm: string;
  /** R, S, D, Z, T, t, X, I (see proc(5)). */
  state: string;
  ppid: number;
  /** The thread group (process) this id belongs to; differs from pid for a thread. */
  tgid: number;
  uid: number;
  user: string;
  kernelThread: boolean;
  /** Start time in clock ticks after boot: with the PID, the process's identity. */
  startTicks: number;
  /** Start time as an ISO date (display only: boot time as the kernel reports it may move by a second). */
  started: string;
  /** The service the process runs in, from its cgroup, or null. */
  unit: string | null;
  /** Its cgroup v2 path ("/user.slice/user-1000.slice/session-3.scope"). */
  cgroup: string;
}

const PF_KTHREAD = 0x00200000;
/** The kernel's USER_HZ: what /proc/PID/stat counts start times in, on every Linux architecture Airlock runs on. */
const CLOCK_TICKS = 100;

/** Fields of /proc/PID/stat; the name is in parentheses and may itself hold ')' and spaces. */
export function parseStat(text: string): { comm: string; state: string; ppid: number; flags: number; startTicks: number } | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state): field N is rest[N - 3].
  if (rest.length < 20) return null;
  return { comm: text.slice(open + 1, close), state: rest[0]!, ppid: Number(rest[1]), flags: Number(rest[6]), startTicks: Number(rest[19]) };
}

/** "Key:\tvalue" lines of /proc/PID/status. */
function statusField(text: string, key: string): string | null {
  const line = text.split('\n').find((l) => l.startsWith(`${key}:`));
  return line === undefined ? null : line.slice(key.length + 1).trim();
}

async function bootTime(host: Host): Promise<number | null> {
  const m = /^btime (\d+)$/m.exec((await host.readFile('/proc/stat')) ?? '');
  return m ? Number(m[1]) : null;
}

export async function readProcess(host: Host, pid: number): Promise<ProcessState> {
  const missing: ProcessState = { pid, exists: false, comm: '', state: '', ppid: 0, tgid: pid, uid: -1, user: '', kernelThread: false, startTicks: 0, started: '', unit: null, cgroup: '' };
  const [statText, statusText, cgroupText] = await Promise.all(['stat', 'status', 'cgroup'].map((f) => host.readFile(`/proc/${pid}/${f}`).catch(() => null)));
  const st = statText ? parseStat(statText) : null;
  if (!st || !statusText) return missing;
  const uid = Number((statusField(statusText, 'Uid') ?? '-1').split(/\s+/)[0]);
  const tgid = Number(statusField(statusText, 'Tgid') ?? pid);
  const user = (await host.users()).find((u) => u.uid === uid)?.name ?? String(uid);
  const btime = await bootTime(host);
  const cgroup = (cgroupText ?? '').split('\n').find((l) => l.startsWith('0::'))?.slice(3) ?? '';
  return {
    pid,
    exists: true,
    comm: st.comm,
    state: st.state,
    ppid: st.ppid,
    tgid,
    uid,
    user,
    // Not "parent is PID 2": in a PID namespace (a container) PID 2 is an ordinary process.
    kernelThread: (st.flags & PF_KTHREAD) !== 0 || statusField(statusText, 'Kthread') === '1',
    startTicks: st.startTicks,
    started: btime === null ? '' : new Date((btime + st.startTicks / CLOCK_TICKS) * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
    unit: cgroupText ? serviceOfCgroup(cgroupText) : null,
    cgroup,
  };
}

/** The daemon handling this request and every process above it, up to init: killing one of them kills Airlock. */
async function airlockLineage(host: Host): Promise<number[]> {
  const chain: number[] = [];
  for (let pid = process.pid; pid > 0 && chain.length < 64 && !chain.includes(pid); ) {
    chain.push(pid);
    const st = await host.readFile(`/proc/${pid}/stat`).catch(() => null);
    pid = (st && parseStat(st)?.ppid) || 0;
  }
  return chain;
}

/** The service the daemon itself runs in, when it runs as one. */
async function airlockUnit(host: Host): Promise<string | null> {
  const cgroup = await host.readFile(`/proc/${process.pid}/cgroup`).catch(() => null);
  return cgroup === null ? null : serviceOfCgroup(cgroup);
}

/** "sleep (PID 123, user root, started 2026-11-29T20:49:12Z, in victim.service)" */
export function describeProcess(p: ProcessState): string {
  const parts = [`PID ${p.pid}`, `user ${p.user}`];
  if (p.started) parts.push(`started ${p.started}`);
  if (p.unit) parts.push(`in ${p.unit}`);
  return `${p.comm} (${parts.join(', ')})`;
}

/** What a preview shows of a process: no command line, no environment. */
const showProcess = (p: ProcessState) => ({ pid: p.pid, exists: p.exists, comm: p.comm, state: p.state, user: p.user, started: p.started, unit: p.unit, cgroup: p.cgroup });

// ---------------------------------------------------------------- refusals

/** A warning for the lifelines Airlock allows with care (SSH). */
function lifelineWarning(names: string[]): string[] {
  const n = names.find((x) => LIFELINE_UNITS[x]?.restart === 'warn');
  return n ? [`${n} is ${LIFELINE_UNITS[n]!.why}: if it stops, no new login can start that way`] : [];
}

const isStopped = (state: string) => state === 'T' || state === 't';

/** A STOP to a stopped process or a CONT to a running one changes nothing. */
function refuseNoOp(signal: SignalName, p: ProcessState): void {
  if (signal === 'STOP' && isStopped(p.state)) throw new AirlockError('conflict', 'already_stopped', `${describeProcess(p)} is already stopped`, 'SIGCONT resumes it');
  if (signal === 'CONT' && !isStopped(p.state)) throw new AirlockError('conflict', 'not_stopped', `${describeProcess(p)} is not stopped (state ${p.state}), so SIGCONT would change nothing`);
}

function stoppedWarning(signal: SignalName, p: ProcessState): string[] {
  return isStopped(p.state) && signal !== 'KILL' && signal !== 'CONT' ? [`${p.comm} (PID ${p.pid}) is stopped: SIG${signal} waits until it gets SIGCONT`] : [];
}

export function refuseMissingProcess(pid: number, p: ProcessState): void {
  if (!p.exists) throw new AirlockError('validation', 'no_such_process', `there is no process ${pid} on this host`, 'TopProcesses lists the processes');
  if (p.tgid !== pid) throw new AirlockError('validation', 'thread_id', `${pid} is a thread of process ${p.tgid}, not a process`, `name the process: ${p.tgid}`);
}

// ---------------------------------------------------------------- reads

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

// ---------------------------------------------------------------- signals

interface SignalTarget extends ProcessState {
  lineage: number[];
  daemonUnit: string | null;
}

export const signalProcess = action({
  name: 'SignalProcess',
  family: 'processes',
  description:
    'Send one signal (TERM, INT, HUP, KILL, USR1, USR2, STOP or CONT) to one process, identified by PID and start time; refuses init, kernel threads, Airlock and the services the host cannot lose.',
  risk: 'high',
  readOnly: false,
  params: params({ pid: processId, signal: signalName }),
  files: [],
  example: { pid: 1234, signal: 'TERM' as const },
  current: async ({ pid }, host): Promise<SignalTarget> => ({ ...(await readProcess(host, pid)), lineage: await airlockLineage(host), daemonUnit: await airlockUnit(host) }),
  shown: showProcess,
  check: ({ pid, signal }, cur) => {
    refuseMissingProcess(pid, cur);
    if (cur.kernelThread) throw new AirlockError('authorization', 'kernel_thread', `${pid} (${cur.comm}) is a kernel thread; Airlock does not signal the kernel`);
    if (cur.lineage.includes(pid)) {
      throw new AirlockError('authorization', 'airlock_process', `${describeProcess(cur)} is the Airlock daemon handling this request or one of its parents`, 'a person does this by hand');
    }
    refuseProtectedUnit(cur.unit ? [cur.unit] : [], cur.daemonUnit, `process ${pid} (${cur.comm})`);
    if (cur.state === 'Z' || cur.state === 'X') {
      throw new AirlockError('conflict', 'zombie', `${describeProcess(cur)} has already exited; only its parent (PID ${cur.ppid}) can reap it`, 'signal the parent, or wait for it');
    }
    refuseNoOp(signal, cur);
  },
  preview: ({ pid, signal }, cur) => ({
    summary: `Send SIG${signal} to ${describeProcess(cur)}`,
    // The start time is the process's identity: if the PID is reused before execution, this differs and the receipt is refused.
    change: {
      pid,
      signal: `SIG${signal}`,
      process: { comm: cur.comm, uid: cur.uid, user: cur.user, start_ticks: cur.startTicks, unit: cur.unit },
      text: `sends SIG${signal} to PID ${pid} (${cur.comm}, run by ${cur.user}${cur.unit ? `, in ${cur.unit}` : ''})`,
    },
    sideEffects: [SIGNAL_EFFECT[signal], ...(cur.unit && signal !== 'STOP' && signal !== 'CONT' ? [`if it exits, ${cur.unit} may restart it or stop, as its Restart= says`] : [])],
    warnings: [
      ...lifelineWarning(cur.unit ? [cur.unit] : []),
      ...(/\/session-[^/]+\.scope$/.test(cur.cgroup) ? [`it runs in a login session (${cur.cgroup.split('/').pop()}): it may be someone's shell or editor`] : []),
      ...(cur.uid === 0 ? ['it runs as root'] : []),
      ...stoppedWarning(signal, cur),
    ],
  }),
  mechanism: ({ pid, signal }) => [command('kill', ['-s', signal, '--', String(pid)])],
});

interface UnitSignalTarget extends UnitState {
  restart: string;
  main: ProcessState | null;
}


export const signalUnit = action({
  name: 'SignalUnit',
  family: 'processes',
  description:
    "Send one signal (TERM, INT, HUP, KILL, USR1, USR2, STOP or CONT) to a running service's main process (the default) or to all its processes, through systemd.",
  risk: 'high',
  readOnly: false,
  params: params({ unit: serviceOnly, signal: signalName, whom: z.enum(['main', 'all']).optional().describe('main (default): the main process; all: every process of the unit') }),
  files: [],
  example: { unit: 'nginx.service', signal: 'HUP' as const },
  current: async ({ unit, whom }, host): Promise<UnitSignalTarget> => {
    const u = await readUnit(host, unit);
    const extra = parseShow((await host.run('systemctl', ['show', '--no-pager', '-p', 'Restart', '--', unit])).stdout);
    const main = (whom ?? 'main') === 'main' && u.mainPid > 0 ? await readProcess(host, u.mainPid) : null;
    return { ...u, restart: extra.get('Restart') ?? '', main };
  },
  shown: ({ main, ...u }) => ({ ...u, main: main && showProcess(main) }),
  check: ({ unit, signal, whom }, cur) => {
    refuseUnusableUnit(unit, cur);
    if ((whom ?? 'main') === 'main') {
      if (!cur.main?.exists) throw new AirlockError('conflict', 'no_main_process', `${unit} has no main process (${describeState(cur)})`, "whom: 'all' signals every process it has");
      refuseNoOp(signal, cur.main);
    } else if (!['active', 'activating', 'deactivating', 'reloading'].includes(cur.active)) {
      throw new AirlockError('conflict', 'not_active', `${unit} is not running (${describeState(cur)})`);
    }
  },
  preview: ({ unit, signal, whom }, cur) => {
    const who = whom ?? 'main';
    const target = who === 'main' && cur.main ? `its main process ${describeProcess(cur.main)}` : 'every process of the unit';
    return {
      summary: `Send SIG${signal} to ${who === 'main' ? 'the main process' : 'all processes'} of ${unit} (${describeState(cur)})`,
      // For the main process, its PID and start time are part of what is approved: a restart in between refuses the receipt.
      change: {
        unit,
        signal: `SIG${signal}`,
        whom: who,
        ...(who === 'main' && cur.main ? { main_process: { pid: cur.main.pid, comm: cur.main.comm, start_ticks: cur.main.startTicks } } : {}),
        text: `sends SIG${signal} to ${target}`,
      },
      sideEffects: [
        SIGNAL_EFFECT[signal],
        ...(signal !== 'STOP' && signal !== 'CONT' && cur.restart && cur.restart !== 'no' ? [`Restart=${cur.restart}: if it exits, systemd may start it again`] : []),
      ],
      warnings: [...lifelineWarning(allNames(unit, cur)), ...(cur.main ? stoppedWarning(signal, cur.main) : [])],
    };
  },
  mechanism: ({ unit, signal, whom }) => [command('systemctl', ['kill', `--signal=${signal}`, `--kill-whom=${whom ?? 'main'}`, '--', unit])],
});
