/**
 * What every part of `npm run bench` measures with: progress lines, rates, percentiles, and
 * the CPU this run and everything else on the machine used meanwhile (/proc).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const RAW_MS = 1500;
const CLK_TCK = 100;

/** The checkout the bench runs in. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const progress = (m: string) => process.stderr.write(`bench: ${m}\n`);

/** Runs op in chunks until ms have passed (after a short warm-up); returns ops per second. */
export function rate(op: () => void, ms = RAW_MS): number {
  const chunk = 64;
  const until = (t: number) => {
    let n = 0;
    const end = performance.now() + t;
    while (performance.now() < end) {
      for (let i = 0; i < chunk; i++) op();
      n += chunk;
    }
    return n;
  };
  until(150);
  const t0 = performance.now();
  const n = until(ms);
  return n / ((performance.now() - t0) / 1000);
}

export const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! : NaN);

/** user+system CPU seconds of a process so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** user+system CPU seconds of this process's children that have ended and been waited for (spawnSync's). */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLK_TCK;
}

/** CPU seconds used by this process (all threads) and the given pids. */
function ownCpuSeconds(pids: number[]): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6 + pids.reduce((s, p) => s + cpuSeconds(p), 0);
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + (f[7] ?? 0); // user nice system irq softirq steal
  return { busy: busy / CLK_TCK, total: (busy + f[3]! + f[4]!) / CLK_TCK };
}

/**
 * Starts watching how much of the machine other processes use (another test run, a
 * build): the figures of a phase are only as good as the machine was quiet. The
 * returned function gives that share (0..1 of all cores) since the start. `ownExtra`:
 * more CPU seconds that are this run's own (the start-up phase's finished children).
 */
export function externalLoadProbe(ownPids: () => number[] = () => [], ownExtra: () => number = () => 0): () => number {
  const m0 = machineCpu();
  const o0 = ownCpuSeconds(ownPids()) + ownExtra();
  return () => {
    const m1 = machineCpu();
    const own = ownCpuSeconds(ownPids()) + ownExtra() - o0;
    return m1.total > m0.total ? Math.min(1, Math.max(0, (m1.busy - m0.busy - own) / (m1.total - m0.total))) : 0;
  };
}

/** A process's peak resident memory so far (kB). */
export const vmHwmKb = (pid: number | 'self'): number => statusKb(pid, 'VmHWM');
/** A process's resident memory now (kB). */
export const vmRssKb = (pid: number | 'self'): number => statusKb(pid, 'VmRSS');

function statusKb(pid: number | 'self', field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
