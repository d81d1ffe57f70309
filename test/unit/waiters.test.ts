/**
 * The bounds of waits (src/daemon/waiters.ts) and of audit pages (src/daemon/audit-page.ts),
 * without a daemon: per-principal and total caps with a typed transient refusal, slots given
 * back however a wait ends, no wake-up lost between a read and a sleep, no timer left behind;
 * pages in seq order that stop before a frame would overflow and say where to go on.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_WAITS, MAX_WAITS_PER_PRINCIPAL, Waiters } from '../../src/daemon/waiters.js';
import { auditPage, MAX_ENTRIES, PAGE_BYTES } from '../../src/daemon/audit-page.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { NO_BASE, type Store } from '../../src/store/store.js';

const refusedCode = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (e) {
    assert.ok(e instanceof AirlockError);
    return `${e.category}/${e.code}`;
  }
};
/** Timers alive in this process (Node 20 lists them as Timeout resources). */
const timers = () => (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('wait slots', () => {
  test('the contract: 8 per principal, 256 in all', () => {
    assert.equal(MAX_WAITS_PER_PRINCIPAL, 8);
    assert.equal(MAX_WAITS, 256);
  });

  test('a principal past its cap is refused with transient/too_many_waits; another principal still waits', () => {
    const ws = new Waiters();
    const held = Array.from({ length: 8 }, (_, i) => ws.open('1001', 'agent(uid 1001)', `tx_${i}`));
    assert.equal(refusedCode(() => ws.open('1001', 'agent(uid 1001)', 'tx_x')), 'transient/too_many_waits');
    const other = ws.open('1002', 'bob(uid 1002)', 'tx_y');
    assert.equal(ws.count('1001'), 8);
    assert.equal(ws.count(), 9);
    held[0]!.close();
    held[0]!.close(); // twice is once
    assert.equal(ws.count('1001'), 7);
    ws.open('1001', 'agent(uid 1001)', 'tx_x').close();
    for (const w of [...held, other]) w.close();
    assert.equal(ws.count(), 0);
    assert.equal(ws.watched, 0, 'no transaction left watched');
  });

  test('the total cap holds across principals', () => {
    const ws = new Waiters({ perPrincipal: 8, total: 20 });
    const held = Array.from({ length: 20 }, (_, i) => ws.open(String(i % 5), `p${i % 5}`, `tx_${i}`));
    const code = refusedCode(() => ws.open('99', 'fresh', 'tx_z'));
    assert.equal(code, 'transient/too_many_waits', 'even a principal with no wait yet');
    held.forEach((w) => w.close());
    assert.equal(ws.count(), 0);
  });

  test('a change between the read and the sleep is not lost', async () => {
    const ws = new Waiters();
    const w = ws.open('1', 'p', 'tx_a');
    ws.changed('tx_a'); // before the sleep
    const t0 = Date.now();
    await w.sleep(5000);
    assert.ok(Date.now() - t0 < 1000, 'the sleep returned at once');
    w.close();
  });

  test('a change wakes a sleeping wait; its timer goes with it', async () => {
    const ws = new Waiters();
    const before = timers();
    const w = ws.open('1', 'p', 'tx_a');
    const slept = w.sleep(60_000);
    assert.equal(timers(), before + 1);
    setImmediate(() => ws.changed('tx_a'));
    await slept;
    assert.equal(timers(), before, 'the timer was cleared');
    w.close();
    assert.equal(ws.count(), 0);
  });

  test('a closed connection ends the sleep and gives the slot back when the wait closes; no timer is left', async () => {
    const ws = new Waiters();
    const before = timers();
    const gone = new AbortController();
    const w = ws.open('1', 'p', 'tx_a', gone.signal);
    const slept = w.sleep(60_000);
    gone.abort();
    await slept;
    assert.equal(w.aborted, true);
    await w.sleep(60_000); // an aborted wait never sleeps again
    w.close();
    assert.equal(ws.count(), 0);
    assert.equal(timers(), before);
  });

  test('a sleep ends at its time', async () => {
    const ws = new Waiters();
    const w = ws.open('1', 'p', 'tx_a');
    const t0 = Date.now();
    await w.sleep(30);
    assert.ok(Date.now() - t0 >= 25);
    w.close();
  });

  test('a change of another transaction wakes nobody here', async () => {
    const ws = new Waiters();
    const w = ws.open('1', 'p', 'tx_a');
    ws.changed('tx_b');
    const t0 = Date.now();
    await w.sleep(50);
    assert.ok(Date.now() - t0 >= 45);
    w.close();
  });
});

describe('audit pages', () => {
  /** A store holding `n` rows whose bodies are `size` characters. */
  const storeOf = (n: number, size = 100) =>
    ({
      logRows: async (after: number, limit: number) =>
        Array.from({ length: n }, (_, i) => ({ seq: i + 1, body: 'x'.repeat(size), sig: 'a'.repeat(128) })).filter((r) => r.seq > after).slice(0, limit),
      logBase: () => NO_BASE,
    }) as unknown as Store;

  test('a page asked for at or before the archived base says where the live log starts; later pages do not', async () => {
    const base = { seq: 4, hash: 'ab'.repeat(32), frontier: ['cd'.repeat(32)], tree_head: 'h.example/airlock/0123456789abcdef\n4\nx\n\n— sig\n' };
    const store = { ...storeOf(10), logRows: async (after: number, limit: number) => (await storeOf(10).logRows(Math.max(after, 4), limit)), logBase: () => base } as unknown as Store;
    const first = await auditPage(store, { after_seq: 0, limit: 3 });
    assert.deepEqual([first.rows.map((r) => r.seq), first.base], [[5, 6, 7], base]);
    assert.deepEqual((await auditPage(store, { after_seq: 4, limit: 3 })).base, base);
    assert.equal((await auditPage(store, { after_seq: 7, limit: 3 })).base, undefined);
  });

  test('rows after after_seq in seq order, limit rows at most, and where the next page starts', async () => {
    const p = await auditPage(storeOf(10), { after_seq: 2, limit: 3 });
    assert.deepEqual(p.rows.map((r) => r.seq), [3, 4, 5]);
    assert.equal(p.next_after_seq, 5);
    const last = await auditPage(storeOf(10), { after_seq: 8, limit: 3 });
    assert.deepEqual(last.rows.map((r) => r.seq), [9, 10]);
    assert.equal(last.next_after_seq, null);
    const exact = await auditPage(storeOf(10), { after_seq: 7, limit: 3 });
    assert.deepEqual([exact.rows.length, exact.next_after_seq], [3, null], 'a page that ends the log says so');
    assert.equal((await auditPage(storeOf(600), {})).rows.length, 500, 'default limit 500, from the start');
    assert.deepEqual(await auditPage(storeOf(3), { after_seq: 3 }), { rows: [], next_after_seq: null });
  });

  test('a page stops before its rows would overflow a frame, and goes on from there', async () => {
    const size = 100_000;
    const p = await auditPage(storeOf(50, size), { limit: MAX_ENTRIES });
    assert.ok(p.rows.length >= 1 && p.rows.length < 50);
    assert.ok(JSON.stringify(p).length <= PAGE_BYTES + 1024);
    assert.equal(p.next_after_seq, p.rows[p.rows.length - 1]!.seq);
    const huge = await auditPage(storeOf(2, PAGE_BYTES * 2), {});
    assert.equal(huge.rows.length, 1, 'at least one row, however large');
    assert.equal(huge.next_after_seq, 1);
  });

  test('bad queries are validation/bad_audit_query', async () => {
    for (const q of [{ after_seq: -1 }, { after_seq: 1.5 }, { after_seq: '3' }, { limit: 0 }, { limit: MAX_ENTRIES + 1 }, { limit: 2.5 }, { limit: null }]) {
      await assert.rejects(auditPage(storeOf(3), q), (e: AirlockError) => e.code === 'bad_audit_query' && e.category === 'validation', JSON.stringify(q));
    }
  });
});
