/**
 * The second factor, against a real daemon with real Unix users: High approvals
 * need the approver's TOTP code, checked by the daemon; missing, wrong, expired,
 * replayed and other-transaction codes are refused and mint nothing; a run of wrong
 * codes locks the approver out and the lockout is in the signed log; only root enrols.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { ApprovalGrant, PreviewEnvelope, TransactionView } from '../../src/protocol/messages.js';
import { codeAt, STEP_SECONDS } from '../../src/protocol/totp.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { MAX_FAILURES } from '../../src/daemon/second-factor.js';

let w: World;
let agent: Principal, alice: Principal, aliceSecret: string;

before(async () => {
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers'], { enrol: false });
  aliceSecret = (await (await w.root()).call<{ secret: string }>('totp.enroll', { user: 'alice' })).secret;
});
after(() => w?.close());

let n = 0;
/** A fresh High-risk preview (CreateGroup is medium; CreateUser is high). */
const highPreview = () => agent.call<PreviewEnvelope>('preview', { action_name: 'CreateUser', params: { user: `tf${n++}` } });
const approveWith = (who: Principal, p: PreviewEnvelope, totp_code?: string) =>
  who.call<ApprovalGrant>('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, ...(totp_code !== undefined ? { totp_code } : {}) });
const stateOf = async (p: PreviewEnvelope) => (await agent.call<TransactionView>('transaction.get', { transaction_id: p.transaction_id })).state;
const STEP_MS = STEP_SECONDS * 1000;
/** Waits until the current step has at least `ms` left, so a code computed now is still current when the daemon checks it. */
const awayFromStepEdge = async (ms = 3000) => {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 100));
};
/** A new approver with its own secret: its steps are all unspent. */
const freshApprover = async (name: string): Promise<[Principal, string]> => {
  const who = await w.as(name, ['airlock-admin', 'airlock-approvers'], { enrol: false });
  return [who, (await (await w.root()).call<{ secret: string }>('totp.enroll', { user: name })).secret];
};
const logKinds = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; principal: { user: string } | null; details: Record<string, unknown> });

