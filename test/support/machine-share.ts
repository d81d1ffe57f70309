/**
 * `npm test` runs integration files three at a time (scripts/test.js), preloading this module in
 * each: a file holds the machine shared while it runs, and a file named in ALONE holds it alone,
 * since what it measures is a latency another file's CPU use would add to. Cross-process,
 * through files in LOCKS: `shared.PID` for each sharer, one `alone` naming its holder's pid (taken
 * with O_EXCL; a dead holder's is taken over). A sharer waits while `alone` is held; the holder of
 * `alone` waits until every live sharer has finished, and no sharer starts meanwhile. Files left by
 * a process that died are ignored by pid. Outside `npm test` (one file run by hand) nothing loads it.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive as alive } from '../../src/sandbox/uid-block.js';

const LOCKS = '/run/airlock-test-machine';
/** Files whose assertions are latency bounds tight enough (100 ms) that another file's CPU use breaks them. */
const ALONE = new Set(['mask-stall.test.ts']);
const POLL_MS = 200;

/** The pid written in a lock file; 0 when absent or still being written. */
function pidIn(file: string): number {
  try {
    return Number(readFileSync(join(LOCKS, file), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

const aloneHeld = () => {
  const pid = pidIn('alone');
  return pid !== 0 && pid !== process.pid && alive(pid);
};
const liveSharers = () =>
  readdirSync(LOCKS)
    .map((f) => /^shared\.(\d+)$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) !== process.pid && alive(Number(m[1]))).length;

function write(file: string, flags: string): boolean {
  try {
    const fd = openSync(join(LOCKS, file), flags, 0o644);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function holdShared(): Promise<void> {
  const mine = `shared.${process.pid}`;
  for (;;) {
    while (aloneHeld()) await sleep(POLL_MS);
    write(mine, 'w');
    // `alone` taken between the check and our file: step back so its holder is not kept waiting by us.
    if (!aloneHeld()) break;
    rmSync(join(LOCKS, mine), { force: true });
  }
  process.on('exit', () => rmSync(join(LOCKS, mine), { force: true }));
}

async function holdAlone(): Promise<void> {
  for (;;) {
    if (write('alone', 'wx')) break;
    const holder = pidIn('alone');
    // A holder still writing its pid reads as 0: wait for it like a live one.
    if (holder !== 0 && !alive(holder)) rmSync(join(LOCKS, 'alone'), { force: true });
    else await sleep(POLL_MS);
  }
  process.on('exit', () => pidIn('alone') === process.pid && rmSync(join(LOCKS, 'alone'), { force: true }));
  while (liveSharers() > 0) await sleep(POLL_MS);
}

// The test runner's own process loads this too: only a test file's process (argv[1] the file) holds the machine.
const file = process.argv[1] ?? '';
if (/\/test\/integration\/[^/]+\.test\.ts$/.test(file)) {
  mkdirSync(LOCKS, { recursive: true, mode: 0o755 });
  await (ALONE.has(basename(file)) ? holdAlone() : holdShared());
}
