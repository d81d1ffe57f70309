/**
 * The second factor, against a real daemon with real Unix users: High approvals
 * need the approver's TOTP code, checked by the daemon; missing, wrong, expired,
 * replayed and other-transaction codes are refused and mint nothing; a run of wrong
 * codes locks the approver out and the lockout is in the signed log. A person enrols
 * their own factor over their own connection, and it counts only once a first code
 * confirms it; replacing it needs a current code; root cannot enrol anyone, only
 * reset a factor, logged and notified. The secrets are sealed at rest: a copy of the
 * database (and its WAL) holds none, and the daemon still verifies codes after a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { airlock, DAEMON } from '../support/cli.js';
import { removeTree } from '../support/fs.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { base32Decode, codeAt, enrolmentCheck, STEP_SECONDS } from '../../src/protocol/totp.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { verifyLog } from '../../src/audit/verify.js';
import { MAX_FAILURES } from '../../src/daemon/second-factor.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
let w: World;
let agent: Principal, alice: Principal, aliceSecret: string;
let notifyFile: string;
/** Every secret an approver was given in this world: none may be found in the store's files. */
const secrets: string[] = [];

before(async () => {
  w = await startWorld();
  notifyFile = join(w.d.box.shared, 'notify.jsonl');
  writeFileSync(join(w.d.box.shared, 'policy.toml'), `[notify]\ncommand = ["/usr/bin/tee", "--append", "${notifyFile}"]\n`);
  await w.reload();
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', APPROVER, { enrol: false });
  aliceSecret = await w.enrol(alice, 'alice');
  secrets.push(aliceSecret);
});
after(() => w?.close());

let n = 0;
/** A fresh High-risk preview (CreateGroup is medium; CreateUser is high). */
const highPreview = () => agent.call('preview', { action_name: 'CreateUser', params: { user: `tf${n++}` } });
const approveWith = (who: Principal, p: PreviewEnvelope, totp_code?: string) =>
  who.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, ...(totp_code !== undefined ? { totp_code } : {}) });
