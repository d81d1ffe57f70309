/**
 * Fuzz of the checkpoint readers (src/audit/checkpoint.ts): checkpoint texts with fields
 * near and far from their one spelling, and checkpoint files whose lines are signed for
 * real, mutated, or anything. Nothing throws (a refusal is a reason per line); a line read
 * as valid is one of the lines signed, byte for byte; no case holds the thread longer than MAX_CASE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { checkpointText as textOf, formatCheckpointLine, parseCheckpoints, parseCheckpointText, signCheckpoint } from '../../src/audit/checkpoint.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { checkpointFile, checkpointText } from '../support/fuzz/arbitraries.js';
import { CaseClock, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'checkpoint';
const key = signingKeyFromSeed(randomBytes(32));
const origin = `host.example/airlock/${key.keyId}`;
const signed = [0, 1, 2, 1000].map((size, i) => signCheckpoint(key, origin, size, randomBytes(32).toString('hex'), new Date(Date.UTC(2026, 0, 1 + i))));
const signedTexts = new Set(signed.map((c) => c.text));

function textProperty(text: string): void {
  const c = parseCheckpointText(text);
  // What parses is the one text of its checkpoint: writing it back gives the same bytes.
  if (c !== null) assert.equal(textOf(c), text);
}

function fileProperty(file: string): void {
  for (const r of parseCheckpoints(file, key.publicKey)) {
    if (!r.ok) {
      assert.ok(Number.isInteger(r.line) && r.line >= 1 && typeof r.reason === 'string' && r.reason.length > 0);
      continue;
    }
    assert.ok(signedTexts.has(r.value.text), `a line that was never signed was read as valid: ${JSON.stringify(r.value.text)}`);
  }
}

test('generated checkpoint texts: null or their one spelling, no case over the loop bound', (t) => {
  const clock = new CaseClock(`${TARGET}-text`);
  fc.assert(fc.property(checkpointText, (text) => clock.time(text, () => textProperty(text))), params(runs(20_000)));
  clock.report((l) => t.diagnostic(l));
});

test('generated checkpoint files: a reason for every refusal, only signed lines valid, no case over the loop bound', (t) => {
  const clock = new CaseClock(`${TARGET}-file`);
  const lines = signed.map(formatCheckpointLine);
  fc.assert(fc.property(checkpointFile(lines), (file) => clock.time(file, () => fileProperty(file))), params(runs(4_000)));
  clock.report((l) => t.diagnostic(l));
});

test('kept checkpoint cases still pass', () => {
  for (const r of regressions(TARGET)) textProperty(r.input as string);
});
