/**
 * Fuzz of the frame reader and body decoder (src/protocol/framing.ts): generated frame
 * streams, cut anywhere, with lying headers, cut or corrupted JSON, bad UTF-8 and deep
 * nesting. Every refusal is a typed validation error; honest frames come out whole and in
 * order however they were cut; no case holds the thread longer than MAX_CASE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeBody, FrameReader } from '../../src/protocol/framing.js';
import { AirlockError, ERROR_CATEGORIES } from '../../src/protocol/errors.js';
import { frameStream } from '../support/fuzz/arbitraries.js';
import { CaseClock, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'framing';

/** A refusal the daemon can send: an AirlockError of a known category, with a code and a message. */
function assertTyped(e: unknown): void {
  assert.ok(e instanceof AirlockError, `not a typed error: ${(e as Error)?.stack ?? String(e)}`);
  assert.ok(ERROR_CATEGORIES.includes(e.category) && e.code && e.message, `malformed error ${JSON.stringify(e.toWire())}`);
}

/** Feeds the chunks as the daemon does (append, then next() frame by frame); returns the bodies taken, and whether the stream was refused. */
function read(chunks: Buffer[]): { bodies: Buffer[]; refused: boolean } {
  const reader = new FrameReader();
  const bodies: Buffer[] = [];
  try {
    for (const c of chunks) {
      reader.append(c);
      for (let body = reader.next(); body !== null; body = reader.next()) {
        bodies.push(body);
        try {
          decodeBody(body);
        } catch (e) {
          assertTyped(e);
        }
      }
    }
    return { bodies, refused: false };
  } catch (e) {
    assertTyped(e);
    return { bodies, refused: true };
  }
}

function property(stream: { frames: Array<{ bytes: Buffer; honest: boolean }>; chunks: Buffer[] }): void {
  const { bodies, refused } = read(stream.chunks);
  // Up to the first lying header, every frame comes out exactly as sent.
  const honest = stream.frames.findIndex((f) => !f.honest);
  const expected = (honest < 0 ? stream.frames : stream.frames.slice(0, honest)).map((f) => f.bytes.subarray(4));
  assert.deepEqual(bodies.slice(0, expected.length), expected);
  if (honest < 0) assert.equal(refused, false, 'a stream of honest frames was refused');
}

test('generated frame streams: typed refusals, honest frames whole, no case over the loop bound', (t) => {
  const clock = new CaseClock(TARGET);
  fc.assert(fc.property(frameStream, (s) => clock.time(s.chunks.map((c) => c.toString('base64')), () => property(s))), params(runs(10_000)));
  clock.report((l) => t.diagnostic(l));
});

test('kept framing cases still pass', () => {
  for (const r of regressions(TARGET)) {
    const input = r.input as { chunks: string[]; honest: boolean[] };
    const chunks = input.chunks.map((c) => Buffer.from(c, 'base64'));
    assert.doesNotThrow(() => read(chunks), r.note);
  }
});