const stateOf = async (p: PreviewEnvelope) => (await agent.call('transaction.get', { transaction_id: p.transaction_id })).state;
const STEP_MS = STEP_SECONDS * 1000;
/** Waits until the current step has at least `ms` left, so a code computed now is still current when the daemon checks it. */
const awayFromStepEdge = async (ms = 3000) => {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 100));
};
/** A code of the approver's that no approval or confirmation has spent (the world's authenticator keeps track). */
const fresh = (name: string) => w.codes.code(name);
const wrongFor = (code: string, by = 1) => String((Number(code) + by) % 1_000_000).padStart(6, '0');
/** A new approver that has enrolled (and confirmed) its own factor: its later steps are all unspent. */
const freshApprover = async (name: string): Promise<[Principal, string]> => {
  const who = await w.as(name, APPROVER, { enrol: false });
  const secret = await w.enrol(who, name);
  secrets.push(secret);
  return [who, secret];
};
type Entry = { kind: string; transaction_id: string | null; principal: { uid: number; user: string; person?: string } | null; details: Record<string, unknown> };
/** The check code each proven enrolment showed its person (what they read out to the approver). */
const checks = new Map<string, string>();
const checkOf = (user: string) => checks.get(user) ?? 'AAAA-AAAA';
const logEntries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);

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
    const right = await fresh('alice');
    await rejectsWith(approveWith(alice, p, wrongFor(right)), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(alice, p, `${right} `), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(alice, p, codeAt(aliceSecret, Date.now() - 3 * STEP_MS)), 'authorization', 'totp_invalid');
    assert.equal(await stateOf(p), 'Previewed');
    // The right code still works after fewer than MAX_FAILURES mistakes, and resets the count.
    const g = await approveWith(alice, p, right);
    assert.equal(g.transaction_id, p.transaction_id);
    const entry = logEntries().find((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id);
    assert.equal(entry?.details.second_factor, 'totp');
  });

  test('a code approves one transaction: replayed on another it is refused', async () => {
    const p1 = await highPreview();
    const p2 = await highPreview();
    const code = await fresh('alice');
    await approveWith(alice, p1, code);
    const e = await rejectsWith(approveWith(alice, p2, code), 'authorization', 'totp_spent');
    assert.match(e.message, /^that code was already used: (wait for the next code \(in \d+ s\)|type the code your authenticator shows now)$/);
    assert.equal(await stateOf(p2), 'Previewed');
  });

  test('a used code typed again is refused as used, however often, and does not count toward the lockout', async () => {
    const [sam] = await freshApprover('sam');
    const used = await fresh('sam');
    await approveWith(sam, await highPreview(), used);
    const p = await highPreview();
    for (let i = 0; i <= MAX_FAILURES; i++) {
      const e = await rejectsWith(approveWith(sam, p, used), 'authorization', 'totp_spent');
      assert.match(e.message, /^that code was already used: wait for the next code \(in \d+ s\)$/);
    }
    // A wrong code after all those is the first wrong one: the count was not touched.
    const wrong = await rejectsWith(approveWith(sam, p, wrongFor(used, 500_000)), 'authorization', 'totp_invalid');
    assert.match(wrong.message, new RegExp(`\\(${MAX_FAILURES - 1} more tries`));
    assert.equal(await stateOf(p), 'Previewed');
    assert.ok(!logEntries().some((e) => e.kind === 'totp_lockout' && String(e.details.approver).startsWith('sam(')));
    await approveWith(sam, p, await fresh('sam'));
  });

  test('the same fresh code sent for two transactions at once approves exactly one', async () => {
    const [rita] = await freshApprover('rita');
    const [p1, p2] = [await highPreview(), await highPreview()];
    const code = await fresh('rita');
    const results = await Promise.allSettled([approveWith(rita, p1, code), approveWith(rita, p2, code)]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'))));
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(['totp_spent', 'totp_invalid'].includes((refused.reason as { code: string }).code));
  });

  test('medium risk needs no code by default', async () => {
    const p = await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'tfgroup' } });
    await approveWith(alice, p);
  });

  test(`${MAX_FAILURES} wrong codes in a row lock the approver out, even from the right code, and the lockout is logged`, async () => {
    const [lena] = await freshApprover('lena');
    const p = await highPreview();
    const right = await fresh('lena');
    const wrong = wrongFor(right, 500_000);
    for (let i = 1; i < MAX_FAILURES; i++) await rejectsWith(approveWith(lena, p, wrong), 'authorization', 'totp_invalid');
    await rejectsWith(approveWith(lena, p, wrong), 'authorization', 'totp_locked');
    await rejectsWith(approveWith(lena, p, right), 'authorization', 'totp_locked');
    assert.equal(await stateOf(p), 'Previewed');
    const lockouts = logEntries().filter((e) => e.kind === 'totp_lockout');
    assert.equal(lockouts.length, 1);
    assert.match(String(lockouts[0]!.details.approver), /^lena\(uid \d+\)$/);
    assert.equal(lockouts[0]!.principal?.user, 'lena');
    // Another approver is not affected by lena's lockout.
    const [tom] = await freshApprover('tom');
    await approveWith(tom, await highPreview(), await fresh('tom'));
  });

  test('an approver with no second factor is told how to enrol, as themselves', async () => {
    const nina = await w.as('nina', APPROVER, { enrol: false });
    const e = await rejectsWith(approveWith(nina, await highPreview(), '123456'), 'authorization', 'totp_not_enrolled');
    assert.match(JSON.stringify(e), /`airlock totp enroll`/);
    assert.doesNotMatch(JSON.stringify(e), /sudo airlock totp enroll/);
  });
});

