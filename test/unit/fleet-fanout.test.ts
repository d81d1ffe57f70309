/** One request to many hosts (src/client/fleet.ts): bounded, every host's answer its own, in order; waves. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eachHost, inWaves, stepsByHost } from '../../src/client/fleet.js';
import { AirlockError } from '../../src/protocol/errors.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('at most `concurrency` hosts at once, answers in the order given whatever order they finish in', async () => {
  let running = 0;
  let most = 0;
  const hosts = Array.from({ length: 20 }, (_, i) => `h${i}`);
  const answers = await eachHost(hosts, async (h) => {
    running++;
    most = Math.max(most, running);
    await sleep(20 - Number(h.slice(1)));
    running--;
    return h.toUpperCase();
  }, 4);
  assert.equal(most, 4);
  assert.deepEqual(answers.map((a) => a.host), hosts);
  assert.deepEqual(answers.map((a) => (a.ok ? a.value : null)), hosts.map((h) => h.toUpperCase()));
});

test("a host that fails is that host's answer alone, with its typed error", async () => {
  const answers = await eachHost(['a', 'b', 'c'], async (h) => {
    if (h === 'b') throw new AirlockError('transient', 'host_unreachable', 'b is down');
    return h;
  });
  assert.deepEqual(answers.map((a) => a.ok), [true, false, true]);
  assert.equal(!answers[1]!.ok && answers[1]!.error.code, 'host_unreachable');
  await assert.rejects(eachHost(['a'], async () => 1, 0), /concurrency/);
  await assert.rejects(eachHost(['a'], async () => 1, 17), /concurrency/);
});

test('waves: the first host alone, the rest only once it succeeded', async () => {
  const ran: string[] = [];
  const ok = await inWaves(['a', 'b', 'c'], async (h) => (ran.push(h), h !== 'x'), (a) => a.ok && a.value);
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.ok(ok.every((a) => a.ok));
  ran.length = 0;
  const halted = await inWaves(['x', 'b', 'c'], async (h) => (ran.push(h), h !== 'x'), (a) => a.ok && a.value);
  assert.deepEqual(ran, ['x'], 'nothing else ran');
  assert.deepEqual(halted.map((a) => (a.ok ? 'ran' : a.error.code)), ['ran', 'wave_halted', 'wave_halted']);
});

test('steps are grouped by host, hosts in first-seen order, steps in their order', () => {
  const groups = stepsByHost([{ n: 1, host: 'b' }, { n: 2 }, { n: 3, host: 'b' }, { n: 4, host: 'a' }]);
  assert.deepEqual([...groups.keys()], ['b', null, 'a']);
  assert.deepEqual(groups.get('b')!.map((s) => s.n), [1, 3]);
});
