/**
 * One process as /proc describes it (the processes family's state reader): its program
 * name, state, parent, user, start time (with the PID, its identity) and unit. Never its
 * command line or environment, which may hold passwords and tokens.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { serviceOfCgroup } from '../../lib/systemd.js';

/** A process id: 2 to 4194304 (the kernel's PID_MAX_LIMIT); PID 1 is init and never a target. */
export const processId = z.number().int().min(2, 'PID 1 is init; Airlock never signals it').max(4_194_304).describe('a process id (2 to 4194304)');

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

/** "sleep (PID 123, user root, started 2026-11-29T20:49:12Z, in victim.service)" */
export function describeProcess(p: ProcessState): string {
  const parts = [`PID ${p.pid}`, `user ${p.user}`];
  if (p.started) parts.push(`started ${p.started}`);
  if (p.unit) parts.push(`in ${p.unit}`);
  return `${p.comm} (${parts.join(', ')})`;
}

/** What a preview shows of a process: no command line, no environment. */
export const showProcess = (p: ProcessState) => ({ pid: p.pid, exists: p.exists, comm: p.comm, state: p.state, user: p.user, started: p.started, unit: p.unit, cgroup: p.cgroup });

export function refuseMissingProcess(pid: number, p: ProcessState): void {
  if (!p.exists) throw new AirlockError('validation', 'no_such_process', `there is no process ${pid} on this host`, 'TopProcesses lists the processes');
  if (p.tgid !== pid) throw new AirlockError('validation', 'thread_id', `${pid} is a thread of process ${p.tgid}, not a process`, `name the process: ${p.tgid}`);
}
