/**
 * The bounds behind every sink: a queue that drops its oldest item (counted) when full,
 * and failure messages limited to one line per window, recovery said once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedQueue } from '../../src/daemon/sinks/bounded-queue.js';
import { FailureLog } from '../../src/daemon/sinks/rate-limit.js';
import { printable } from '../../src/daemon/sinks/sink.js';

test('a full queue drops the oldest, counts it, and never grows past its bound (push and unshift alike)', () => {
  const q = new BoundedQueue<number>(3);
  for (let i = 1; i <= 10; i++) q.push(i);
  assert.equal(q.length, 3);
  assert.equal(q.dropped, 7);
  assert.equal(q.peek(), 8);
  q.unshift(5, 6); // a failed send put back at the front: the oldest overflow
  assert.equal(q.length, 3);
  assert.equal(q.dropped, 9);
  assert.deepEqual([q.shift(), q.shift(), q.shift(), q.shift()], [8, 9, 10, undefined]);
  assert.throws(() => new BoundedQueue(0), RangeError);
  assert.throws(() => new BoundedQueue(1.5), RangeError);
});

test('failures: one line per window with the count of the rest, and one line on recovery', () => {
  let now = 0;
  const lines: string[] = [];
  const f = new FailureLog('syslog tcp://x:1', (m) => lines.push(m), 60_000, () => now);
  for (let i = 0; i < 100; i++) {
    f.fail('refused');
    now += 100;
  }
  assert.deepEqual(lines, ['checkpoint sink syslog tcp://x:1: refused']);
  now = 70_000;
  f.fail('refused');
  assert.equal(lines[1], 'checkpoint sink syslog tcp://x:1: refused (99 more failure(s) since the last message)');
  f.ok();
  f.ok();
  assert.deepEqual(lines.slice(2), ['checkpoint sink syslog tcp://x:1: working again']);
});

test("another machine's text is one printable line, bounded", () => {
  assert.equal(printable('a\nb\u0007c\u00e9'), 'a?b?c?');
  assert.equal(printable('x'.repeat(500), 10), 'xxxxxxxxxx...');
});
