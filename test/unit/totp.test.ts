import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, codeAt, hotp, matchStep, newSecret, otpauthUri, secondsUntilStepAfter, stepAt } from '../../src/protocol/totp.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { TotpSeal } from '../../src/daemon/totp-seal.js';
import { PENDING_MS, TotpEnrolment } from '../../src/daemon/totp-enrolment.js';
import { mayEnrol } from '../../src/daemon/authz.js';

/** authz.ts's enrolment decision, thrown as the service throws it. */
const enrollingPerson = (who: Identity) => {
  const d = mayEnrol({ ...who, unattended: false });
  if (!d.ok) throw new AirlockError(d.refusal.category, d.refusal.code, d.refusal.message, d.refusal.hint);
  return d.person;
};
import { MAX_FAILURES, SecondFactor } from '../../src/daemon/second-factor.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import type { Identity } from '../../src/daemon/identity.js';
import type { Host } from '../../src/catalogue/action.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { opaqueDraft } from '../support/opaque-draft.js';

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

test('a code matches its step and the neighbouring ones; a spent step comes back spent; nothing else matches', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = 1_800_000_000_000;
  const step = stepAt(now);
  assert.deepEqual(matchStep(secret, codeAt(secret, now), now, 0), { step, spent: false });
  assert.deepEqual(matchStep(secret, codeAt(secret, now - 30_000), now, 0), { step: step - 1, spent: false }, 'one step of drift is accepted');
  assert.equal(matchStep(secret, codeAt(secret, now - 90_000), now, 0), null, 'an expired code is refused');
  assert.deepEqual(matchStep(secret, codeAt(secret, now), now, step), { step, spent: true }, 'a spent step cannot be spent again');
  assert.deepEqual(matchStep(secret, codeAt(secret, now - 30_000), now, step), { step: step - 1, spent: true }, 'nor an older one');
  assert.deepEqual(matchStep(secret, codeAt(secret, now + 30_000), now, step), { step: step + 1, spent: false }, 'the next step is still fresh');
  for (const bad of ['', '12345', '1234567', 'abcdef', ' 123456', '12345\n']) assert.equal(matchStep(secret, bad, now, 0), null, JSON.stringify(bad));
  assert.equal(matchStep('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', codeAt(secret, now), now, 0), null, "another secret's code does not match");
});

test('the wait for the next code counts whole seconds to the step after the spent one', () => {
  const start = 1_800_000_000_000 - (1_800_000_000_000 % 30_000);
  const step = stepAt(start);
  assert.equal(secondsUntilStepAfter(step, start), 30);
  assert.equal(secondsUntilStepAfter(step, start + 29_001), 1);
  assert.equal(secondsUntilStepAfter(step - 1, start + 5_000), 0, 'the step after it has begun: no wait');
});


test('the otpauth URI carries the parameters authenticator apps need', () => {
  assert.equal(otpauthUri('ABC', 'alice@web1', 'Airlock'), 'otpauth://totp/Airlock%3Aalice%40web1?secret=ABC&issuer=Airlock&algorithm=SHA1&digits=6&period=30');
});

// --- the daemon's side: sealed secrets, who enrols, pending enrolments -------------------

const failsWith = async (p: Promise<unknown> | (() => unknown), code: string) =>
  assert.rejects(async () => (typeof p === 'function' ? p() : p), (e: unknown) => e instanceof AirlockError && e.code === code);

test('a sealed secret opens only for its approver, under its key, unaltered', async () => {
  const seal = TotpSeal.fromKey(randomBytes(32));
  const secret = newSecret();
  const a = seal.seal('alice(uid 1001)', secret);
  assert.match(a, /^v1:[A-Za-z0-9+/=]+$/);
  assert.ok(!a.includes(secret));
  assert.notEqual(seal.seal('alice(uid 1001)', secret), a, 'a fresh nonce each time');
  assert.equal(seal.open('alice(uid 1001)', a), secret);
  await failsWith(() => seal.open('bob(uid 1002)', a), 'totp_secret_unreadable'); // a row moved to another approver
  await failsWith(() => TotpSeal.fromKey(randomBytes(32)).open('alice(uid 1001)', a), 'totp_secret_unreadable');
  const raw = Buffer.from(a.slice(3), 'base64');
  raw[14]! ^= 1;
  await failsWith(() => seal.open('alice(uid 1001)', 'v1:' + raw.toString('base64')), 'totp_secret_unreadable');
  await failsWith(() => seal.open('alice(uid 1001)', secret), 'totp_secret_unreadable'); // clear text is not a sealed value
});

