/**
 * Fuzz of the masker (src/mask/mask.ts): text made of secrets, the shapes its detectors look
 * for, markers and colour codes, bounded to MAX_TEXT characters. It never throws, its
 * counts are positive integers, and no case holds the thread longer than MAX_CASE_MS.
 *
 * Kept cases replay what the fuzz found: `key=` repeated 2,000 times was super-linear, and
 * masking masked text could change it (`key=key=<token>`); both fixed by issue 23, and the
 * kept cases are checked to stay idempotent and under the bound. Growth with the input's
 * length is tested apart (mask-linear.test.ts), on 64 KB inputs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { maskText } from '../../src/mask/mask.js';
import { maskInput } from '../support/fuzz/arbitraries.js';
import { CaseClock, MAX_CASE_MS, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'mask';

function property(text: string): string {
  const { text: out, counts } = maskText(text);
  assert.equal(typeof out, 'string');
  for (const n of Object.values(counts)) assert.ok(Number.isInteger(n) && n > 0);
  return out;
}

/** Masking masked text changes nothing (the MCP server masks what the daemon sent): checked on the kept cases. */
function idempotent(text: string): void {
  const out = property(text);
  assert.equal(maskText(out).text, out, `masking the masked text changed it: ${JSON.stringify(out)}`);
}

test('generated text for the masker: no throw, counts well formed, no case over the loop bound', (t) => {
  const clock = new CaseClock(TARGET);
  fc.assert(fc.property(maskInput, (text) => clock.time(text, () => void property(text))), params(runs(15_000)));
  clock.report((l) => t.diagnostic(l));
});

/** A kept input: a string, or { repeat, times } for a long one. */
const inputOf = (i: unknown): string => (typeof i === 'string' ? i : (i as { repeat: string; times: number }).repeat.repeat((i as { times: number }).times));

for (const r of regressions(TARGET)) {
  const text = inputOf(r.input);
  test(`kept mask case (${text.length} characters): ${r.note}`, { todo: r.knownIssue }, () => {
    const t0 = performance.now();
    idempotent(text);
    const ms = performance.now() - t0;
    assert.ok(ms <= MAX_CASE_MS, `masking took ${ms.toFixed(0)} ms, over the ${MAX_CASE_MS} ms bound`);
  });
}
