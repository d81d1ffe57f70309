/** The process-slot semaphore: a total, a per-holder share, and waiters that a capped holder does not block. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Slots } from '../../src/daemon/slots.js';

const tick = () => new Promise((r) => setImmediate(r));

test('a holder at its share waits, and lets another holder take a free slot past it', async () => {
  const s = new Slots(4, 2);
  const a1 = await s.take('a');
  await s.take('a');
  let a3: (() => void) | null = null;
  void s.take('a').then((r) => (a3 = r));
  await tick();
  assert.equal(a3, null, "a's third waits though two slots are free");
  assert.equal(s.heldBy('a'), 2);
  const b1 = await s.take('b'); // passes a's waiter
  await s.take('b');
  let c1: (() => void) | null = null;
  void s.take('c').then((r) => (c1 = r));
  await tick();
  assert.equal(c1, null, 'all four slots are held');
  a1();
  await tick();
  assert.ok(a3, "a's waiter came first and a is under its share again");
  assert.equal(c1, null);
  b1();
  await tick();
  assert.ok(c1);
  assert.equal(s.heldBy('a') + s.heldBy('b') + s.heldBy('c'), 4);
});

test('without a share it is a plain counting semaphore, in order; a release counts once', async () => {
  const s = new Slots(1);
  const order: number[] = [];
  const r0 = await s.take();
  const waits = [1, 2, 3].map((i) => s.take().then((r) => (order.push(i), r)));
  r0();
  r0(); // a second call frees nothing more
  await tick();
  assert.deepEqual(order, [1]);
  (await waits[0]!)();
  await tick();
  (await waits[1]!)();
  await tick();
  assert.deepEqual(order, [1, 2, 3]);
});
