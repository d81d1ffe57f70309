/**
 * Full lifecycles (preview -> approve -> execute) of a low-risk read against a real daemon in
 * a throwaway overlay of / (needs root), at concurrency 1 and CONCURRENCY, with the agent and
 * the approver as two real Unix users; then where the daemon's time goes: a second daemon,
 * started with `node --cpu-prof`, runs PROFILE_COUNT lifecycles at concurrency 1, and its
 * profiles are summed over exactly that window (bench/cpu-profile.ts). The profiler slows the
 * daemon a little, so its lifecycles are not the measured ones: it says where, not how fast.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSqliteLog } from '../src/audit/log-file.js';
import { parsePublicKey } from '../src/audit/keys.js';
import { verifyLog } from '../src/audit/verify.js';
import { startSandboxDaemon, type SandboxDaemon, type SandboxDaemonOptions } from '../src/sandbox/daemon.js';
import { Principal } from '../src/sandbox/principal.js';
import { summarizeProfiles, type ProfileSummary } from './cpu-profile.js';
import { cpuSeconds, externalLoadProbe, pct, progress, ROOT, vmHwmKb } from './measure.js';

export const ACTION = 'Uptime'; // low risk, read-only, {} params, two fileScan steps: no program is spawned
export const CONCURRENCY = 16;
export const C1_COUNT = 300;
export const C16_COUNT = 800;
/**
 * Lifecycles run before any is timed: enough that V8's optimising compiler has finished with the
 * hot path (after 60, a whole-process profile still found it in 13% of the samples).
 */
export const WARMUP_COUNT = 400;
const PROFILE_COUNT = 200;
/** Sampling interval of the profiled daemon, microseconds (node's default is 1000: too coarse for a lifecycle of a few ms). */
const PROFILE_INTERVAL_US = 250;
const RUN_LIMIT_MS = 40_000;

export interface RunResult {
  concurrency: number;
  count: number;
  wallMs: number;
  throughput: number;
  p50: number;
  p99: number;
  phases: { preview: number; approveRoundTrip: number; approveDaemon: number; execute: number };
  daemonCpuMsPerLifecycle: number;
  clientCpuMsPerLifecycle: number;
  /** Share of all cores used by other processes meanwhile. */
  externalLoad: number;
}

type LifecycleReply = { timings: number[][]; errors: string[]; wallMs: number };

/** A daemon in an overlay where reads wait for a person, an agent and an approver (real Unix users), and the approver's approval socket. */
interface Bed {
  d: SandboxDaemon;
  agent: Principal;
  approver: Principal;
  approverPath: string;
}

async function startBed(cleanups: Array<() => unknown>, opts: SandboxDaemonOptions = {}): Promise<Bed> {
  progress('starting a daemon in a throwaway overlay of / ...');
  // Reads wait for a person here: the bench measures the whole human-approved lifecycle.
  const d = await startSandboxDaemon({ policy: 'reads = "ask"\n', ...opts });
  cleanups.push(() => d.stop());
  const principals: Principal[] = [];
  cleanups.push(() => principals.forEach((p) => p.close()));
  const agent = Principal.spawn(await d.addUser('bench-agent', ['airlock-observer']), d.socket);
  const approver = Principal.spawn(await d.addUser('bench-approver', ['airlock-admin', 'airlock-approvers']), d.socket);
  principals.push(agent, approver);

  const sockDir = mkdtempSync(join(tmpdir(), 'airlock-bench-approvals-'));
  cleanups.push(() => rmSync(sockDir, { recursive: true, force: true }));
  chmodSync(sockDir, 0o777); // the approver principal (another uid) creates its socket here
  const approverPath = join(sockDir, 'approve.sock');
  await approver.op('serveApprovals', { path: approverPath });
  // Sanity: the daemon answers.
  if (!(await agent.call('audit.pubkey'))) throw new Error('no answer from the daemon');
  return { d, agent, approver, approverPath };
}

async function runLifecycles({ d, agent, approver, approverPath }: Bed, count: number, concurrency: number): Promise<RunResult> {
  const pids = [agent.pid!, approver.pid!];
  const load = externalLoadProbe(() => [d.box.pid, ...pids]);
  const cpu0 = cpuSeconds(d.box.pid);
  const cli0 = pids.reduce((s, p) => s + cpuSeconds(p), 0);
  const r = await agent.op<LifecycleReply>('lifecycles', { action: ACTION, params: {}, count, concurrency, approver: approverPath, timeLimitMs: RUN_LIMIT_MS });
  const cpu1 = cpuSeconds(d.box.pid);
  const externalLoad = load();
  const cli1 = pids.reduce((s, p) => s + cpuSeconds(p), 0);
  if (r.errors.length) throw new Error(`${r.errors.length} lifecycle(s) failed at concurrency ${concurrency}; first: ${r.errors[0]}`);
  const n = r.timings.length;
  const col = (i: number) => r.timings.map((t) => t[i]!).sort((a, b) => a - b);
  const total = col(0);
  return {
    concurrency,
    count: n,
    wallMs: r.wallMs,
    throughput: n / (r.wallMs / 1000),
    p50: pct(total, 0.5),
    p99: pct(total, 0.99),
    phases: { preview: pct(col(1), 0.5), approveRoundTrip: pct(col(2), 0.5), approveDaemon: pct(col(3), 0.5), execute: pct(col(4), 0.5) },
    daemonCpuMsPerLifecycle: ((cpu1 - cpu0) * 1000) / n,
    clientCpuMsPerLifecycle: ((cli1 - cli0) * 1000) / n,
    externalLoad,
  };
}

