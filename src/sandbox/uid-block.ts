/**
 * A block of uids and gids of its own for each throwaway host. An overlay of `/` shares
 * this machine's pid namespace, so a uid that two sandboxes both hand out (useradd counts
 * from UID_MIN in each) makes one sandbox's processes look like the other's: DeleteUser
 * then refused a user as busy with processes it never had. Each sandbox reserves a block
 * through an O_EXCL lock file naming its owner (a stale one, whose owner died, is taken
 * over), skips blocks any process here already runs in, and points its login.defs at it.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCKS = '/run/airlock-sandbox-uids';
/** Regular-account uids (1000 <= uid < 60000, what the catalogue treats as people), in blocks of this size. */
export const BLOCK_SIZE = 500;
const FIRST = 10_000;
const BLOCKS = Math.floor((60_000 - FIRST) / BLOCK_SIZE);

export interface UidBlock {
  first: number;
  last: number;
  release(): void;
}

/** Real uids of the processes running here now. */
export function runningUids(): number[] {
  const uids: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) uids.push(Number(m[1]));
    } catch {} // it exited meanwhile
  }
  return uids;
}

/** Whether process `pid` still runs (EPERM: it does, as another user): a lock file's owner is judged by it. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock file of block k: created O_EXCL, or taken over when its owner has exited. */
function lock(k: number): boolean {
  const path = join(LOCKS, String(k));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let owner = 0;
      try {
        owner = Number(readFileSync(path, 'utf8')) || 0;
      } catch {}
      // An owner still writing its pid reads as 0: leave that block alone.
      if (owner === 0 || processAlive(owner)) return false;
      rmSync(path, { force: true });
    }
  }
  return false;
}

/** Block k, when no other sandbox holds it and no process here runs in it. */
function take(k: number, busy: number[]): UidBlock | null {
  const first = FIRST + k * BLOCK_SIZE;
  const last = first + BLOCK_SIZE - 1;
  if (busy.some((u) => u >= first && u <= last) || !lock(k)) return null;
  return { first, last, release: () => rmSync(join(LOCKS, String(k)), { force: true }) };
}

/**
 * Reserves a block no other sandbox holds and no process here runs in; throws when none is left.
 * `first` asks for the block a kept state was made in (its users' names carry their uids): that
 * one, waited for up to 20 seconds while another sandbox or a last process of its own holds it.
 */
export async function reserveUidBlock(first?: number): Promise<UidBlock> {
  mkdirSync(LOCKS, { recursive: true, mode: 0o755 });
  if (first !== undefined) {
    const k = (first - FIRST) / BLOCK_SIZE;
    if (!Number.isInteger(k) || k < 0 || k >= BLOCKS) throw new Error(`${first} does not begin a sandbox uid block`);
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(100)) {
      const block = take(k, runningUids());
      if (block) return block;
    }
    throw new Error(`the uid block ${first}-${first + BLOCK_SIZE - 1} a kept state was made in stayed busy for 20 seconds`);
  }
  const busy = runningUids();
  const start = Math.floor(Math.random() * BLOCKS);
  for (let i = 0; i < BLOCKS; i++) {
    const block = take((start + i) % BLOCKS, busy);
    if (block) return block;
  }
  throw new Error(`no free block of ${BLOCK_SIZE} uids in ${FIRST}-59999 for another sandbox (${LOCKS} holds the reservations)`);
}

/** login.defs with its id ranges set to the block: useradd and groupadd then count from there. */
export function loginDefsFor(original: string, block: UidBlock): string {
  const set = { UID_MIN: block.first, UID_MAX: block.last, GID_MIN: block.first, GID_MAX: block.last };
  const kept = original.split('\n').filter((l) => !/^\s*(UID_MIN|UID_MAX|GID_MIN|GID_MAX)\s/.test(l));
  return [...kept, '# airlock sandbox: a uid block of its own', ...Object.entries(set).map(([k, v]) => `${k}\t${v}`), ''].join('\n');
}