test('the enrolling person is the person behind the peer (through sudo too), never a token or root alone, and only an approver', async () => {
  const alice = { uid: 1001, user: 'alice', role: 'admin' as const, approver: true, via: 'self' as const };
  const peer = (o: Partial<Identity>): Identity => ({ uid: 1001, user: 'alice', role: 'admin', approver: true, pid: 1, person: alice, ...o });
  assert.deepEqual(enrollingPerson(peer({})), { uid: 1001, user: 'alice' });
  assert.deepEqual(enrollingPerson(peer({ uid: 0, user: 'root', person: { ...alice, via: 'sudo' } })), { uid: 1001, user: 'alice' }, 'alice through sudo enrols alice');
  const nobody = { sudoUid: null, loginUid: null, noPerson: 'a root process with no sudo user and no login uid (a system service)' };
  for (const who of [peer({ uid: 0, user: 'root', person: null, rootPeer: nobody }), peer({ uid: -5, user: 'token:ci', via: 'token', person: null })]) {
    assert.throws(() => enrollingPerson(who), (e: unknown) => e instanceof AirlockError && e.code === 'enrol_as_yourself' && /enrol as yourself, without sudo: `airlock totp enroll`/.test(e.hint ?? ''));
  }
  assert.throws(() => enrollingPerson(peer({ approver: false, person: { ...alice, approver: false } })), (e: unknown) => e instanceof AirlockError && e.code === 'not_an_approver');
});

