/**
 * The mask pool (src/mask/pool.ts) with real worker threads: what it masks is what the
 * masker makes of it; a task that misses its deadline is withheld (never unmasked) and its
 * worker replaced; a stream that lost its worker withholds the rest; one principal never
 * holds every worker; and a principal's queue is bounded. Deadlines are shortened here so
 * that ordinary text overruns them, whatever the masker's speed.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { maskText } from '../../src/mask/mask.js';
import { MAX_QUEUED_PER_PRINCIPAL, MaskPool, PoolBusy, TIMED_OUT, WITHHELD_REST, type MaskReply } from '../../src/mask/pool.js';

const pools: MaskPool[] = [];
const pool = (...a: ConstructorParameters<typeof MaskPool>) => {
  const p = new MaskPool(...a);
  pools.push(p);
  return p;
};
after(() => Promise.all(pools.map((p) => p.close())));

const token = `ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'.slice(0, 36)}`;
const line = `deploy token=${token} done`;
/** Ordinary text the masker needs well over a millisecond for. */
const long = Array.from({ length: 40_000 }, (_, i) => `line ${i} of an ordinary log, nothing secret here`).join('\n');

test('a task is masked in a worker as in-process', async () => {
  const p = pool(2);
  const r = (await p.run('u1', { op: 'texts', texts: [line, 'plain'], pseudonyms: null }, line.length)) as MaskReply;
  assert.notEqual(r, TIMED_OUT);
  assert.deepEqual(r.texts, [maskText(line).text, 'plain']);
  assert.ok(!r.texts![0]!.includes(token));
  assert.deepEqual(r.counts, maskText(line).counts);
  const d = (await p.run('u1', { op: 'deep', value: { note: line, n: 1 }, pseudonyms: null }, 100)) as MaskReply;
  assert.equal((d.value as { note: string }).note, maskText(line).text);
});

test('a task that misses its deadline is withheld, its worker replaced, and the pool still masks', async () => {
  const overran: string[] = [];
  const p = pool(1, (who) => overran.push(who), { baseMs: 1, charsPerMs: 1e9 });
  const r = await p.run('slow', { op: 'texts', texts: [long + `\n${line}`], pseudonyms: null }, long.length);
  assert.equal(r, TIMED_OUT);
  assert.deepEqual(overran, ['slow']);
  assert.equal(p.overruns, 1);
  const fast = pool(1);
  const again = (await fast.run('u', { op: 'texts', texts: [line], pseudonyms: null }, 10)) as MaskReply;
  assert.ok(!again.texts![0]!.includes(token));
});

test('a value that cannot be copied to a worker is withheld, and the pool goes on', async () => {
  const p = pool(1);
  assert.equal(await p.run('u', { op: 'deep', value: { f: () => 1 }, pseudonyms: null }, 10), TIMED_OUT);
  const r = (await p.run('u', { op: 'texts', texts: [line], pseudonyms: null }, 10)) as MaskReply;
  assert.ok(!r.texts![0]!.includes(token));
});

test('a stream whose piece overran withholds the rest of its output, once, and never shows it unmasked', async () => {
  const p = pool(1, undefined, { baseMs: 1, charsPerMs: 1e9 });
  const s = p.stream('u', null);
  const out = (await s.push(`${long}\n${line}\n`)) + (await s.push(`${line}\nafter\n`)) + (await s.end());
  assert.equal(out, `${WITHHELD_REST}\n`);
  assert.deepEqual(s.counts, { withheld: 1 }, 'the log counts what was withheld');
});

test('pieces of one stream are masked as one text, across pieces', async () => {
  const p = pool(2);
  const s = p.stream('u', null);
  const out = (await s.push(`a\nGITHUB=${token.slice(0, 10)}`)) + (await s.push(`${token.slice(10)}\nb\n`)) + (await s.end());
  assert.equal(out, 'a\nGITHUB=⟦secret:github_token⟧\nb\n');
  assert.deepEqual(s.counts, { github_token: 1 });
});

test('one principal holds at most all workers but one: another principal is served while it waits', async () => {
  const p = pool(2, undefined, { baseMs: 5000, charsPerMs: 1e9 });
  assert.equal(p.perPrincipal, 1);
  // Both workers started first (two principals, one worker each): a cold start on a loaded machine is no part of the race.
  await Promise.all(['warm 1', 'warm 2'].map((w) => p.run(w, { op: 'texts', texts: ['x'], pseudonyms: null }, 1)));
  const done: string[] = [];
  // Each heavy task is many times one line's work (10 MB of text), whatever the masker's speed.
  const heavy = Array.from({ length: 4 }, (_, i) => p.run('heavy', { op: 'texts', texts: [long, long, long, long, long], pseudonyms: null }, 5 * long.length).then(() => done.push(`heavy ${i}`)));
  await p.run('other', { op: 'texts', texts: [line], pseudonyms: null }, line.length).then(() => done.push('other'));
  await Promise.all(heavy);
  // Without the cap both workers would hold heavy tasks, and the other principal would wait for one of them.
  assert.equal(done[0], 'other', done.join(', '));
});

test(`a principal's queue is bounded (${MAX_QUEUED_PER_PRINCIPAL} tasks): past it a task is refused, others are not`, async () => {
  const p = pool(1);
  const queued = Array.from({ length: MAX_QUEUED_PER_PRINCIPAL + 1 }, () => p.run('flood', { op: 'texts', texts: ['x'], pseudonyms: null }, 1));
  const refused = await Promise.allSettled(queued);
  assert.ok(refused.some((r) => r.status === 'rejected' && r.reason instanceof PoolBusy), 'a task past the bound is refused');
  assert.notEqual(await p.run('calm', { op: 'texts', texts: ['y'], pseudonyms: null }, 1), TIMED_OUT);
});
