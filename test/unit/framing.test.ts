/** Frame reader: lengths, partial frames, bodies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, encodeFrame, FrameReader, MAX_FRAME } from '../../src/protocol/framing.js';
import { AirlockError } from '../../src/protocol/errors.js';

test('frames split across chunks are reassembled; several in one chunk are all returned', () => {
  const a = encodeFrame({ type: 'hello' });
  const b = encodeFrame({ n: 2 });
  const r = new FrameReader();
  assert.deepEqual(r.push(a.subarray(0, 3)), []);
  const got = r.push(Buffer.concat([a.subarray(3), b]));
  assert.deepEqual(got.map((x) => decodeBody(x)), [{ type: 'hello' }, { n: 2 }]);
  assert.equal(r.pending, 0);
});

test('oversized and empty length prefixes are refused before any body is buffered', () => {
  const big = Buffer.alloc(4);
  big.writeUInt32BE(MAX_FRAME + 1, 0);
  assert.throws(() => new FrameReader().push(big), (e: AirlockError) => e.code === 'frame_too_large');
  assert.throws(() => new FrameReader().push(Buffer.alloc(4)), (e: AirlockError) => e.code === 'empty_frame');
  assert.throws(() => encodeFrame({ s: 'x'.repeat(MAX_FRAME) }), (e: AirlockError) => e.code === 'frame_too_large');
});

test('bodies: invalid UTF-8, invalid JSON and excessive depth are typed errors', () => {
  const code = (b: Buffer) => {
    try {
      decodeBody(b);
      return 'ok';
    } catch (e) {
      return (e as AirlockError).code;
    }
  };
  assert.equal(code(Buffer.from([0xc3, 0x28])), 'bad_utf8');
  assert.equal(code(Buffer.from('{"a":')), 'bad_json');
  assert.equal(code(Buffer.from('['.repeat(40) + ']'.repeat(40))), 'too_deep');
  assert.equal(code(Buffer.from('['.repeat(20000) + ']'.repeat(20000))), 'too_deep');
  assert.equal(code(Buffer.from('{"ok":[1,{"b":null}]}')), 'ok');
});

test('a frame split over many chunks, header included, is reassembled once and exactly', () => {
  const frames = [encodeFrame({ type: 'hello', n: 'x'.repeat(300) }), encodeFrame({ n: 2 }), encodeFrame([1, 2, 3])];
  const all = Buffer.concat(frames);
  const r = new FrameReader();
  const got: unknown[] = [];
  for (let i = 0; i < all.length; i++) got.push(...r.push(all.subarray(i, i + 1)).map((b) => decodeBody(b)));
  assert.deepEqual(got, [{ type: 'hello', n: 'x'.repeat(300) }, { n: 2 }, [1, 2, 3]]);
  assert.equal(r.pending, 0);
});

test('a 1 MiB frame in 16-byte chunks costs linear work, not a copy of the whole buffer per chunk', () => {
  const body = Buffer.alloc(MAX_FRAME - 16, 0x61);
  body[0] = 0x22;
  body[body.length - 1] = 0x22; // a JSON string of a's
  const f = Buffer.concat([Buffer.from([0, 0, 0, 0]), body]);
  f.writeUInt32BE(body.length, 0);
  const r = new FrameReader();
  const t0 = process.hrtime.bigint();
  let out: Buffer[] = [];
  for (let i = 0; i < f.length; i += 16) out = out.concat(r.push(f.subarray(i, i + 16)));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.equal(out.length, 1);
  assert.ok(out[0]!.equals(body));
  // Copying the buffer on every chunk would move 65536 x 512 KiB (32 GiB) here.
  assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
});

test('next() hands out one frame at a time and leaves the rest unread; the limit applies when a header is read, before its body', () => {
  const r = new FrameReader(64);
  r.append(Buffer.concat([encodeFrame({ a: 1 }), encodeFrame({ b: 'y'.repeat(100) })]));
  assert.deepEqual(decodeBody(r.next()!), { a: 1 });
  assert.equal(r.pending > 0, true, 'the second frame is held, unread');
  assert.throws(() => r.next(), (e: AirlockError) => e.code === 'frame_too_large');
  const s = new FrameReader(64);
  s.append(encodeFrame({ b: 'y'.repeat(100) }).subarray(0, 2));
  assert.equal(s.next(), null);
  assert.equal(s.state(), 'partial');
  s.maxFrame = MAX_FRAME; // raised after the hello
  s.append(encodeFrame({ b: 'y'.repeat(100) }).subarray(2));
  assert.deepEqual(decodeBody(s.next()!), { b: 'y'.repeat(100) });
  assert.equal(s.state(), 'empty');
  assert.equal(s.next(), null);
  // A header alone is enough to refuse: no byte of the body is awaited.
  const t = new FrameReader(64);
  t.append(Buffer.from([0, 0, 4, 0]));
  assert.throws(() => t.state(), (e: AirlockError) => e.code === 'frame_too_large');
});
