/**
 * Fuzz of the signed-note readers (src/audit/note.ts): tree heads signed for real (with a
 * witness's cosignature) and mutated, notes assembled from pieces, tree-head lines and
 * verifier keys. Readers answer a reason string or null, never throw; parseVkey throws only
 * its typed error; a note read as a valid tree head or cosignature is one that was signed;
 * no case holds the thread longer than MAX_CASE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import {
  cosign,
  cosignatureValid,
  formatVkey,
  formatWitnessVkey,
  parseCheckpointBody,
  parseNote,
  parseSignatureLine,
  parseTreeHead,
  parseVkey,
  readTreeHeadLines,
  signTreeHead,
  treeHeadLine,
} from '../../src/audit/note.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { noteText, treeHeadFile, vkeyText } from '../support/fuzz/arbitraries.js';
import { CaseClock, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'note';
const log = signingKeyFromSeed(randomBytes(32));
const witness = signingKeyFromSeed(randomBytes(32));
const origin = `host.example/airlock/${log.keyId}`;
const heads = [0, 7, 1 << 20].map((size, i) => signTreeHead(log, origin, size, randomBytes(32), new Date(Date.UTC(2026, 0, 1 + i))));
const cosigned = heads.map((h) => h + cosign(witness, 'w.example', h.slice(0, h.indexOf('\n\n') + 1), new Date(Date.UTC(2026, 1, 1))));
const signed = [...heads, ...cosigned];
const bodies = new Set(heads.map((h) => h.slice(0, h.indexOf('\n\n') + 1)));

const isReason = (r: unknown) => typeof r === 'string' && r.length > 0;

function noteProperty(text: string): void {
  const note = parseNote(text);
  if (!isReason(note)) {
    assert.ok(typeof note === 'object' && note !== null);
    for (const s of note.signatures) assert.equal(typeof parseSignatureLine(s.line), 'object');
    const c = parseCheckpointBody(note.body);
    assert.ok(isReason(c) || typeof c === 'object');
  }
  const head = parseTreeHead(text, [log.publicRaw]);
  if (!isReason(head)) assert.ok(typeof head === 'object' && bodies.has(head.body), 'a tree head that was never signed verified');
  const co = cosignatureValid(text, 'w.example', witness.publicRaw);
  if (co !== null) assert.ok(bodies.has((parseNote(text) as { body: string }).body), 'a cosignature that was never made verified');
}

function linesProperty(file: string): void {
  for (const r of readTreeHeadLines(file)) assert.ok('note' in r ? typeof r.note === 'string' : isReason(r.reason));
}

function vkeyProperty(text: string): void {
  try {
    parseVkey(text);
  } catch (e) {
    assert.ok(e instanceof AirlockError && e.code === 'bad_vkey', `not the typed vkey error: ${(e as Error)?.stack ?? String(e)}`);
  }
}

test('generated notes: reasons for refusals, only signed notes verify, no case over the loop bound', (t) => {
  const clock = new CaseClock(`${TARGET}-note`);
  fc.assert(fc.property(noteText(signed), (text) => clock.time(text, () => noteProperty(text))), params(runs(15_000)));
  clock.report((l) => t.diagnostic(l));
});

test('generated tree-head lines and verifier keys: reasons and typed errors only, no case over the loop bound', (t) => {
  const clock = new CaseClock(`${TARGET}-lines-vkeys`);
  const lines = signed.map(treeHeadLine);
  const vkeys = [formatVkey(origin, log.publicRaw), formatWitnessVkey('w.example', witness.publicRaw)];
  const input = fc.oneof(treeHeadFile(lines).map((file) => ({ file })), vkeyText(vkeys).map((vkey) => ({ vkey })));
  fc.assert(fc.property(input, (i) => clock.time(i, () => ('file' in i ? linesProperty(i.file) : vkeyProperty(i.vkey)))), params(runs(15_000)));
  clock.report((l) => t.diagnostic(l));
});

test('kept note cases still pass', () => {
  for (const r of regressions(TARGET)) {
    const i = r.input as { note?: string; file?: string; vkey?: string };
    if (i.note !== undefined) noteProperty(i.note);
    if (i.file !== undefined) linesProperty(i.file);
    if (i.vkey !== undefined) vkeyProperty(i.vkey);
  }
});
