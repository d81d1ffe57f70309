/**
 * Fuzz of the masker (src/mask/mask.ts): text made of secrets, the shapes its detectors look
 * for, markers and colour codes, bounded to MAX_TEXT characters. It never throws, its
 * counts are positive integers, and no case holds the thread longer than MAX_CASE_MS.
 *
 * The masker is super-linear on some inputs (issue 23 rewrites it): `key=` repeated 2,000
 * times takes far over the bound. That case is kept in regressions.json with its issue and
 * reported as a `todo` test until issue 23 lands; the generated inputs are bounded so that
 * the fuzz finds everything else. The fuzz also found that masking masked text can change it
 * (`key=key=<token>`): kept the same way, for issue 23.
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

/**
 * Masking masked text should change nothing (the MCP server masks what the daemon sent); the
 * fuzz found that it can (regressions.json, issue 23), so this is checked on the kept cases only.
 */
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