describe('enrolment: a person enrols their own factor', () => {
  test('root cannot enrol anyone, nor replace a factor: a factor is enrolled by its owner', async () => {
    const root = await w.root();
    const e = await rejectsWith(root.callUnchecked('totp.enroll', { user: 'alice' }), 'authorization', 'enrol_as_yourself');
    assert.match(e.message + JSON.stringify(e), /enrol as yourself, without sudo: `airlock totp enroll`/);
    await rejectsWith(root.call('totp.enroll', {}), 'authorization', 'enrol_as_yourself');
    await rejectsWith(root.call('totp.confirm', { code: '123456' }), 'authorization', 'enrol_as_yourself');
    // Naming somebody else is refused too: the caller is the one who enrols.
    await rejectsWith(alice.callUnchecked('totp.enroll', { user: 'nina' }), 'validation', 'bad_params');
    // alice's factor is untouched: her codes still approve.
    await approveWith(alice, await highPreview(), await fresh('alice'));
  });

  test('only approvers enrol; an enrolment counts only once a first code confirms it', async () => {
    await rejectsWith(agent.call('totp.enroll', {}), 'authorization', 'not_an_approver');
    const nora = await w.as('nora', APPROVER, { enrol: false });
    const issued = await nora.call('totp.enroll', {});
    secrets.push(issued.secret);
    assert.equal(issued.state, 'pending');
    assert.match(issued.approver, /^nora\(uid \d+\)$/);
    assert.match(issued.uri, /^otpauth:\/\/totp\/Airlock%3Anora%40[^?]+\?secret=[A-Z2-7]{32}&issuer=Airlock/);
    assert.ok(Date.parse(issued.expires_at) > Date.now() + 5 * 60_000, 'a pending secret waits minutes for its first code');
    // Unconfirmed, the secret approves nothing.
    await awayFromStepEdge();
    const p = await highPreview();
    await rejectsWith(approveWith(nora, p, codeAt(issued.secret, Date.now())), 'authorization', 'totp_not_enrolled');
    // A new enrolment replaces a pending one: the first secret can no longer be confirmed.
    const again = await nora.call('totp.enroll', {});
    secrets.push(again.secret);
    assert.notEqual(again.secret, issued.secret);
    await rejectsWith(nora.call('totp.confirm', { code: codeAt(issued.secret, Date.now()) }), 'authorization', 'totp_invalid');
    await rejectsWith(nora.callUnchecked('totp.confirm', {}), 'authorization', 'totp_required');
    w.codes.add('nora', again.secret);
    // The host has approvers already: nora's first code proves the secret, and her factor waits for one of them.
    const proven = await nora.call('totp.confirm', { code: await fresh('nora') });
    assert.deepEqual([proven.state, (proven as { secret?: unknown }).secret], ['awaiting_approval', undefined]);
    assert.ok(proven.state === 'awaiting_approval' && proven.check === enrolmentCheck(again.secret), 'the check code of the proven secret');
    checks.set('nora', proven.check);
    // A second code for a proven enrolment is told what it waits for.
    assert.match((await rejectsWith(nora.call('totp.confirm', { code: codeAt(again.secret, Date.now()) }), 'validation', 'totp_not_pending')).message, /proven already and waits for another approver/);
    assert.ok(proven.state === 'awaiting_approval' && Date.parse(proven.expires_at) > Date.now() + 23 * 3600_000, 'a proven enrolment waits a day for an approver');
    // Attack: the agent running as nora uses the factor it just enrolled: it approves nothing yet.
    await rejectsWith(approveWith(nora, p, await fresh('nora')), 'authorization', 'totp_not_enrolled');
    // Attack: nora (or her sudo, which an agent running as her may borrow) vouches for herself.
    await rejectsWith(nora.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: '123456' }), 'authorization', 'approve_own_enrolment');
    await rejectsWith((await w.rootAs('nora')).call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: '123456' }), 'authorization', 'approve_own_enrolment');
    // Nobody without a factor of their own, and no root with nobody behind it, vouches for her.
    await rejectsWith(agent.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: '123456' }), 'authorization', 'not_an_approver');
    await rejectsWith((await w.root()).call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: '123456' }), 'authorization', 'no_person');
    const nina = await w.as('nina', APPROVER, { enrol: false });
    await rejectsWith(nina.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: '123456' }), 'authorization', 'totp_not_enrolled');
    // Another approver vouches, with their own code.
    await rejectsWith(alice.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }] }), 'authorization', 'totp_required');
    // A check code that is not the proven secret's (an enrolment swapped in since) is refused, before any code is asked for.
    await rejectsWith(alice.call('totp.approve', { enrolments: [{ user: 'nora', check: 'AAAA-AAAA' }] }), 'authorization', 'enrolment_check_mismatch');
    await rejectsWith(alice.call('totp.approve', { enrolments: [{ user: 'agent', check: checkOf('agent') }], totp_code: '123456' }), 'validation', 'no_enrolment_awaiting');
    const aliceCode = await fresh('alice');
    await rejectsWith(alice.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: wrongFor(aliceCode) }), 'authorization', 'totp_invalid');
    const approved = await alice.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: aliceCode });
    assert.deepEqual([approved.state, approved.approved, approved.approved_by], ['confirmed', [{ approver: issued.approver, user: 'nora' }], `alice(uid ${alice.identity.uid})`]);
    // That code of alice's is spent by the approval: it approves no change.
    await rejectsWith(approveWith(alice, await highPreview(), aliceCode), 'authorization', 'totp_spent');
    await approveWith(nora, p, await fresh('nora'));
    await rejectsWith(alice.call('totp.approve', { enrolments: [{ user: 'nora', check: checkOf('nora') }], totp_code: await fresh('alice') }), 'validation', 'no_enrolment_awaiting');
    await rejectsWith(nora.call('totp.confirm', { code: await fresh('nora') }), 'validation', 'totp_not_pending');
    const mine = logEntries().filter((e) => e.details.approver === issued.approver && e.kind.startsWith('totp_'));
    assert.deepEqual(mine.map((e) => e.kind), ['totp_issued', 'totp_issued', 'totp_awaiting_approval', 'totp_enrolled']);
    assert.equal(mine[3]?.details.approved_by, `alice(uid ${alice.identity.uid})`);
  });

  test('replacing a confirmed factor needs its current code, checked as an approval code is', async () => {
    const [olive, oldSecret] = await freshApprover('olive');
    const asked = await rejectsWith(olive.call('totp.enroll', {}), 'authorization', 'totp_required');
    assert.match(asked.message, /already has a second factor/);
    const current = await fresh('olive');
    await rejectsWith(olive.call('totp.enroll', { current_code: wrongFor(current) }), 'authorization', 'totp_invalid');
    const issued = await olive.call('totp.enroll', { current_code: current });
    secrets.push(issued.secret);
    assert.equal(issued.state, 'pending');
    // The code that authorised the re-enrolment is spent: it approves nothing.
    const p = await highPreview();
    await rejectsWith(approveWith(olive, p, current), 'authorization', 'totp_spent');
    // Until the new secret is confirmed, the old factor is the one that counts.
    await rejectsWith(approveWith(olive, p, codeAt(issued.secret, Date.now())), 'authorization', 'totp_invalid');
    await approveWith(olive, p, await fresh('olive'));
    w.codes.add('olive', issued.secret);
    await olive.call('totp.confirm', { code: await fresh('olive') });
    await awayFromStepEdge();
    const q = await highPreview();
    await rejectsWith(approveWith(olive, q, codeAt(oldSecret, Date.now())), 'authorization', 'totp_invalid');
    await approveWith(olive, q, await fresh('olive'));
    const replaced = logEntries().find((e) => e.kind === 'totp_issued' && String(e.details.approver).startsWith('olive(') && e.details.replaces === 'confirmed');
    assert.ok(replaced, 'the re-enrolment is logged as replacing a confirmed factor');
  });

  test(`${MAX_FAILURES} wrong current codes lock the re-enrolment out, as they lock approvals`, async () => {
    const [paula] = await freshApprover('paula');
    const right = await fresh('paula');
    for (let i = 1; i < MAX_FAILURES; i++) await rejectsWith(paula.call('totp.enroll', { current_code: wrongFor(right, 7) }), 'authorization', 'totp_invalid');
    await rejectsWith(paula.call('totp.enroll', { current_code: wrongFor(right, 7) }), 'authorization', 'totp_locked');
    await rejectsWith(paula.call('totp.enroll', { current_code: right }), 'authorization', 'totp_locked');
    await rejectsWith(approveWith(paula, await highPreview(), right), 'authorization', 'totp_locked');
    assert.ok(logEntries().some((e) => e.kind === 'totp_lockout' && String(e.details.approver).startsWith('paula(')));
  });

  test("another admin approver resets a factor through sudo with their own code: a signed entry, a notification, and the person enrols again without a code", async () => {
    const [quinn] = await freshApprover('quinn');
    await rejectsWith(quinn.call('totp.reset', { user: 'quinn' }), 'authorization', 'root_only');
    await rejectsWith(agent.call('totp.reset', { user: 'quinn' }), 'authorization', 'root_only');
    // Attack: root with nobody behind it (a service, a transient unit) resets nobody's factor, so the agent cannot enrol its own in its place.
    const nobody = await rejectsWith((await w.root()).call('totp.reset', { user: 'quinn' }), 'authorization', 'no_person');
    assert.match(nobody.message, /no sudo user and no login uid/);
    // Attack: quinn's own sudo (which an agent running as quinn may have) never resets quinn's own factor, code or not.
    await rejectsWith((await w.rootAs('quinn')).call('totp.reset', { user: 'quinn', totp_code: await fresh('quinn') }), 'authorization', 'reset_own_factor');
    // An admin who is no approver has no standing (and no factor) to reset anyone's.
    await w.as('rhea', ['airlock-admin']);
    await rejectsWith((await w.rootAs('rhea')).call('totp.reset', { user: 'quinn', totp_code: '123456' }), 'authorization', 'not_an_admin_approver');
    const root = await w.rootAs('alice');
    await rejectsWith(root.call('totp.reset', { user: '--help' }), 'validation', 'bad_user');
    await rejectsWith(root.call('totp.reset', { user: 'nobody-here' }), 'validation', 'no_such_user');
    await rejectsWith(root.call('totp.reset', { user: 'quinn' }), 'authorization', 'totp_required');
    await rejectsWith(root.call('totp.reset', { user: 'quinn', totp_code: 'abcdef' }), 'authorization', 'totp_invalid');
    await rejectsWith(root.call('totp.reset', { user: 'agent', totp_code: await fresh('alice') }), 'validation', 'no_factor');
    const r = await root.call('totp.reset', { user: 'quinn', totp_code: await fresh('alice') });
    assert.match(r.approver, /^quinn\(uid \d+\)$/);
    assert.equal(r.factor, true);
    const entry = logEntries().find((e) => e.kind === 'totp_reset' && e.details.approver === r.approver);
    assert.equal(entry?.principal?.user, 'root');
    assert.equal(entry?.principal?.person, `alice(uid ${alice.identity.uid}) via login`);
    await rejectsWith(approveWith(quinn, await highPreview(), await fresh('quinn')), 'authorization', 'totp_not_enrolled');
    let events: Array<Record<string, string>> = [];
    for (let i = 0; i < 50 && !events.some((e) => e.event === 'totp_reset'); i++) {
      await new Promise((res) => setTimeout(res, 100));
      events = existsSync(notifyFile) ? readFileSync(notifyFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>) : [];
    }
    const told = events.find((e) => e.event === 'totp_reset');
    assert.deepEqual([told?.approver, told?.by], [r.approver, `alice(uid ${alice.identity.uid}) via login`]);
    // With the factor gone, quinn enrols again as a first enrolment: the agent running as quinn
    // that enrols a factor of its own gets one that counts only once another approver vouches.
    const again = await quinn.call('totp.enroll', {});
    secrets.push(again.secret);
    assert.equal(again.state, 'pending');
    const proven = await quinn.call('totp.confirm', { code: codeAt(again.secret, Date.now()) });
    assert.equal(proven.state, 'awaiting_approval');
    await rejectsWith(approveWith(quinn, await highPreview(), codeAt(again.secret, Date.now() + STEP_MS)), 'authorization', 'totp_not_enrolled');
  });

  test('every enrolment, confirmation and reset is a signed entry, and none carries a secret', async () => {
    const report = await verifyLog(readSqliteLog(w.d.files.db), parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8')), readFileSync(w.d.files.checkpoints, 'utf8'), { workers: 1 });
    assert.equal(report.status, 'intact', JSON.stringify(report.first_broken));
    const kinds = new Set(logEntries().map((e) => e.kind));
    for (const k of ['totp_issued', 'totp_awaiting_approval', 'totp_enrolled', 'totp_reset', 'totp_lockout']) assert.ok(kinds.has(k), k);
    const text = [...readSqliteLog(w.d.files.db)].map((e) => e.body).join('\n');
    for (const s of secrets) assert.ok(!text.includes(s), 'no secret reaches the log');
  });
});

