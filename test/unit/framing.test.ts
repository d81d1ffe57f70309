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
