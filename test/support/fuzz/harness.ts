/**
 * The fuzzers' common ground: how many cases a run makes, how long one case may hold the
 * event loop, the kept failing inputs, and the per-target figures `npm run fuzz` prints.
 *
 * `npm test` runs every target at its base count (a bounded run of a few minutes);
 * AIRLOCK_FUZZ_SCALE multiplies every count (scripts/fuzz.js sets it for the long run),
 * AIRLOCK_FUZZ_SEED replays one run. A failure prints fast-check's seed, path and shrunk
 * counterexample: keep the counterexample in regressions.json, which every run replays.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

/** No one case may keep the daemon's event loop busy longer than this (issue 22, finding 9). */
export const MAX_CASE_MS = 100;

const scale = Number(process.env.AIRLOCK_FUZZ_SCALE ?? '1');
if (!(scale > 0)) throw new Error(`AIRLOCK_FUZZ_SCALE must be a positive number, not ${process.env.AIRLOCK_FUZZ_SCALE}`);

/** The case count of a target whose bounded run makes `base` cases. */
export const runs = (base: number): number => Math.max(1, Math.round(base * scale));

/** fast-check parameters for `numRuns` cases (a fixed seed when AIRLOCK_FUZZ_SEED is set). */
export function params<T>(numRuns: number): fc.Parameters<T> {
  const seed = process.env.AIRLOCK_FUZZ_SEED;
  return { numRuns, ...(seed ? { seed: Number(seed) } : {}), endOnFailure: false };
}

export interface Regression {
  target: string;
  /** Why it is kept: the bug it found, or the issue it waits for. */
  note: string;
  input: unknown;
  /** Set while the bug it shows is open: the case is reported, not failed (a `todo` test). */
  knownIssue?: string;
}

const REGRESSIONS = join(dirname(fileURLToPath(import.meta.url)), 'regressions.json');

/** The kept inputs of one target. */
export function regressions(target: string): Regression[] {
  return (JSON.parse(readFileSync(REGRESSIONS, 'utf8')) as Regression[]).filter((r) => r.target === target);
}

/**
 * Counts one target's cases and the longest any of them kept the thread busy. A case is
 * synchronous work the daemon would do on its event loop, so its time is the lag it
 * causes; it is over the bound only when both its wall time and its CPU time are (on a
 * loaded machine a case can wait for a core without doing any work).
 */
export class CaseClock {
  cases = 0;
  maxWallMs = 0;
  /** The longest case by CPU time, which is what it costs the daemon's loop. */
  maxCpuMs = 0;
  readonly started = performance.now();
  constructor(readonly target: string) {}

  time<T>(input: unknown, run: () => T): T {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const out = run();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(cpu0);
    const cpu = (c.user + c.system) / 1000;
    this.cases++;
    this.maxWallMs = Math.max(this.maxWallMs, wall);
    this.maxCpuMs = Math.max(this.maxCpuMs, cpu);
    if (wall > MAX_CASE_MS && cpu > MAX_CASE_MS) {
      throw new Error(`one ${this.target} case kept the thread busy for ${cpu.toFixed(0)} ms (over ${MAX_CASE_MS}): ${JSON.stringify(input)?.slice(0, 300)}`);
    }
    return out;
  }

  /** The figures of this target: printed as a test diagnostic, and appended to AIRLOCK_FUZZ_REPORT for scripts/fuzz.js. */
  report(diagnostic: (line: string) => void, lagMs = this.maxCpuMs, wallMs = this.maxWallMs): void {
    const seconds = (performance.now() - this.started) / 1000;
    diagnostic(`fuzz ${this.target}: ${this.cases} cases in ${seconds.toFixed(1)} s, longest case ${lagMs.toFixed(1)} ms (wall ${wallMs.toFixed(1)} ms)`);
    const file = process.env.AIRLOCK_FUZZ_REPORT;
    if (file) appendFileSync(file, JSON.stringify({ target: this.target, cases: this.cases, seconds, maxLagMs: lagMs, maxWallMs: wallMs }) + '\n');
  }
}