test('pending enrolments expire, wrong first codes drop them, and the confirming code is spent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-totp-unit-'));
  const key = signingKeyFromSeed(randomBytes(32));
  const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    let clock = Date.UTC(2030, 0, 1, 12, 0, 10);
    const now = () => clock;
    const seal = TotpSeal.fromKey(randomBytes(32));
    const factor = new SecondFactor({ store, now, hostName: 'web1', seal });
    const host = { users: async () => [{ name: 'alice', uid: 1001 }] } as unknown as Host;
    const enrol = new TotpEnrolment({ store, factor, host, now, name: (p) => `${p.user}(uid ${p.uid})`, principal: (w) => ({ uid: w.uid, user: w.user, role: w.role }) });
    // alice is the host's first approver: she enrols through sudo from her login session (root, with her behind it).
    const who: Identity = { uid: 0, user: 'root', role: 'admin', approver: true, pid: 1, person: { uid: 1001, user: 'alice', role: 'admin', approver: true, via: 'login' } };
    const person = { uid: 1001, user: 'alice' };
    // Expiry: a first code after PENDING_MS confirms nothing.
    const late = await enrol.issue(who, person, {});
    clock += PENDING_MS + 1;
    await failsWith(enrol.confirm(who, person, { code: codeAt(late.secret, clock) }), 'totp_not_pending');
    // Wrong first codes: MAX_FAILURES of them drop the pending secret.
    const typo = await enrol.issue(who, person, {});
    const right = codeAt(typo.secret, clock);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 1; i < MAX_FAILURES; i++) await failsWith(enrol.confirm(who, person, { code: wrong }), 'totp_invalid');
    await failsWith(enrol.confirm(who, person, { code: wrong }), 'totp_invalid');
    await failsWith(enrol.confirm(who, person, { code: right }), 'totp_not_pending');
    // A good enrolment: the confirming code cannot approve afterwards.
    const good = await enrol.issue(who, person, {});
    const first = codeAt(good.secret, clock);
    assert.equal((await enrol.confirm(who, person, { code: first })).state, 'confirmed');
    const entry = () => opaqueDraft({ kind: 'totp_lockout', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} });
    await failsWith(factor.check('alice(uid 1001)', 'alice', first, 'tx_1', entry), 'totp_spent');
    clock += 30_000;
    assert.deepEqual(await factor.check('alice(uid 1001)', 'alice', codeAt(good.secret, clock), 'tx_1', entry), { approver: 'alice(uid 1001)', step: stepAt(clock) });
    // Nothing in the file is the secret.
    assert.ok(!readFileSync(join(dir, 'a.db')).includes(Buffer.from(good.secret)));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store from before sealing is sealed in place once, and marked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-totp-seal-'));
  const key = signingKeyFromSeed(randomBytes(32));
  const path = join(dir, 'a.db');
  let store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    const secret = newSecret();
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(path);
    raw.prepare('INSERT INTO totp (approver, secret, enrolled_at) VALUES (?, ?, ?)').run('alice(uid 1001)', secret, 1);
    raw.close();
    assert.equal(await store.totpSecretsSealed(), false);
    const seal = TotpSeal.fromKey(randomBytes(32));
    assert.equal(await store.sealTotpSecrets((a, s) => seal.seal(a, s)), 1);
    assert.equal(await store.totpSecretsSealed(), true);
    assert.equal(await store.sealTotpSecrets((a, s) => seal.seal(a, s)), 0, 'sealing twice seals nothing twice');
    const rec = (await store.totp('alice(uid 1001)'))!;
    assert.equal(seal.open('alice(uid 1001)', rec.sealedSecret), secret);
    await store.close();
    store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
    assert.equal(await store.totpSecretsSealed(), true);
    for (const f of [path, path + '-wal']) {
      try {
        assert.ok(!readFileSync(f).includes(Buffer.from(secret)), `${f} still holds the clear secret`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('200 parallel guesses count toward the lockout one by one: a right one late in the burst is refused', async () => {
  // The agent running as alice needs her code to approve its own request. Before one approver's codes
  // were checked one at a time, a burst was compared against the row as it was before any failed.
  const dir = mkdtempSync(join(tmpdir(), 'airlock-totp-burst-'));
  const key = signingKeyFromSeed(randomBytes(32));
  const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    let clock = Date.UTC(2030, 0, 1, 12, 0, 10);
    const now = () => clock;
    const factor = new SecondFactor({ store, now, hostName: 'web1', seal: TotpSeal.fromKey(randomBytes(32)) });
    const host = { users: async () => [{ name: 'alice', uid: 1001 }] } as unknown as Host;
    const enrol = new TotpEnrolment({ store, factor, host, now, name: (p) => `${p.user}(uid ${p.uid})`, principal: (w) => ({ uid: w.uid, user: w.user, role: w.role }) });
    // alice is the host's first approver: she enrols through sudo from her login session (root, with her behind it).
    const who: Identity = { uid: 0, user: 'root', role: 'admin', approver: true, pid: 1, person: { uid: 1001, user: 'alice', role: 'admin', approver: true, via: 'login' } };
    const person = { uid: 1001, user: 'alice' };
    const issued = await enrol.issue(who, person, {});
    await enrol.confirm(who, person, { code: codeAt(issued.secret, clock) });
    clock += 30_000;
    const right = codeAt(issued.secret, clock);
    const entry = () => opaqueDraft({ kind: 'totp_lockout', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} });
    const guesses = Array.from({ length: 200 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'));
    guesses[150] = right;
    const results = await Promise.allSettled(guesses.map((c) => factor.check('alice(uid 1001)', 'alice', c, 'tx_1', entry)));
    assert.equal(results[150]!.status, 'rejected', 'the right guess after five wrong ones is refused');
    const codes = results.map((r) => (r.status === 'fulfilled' ? 'accepted' : (r.reason as AirlockError).code));
    assert.equal(codes.filter((c) => c === 'totp_invalid').length, 4, 'four wrong codes are answered as wrong');
    assert.equal(codes.filter((c) => c === 'accepted').length, 0);
    assert.ok((await store.totp('alice(uid 1001)'))!.lockedUntil > clock, 'the factor is locked');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
