/**
 * DiskSpace (src/daemon/disk-space.ts) on a real directory: the reserve file is written whole
 * (real blocks, mode 0600), previews are refused with `transient/disk_low` under min_free, a
 * write refused for want of space releases the reserve and becomes `transient/disk_full`, each
 * change of state is reported once, and a sample is reused within a second. The thresholds
 * move instead of the disk (the loop-mounted file system is the integration test's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiskSpace, RESERVE_FILE, SAMPLE_REUSE_MS } from '../../src/daemon/disk-space.js';
import type { StorageSpace } from '../../src/protocol/messages.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { removeTree, tempDir } from '../support/fs.js';

const MB = 1024 * 1024;
const HUGE = 2 ** 52; // more free space than any disk has

function setup(t: { after: (fn: () => void) => void }) {
  const dir = tempDir('airlock-space-');
  t.after(() => removeTree(dir));
  const thresholds = { minFreeBytes: 1 * MB, reserveBytes: 1 * MB };
  let clock = 1_000_000;
  const seen: StorageSpace[] = [];
  const logs: string[] = [];
  const space = new DiskSpace({ dir, thresholds: () => thresholds, onTransition: (s) => seen.push(s), log: (m) => logs.push(m), now: () => clock });
  return { dir, thresholds, seen, logs, space, tick: (ms = SAMPLE_REUSE_MS) => (clock += ms) };
}

test('the reserve is written whole, then previews are refused under min_free and the change is told once', async (t) => {
  const { dir, thresholds, seen, space, tick } = setup(t);
  assert.equal(space.sample().state, 'ok');
  await space.settled();
  const st = statSync(join(dir, RESERVE_FILE));
  assert.equal(st.size, 1 * MB);
  assert.ok(st.blocks * 512 >= st.size, 'real blocks, not a sparse file');
  assert.equal(st.mode & 0o777, 0o600);
  tick();
  assert.equal(space.sample().reserve_held, true);

  thresholds.minFreeBytes = HUGE;
  assert.equal(space.sample().state, 'ok', 'the sample of the last second is reused: no statfs per preview');
  tick();
  assert.throws(() => space.refuseNewWork(), (e: AirlockError) => e.category === 'transient' && e.code === 'disk_low' && e.message.includes(dir) && /min_free_mb/.test(e.hint ?? ''));
  for (let i = 0; i < 5; i++) {
    tick();
    assert.throws(() => space.refuseNewWork(), /under the/);
  }
  assert.deepEqual(seen.map((s) => s.state), ['low'], 'one report for the change, none per refusal');
  assert.equal(seen[0]!.reserve_held, true);
  assert.equal(seen[0]!.min_free_bytes, HUGE);
});

test('a write refused for want of space releases the reserve (retry once) and is transient/disk_full; recovery writes it again', async (t) => {
  const { dir, thresholds, seen, space, tick } = setup(t);
  space.sample();
  await space.settled();
  tick();
  thresholds.minFreeBytes = HUGE;
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  const first = space.writeFailed(full)!;
  assert.equal(first.retry, true, 'the reserve was released: worth one more try');
  assert.equal(`${first.error.category}/${first.error.code}`, 'transient/disk_full');
  assert.equal(existsSync(join(dir, RESERVE_FILE)), false);
  assert.equal(space.writeFailed(Object.assign(new Error('no space'), { code: 'ENOSPC' }))!.retry, false, 'nothing left to release');
  assert.equal(space.writeFailed(new Error('something else')), null);
  assert.deepEqual(seen.map((s) => s.state), ['full']);

  thresholds.minFreeBytes = 1 * MB;
  tick();
  assert.equal(space.sample().state, 'ok');
  await space.settled();
  assert.equal(statSync(join(dir, RESERVE_FILE)).size, 1 * MB, 'written again');
  assert.deepEqual(seen.map((s) => s.state), ['full', 'ok']);
});

test('at start: a whole reserve is kept, a wrong-sized one and a leftover .tmp are removed; a link is never written through', async (t) => {
  const dir = tempDir('airlock-space-');
  t.after(() => removeTree(dir));
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'keep me');
  writeFileSync(join(dir, RESERVE_FILE), Buffer.alloc(4096));
  symlinkSync(victim, join(dir, `${RESERVE_FILE}.tmp`));
  const space = new DiskSpace({ dir, thresholds: () => ({ minFreeBytes: MB, reserveBytes: MB }), onTransition: () => {}, log: () => {} });
  space.sample();
  await space.settled();
  assert.equal(statSync(join(dir, RESERVE_FILE)).size, MB);
  assert.equal(statSync(victim).size, 'keep me'.length, 'the link was removed, not followed');
  const again = new DiskSpace({ dir, thresholds: () => ({ minFreeBytes: MB, reserveBytes: MB }), onTransition: () => {}, log: () => {} });
  assert.equal(again.sample().reserve_held, true, 'a whole reserve from the last run counts');
});
