/** RFC 8785 canonical JSON and the LACS request hash. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalize, isCanonicalForm, CanonicalizationError, jsonDepthExceeds } from '../../src/protocol/canonical.js';
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

// isCanonicalForm is the verifier's per-entry check: it must say exactly what
// `canonicalize(JSON.parse(text)) === text` says (false where canonicalize throws).
test('isCanonicalForm agrees with canonicalize on canonical and non-canonical texts', () => {
  const slow = (text: string): boolean => {
    try {
      return canonicalize(JSON.parse(text)) === text;
    } catch {
      return false;
    }
  };
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const texts = [
    '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
    '{"b":1,"a":2}', // keys out of order
    '{"a":1,"a":2}', // a duplicate key
    '{"1":1,"a":2}', // an integer-like key, in order
    '{"a":2,"1":1}', // JSON.parse moves integer-like keys first
    '{"10":1,"9":2}', // UTF-16 order: "10" < "9", which engine order reverses
    '{"9":2,"10":1}',
    '{"a": 1}', // whitespace
    '{"a":1.0}', // a number not in shortest form
    '{"a":1e999}', // parses as Infinity
    '{"a":-0}',
    '{"a":"\\u00e9"}', // an escape JCS does not write
    '{"a":"é"}',
    '{"a":"\\n\\"\\\\"}',
    '{"a":"\\ud800"}', // a lone surrogate, escaped
    '{"a":"\\u001f"}',
    '{"\\u0062":1}', // an escaped key
    '{"é":1,"z":2}',
    '{"z":1,"é":2}',
    '{"\ud83d\ude00":1,"\uffff":2}', // UTF-16 order puts the surrogate pair first
    '{"\uffff":2,"\ud83d\ude00":1}',
    '"\ud800"', // a raw lone surrogate in the text itself
    '[1,2,{"b":1,"a":0}]',
    '{"__proto__":1}',
    '{"a":{"b":{"d":1,"c":2}}}',
    '1',
    '"x"',
    'null',
    '{}',
    '[]',
    deep(64),
    deep(65),
    deep(66),
    deep(5000),
  ];
  for (const text of texts) assert.equal(isCanonicalForm(text, JSON.parse(text)), slow(text), text.slice(0, 80));
  // Random documents, canonical and then reordered: both answers agree everywhere.
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const keys = ['a', 'b', 'B', '1', '02', '10', 'é', 'ß', '\u2028', '\ud83d\ude00', 'seq', 'prev_hash', '__proto__'];
  const value = (d: number): unknown => {
    const k = rnd(d > 3 ? 4 : 7);
    if (k === 0) return rnd(2) === 0;
    if (k === 1) return rnd(1000) / 8 - 60;
    if (k === 2) return ['x', 'é\n', '\u0000', '"', '\ud83d\ude00', ''][rnd(6)];
    if (k === 3) return null;
    if (k === 4) return Array.from({ length: rnd(4) }, () => value(d + 1));
    const o: Record<string, unknown> = {};
    for (let i = rnd(5); i > 0; i--) Object.defineProperty(o, keys[rnd(keys.length)]!, { value: value(d + 1), enumerable: true, configurable: true, writable: true });
    return o;
  };
  for (let i = 0; i < 3000; i++) {
    const text = canonicalize(value(0));
    assert.equal(isCanonicalForm(text, JSON.parse(text)), true, text);
    const shuffled = JSON.stringify(JSON.parse(text), null, rnd(3) === 0 ? 1 : undefined);
    assert.equal(isCanonicalForm(shuffled, JSON.parse(shuffled)), slow(shuffled), shuffled);
  }
});
