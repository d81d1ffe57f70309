/**
 * Small masking tasks are done on the daemon's event loop (output.ts, INLINE_CHARS), larger
 * ones in the mask pool's workers: with the pool closed (every worker task then fails closed,
 * as at a deadline), a text, a JSON value, a result's output and a streamed output of at most
 * INLINE_CHARS still come out masked exactly as a worker masks them, and one character more
 * is withheld, never shown unmasked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INLINE_CHARS, INLINE_TURN_CHARS, maskPool, maskTexts, maskValueForClient, releaseOutput } from '../../src/daemon/output.js';
import { OutputStream } from '../../src/daemon/output-stream.js';
import { maskText } from '../../src/mask/mask.js';
import { MaskStream } from '../../src/mask/stream.js';
import { WITHHELD, WITHHELD_REST } from '../../src/mask/pool.js';
import { AirlockError } from '../../src/protocol/errors.js';

const SECRET = 'password=hunter2hunter2\n';
/** `n` characters of ordinary lines around one secret. */
const textOf = (n: number) => SECRET + 'x'.repeat(n - SECRET.length - 1) + '\n';

/** The loop masks at most INLINE_TURN_CHARS per turn: each step below starts a turn of its own. */
const nextTurn = () => new Promise((r) => setImmediate(r));

/** Streamed lines of `text` fed in 100-character chunks. */
async function streamed(text: string): Promise<string[]> {
  const lines: string[] = [];
  const s = new OutputStream('tx_1', (n) => (lines.push(...n.lines), true));
  for (let i = 0; i < text.length; i += 100) s.chunk(text.slice(i, i + 100));
  s.endPiece();
  await s.finish();
  return lines;
}

test('with no worker, up to INLINE_CHARS is masked on the loop as a worker masks it; one more is withheld', async () => {
  await maskPool().close();
  const small = textOf(INLINE_CHARS);
  const big = textOf(INLINE_CHARS + 1);
  assert.equal(small.length, INLINE_CHARS);

  await nextTurn();
  const [masked] = await maskTexts([small]);
  assert.equal(masked, maskText(small).text, 'a text: the masker’s own answer');
  assert.ok(!masked!.includes('hunter2'));
  assert.deepEqual(await maskTexts([big]), [WITHHELD], 'a larger text goes to a worker, and is withheld when none answers');

  const value = { current: small.slice(0, INLINE_CHARS - 20) };
  await nextTurn();
  assert.equal((await maskValueForClient(value)).current, maskText(value.current).text, 'a JSON value');
  await assert.rejects(maskValueForClient({ current: big }), (e: unknown) => e instanceof AirlockError && e.code === 'not_masked_in_time');

  const pieces = [SECRET, small.slice(SECRET.length)]; // each ends its own last line, as releaseOutput's pieces do
  const whole = new MaskStream({});
  const expected = (whole.push(pieces[0]!) + whole.push(pieces[1]!) + whole.end()).split('\n').filter(Boolean);
  await nextTurn();
  const out = await releaseOutput(pieces);
  assert.deepEqual(out.lines, expected, 'a result’s pieces: one stream across them, as in a worker');
  assert.ok(!out.lines.join('\n').includes('hunter2'));
  assert.deepEqual((await releaseOutput([big])).lines, [WITHHELD_REST]);

  await nextTurn();
  assert.deepEqual(await streamed(small), [], 'a streamed output that ends within its first batch is not streamed: the result carries it, masked once');
  assert.deepEqual(await streamed(big), [WITHHELD_REST], 'a larger streamed output goes to a worker');
});

test('many small tasks in one turn of the loop: at most INLINE_TURN_CHARS are masked on it, the rest go to the workers', async () => {
  await maskPool().close(); // no worker answers: what goes to one is withheld, which shows where each task went
  await nextTurn();
  const small = textOf(INLINE_CHARS);
  const tasks = Array.from({ length: INLINE_TURN_CHARS / INLINE_CHARS + 2 }, () => maskTexts([small]));
  const answers = (await Promise.all(tasks)).map(([t]) => t);
  const onLoop = answers.filter((t) => t === maskText(small).text).length;
  assert.equal(onLoop, INLINE_TURN_CHARS / INLINE_CHARS, 'the loop masked exactly its turn’s share');
  assert.ok(answers.slice(onLoop).every((t) => t === WITHHELD), 'the rest went to a worker (and, with none, were withheld)');
  await nextTurn();
  assert.equal((await maskTexts([small]))[0], maskText(small).text, 'the next turn has its share again');
});
