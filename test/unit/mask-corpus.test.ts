/**
 * The detectors against the independent corpus (test/support/secret-corpus.ts, written
 * without looking at them): recall of the planted secrets at least 99 %, and under 0.1 %
 * of ordinary lines changed. Each miss and each changed line is named, so a failure says
 * what to fix. `npm run bench` prints the same figures with the throughput.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskText } from '../../src/mask/mask.js';
import { ordinaryOutputs, plantedSecrets } from '../support/secret-corpus.js';

test('recall: at least 99 % of the planted secrets are masked', () => {
  const missed: string[] = [];
  let n = 0;
  for (const f of plantedSecrets()) {
    const masked = maskText(f.text).text;
    for (const s of f.secrets) {
      n++;
      if (masked.includes(s.value)) missed.push(`${f.name}: ${s.kind}`);
    }
  }
  assert.ok(n >= 200, `only ${n} planted secrets`);
  assert.ok((n - missed.length) / n >= 0.99, `recall ${(((n - missed.length) / n) * 100).toFixed(2)} % (${missed.length} of ${n} missed):\n${missed.join('\n')}`);
});

test('false positives: under 0.1 % of ordinary lines change', () => {
  const changed: string[] = [];
  let lines = 0;
  for (const f of ordinaryOutputs()) {
    const before = f.text.split('\n');
    const after = maskText(f.text).text.split('\n');
    assert.equal(after.length, before.length, `${f.name}: masking changed the number of lines`);
    lines += before.length;
    for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changed.push(`${f.name}: ${before[i]!.slice(0, 120)}`);
  }
  assert.ok(lines >= 20_000, `only ${lines} ordinary lines`);
  assert.ok(changed.length / lines < 0.001, `${changed.length} of ${lines} lines changed:\n${changed.join('\n')}`);
});

test('masking masked text changes nothing (the MCP server masks what the daemon sent)', () => {
  for (const f of [...plantedSecrets(), ...ordinaryOutputs()]) {
    const once = maskText(f.text).text;
    const twice = maskText(once);
    assert.equal(twice.text, once, f.name);
    assert.deepEqual(twice.counts, {}, `${f.name}: a marker was counted again`);
  }
});

test('a JSON document stays a JSON document (what `podman inspect` returns still parses)', () => {
  let documents = 0;
  for (const f of [...plantedSecrets(), ...ordinaryOutputs()]) {
    try {
      JSON.parse(f.text);
    } catch {
      continue;
    }
    documents++;
    assert.doesNotThrow(() => JSON.parse(maskText(f.text).text), f.name);
  }
  assert.ok(documents >= 5, `only ${documents} JSON documents in the corpus`);
});
