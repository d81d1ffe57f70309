/** RFC 8785 canonical JSON and the LACS request hash. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalize, CanonicalizationError, jsonDepthExceeds } from '../../src/protocol/canonical.js';
import { requestHash } from '../../src/protocol/hash.js';
import { createHash } from 'node:crypto';

test('RFC 8785 appendix-style vectors', () => {
  // Key order by UTF-16 code units, including non-BMP and combining characters (RFC 8785 3.2.3 example).
  const sorting = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
  assert.equal(
    canonicalize(sorting),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
  // Numbers in ECMAScript form (RFC 8785 3.2.2.3).
  assert.equal(canonicalize([333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21, 1e-7]), '[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21,1e-7]');
  // String escaping (RFC 8785 3.2.2.2).
  assert.equal(canonicalize({ s: '\u20ac$\u000f\nA\'B"\\\\"/' }), '{"s":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  assert.equal(canonicalize({ b: [true, false, null], a: { z: 1, y: 2 } }), '{"a":{"y":2,"z":1},"b":[true,false,null]}');
});

test('values JSON cannot carry are refused, not dropped', () => {
  for (const bad of [{ a: undefined }, [NaN], [Infinity], { f: () => 1 }, new Date(0), { s: '\ud800' }, 1n]) {
    assert.throws(() => canonicalize(bad as unknown), CanonicalizationError);
  }
});

test('deep nesting is bounded without recursion in the depth check', () => {
  let v: unknown = 1;
  for (let i = 0; i < 100_000; i++) v = [v];
  assert.equal(jsonDepthExceeds(v, 32), true);
  assert.throws(() => canonicalize(v), CanonicalizationError);
  assert.equal(jsonDepthExceeds({ a: [{ b: 1 }] }, 32), false);
});

test('request hash = SHA-256(action || 0x00 || JCS(params)), independent of key order', () => {
  const expected = createHash('sha256').update('UserInfo\u0000{"user":"root"}').digest('hex');
  assert.equal(requestHash('UserInfo', { user: 'root' }), expected);
  assert.equal(requestHash('X', { b: 1, a: 2 }), requestHash('X', { a: 2, b: 1 }));
  assert.notEqual(requestHash('X', {}), requestHash('Y', {}));
  // The 0x00 separator makes the framing injective: "ab"+{} differs from "a"+... cannot collide on concatenation.
  assert.notEqual(requestHash('ListUsers', {}), createHash('sha256').update('ListUsers{}').digest('hex'));
  assert.equal(requestHash('ListUsers', {}), createHash('sha256').update('ListUsers\u0000{}').digest('hex'));
});
