/**
 * Review 22's attacks on approved first enrolments (src/daemon/totp-enrolment.ts,
 * src/audit/lifecycle.ts), at the module level with a real SqliteStore: interleavings the
 * daemon cannot be driven into through its socket on demand, and logs the audit must judge.
 *
 * Tests marked `todo: 'HOLE ...'` show a real hole: they assert the safe behaviour, fail on
 * main today, and are reported by node:test as todo (so the suite stays green) until fixed.
 * The other tests show a defence that holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { codeAt, enrolmentCheck, STEP_SECONDS } from '../../src/protocol/totp.js';
import { TotpSeal } from '../../src/daemon/totp-seal.js';
import { TotpEnrolment } from '../../src/daemon/totp-enrolment.js';
import { SecondFactor } from '../../src/daemon/second-factor.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { GENESIS_HASH, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { ENROLMENT_RULES } from '../../src/audit/lifecycle.js';
import type { Identity } from '../../src/daemon/identity.js';
import type { Caller } from '../../src/daemon/authz.js';
import type { Host } from '../../src/catalogue/action.js';
import type { Store } from '../../src/store/store.js';
import { draft } from '../support/store-contract.js';

const STEP_MS = STEP_SECONDS * 1000;
const key = signingKeyFromSeed(randomBytes(32));

const person = (uid: number, user: string) => ({ uid, user, role: 'admin' as const, approver: true });
/** The person's own account (an agent running as them is the same peer). */
const self = (uid: number, user: string): Caller => ({ uid, user, role: 'admin', approver: true, pid: 1, person: { ...person(uid, user), via: 'self' }, unattended: false });
/** Root through sudo from the person's login session. */
const sudo = (uid: number, user: string): Caller => ({ uid: 0, user: 'root', role: 'admin', approver: true, pid: 1, person: { ...person(uid, user), via: 'login' }, unattended: false });

/** A store, a clock, and TotpEnrolment over `wrap(store)` (the real store, or one that interleaves). */
async function bed(wrap: (s: Store) => Store = (s) => s) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-review22-'));
  const path = join(dir, 'a.db');
  const store = new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));
  const clock = { now: Date.UTC(2030, 0, 1, 12, 0, 10) };
  const now = () => clock.now;
  const seal = TotpSeal.fromKey(randomBytes(32));
  const factor = new SecondFactor({ store, now, hostName: 'web1', seal });
  const users = [
    { name: 'bob', uid: 1002 },
    { name: 'alice', uid: 1001 },
    { name: 'carol', uid: 1003 },
  ];
  const host = { users: async () => users } as unknown as Host;
  const name = (p: { uid: number; user: string }) => `${p.user}(uid ${p.uid})`;
  const enrol = new TotpEnrolment({ store: wrap(store), factor, host, now, name, principal: (w: Identity) => ({ uid: w.uid, user: w.user, role: w.role }) });
  const close = async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { store, path, clock, enrol, factor, seal, close };
}