describe("a host's first factor: through sudo at the installing terminal, never from the person's own account", () => {
  test('on a host with no factor, the agent running as the approver enrols nothing; sudo from their login session does, and the next approver waits for them', async () => {
    const fresh = await startWorld();
    try {
      const ann = await fresh.as('ann', APPROVER, { enrol: false });
      // Attack: an agent with a shell as ann, on a host where nobody holds a factor yet.
      const e = await rejectsWith(ann.call('totp.enroll', {}), 'authorization', 'first_approver_through_sudo');
      assert.match(e.message, /first one is enrolled only through sudo/);
      assert.ok(!fresh.d.logs.join('\n').includes('totp_issued'));
      assert.ok(!logKinds(fresh).includes('totp_issued'), 'nothing was issued: no secret was shown to the agent');
      await rejectsWith((await fresh.root()).call('totp.enroll', {}), 'authorization', 'enrol_as_yourself');
      // ann herself, through sudo in her login session (the kernel's login uid names her).
      const sudo = await fresh.rootAs('ann');
      const issued = await sudo.call('totp.enroll', {});
      const done = await sudo.call('totp.confirm', { code: codeAt(issued.secret, Date.now()) });
      assert.equal(done.state, 'confirmed');
      // The second approver, from their own account: proven, and waiting for ann.
      const ben = await fresh.as('ben', APPROVER, { enrol: false });
      const benIssued = await ben.call('totp.enroll', {});
      const benProven = await ben.call('totp.confirm', { code: codeAt(benIssued.secret, Date.now()) });
      assert.equal(benProven.state, 'awaiting_approval');
      if (benProven.state === 'awaiting_approval') checks.set('ben', benProven.check);
      await ann.call('totp.approve', { enrolments: [{ user: 'ben', check: checkOf('ben') }], totp_code: codeAt(issued.secret, Date.now() + STEP_MS) });
      const entries = [...readSqliteLog(fresh.d.files.db)].map((x) => JSON.parse(x.body) as Entry);
      const enrolled = entries.filter((x) => x.kind === 'totp_enrolled');
      assert.deepEqual(enrolled.map((x) => [x.details.first_approver ?? null, x.details.approved_by ?? null]), [[true, null], [null, `ann(uid ${ann.identity.uid})`]]);
      assert.equal(enrolled[0]?.principal?.person, `ann(uid ${ann.identity.uid}) via login`);
      const report = await verifyLog(readSqliteLog(fresh.d.files.db), parsePublicKey(readFileSync(fresh.d.files.publicKey, 'utf8')), readFileSync(fresh.d.files.checkpoints, 'utf8'), { workers: 1 });
      assert.equal(report.status, 'intact', JSON.stringify(report.first_broken));
    } finally {
      await fresh.close();
    }
  });
});

