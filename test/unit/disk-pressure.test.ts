/**
 * The disk-pressure judgement (src/daemon/disk-pressure.ts): when previews are refused, when
 * the reserve is released and written again, and that a disk hovering at the threshold does
 * not flip the state at every sample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fullFloor, judgePressure, recoveryMargin, refusesPreviews, type PressureInput, type PressureState } from '../../src/daemon/disk-pressure.js';

const MB = 1024 * 1024;
const T = { minFreeBytes: 16 * MB, reserveBytes: 8 * MB };
const at = (freeBytes: number, state: PressureState = 'ok', reserveHeld = true): PressureInput => ({ ...T, freeBytes, state, reserveHeld });

test('plenty of space: ok, nothing to do', () => {
  assert.deepEqual(judgePressure(at(40 * MB)), { state: 'ok', release: false, recreate: false });
  assert.equal(refusesPreviews('ok'), false);
});

test('under min_free: low, previews refused, the reserve kept', () => {
  assert.deepEqual(judgePressure(at(16 * MB - 1)), { state: 'low', release: false, recreate: false });
  assert.deepEqual(judgePressure(at(16 * MB)), { state: 'ok', release: false, recreate: false }, 'exactly min_free is enough');
  assert.equal(refusesPreviews('low'), true);
});

test('under the floor (a quarter of the reserve): the reserve is released and the state is full', () => {
  assert.equal(fullFloor(T), 2 * MB);
  assert.deepEqual(judgePressure(at(2 * MB - 1, 'low')), { state: 'full', release: true, recreate: false });
  assert.deepEqual(judgePressure(at(0, 'ok')), { state: 'full', release: true, recreate: false }, 'straight from ok to full');
  assert.deepEqual(judgePressure(at(2 * MB, 'low')), { state: 'low', release: false, recreate: false }, 'at the floor: still held');
  assert.equal(refusesPreviews('full'), true);
});

test('a released reserve: full until previews may resume, written again only when min_free and the reserve both fit', () => {
  // After the release: the reserve's 8 MB came free, still under min_free.
  assert.deepEqual(judgePressure(at(9 * MB, 'full', false)), { state: 'full', release: false, recreate: false });
  // Full again with nothing left to release: nothing to do, still full.
  assert.deepEqual(judgePressure(at(0, 'full', false)), { state: 'full', release: false, recreate: false });
  // Above min_free and its margin, but the reserve would not fit besides: previews resume, no reserve yet.
  assert.deepEqual(judgePressure(at(20 * MB, 'full', false)), { state: 'ok', release: false, recreate: false });
  // Room for both: written again.
  const room = T.minFreeBytes + T.reserveBytes + recoveryMargin(T);
  assert.deepEqual(judgePressure(at(room, 'full', false)), { state: 'ok', release: false, recreate: true });
  assert.deepEqual(judgePressure(at(room - 1, 'ok', false)), { state: 'ok', release: false, recreate: false });
});

test('hysteresis: low stays low until min_free plus a margin is free again', () => {
  const margin = recoveryMargin(T);
  assert.equal(margin, 1 * MB);
  assert.equal(judgePressure(at(16 * MB, 'low')).state, 'low', 'back at min_free exactly: still low');
  assert.equal(judgePressure(at(16 * MB + margin - 1, 'low')).state, 'low');
  assert.equal(judgePressure(at(16 * MB + margin, 'low')).state, 'ok');
  // A disk oscillating by less than the margin around min_free changes state once, not at every sample.
  let state: PressureState = 'ok';
  let changes = 0;
  for (let i = 0; i < 100; i++) {
    const next: PressureState = judgePressure(at(16 * MB + (i % 2 ? 1 : -1) * (margin / 2), state)).state;
    if (next !== state) changes++;
    state = next;
  }
  assert.equal(changes, 1);
});

test('no reserve held and under min_free (it could not be written): full, nothing to release', () => {
  assert.deepEqual(judgePressure(at(10 * MB, 'ok', false)), { state: 'full', release: false, recreate: false });
});
