/**
 * Fuzz against the real daemon (issue 22, finding 9): generated method calls and generated
 * frame streams on raw connections, each from real Unix users (an admin and an observer
 * calling, a dev sending raw bytes) through their own processes, so the kernel's peer
 * credentials decide. Every answer is a result or a typed error of a known category,
 * never the daemon's `internal` error; the daemon stays up; and its event loop, measured
 * from outside by a concurrent probe (test/support/fuzz/loop-probe.ts), is never held
 * longer than MAX_CASE_MS.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { AirlockError, ERROR_CATEGORIES } from '../../src/protocol/errors.js';
import { frameStream, methodCall } from '../support/fuzz/arbitraries.js';
import { CaseClock, MAX_CASE_MS, params, regressions, runs } from '../support/fuzz/harness.js';
import { LoopProbe } from '../support/fuzz/loop-probe.js';
import { RawWire } from '../support/fuzz/raw-wire.js';

let w: World;
let callers: Principal[];
let wire: RawWire;
let probe: LoopProbe;
before(async () => {
  w = await startWorld();
  callers = [await w.as('fuzz-admin', ['airlock-admin']), await w.as('fuzz-observer', ['airlock-observer'])];
  wire = RawWire.spawn(await w.d.addUser('fuzz-wire', ['airlock-dev']), w.d.socket);
  probe = await LoopProbe.start(w.d.socket, w.d.box.pid);
});
after(async () => {
  await probe?.stop();
  wire?.close();
  await w?.close();
});

/** A typed refusal the daemon may send: a known category and a code, and not the daemon's own failure. */
function assertTypedWire(e: { category?: unknown; code?: unknown; message?: unknown }, what: unknown): void {
  const shown = JSON.stringify(what)?.slice(0, 300);
  assert.ok(ERROR_CATEGORIES.includes(e.category as never) && typeof e.code === 'string' && typeof e.message === 'string', `untyped error ${JSON.stringify(e)} for ${shown}`);
  assert.notEqual(e.code, 'internal', `the daemon failed internally on ${shown}: ${e.message}`);
}

const daemonUp = () => {
  try {
    process.kill(w.d.box.pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function callCase(who: number, call: { method: string; params: unknown }): Promise<void> {
  probe.current = call;
  let timer: NodeJS.Timeout | undefined;
  // Before its fix, a method name of {"toString": ""} was never answered: a case waits 60 s at most.
  const unanswered = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within 60 s to ${JSON.stringify(call).slice(0, 300)}`)), 60_000)));
  try {
    await Promise.race([callers[who]!.callUnchecked(call.method, call.params, { fresh: false }), unanswered]);
  } catch (e) {
    assert.ok(e instanceof AirlockError, `not a typed error: ${String(e)}`);
    // The worker's own code for a call that never got an answer: the connection broke.
    assert.notEqual(e.code, 'client', `the call got no answer: ${e.message}`);
    assertTypedWire(e, call);
  } finally {
    clearTimeout(timer);
  }
}

/** Connections the daemon welcomed: the raw cases reach past the hello as that user. */
let welcomed = 0;

/** One frame stream from a real user's connection; every message back must be a welcome, a notification or a response, and refusals typed. */
async function frameCase(s: { frames: Array<{ bytes: Buffer; honest: boolean }>; chunks: Buffer[] }, greet: boolean): Promise<void> {
  probe.current = s.chunks.map((c) => c.toString('base64'));
  // After a lying header the daemon waits for bytes that will not come (or has dropped the stream): the worker ends it.
  const { replies, stuck } = await wire.exchange(s.chunks, greet, s.frames.every((f) => f.honest));
  assert.ok(!stuck, `the daemon neither answered nor closed within 20 s: ${JSON.stringify(probe.current)}`);
  for (const r of replies) {
    if (r.type === 'welcome') welcomed++;
    if (r.type === 'response' && r.ok === false) assertTypedWire(r.error, probe.current);
    else assert.ok(r.type === 'welcome' || r.type === 'response' || r.type === 'notification', `unexpected message ${JSON.stringify(r).slice(0, 200)}`);
  }
}

function reportLag(clock: CaseClock, t: { diagnostic(m: string): void }): void {
  clock.report((l) => t.diagnostic(l), probe.maxLagMs, probe.maxRoundTripMs);
  t.diagnostic(`fuzz daemon probe: ${probe.rounds} round trips, longest ${probe.maxRoundTripMs.toFixed(0)} ms, largest loop lag ${probe.maxLagMs.toFixed(0)} ms`);
  assert.ok(daemonUp(), 'the daemon is gone');
  assert.ok(probe.maxLagMs <= MAX_CASE_MS, `the daemon's loop was held ${probe.maxLagMs.toFixed(0)} ms (over ${MAX_CASE_MS}) around ${JSON.stringify(probe.worst)?.slice(0, 300)}`);
  const internal = w.d.logs.filter((l) => l.includes('internal error'));
  assert.deepEqual(internal, [], 'the daemon logged internal errors');
}

/** A kept input: JSON, where { repeat, times } stands for a long string. */
const expand = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(expand);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.repeat === 'string' && typeof o.times === 'number' && Object.keys(o).length === 2) return o.repeat.repeat(o.times);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, expand(x)]));
};

// The kept cases go first: some are about what a fresh daemon does on its first request.
for (const r of regressions('daemon')) {
  test(`kept daemon case: ${r.note}`, { todo: r.knownIssue }, async (t) => {
    probe.reset();
    const logged = w.d.logs.length;
    await callCase(0, expand(r.input) as { method: string; params: unknown });
    await probe.settle();
    assert.deepEqual(w.d.logs.slice(logged).filter((l) => l.includes('internal error')), [], 'the daemon logged an internal error');
    t.diagnostic(`largest loop lag ${probe.maxLagMs.toFixed(0)} ms (round trip ${probe.maxRoundTripMs.toFixed(0)} ms)`);
    assert.ok(daemonUp(), 'the daemon is gone');
    assert.ok(probe.maxLagMs <= MAX_CASE_MS, `the daemon's loop was held ${probe.maxLagMs.toFixed(0)} ms (over ${MAX_CASE_MS})`);
  });
}

test('generated method calls from real users: typed answers, the daemon up, its loop never held over the bound', async (t) => {
  const clock = new CaseClock('daemon-methods');
  probe.reset();
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: 1 }), methodCall, async (who, call) => {
      clock.cases++;
      await callCase(who, call);
    }),
    params(runs(600)),
  );
  await probe.settle();
  reportLag(clock, t);
});

test('generated frame streams on raw connections: typed answers, the daemon up, its loop never held over the bound', async (t) => {
  const clock = new CaseClock('daemon-frames');
  probe.reset();
  await fc.assert(
    fc.asyncProperty(frameStream, fc.boolean(), async (s, greet) => {
      clock.cases++;
      await frameCase(s, greet);
    }),
    params(runs(400)),
  );
  await probe.settle();
  assert.ok(welcomed > clock.cases / 4, `the daemon welcomed only ${welcomed} of ${clock.cases} raw connections`);
  reportLag(clock, t);
});