const logKinds = (world: World) => [...readSqliteLog(world.d.files.db)].map((x) => (JSON.parse(x.body) as Entry).kind);

/** Whether these bytes hold a secret as a database might: its base32 text or the raw key. */
const holds = (bytes: Buffer, secret: string) => bytes.includes(Buffer.from(secret)) || bytes.includes(base32Decode(secret));

describe('second-factor secrets at rest', () => {
  test('a copy of the database and its WAL holds no secret, only sealed values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-dbcopy-'));
    try {
      for (const suffix of ['', '-wal']) if (existsSync(w.d.files.db + suffix)) copyFileSync(w.d.files.db + suffix, join(dir, 'copy.db' + suffix));
      for (const suffix of ['', '-wal']) {
        const f = join(dir, 'copy.db' + suffix);
        if (!existsSync(f)) continue;
        const bytes = readFileSync(f);
        for (const s of secrets) assert.ok(!holds(bytes, s), `copy.db${suffix} holds a secret`);
      }
      const db = new Database(join(dir, 'copy.db'));
      try {
        const rows = [...(db.prepare('SELECT approver, secret FROM totp').all() as Array<{ secret: string }>), ...(db.prepare('SELECT approver, secret FROM totp_pending').all() as Array<{ secret: string }>)];
        assert.ok(rows.length >= 5, `${rows.length} rows`);
        for (const r of rows) {
          assert.match(r.secret, /^v1:[A-Za-z0-9+/=]+$/);
          for (const s of secrets) assert.ok(!r.secret.includes(s));
        }
        assert.equal(db.prepare("SELECT value FROM meta WHERE key = 'totp_secrets'").pluck().get(), 'sealed-v1');
      } finally {
        db.close();
      }
      // The key that opens them sits beside the signing keys, readable by root only.
      const key = join(w.d.stateDir, 'totp.key');
      assert.equal(statSync(key).mode & 0o777, 0o600);
      assert.equal(statSync(w.d.stateDir).mode & 0o077, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('restarts and existing stores', () => {
  let kept: string;
  let bobSecret: string;
  /** bob's authenticator app, from the first world on: it knows which steps bob has spent. */
  let phone: World['codes'];
  /** The same users in the same order get the same uids in every fresh overlay, so `bob(uid N)` names the same approver. */
  const people = async (x: World) => [await x.as('agent', ['airlock-admin']), await x.as('bob', APPROVER, { enrol: false })] as const;
  const highApproval = async ([a, bob]: readonly [Principal, Principal]) => {
    const p = await a.call('preview', { action_name: 'CreateUser', params: { user: `rs${n++}` } });
    return bob.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await phone.code('bob') });
  };
  // The store, its keys, and the uid block its users were made in (their names carry their uids).
  const stateCopy = (name: string) => {
    const to = join(kept, name);
    for (const f of ['airlock.db', 'audit.key', 'approval.key', 'audit.pub', 'totp.key', '.sandbox-uid-block']) if (existsSync(join(kept, 'shared', 'state', f))) copyFileSync(join(kept, 'shared', 'state', f), join(to, f));
    return to;
  };

  before(async () => {
    kept = mkdtempSync(join(tmpdir(), 'airlock-restart-'));
    const first = await startWorld();
    const who = await people(first);
    bobSecret = await first.enrol(who[1], 'bob');
    phone = first.codes;
    await highApproval(who);
    await first.close({ keepSharedAs: join(kept, 'shared') });
  });
  after(() => removeTree(kept));

  const mkdir = (name: string) => {
    const d = join(kept, name);
    mkdirSync(d, { mode: 0o700 });
    return d;
  };

  test('after a restart the daemon opens the sealed secret and verifies codes', async () => {
    const again = await startWorld([], 'overlay', { state: join(kept, 'shared', 'state') });
    try {
      const g = await highApproval(await people(again));
      assert.match(g.approved_by, /^bob\(uid \d+\)$/);
    } finally {
      await again.close();
    }
  });

  test('a store from before sealing (clear-text secrets, no key) is sealed in place at start, and still verifies', async () => {
    const d = mkdir('legacy');
    stateCopy('legacy');
    unlinkSync(join(d, 'totp.key'));
    const db = new Database(join(d, 'airlock.db'));
    db.prepare("UPDATE totp SET secret = ? WHERE approver LIKE 'bob(%'").run(bobSecret);
    db.prepare("DELETE FROM meta WHERE key = 'totp_secrets'").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    assert.ok(readFileSync(join(d, 'airlock.db')).includes(Buffer.from(bobSecret)), 'the legacy store holds the secret in clear');
    const again = await startWorld([], 'overlay', { state: d });
    try {
      await highApproval(await people(again));
      for (const suffix of ['', '-wal']) {
        const f = again.d.files.db + suffix;
        if (existsSync(f)) assert.ok(!holds(readFileSync(f), bobSecret), `airlock.db${suffix} still holds the secret after sealing`);
      }
      assert.equal(statSync(join(again.d.stateDir, 'totp.key')).mode & 0o777, 0o600);
      assert.ok(again.d.logs.some((l) => /sealed \d+ second-factor secret/.test(l)), again.d.logs.join('\n'));
    } finally {
      await again.close();
    }
  });

  test('a sealed store whose key file is missing, or readable by others, does not start', async () => {
    const start = (d: string) => airlock(['--socket', join(d, 's.sock'), '--state-dir', d, '--log-dir', join(d, 'log'), '--no-syslog', '--policy', join(d, 'none.toml'), '--tokens', join(d, 'none.toml')], { entry: DAEMON, timeoutMs: 20_000 });
    const missing = mkdir('missing');
    stateCopy('missing');
    unlinkSync(join(missing, 'totp.key'));
    const r = await start(missing);
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /totp\.key/);
    assert.match(r.stderr, /sealed/);
    assert.ok(!existsSync(join(missing, 'totp.key')), 'no fresh key replaces the lost one');
    assert.ok(!existsSync(join(missing, 's.sock')), 'it never listened');
    const open = mkdir('open');
    stateCopy('open');
    chmodSync(join(open, 'totp.key'), 0o644);
    const r2 = await start(open);
    assert.equal(r2.code, 9, r2.stderr);
    assert.match(r2.stderr, /totp\.key has mode 644/);
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
    const h = await w2.as('alice', APPROVER);
    const p = await a.call('preview', { action_name: 'CreateGroup', params: { group: 'g2' } });
    await rejectsWith(approveWith(h, p), 'authorization', 'totp_required');
    await w2.approve(h, { ...p, risk: 'high' }); // the world types a code for what it treats as needing one
  });
});