export async function lifecycleBench(cleanups: Array<() => unknown>) {
  const bed = await startBed(cleanups);
  const { d, agent, approver } = bed;
  progress(`warm-up: ${WARMUP_COUNT} lifecycles of ${ACTION}...`);
  const warm = await runLifecycles(bed, WARMUP_COUNT, 4);
  progress(`concurrency 1: ${C1_COUNT} lifecycles...`);
  const c1 = await runLifecycles(bed, C1_COUNT, 1);
  progress(`concurrency ${CONCURRENCY}: ${C16_COUNT} lifecycles...`);
  const c16 = await runLifecycles(bed, C16_COUNT, CONCURRENCY);

  // Every lifecycle must be in the daemon's signed log: 1 start entry + 5 per lifecycle.
  progress("checking the daemon's own log...");
  const pub = parsePublicKey(readFileSync(d.files.publicKey, 'utf8'));
  const report = await verifyLog(readSqliteLog(d.files.db), pub, readFileSync(d.files.checkpoints, 'utf8'));
  const expected = 1 + 5 * (warm.count + c1.count + c16.count);
  if (report.status !== 'intact' || report.entries !== expected) {
    throw new Error(`daemon log after the run: ${report.status}, ${report.entries} entries (expected ${expected}) ${JSON.stringify(report.first_broken ?? '')}`);
  }
  const comm = readFileSync(`/proc/${d.box.pid}/comm`, 'utf8').trim();
  const daemonHwmKb = vmHwmKb(d.box.pid);
  const clientHwmKb = Math.max(vmHwmKb(agent.pid!), vmHwmKb(approver.pid!));
  return { c1, c16, daemonLog: { entries: report.entries, status: report.status }, daemonHwmKb, daemonComm: comm, clientHwmKb };
}

export interface LifecycleProfile extends ProfileSummary {
  lifecycles: number;
  /** p50 of the profiled lifecycles (slower than the measured ones: the profiler's own cost). */
  p50: number;
}

/** PROFILE_COUNT lifecycles at concurrency 1 on a daemon under `node --cpu-prof`: where its time goes, per lifecycle. */
export async function profileLifecycles(cleanups: Array<() => unknown>): Promise<LifecycleProfile> {
  const kept = mkdtempSync(join(tmpdir(), 'airlock-bench-profile-'));
  rmSync(kept, { recursive: true });
  cleanups.push(() => {
    // The daemon left its checkpoint file append-only (chattr +a) in the kept directory.
    execFileSync('/usr/bin/chattr', ['-R', '-a', '--', kept], { stdio: 'ignore' });
    rmSync(kept, { recursive: true, force: true });
  });
  const own: Array<() => unknown> = [];
  const profiles = join(kept, 'cpu-profile');
  let run: RunResult;
  let from: bigint;
  let to: bigint;
  try {
    const bed = await startBed(own, { nodeOptions: (shared) => ['--cpu-prof', `--cpu-prof-dir=${shared}/cpu-profile`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`] });
    progress(`profile: warm-up, then ${PROFILE_COUNT} lifecycles at concurrency 1 on a daemon under --cpu-prof...`);
    await runLifecycles(bed, WARMUP_COUNT, 4);
    // The profiles' timestamps are the monotonic clock's, in microseconds, as hrtime's.
    from = process.hrtime.bigint() / 1000n;
    run = await runLifecycles(bed, PROFILE_COUNT, 1);
    to = process.hrtime.bigint() / 1000n;
    // The profile is written when the daemon exits: stop it after the principals (own[0] is its
    // plain stop, a no-op once stopped), keeping its shared directory where the profile is.
    for (const c of own.splice(1).reverse()) await c();
    await bed.d.stop({ keepSharedAs: kept });
  } finally {
    for (const c of own.splice(0).reverse()) await c();
  }
  const s = summarizeProfiles(profiles, Number(from), Number(to), ROOT);
  const per = (costs: ProfileSummary['places']) => costs.map((c) => ({ name: c.name, ms: c.ms / run.count }));
  return {
    lifecycles: run.count,
    p50: run.p50,
    mainBusyMs: s.mainBusyMs / run.count,
    workerBusyMs: s.workerBusyMs / run.count,
    places: per(s.places),
    functions: per(s.functions),
    inclusive: per(s.inclusive),
  };
}
