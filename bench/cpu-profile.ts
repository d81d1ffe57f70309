/**
 * Where a daemon's time goes, from the V8 CPU profiles `node --cpu-prof` writes (one per
 * thread): self time per function and per place (a source file of ours, a dependency, a
 * built-in), within a window of the monotonic clock, so that start-up and warm-up are left
 * out. Used by bench/lifecycle.ts to print the top costs of a lifecycle beside its phases.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A cost: what it is and the CPU milliseconds it took in the window. */
export interface Cost {
  name: string;
  ms: number;
}

export interface ProfileSummary {
  /** CPU ms the main thread spent in the window (samples that are not idle). */
  mainBusyMs: number;
  /** CPU ms worker threads spent in the window. */
  workerBusyMs: number;
  /** Main thread, self time by place (our source file, a dependency, a built-in, the garbage collector). */
  places: Cost[];
  /** Main thread, self time by function. */
  functions: Cost[];
  /** Main thread, total time (self + callees) in functions of our own source, once per sample. */
  inclusive: Cost[];
}

const IDLE = new Set(['(idle)', '(root)']);

/** The place a call frame belongs to: src/dir/file.ts, a package's name, node's built-in module, or V8's own pseudo-frames. */
function placeOf(f: ProfileNode['callFrame'], root: string): string {
  const url = f.url;
  if (!url) return f.functionName.startsWith('(') ? f.functionName : `(native) ${f.functionName}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:');
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  return relative(root, path);
}

/**
 * Sums the profiles in `dir` between `fromUs` and `toUs` (microseconds of the monotonic clock:
 * `process.hrtime.bigint() / 1000n` in any process of this machine). The main thread's profile
 * is the one with the most samples in the window.
 */
export function summarizeProfiles(dir: string, fromUs: number, toUs: number, root: string): ProfileSummary {
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile);
  if (!profiles.length) throw new Error(`no CPU profile in ${dir}`);
  const windows = profiles.map((p) => inWindow(p, fromUs, toUs));
  const busy = windows.map((w, i) => w.reduce((s, [id, dt]) => s + (IDLE.has(byId(profiles[i]!).get(id)!.callFrame.functionName) ? 0 : dt), 0));
  const main = busy.indexOf(Math.max(...busy));
  const p = profiles[main]!;
  const nodes = byId(p);
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  for (const [id, dt] of windows[main]!) {
    const f = nodes.get(id)!.callFrame;
    if (IDLE.has(f.functionName)) continue;
    const place = placeOf(f, root);
    add(places, place, dt);
    add(functions, `${f.functionName || '(anonymous)'} ${place}${f.url ? `:${f.lineNumber + 1}` : ''}`, dt);
    // Every function of ours on the stack, once per sample (recursion counted once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const g = nodes.get(at)!.callFrame;
      const gp = placeOf(g, root);
      if (!gp.startsWith('src/') || !g.functionName) continue;
      const k = `${g.functionName} ${gp}:${g.lineNumber + 1}`;
      if (!seen.has(k)) (seen.add(k), add(inclusive, k, dt));
    }
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  return {
    mainBusyMs: busy[main]! / 1000,
    workerBusyMs: busy.reduce((s, b, i) => s + (i === main ? 0 : b), 0) / 1000,
    places: sorted(places),
    functions: sorted(functions),
    inclusive: sorted(inclusive),
  };
}

const nodeMaps = new WeakMap<CpuProfile, Map<number, ProfileNode>>();
function byId(p: CpuProfile): Map<number, ProfileNode> {
  let m = nodeMaps.get(p);
  if (!m) nodeMaps.set(p, (m = new Map(p.nodes.map((n) => [n.id, n]))));
  return m;
}

/** [node id, microseconds] of each sample taken between fromUs and toUs. */
function inWindow(p: CpuProfile, fromUs: number, toUs: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i]!;
    t += dt;
    if (t >= fromUs && t <= toUs) out.push([p.samples[i]!, dt]);
  }
  return out;
}
