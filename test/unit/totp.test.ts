import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, codeAt, hotp, matchStep, newSecret, otpauthUri, stepAt } from '../../src/protocol/totp.js';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

test('HOTP matches the RFC 4226 appendix D values', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  assert.deepEqual(expected.map((_, i) => hotp(RFC_SECRET, i)), expected);
});

test('TOTP matches the RFC 6238 appendix B values (SHA-1, 8 digits)', () => {
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [t, code] of vectors) assert.equal(hotp(RFC_SECRET, stepAt(t * 1000), 8), code, `T=${t}`);
});

test('base32 round-trips and secrets are 160 bits', () => {
  assert.equal(base32Encode(RFC_SECRET), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.deepEqual(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'), RFC_SECRET);
  const s = newSecret();
  assert.equal(base32Decode(s).length, 20);
  assert.notEqual(s, newSecret());
  assert.throws(() => base32Decode('1!'));
});

test('a code matches its step and the neighbouring ones, once, and nothing else', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = 1_800_000_000_000;
  const step = stepAt(now);
  assert.equal(matchStep(secret, codeAt(secret, now), now, 0), step);
  assert.equal(matchStep(secret, codeAt(secret, now - 30_000), now, 0), step - 1, 'one step of drift is accepted');
  assert.equal(matchStep(secret, codeAt(secret, now - 90_000), now, 0), null, 'an expired code is refused');
  assert.equal(matchStep(secret, codeAt(secret, now), now, step), null, 'a spent step cannot be spent again');
  assert.equal(matchStep(secret, codeAt(secret, now - 30_000), now, step), null, 'nor an older one');
  for (const bad of ['', '12345', '1234567', 'abcdef', ' 123456', '12345\n']) assert.equal(matchStep(secret, bad, now, 0), null, JSON.stringify(bad));
  assert.equal(matchStep('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', codeAt(secret, now), now, 0), null, "another secret's code does not match");
});

test('the otpauth URI carries the parameters authenticator apps need', () => {
  assert.equal(otpauthUri('ABC', 'alice@web1', 'Airlock'), 'otpauth://totp/Airlock%3Aalice%40web1?secret=ABC&issuer=Airlock&algorithm=SHA1&digits=6&period=30');
});
