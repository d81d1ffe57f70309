/**
 * An agent running as a person needs that person's code to approve its own request. Guessing
 * is bounded by the lockout (5 wrong codes, then 15 minutes): a burst of parallel guesses must
 * count one by one. Before the codes of one approver were checked one at a time, 200 guesses
 * sent at once were all compared against the row as it was before any failed, and a right
 * guess late in the burst was accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { codeAt } from '../../src/protocol/totp.js';
import { TotpSeal } from '../../src/daemon/totp-seal.js';
import { TotpEnrolment } from '../../src/daemon/totp-enrolment.js';
import { SecondFactor } from '../../src/daemon/second-factor.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';

test('200 parallel guesses of a code count toward the lockout one by one: a right one late in the burst is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-burst-'));
  const key = signingKeyFromSeed(randomBytes(32));
  const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    let clock = Date.UTC(2030, 0, 1, 12, 0, 10);
    const now = () => clock;
    const factor = new SecondFactor({ store, now, hostName: 'web1', seal: TotpSeal.fromKey(randomBytes(32)) } as ConstructorParameters<typeof SecondFactor>[0]);
    const person = { uid: 1001, user: 'alice', role: 'admin' as const, approver: true, via: 'self' as const };
    const who = { ...person, pid: 1, person };
    const enrol = new TotpEnrolment({ store, factor, host: { users: async () => [{ name: 'alice', uid: 1001 }] }, now, name: (p: { user: string; uid: number }) => `${p.user}(uid ${p.uid})`, principal: (w: { uid: number; user: string; role: string }) => ({ uid: w.uid, user: w.user, role: w.role }) } as unknown as ConstructorParameters<typeof TotpEnrolment>[0]);
    const issued = await enrol.issue(who as never, { uid: 1001, user: 'alice' } as never, {} as never);
    await enrol.confirm(who as never, { uid: 1001, user: 'alice' } as never, { code: codeAt(issued.secret, clock) } as never);
    clock += 30_000;
    const right = codeAt(issued.secret, clock);
    const entry = () => ({ kind: 'totp_lockout' as const, transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} });
    const guesses = Array.from({ length: 200 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'));
    guesses[150] = right;
    const results = await Promise.allSettled(guesses.map((c) => factor.check('alice(uid 1001)', 'alice', c, 'tx_1', entry as never)));
    assert.equal(results[150]!.status, 'rejected', 'the right guess after five wrong ones is refused');
    const codes = results.map((r) => (r.status === 'fulfilled' ? 'accepted' : (r.reason as { code: string }).code));
    assert.equal(codes.filter((c) => c === 'totp_invalid').length, 4, 'four wrong codes are answered as wrong');
    assert.equal(codes.filter((c) => c === 'accepted').length, 0);
    assert.ok((await store.totp('alice(uid 1001)'))!.lockedUntil > clock, 'the factor is locked');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
