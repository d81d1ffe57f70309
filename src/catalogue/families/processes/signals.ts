/**
 * Signals (family 'processes'): one signal to one process, named by its PID and
 * identified by its start time, so an approval to signal PID 123 can never reach another
 * process that got the same PID in the meantime; or to a service's processes, through
 * systemd. Airlock's own process and its ancestors, kernel threads, and the services the
 * host cannot lose (the journal, the system bus, logind, Airlock) are never signalled.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged, type Unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, serviceOnly } from '../../params.js';
import { allNames, describeState, parseShow, readDaemonUnit, readUnit, refuseProtectedUnit, refuseUnusableUnit, type UnitState } from '../../lib/systemd.js';
import { LIFELINE_UNITS } from '../../lib/guards.js';
import { describeProcess, parseStat, processId, readProcess, refuseMissingProcess, showProcess, type ProcessState } from './process-state.js';
import { noRollback } from '../../rollback.js';

/** The signals the catalogue sends: a fixed list, by name. */
export const SIGNALS = ['TERM', 'INT', 'HUP', 'KILL', 'USR1', 'USR2', 'STOP', 'CONT'] as const;
export type SignalName = (typeof SIGNALS)[number];
export const signalName = z.enum(SIGNALS).describe('TERM, INT, HUP, KILL, USR1, USR2, STOP or CONT');

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

/**
 * Why a signal is never rolled back or reverted. The class is the action's, whatever the
 * signal: STOP and CONT leave states that the other signal puts back, but TERM, INT, KILL (and
 * a HUP, USR1 or USR2 the program does not handle) end the process, and what it did on receipt
 * (cleaned up, reloaded, dumped, exited) is its own. The STOP and CONT steps still carry the
 * other as their undo, for a plan that fails after them.
 */
const SIGNAL_IRREVERSIBLE = 'a delivered signal cannot be taken back: the process has already acted on it (TERM, INT and KILL end it), and a STOP is undone only by sending CONT as a new change (a CONT by STOP)';

/** The undo of a STOP or CONT within its own job (a plan that fails after it): the other one; none for a signal that cannot be taken back. */
const OPPOSITE: Partial<Record<SignalName, SignalName>> = { STOP: 'CONT', CONT: 'STOP' };

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

/** A warning for the lifelines Airlock allows with care (SSH). */
function lifelineWarning(names: string[]): string[] {
  const n = names.find((x) => LIFELINE_UNITS[x]?.restart === 'warn');
  return n ? [`${n} is ${LIFELINE_UNITS[n]!.why}: if it stops, no new login can start that way`] : [];
}

const isStopped = (state: string) => state === 'T' || state === 't';

/** A STOP to a stopped process or a CONT to a running one changes nothing. */
function unchangedByNoOp(signal: SignalName, p: ProcessState): Unchanged | undefined {
  if (signal === 'STOP' && isStopped(p.state)) return unchanged(`${describeProcess(p)} is already stopped`);
  if (signal === 'CONT' && !isStopped(p.state)) return unchanged(`${describeProcess(p)} is not stopped (state ${p.state}): it runs`);
  return undefined;
}

function stoppedWarning(signal: SignalName, p: ProcessState): string[] {
  return isStopped(p.state) && signal !== 'KILL' && signal !== 'CONT' ? [`${p.comm} (PID ${p.pid}) is stopped: SIG${signal} waits until it gets SIGCONT`] : [];
}

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
  rollback: noRollback(SIGNAL_IRREVERSIBLE),
  runsPrograms: false,
  params: params({ pid: processId, signal: signalName }),
  files: [],
  example: { pid: 1234, signal: 'TERM' as const },
  current: async ({ pid }, host): Promise<SignalTarget> => ({ ...(await readProcess(host, pid)), lineage: await airlockLineage(host), daemonUnit: await readDaemonUnit(host) }),
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
    return unchangedByNoOp(signal, cur);
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
  mechanism: ({ pid, signal }) => {
    const kill = (s: SignalName) => command('kill', ['-s', s, '--', String(pid)]);
    const back = OPPOSITE[signal];
    return [back ? { ...kill(signal), undo: kill(back) } : kill(signal)];
  },
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
  rollback: noRollback(SIGNAL_IRREVERSIBLE),
  runsPrograms: true,
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
      return unchangedByNoOp(signal, cur.main);
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
  mechanism: ({ unit, signal, whom }) => {
    const kill = (s: SignalName) => command('systemctl', ['kill', `--signal=${s}`, `--kill-whom=${whom ?? 'main'}`, '--', unit]);
    const back = OPPOSITE[signal];
    return [back ? { ...kill(signal), undo: kill(back) } : kill(signal)];
  },
});