test(
  'race: an enrolment issued while the person had no factor, confirmed after an approval gave them one, replaces that factor with no approval and no current code',
  async () => {
    // The agent running as alice starts `totp.enroll` at the moment bob's `totp.approve` of alice's
    // real enrolment commits: its read of alice's factor (none) precedes the approval, its pending
    // secret is written after it. The wrapper below lets bob's approval run exactly there.
    let between: (() => Promise<void>) | undefined;
    const t = await bed(
      (s) =>
        new Proxy(s, {
          get(target, prop) {
            if (prop === 'totp') {
              return async (approver: string) => {
                const seen = await target.totp(approver);
                const run = between;
                between = undefined;
                if (run) await run();
                return seen;
              };
            }
            const v = Reflect.get(target, prop, target) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        }),
    );
    try {
      const bob = { uid: 1002, user: 'bob' };
      const alice = { uid: 1001, user: 'alice' };
      // bob is the host's first approver, through sudo.
      const b = await t.enrol.issue(sudo(1002, 'bob'), bob, {});
      await t.enrol.confirm(sudo(1002, 'bob'), bob, { code: codeAt(b.secret, t.clock.now) });
      // alice enrols and proves her secret: it waits for bob.
      const real = await t.enrol.issue(self(1001, 'alice'), alice, {});
      assert.equal((await t.enrol.confirm(self(1001, 'alice'), alice, { code: codeAt(real.secret, t.clock.now) })).state, 'awaiting_approval');
      t.clock.now += STEP_MS;
      // The agent (alice's uid) enrols; bob's approval of alice commits between its read and its write.
      between = async () => {
        await t.enrol.approve(self(1002, 'bob'), { enrolments: [{ user: 'alice', check: enrolmentCheck(real.secret) }], totp_code: codeAt(b.secret, t.clock.now) });
      };
      const agents = await t.enrol.issue(self(1001, 'alice'), alice, {});
      assert.equal(between, undefined, 'bob approved in between');
      assert.equal(agents.state, 'pending');
      // The agent confirms its secret: the daemon takes it for a replacement of alice's factor.
      t.clock.now += STEP_MS;
      let state: string;
      try {
        state = (await t.enrol.confirm(self(1001, 'alice'), alice, { code: codeAt(agents.secret, t.clock.now) })).state;
      } catch (e) {
        state = `refused: ${(e as Error).message}`;
      }
      // Safe: it was issued as a first enrolment, so it waits for an approver (or is refused).
      const factor = await t.store.totp('alice(uid 1001)');
      assert.equal(t.seal.open('alice(uid 1001)', factor!.sealedSecret), real.secret, `alice's factor is still the one bob approved (the agent's confirm: ${state})`);
      assert.notEqual(state, 'confirmed');
    } finally {
      await t.close();
    }
  },
);

test(
  'race: two first approvers confirming at once on a host with no factor both become "first approver", and the audit calls the host\'s own log broken',
  { todo: 'HOLE (low): confirm() reads anyTotp() outside the transaction that stores the factor (needs two root-with-a-person sessions, so no agent without sudo gets in)' },
  async () => {
    const t = await bed();
    try {
      await t.store.appendEntries([draft('daemon_started', null, { enrolment_rules: ENROLMENT_RULES })]);
      const bob = { uid: 1002, user: 'bob' };
      const carol = { uid: 1003, user: 'carol' };
      const b = await t.enrol.issue(sudo(1002, 'bob'), bob, {});
      const c = await t.enrol.issue(sudo(1003, 'carol'), carol, {});
      const both = await Promise.allSettled([
        t.enrol.confirm(sudo(1002, 'bob'), bob, { code: codeAt(b.secret, t.clock.now) }),
        t.enrol.confirm(sudo(1003, 'carol'), carol, { code: codeAt(c.secret, t.clock.now) }),
      ]);
      const confirmed = both.filter((r) => r.status === 'fulfilled' && r.value.state === 'confirmed').length;
      const report = await verifyLog(readSqliteLog(t.path), key.publicRaw, null, { workers: 1 });
      // Safe: exactly one of them is the host's first factor; the other waits for an approval.
      assert.equal(confirmed, 1, `both confirmed as the host's first approver; audit verify says ${report.status} ${report.first_broken?.rule ?? ''}`);
      assert.notEqual(report.status, 'broken', JSON.stringify(report.first_broken));
    } finally {
      await t.close();
    }
  },
);

test('holds: a second code for a proven enrolment, and wrong codes for it, never make it a factor', async () => {
  const t = await bed();
  try {
    const bob = { uid: 1002, user: 'bob' };
    const alice = { uid: 1001, user: 'alice' };
    const b = await t.enrol.issue(sudo(1002, 'bob'), bob, {});
    await t.enrol.confirm(sudo(1002, 'bob'), bob, { code: codeAt(b.secret, t.clock.now) });
    const a = await t.enrol.issue(self(1001, 'alice'), alice, {});
    assert.equal((await t.enrol.confirm(self(1001, 'alice'), alice, { code: codeAt(a.secret, t.clock.now) })).state, 'awaiting_approval');
    t.clock.now += STEP_MS;
    // Again, from her account and through her sudo (an agent with her cached sudo): gone, not confirmed.
    for (const who of [self(1001, 'alice'), sudo(1001, 'alice')]) {
      await assert.rejects(t.enrol.confirm(who, alice, { code: codeAt(a.secret, t.clock.now) }), { code: 'totp_not_pending' });
      t.clock.now += STEP_MS;
    }
    assert.equal(await t.store.totp('alice(uid 1001)'), null);
    assert.notEqual((await t.store.pendingTotp('alice(uid 1001)'))?.confirmedStep, null, 'still waiting for bob');
    // A batch with one name that is not waiting: refused before bob's code is looked at, so it is not spent.
    const code = codeAt(b.secret, t.clock.now);
    await assert.rejects(t.enrol.approve(self(1002, 'bob'), { enrolments: [{ user: 'alice', check: enrolmentCheck(a.secret) }, { user: 'carol', check: 'AAAA-AAAA' }], totp_code: code }), { code: 'no_enrolment_awaiting' });
    const ok = await t.enrol.approve(self(1002, 'bob'), { enrolments: [{ user: 'alice', check: enrolmentCheck(a.secret) }, { user: 'alice', check: enrolmentCheck(a.secret) }], totp_code: code });
    assert.deepEqual(ok.approved, [{ approver: 'alice(uid 1001)', user: 'alice' }]);
    await assert.rejects(t.enrol.approve(self(1001, 'alice'), { enrolments: [{ user: 'bob', check: enrolmentCheck(b.secret) }], totp_code: codeAt(a.secret, t.clock.now + STEP_MS) }), { code: 'no_enrolment_awaiting' });
  } finally {
    await t.close();
  }
});

function resign(drafts: EntryDraft[]): LogRow[] {
  let prev = GENESIS_HASH;
  return drafts.map((d, i) => {
    const s = sealEntry(key, d, i + 1, prev);
    prev = s.hash;
    return { seq: s.seq, body: s.body, sig: s.sig };
  });
}

// --- audit verify's enrolment rules: what they miss --------------------------------------

const enforcing = () => draft('daemon_started', null, { enrolment_rules: ENROLMENT_RULES });
const firstApprover = (approver: string) => draft('totp_enrolled', null, { approver, replaced: false, first_approver: true });
const approvedBy = (approver: string, by: string) => draft('totp_enrolled', null, { approver, replaced: false, approved_by: by });

test(
  'audit: a "replacement" of a factor the log never saw enrolled, and one issued as a first enrolment, are found',
  async () => {
    // Planted: alice's factor row was written behind the daemon's back (no totp_enrolled for it); she then replaces it.
    const planted = await verifyLog(resign([enforcing(), firstApprover('bob'), draft('totp_enrolled', null, { approver: 'alice', replaced: true })]), key.publicRaw, null, { workers: 1 });
    assert.equal(planted.status, 'broken', 'a replacement of a factor the log never enrolled');
    // The race: the secret was issued as a first enrolment (replaces none) and confirmed as a replacement.
    const raced = await verifyLog(
      resign([
        enforcing(),
        firstApprover('bob'),
        draft('totp_issued', null, { approver: 'alice', replaces: 'none' }),
        draft('totp_awaiting_approval', null, { approver: 'alice' }),
        draft('totp_issued', null, { approver: 'alice', replaces: 'none' }),
        approvedBy('alice', 'bob'),
        draft('totp_enrolled', null, { approver: 'alice', replaced: true }),
      ]),
      key.publicRaw,
      null,
      { workers: 1 },
    );
    assert.equal(raced.status, 'broken', 'a first-enrolment secret confirmed as a replacement');
  },
);

test('holds: enrolment_approved flags a first enrolment while a factor exists, after a reset and a re-enrolment too, and accepts the approved one', async () => {
  // alice's factor reset, then the agent running as her re-enrols with nobody's approval.
  const r = await verifyLog(resign([enforcing(), firstApprover('bob'), approvedBy('alice', 'bob'), draft('totp_reset', null, { approver: 'alice' }), draft('totp_enrolled', null, { approver: 'alice', replaced: false })]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([r.status, r.first_broken?.seq, r.first_broken?.rule], ['broken', 5, 'enrolment_approved']);
  // A second "first approver" while bob holds a factor (a DBA deleted bob's row, so the daemon thought the host empty).
  const second = await verifyLog(resign([enforcing(), firstApprover('bob'), firstApprover('alice')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([second.first_broken?.seq, second.first_broken?.rule], [3, 'enrolment_approved']);
  // Approved by a holder whose factor was reset before: no approval.
  const stale = await verifyLog(resign([enforcing(), firstApprover('bob'), approvedBy('carol', 'bob'), draft('totp_reset', null, { approver: 'bob' }), approvedBy('alice', 'bob')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([stale.first_broken?.seq, stale.first_broken?.rule], [5, 'enrolment_approved']);
  // An older daemon in between (no enrolment_rules) is not judged; the rule comes back with the next enforcing start.
  const older = await verifyLog(resign([enforcing(), firstApprover('bob'), draft('daemon_started'), draft('totp_enrolled', null, { approver: 'carol', replaced: false }), enforcing(), draft('totp_enrolled', null, { approver: 'dave', replaced: false })]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([older.first_broken?.seq, older.first_broken?.rule], [6, 'enrolment_approved']);
});
