/** The PostgreSQL store's write queue: one job at a time, in order, a failed job does not stop the next, and the wait is bounded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteQueue } from '../../src/store/write-queue.js';

test('jobs run one at a time in the order given; a failure is the caller\'s, the queue goes on', async () => {
  const q = new WriteQueue(10);
  const log: string[] = [];
  let running = 0;
  const job = (name: string, fail = false) => async () => {
    assert.equal(running++, 0, 'two jobs at once');
    await new Promise((r) => setTimeout(r, 5));
    log.push(name);
    running--;
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([q.run(job('a')), q.run(job('b', true)), q.run(job('c'))]);
  assert.deepEqual(log, ['a', 'b', 'c']);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  await q.drain();
});

test('more waiting jobs than the bound: refused at once with transient/store_busy', async () => {
  const q = new WriteQueue(2);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = q.run(() => gate);
  const second = q.run(async () => 'second');
  await assert.rejects(q.run(async () => 'third'), (e: Error & { code?: string; category?: string }) => e.code === 'store_busy' && e.category === 'transient');
  release();
  await first;
  assert.equal(await second, 'second');
  assert.equal(await q.run(async () => 'after'), 'after');
});
