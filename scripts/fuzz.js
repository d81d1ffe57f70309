#!/usr/bin/env node
// `npm run fuzz`: the long run of the fuzzers (issue 22, finding 9). The same property files
// `npm test` runs at their base counts (test/integration/fuzz-*.test.ts; fuzz-daemon.test.ts is the real daemon's),
// with every count multiplied: AIRLOCK_FUZZ_SCALE (default 12) for the in-process targets,
// AIRLOCK_FUZZ_DAEMON_SCALE (default 10) for the real daemon, at least 1,000,000 cases in all.
// Prints each target's cases, time and longest event-loop hold; AIRLOCK_FUZZ_SEED replays a run.
// The daemon part needs root (it mounts an overlay of / and runs clients as other users).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stdout.write(`[airlock fuzz] ${s}\n`);
const MIN_CASES = 1_000_000;
const inProcessScale = process.env.AIRLOCK_FUZZ_SCALE ?? '12';
const daemonScale = process.env.AIRLOCK_FUZZ_DAEMON_SCALE ?? '10';

const dir = mkdtempSync(join(tmpdir(), 'airlock-fuzz-'));
const report = join(dir, 'report.jsonl');
// The in-process fuzzers: every fuzz file but the real daemon's, which needs root.
const inProcessFiles = readdirSync(join(root, 'test', 'integration')).filter((f) => /^fuzz-.*\.test\.ts$/.test(f) && f !== 'fuzz-daemon.test.ts').map((f) => join('test', 'integration', f));
const runs = [{ files: inProcessFiles, scale: inProcessScale }];
if (process.getuid?.() === 0) runs.push({ files: [join('test', 'integration', 'fuzz-daemon.test.ts')], scale: daemonScale });
else say('not root: the fuzz against the real daemon is skipped (it mounts an overlay of /; run `sudo npm run fuzz`)');

const started = Date.now();
let status = 0;
for (const r of runs) {
  say(`${r.files.join(' ')} at ${r.scale}x the base counts`);
  const env = { ...process.env, AIRLOCK_FUZZ_SCALE: r.scale, AIRLOCK_FUZZ_REPORT: report };
  const p = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=86400000', ...r.files], { cwd: root, stdio: 'inherit', env });
  status ||= p.status ?? 1;
}

let rows = [];
try {
  rows = readFileSync(report, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
} catch {}
rmSync(dir, { recursive: true, force: true });
const total = rows.reduce((n, r) => n + r.cases, 0);
const width = Math.max(...rows.map((r) => r.target.length), 6);
say(`${'target'.padEnd(width)}  ${'cases'.padStart(9)}  ${'seconds'.padStart(8)}  longest case (ms)`);
for (const r of rows) say(`${r.target.padEnd(width)}  ${String(r.cases).padStart(9)}  ${r.seconds.toFixed(1).padStart(8)}  ${r.maxLagMs.toFixed(1)}`);
say(`${'total'.padEnd(width)}  ${String(total).padStart(9)}  ${((Date.now() - started) / 1000).toFixed(1).padStart(8)}  ${Math.max(0, ...rows.map((r) => r.maxLagMs)).toFixed(1)}`);
if (total < MIN_CASES) {
  say(`only ${total} cases: raise AIRLOCK_FUZZ_SCALE for a run of at least ${MIN_CASES}`);
  status ||= 1;
}
process.exit(status);