describe('TOTP on High approvals', () => {
  test('without a code the daemon asks for one, and nothing is approved', async () => {
    const p = await highPreview();
    const e = await rejectsWith(approveWith(alice, p), 'authorization', 'totp_required');
    assert.match(e.message, /6-digit code/);
    assert.equal(await stateOf(p), 'Previewed');
  });

  test('a wrong code, a malformed one and an expired one are refused and mint nothing', async () => {
    await awayFromStepEdge();
    const p = await highPreview();
    const now = Date.now();
    const right = codeAt(aliceSecret, now);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    await rejectsWith(approveWith(alice, p, wrong), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(alice, p, `${right} `), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(alice, p, codeAt(aliceSecret, now - 3 * STEP_MS)), 'authorization', 'totp_invalid');
    assert.equal(await stateOf(p), 'Previewed');
    // The right code still works after fewer than MAX_FAILURES mistakes, and resets the count.
    const g = await approveWith(alice, p, right);
    assert.equal(g.transaction_id, p.transaction_id);
    const entry = logKinds().find((e) => e.kind === 'approval_granted' && (e as unknown as { transaction_id: string }).transaction_id === p.transaction_id);
    assert.equal(entry?.details.second_factor, 'totp');
  });

  test('a code approves one transaction: replayed on another it is refused', async () => {
    await awayFromStepEdge();
    const p1 = await highPreview();
    const p2 = await highPreview();
    const code = codeAt(aliceSecret, Date.now() + STEP_MS); // the next step: not spent by the test above
    await approveWith(alice, p1, code);
    await rejectsWith(approveWith(alice, p2, code), 'authorization', 'totp_invalid');
    assert.equal(await stateOf(p2), 'Previewed');
  });

  test('the same fresh code sent for two transactions at once approves exactly one', async () => {
    const [rita, secret] = await freshApprover('rita');
    await awayFromStepEdge();
    const [p1, p2] = [await highPreview(), await highPreview()];
    const code = codeAt(secret, Date.now());
    const results = await Promise.allSettled([approveWith(rita, p1, code), approveWith(rita, p2, code)]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'))));
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(['totp_spent', 'totp_invalid'].includes((refused.reason as { code: string }).code));
  });

  test('medium risk needs no code by default', async () => {
    const p = await agent.call<PreviewEnvelope>('preview', { action_name: 'CreateGroup', params: { group: 'tfgroup' } });
    await approveWith(alice, p);
  });

  test(`${MAX_FAILURES} wrong codes in a row lock the approver out, even from the right code, and the lockout is logged`, async () => {
    const [lena, secret] = await freshApprover('lena');
    await awayFromStepEdge();
    const p = await highPreview();
    const right = codeAt(secret, Date.now());
    const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
    for (let i = 1; i < MAX_FAILURES; i++) await rejectsWith(approveWith(lena, p, wrong), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(lena, p, wrong), 'authorization', 'totp_locked');
    await rejectsWith(approveWith(lena, p, right), 'authorization', 'totp_locked');
    assert.equal(await stateOf(p), 'Previewed');
    const lockouts = logKinds().filter((e) => e.kind === 'totp_lockout');
    assert.equal(lockouts.length, 1);
    assert.match(String(lockouts[0]!.details.approver), /^lena\(uid \d+\)$/);
    assert.equal(lockouts[0]!.principal?.user, 'lena');
    // Another approver is not affected by lena's lockout.
    const [tom, tomSecret] = await freshApprover('tom');
    await awayFromStepEdge();
    await approveWith(tom, await highPreview(), codeAt(tomSecret, Date.now()));
  });

  test('an approver with no second factor is told how to enrol', async () => {
    const nina = await w.as('nina', ['airlock-admin', 'airlock-approvers'], { enrol: false });
    const e = await rejectsWith(approveWith(nina, await highPreview(), '123456'), 'authorization', 'totp_not_enrolled');
    assert.match(e.message + JSON.stringify(e), /sudo airlock totp enroll --user nina/);
  });
});

describe('enrolment', () => {
  test('only root enrols, only approvers, and enrolment is logged without the secret', async () => {
    await rejectsWith(alice.call('totp.enroll', { user: 'alice' }), 'authorization', 'root_only');
    await rejectsWith(agent.call('totp.enroll', {}), 'authorization', 'root_only');
    const root = await w.root();
    await rejectsWith(root.call('totp.enroll', { user: 'agent' }), 'validation', 'not_an_approver');
    await rejectsWith(root.call('totp.enroll', { user: 'nobody-here' }), 'validation', 'no_such_user');
    await rejectsWith(root.call('totp.enroll', { user: '--help' }), 'validation', 'bad_user');
    const e = await root.call<{ approver: string; secret: string; uri: string }>('totp.enroll', { user: 'nina' });
    assert.match(e.uri, /^otpauth:\/\/totp\/Airlock%3Anina%40[^?]+\?secret=[A-Z2-7]{32}&issuer=Airlock/);
    const logged = logKinds().filter((x) => x.kind === 'totp_enrolled');
    assert.ok(logged.some((x) => x.details.approver === e.approver));
    assert.ok(!JSON.stringify(logged).includes(e.secret), 'the secret never reaches the log');
    // The secrets live in the daemon's store, in a directory only root can enter.
    assert.equal(statSync(w.d.stateDir).mode & 0o077, 0);
  });

  test('re-enrolling replaces the secret: the old codes stop working', async () => {
    const root = await w.root();
    const old = (await root.call<{ secret: string }>('totp.enroll', { user: 'nina' })).secret;
    const fresh = (await root.call<{ secret: string }>('totp.enroll', { user: 'nina' })).secret;
    assert.notEqual(old, fresh);
    await awayFromStepEdge();
    const nina = await w.as('nina', []);
    const p = await highPreview();
    await rejectsWith(approveWith(nina, p, codeAt(old, Date.now())), 'authorization', 'totp_invalid');
    await approveWith(nina, p, codeAt(fresh, Date.now()));
  });
});

describe('Medium approvals when the policy says so', () => {
  let w2: World;
  before(async () => {
    w2 = await startWorld([], 'overlay', { policy: '[approval]\nsecond_factor_from = "medium"\n' });
  });
  after(() => w2?.close());
  test('with second_factor_from = "medium", a Medium approval needs the code too', async () => {
    const a = await w2.as('agent', ['airlock-admin']);
    const h = await w2.as('alice', ['airlock-admin', 'airlock-approvers']);
    const p = await a.call<PreviewEnvelope>('preview', { action_name: 'CreateGroup', params: { group: 'g2' } });
    await rejectsWith(approveWith(h, p), 'authorization', 'totp_required');
    await w2.approve(h, { ...p, risk: 'high' }); // the world types a code for what it treats as needing one
  });
});
