/**
 * A file's bytes as text and back (src/protocol/file-text.ts): every byte sequence comes back
 * exactly, valid UTF-8 decodes as Node decodes it, and each byte that is not UTF-8 is one
 * U+DC80..U+DCFF, counted and shown as \xNN.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileBytes, fileText, notUtf8Bytes } from '../../src/protocol/file-text.js';
import { escapeText } from '../../src/protocol/escape-text.js';

const hex = (h: string) => Buffer.from(h.replace(/ /g, ''), 'hex');

test('every byte that is not part of valid UTF-8 is one escaped byte; valid sequences decode as usual', () => {
  const cases: Array<[string, string, number]> = [
    ['63 61 66 e9 0a', 'caf\udce9\n', 1], // Latin-1 é
    ['c3 a9', 'é', 0],
    ['c0 80', '\udcc0\udc80', 2], // overlong NUL
    ['e0 80 80', '\udce0\udc80\udc80', 3], // overlong
    ['ed a0 80', '\udced\udca0\udc80', 3], // an encoded surrogate
    ['f4 90 80 80', '\udcf4\udc90\udc80\udc80', 4], // past U+10FFFF
    ['e2 82', '\udce2\udc82', 2], // truncated at the end
    ['e2 82 41', '\udce2\udc82A', 2], // truncated before ASCII
    ['f0 9f 98 80 ff', '\u{1f600}\udcff', 1], // an astral character, then a stray byte
    ['ff fe', '\udcff\udcfe', 2],
  ];
  for (const [bytes, text, bad] of cases) {
    assert.equal(fileText(hex(bytes)), text, bytes);
    assert.deepEqual(fileBytes(text), hex(bytes), `${bytes} back`);
    assert.equal(notUtf8Bytes(text), bad, `${bytes}: ${bad} not UTF-8`);
  }
});

test('random bytes come back exactly; valid UTF-8 decodes as Buffer.toString does', () => {
  for (let i = 0; i < 2000; i++) {
    const b = randomBytes(i % 64);
    assert.deepEqual(fileBytes(fileText(b)), b, b.toString('hex'));
    const valid = Buffer.from(b.toString('utf8'), 'utf8');
    assert.equal(fileText(valid), valid.toString('utf8'));
  }
});

test('two files differing only in a byte that is not UTF-8 are two texts', () => {
  assert.notEqual(fileText(hex('41 e9 0a')), fileText(hex('41 e8 0a')));
  assert.notEqual(fileText(hex('41 e9 0a')), fileText(hex('41 ef bf bd 0a')), 'not the replacement character either');
});

test('a lone surrogate that stands for no byte is refused, never written as U+FFFD', () => {
  assert.throws(() => fileBytes('a\ud800b'), RangeError);
  assert.throws(() => fileBytes('a\udc41b'), RangeError);
});

test('escaped bytes are shown as \\xNN; other lone surrogates as \\uXXXX; pairs as they are', () => {
  assert.equal(escapeText(fileText(hex('63 61 66 e9 20 ff')), 'block'), 'caf\\xe9 \\xff');
  assert.equal(escapeText('a\ud800b'), 'a\\ud800b');
  assert.equal(escapeText('\u{1f600}'), '\u{1f600}');
  assert.equal(escapeText(escapeText(fileText(hex('e9')))), '\\xe9', 'escaping twice changes nothing more');
});

test('a megabyte of bytes that are not UTF-8 decodes in linear time', () => {
  const b = Buffer.alloc(1 << 20, 0xe9);
  const t0 = performance.now();
  const text = fileText(b);
  assert.equal(notUtf8Bytes(text), b.length);
  assert.deepEqual(fileBytes(text), b);
  assert.ok(performance.now() - t0 < 10_000, 'a bound, not a speed claim');
});
