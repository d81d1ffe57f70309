/**
 * The match code of a preview (src/protocol/match-code.ts): recomputed here from its
 * definition with node:crypto and a base32 of the test's own, against fixed vectors worked
 * out apart from both; its format; a digest in any other form than the wire's refused; and
 * every symbol of many codes from the alphabet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { MATCH_CODE_ALPHABET, matchCode } from '../../src/protocol/match-code.js';
import { AirlockError } from '../../src/protocol/errors.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The definition, written again: SHA-256 of the domain, a 0x00 byte and the digest's text; its first 30 bits, 5 at a time. */
function expected(digest: string): string {
  const h = createHash('sha256').update(Buffer.concat([Buffer.from('airlock-match-code-v1', 'utf8'), Buffer.from([0]), Buffer.from(digest, 'utf8')])).digest();
  const bits = [...h.subarray(0, 4)].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, 30);
  const symbols = Array.from({ length: 6 }, (_, i) => CROCKFORD[parseInt(bits.slice(i * 5, i * 5 + 5), 2)]).join('');
  return `${symbols.slice(0, 3)}-${symbols.slice(3)}`;
}

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

test('fixed vectors: the code of a digest, as its definition gives it', () => {
  // Worked out with Python's hashlib, apart from this test and from the code under test.
  assert.equal(matchCode(EMPTY_SHA256), 'A6J-VWX');
  assert.equal(matchCode('0'.repeat(64)), 'PSP-MX2');
  for (const d of [EMPTY_SHA256, '0'.repeat(64), 'f'.repeat(64)]) assert.equal(matchCode(d), expected(d), d);
  assert.equal(MATCH_CODE_ALPHABET, CROCKFORD);
});

test('the format: three symbols, a hyphen, three symbols; never six digits, so never taken for an authenticator code', () => {
  const code = matchCode(EMPTY_SHA256);
  assert.match(code, /^[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$/);
  assert.doesNotMatch(code, /^\d{6}$/);
});

test('a digest in any other form than the wire\'s (64 lowercase hex digits) is refused with a typed error', () => {
  const bad = ['', 'a'.repeat(63), 'a'.repeat(65), EMPTY_SHA256.toUpperCase(), `sha256:${EMPTY_SHA256}`, ` ${EMPTY_SHA256}`, `${EMPTY_SHA256}\n`, 'g'.repeat(64), undefined as unknown as string];
  for (const d of bad) {
    assert.throws(
      () => matchCode(d),
      (e: unknown) => e instanceof AirlockError && e.category === 'integrity' && e.code === 'preview_digest' && /do not approve it/.test(e.message),
      JSON.stringify(d),
    );
  }
});

test('10,000 random digests: every code well formed, every symbol from the alphabet, each as its definition gives it', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const d = randomBytes(32).toString('hex');
    const code = matchCode(d);
    assert.equal(code.length, 7);
    assert.equal(code[3], '-');
    for (const ch of code.slice(0, 3) + code.slice(4)) assert.ok(CROCKFORD.includes(ch), `${code} from ${d}`);
    if (i < 1000) assert.equal(code, expected(d), d);
    seen.add(code);
  }
  // 2^30 codes: among 10,000 a few collisions are expected (about 0.05), many would mean a broken derivation.
  assert.ok(seen.size >= 9_990, `${seen.size} distinct codes of 10,000`);
});
