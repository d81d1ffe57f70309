/**
 * Passkeys as the approval factor, against a real daemon with real Unix users: a person
 * registers their own passkey with their current TOTP code (a signed entry, a notification), and
 * approves a High change with an assertion the daemon verifies with @simplewebauthn/server; the
 * agent then executes it. The authenticator is a software one (test/support/soft-authenticator.ts)
 * with real P-256 keys and signatures. Attacks: an assertion made for one transaction presented
 * for another, a replay, an old assertion after a newer one, no user verification, a wrong origin
 * or RP ID, another person's passkey, a TOTP code where the policy asks for a passkey, a
 * registration without a code, with someone else's challenge, or replayed.
 */
import { grantOf } from '../../src/client/client.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { approvalChallenge, passkeyId } from '../../src/protocol/passkey.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { verifyLog } from '../../src/audit/verify.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
let w: World;
let agent: Principal, alice: Principal, bob: Principal;
let notifyFile: string;
const aliceKey = new SoftAuthenticator();
const bobKey = new SoftAuthenticator();

type Entry = { kind: string; transaction_id: string | null; details: Record<string, unknown> };
const logEntries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);

const writePolicy = async (passkeys: string) => {
  writeFileSync(join(w.d.box.shared, 'policy.toml'), `[notify]\ncommand = ["/usr/bin/tee", "--append", "${notifyFile}"]\n${passkeys}`);
  await w.reload();
};

/** Registers a new passkey of `who` on `key`, proven with their current code. */
async function register(who: Principal, name: string, key: SoftAuthenticator, label: string) {
  const { options } = await who.call('passkey.begin', {});
  const response = key.create(options);
  return who.call('passkey.register', { response: response as never, name: label, totp_code: await w.codes.code(name) });
}

let n = 0;
/** A fresh High-risk preview by the agent (CreateUser is High). */
const highPreview = () => agent.call('preview', { action_name: 'CreateUser', params: { user: `pk${n++}` } });
const stateOf = async (p: PreviewEnvelope) => (await agent.call('transaction.get', { transaction_id: p.transaction_id })).state;
const optionsFor = async (who: Principal, p: PreviewEnvelope) => (await who.call('passkey.approval_options', { transaction_id: p.transaction_id })).options;
const approveWith = async (who: Principal, p: PreviewEnvelope, assertion: Record<string, unknown>) =>
  grantOf(await who.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: assertion as never }));

before(async () => {
  w = await startWorld();
  notifyFile = join(w.d.box.shared, 'notify.jsonl');
  await writePolicy('');
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', APPROVER);
  bob = await w.as('bob', APPROVER);
});
after(() => w?.close());

describe('registering a passkey', () => {
  test('needs a registration begun by the same person, and their current code; then it is a signed entry and a notification', async () => {
    // No code: refused, and the challenge is spent with the try.
    const { options } = await alice.call('passkey.begin', {});
    const created = aliceKey.create(options);
    aliceKey.credentials.pop();
    await rejectsWith(alice.call('passkey.register', { response: created as never }), 'authorization', 'totp_required');
    await rejectsWith(alice.call('passkey.register', { response: created as never }), 'authorization', 'registration_not_begun');
    // Bob cannot finish a registration Alice began: the challenge is hers.
    const begun = await alice.call('passkey.begin', {});
    const hers = bobKey.create(begun.options);
    bobKey.credentials.pop();
    await rejectsWith(bob.call('passkey.register', { response: hers as never }), 'authorization', 'registration_not_begun');

    const r = await register(alice, 'alice', aliceKey, 'laptop');
    assert.equal(r.name, 'laptop');
    assert.match(r.approver, /^alice\(uid \d+\)$/);
    assert.equal(r.passkey_id, passkeyId(Buffer.from(aliceKey.credentials[0]!.id).toString('base64url')));
    const entry = logEntries().find((e) => e.kind === 'passkey_registered');
    assert.deepEqual(entry?.details, { approver: r.approver, passkey_id: r.passkey_id, name: 'laptop', rp_id: 'localhost', factor: 'totp' });
    const told = readFileSync(notifyFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; approver?: string });
    assert.ok(told.some((t) => t.event === 'passkey_registered' && t.approver === r.approver), JSON.stringify(told));
    await register(bob, 'bob', bobKey, 'phone');
  });

  test('a person who holds a passkey adds another only with an assertion of one they hold: a code is not enough', async () => {
    const phone = new SoftAuthenticator();
    let begun = await alice.call('passkey.begin', {});
    assert.ok(begun.proof, 'passkey.begin gives proof options to a person who holds a passkey');
    await rejectsWith(alice.call('passkey.register', { response: phone.create(begun.options) as never, totp_code: await w.codes.code('alice') }), 'authorization', 'passkey_proof_required');
    phone.credentials.pop();
    // Bob's passkey does not vouch for Alice's new one, nor does a proof made for another registration.
    begun = await alice.call('passkey.begin', {});
    const earlier = begun.proof!;
    await rejectsWith(alice.call('passkey.register', { response: phone.create(begun.options) as never, assertion: bobKey.assert(bobKey.credentials[0]!, String(begun.proof!.challenge)) as never }), 'authorization', 'unknown_passkey');
    phone.credentials.pop();
    begun = await alice.call('passkey.begin', {});
    await rejectsWith(alice.call('passkey.register', { response: phone.create(begun.options) as never, assertion: aliceKey.get(earlier) as never }), 'authorization', 'bad_assertion');
    phone.credentials.pop();
    begun = await alice.call('passkey.begin', {});
    const r = await alice.call('passkey.register', { response: phone.create(begun.options) as never, name: 'phone', assertion: aliceKey.get(begun.proof!) as never });
    const entry = logEntries().find((e) => e.kind === 'passkey_registered' && e.details.passkey_id === r.passkey_id);
    assert.equal(entry?.details.factor, 'passkey');
    // The new one approves too.
    const p = await highPreview();
    await approveWith(alice, p, phone.get(await optionsFor(alice, p)));
    assert.equal(await stateOf(p), 'Queued');
  });

  test('a credential made for another origin or RP ID, or without user verification, is refused', async () => {
    for (const [ceremony, why] of [
      [{ origin: 'https://evil.example' }, /origin/i],
      [{ rpId: 'evil.example' }, /RP ID/i],
      [{ userVerified: false }, /verif/i],
    ] as const) {
      const { options } = await alice.call('passkey.begin', {});
      const response = aliceKey.create(options, ceremony);
      aliceKey.credentials.pop();
      // The credential is checked before the code: no code is needed to be refused.
      const e = await rejectsWith(alice.call('passkey.register', { response: response as never }), 'authorization', 'bad_registration');
      assert.match(e.message, why);
    }
  });

  test('an agent that is not an approver registers nothing', async () => {
    await rejectsWith(agent.call('passkey.begin', {}), 'authorization');
  });
});

describe('approving with a passkey', () => {
  test("a High change approved with the approver's passkey runs, and the log names the passkey", async () => {
    const p = await highPreview();
    const tx = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    const options = await optionsFor(alice, p);
    // The challenge is the one derived from this preview: the console could compute it too.
    assert.equal(options.challenge, approvalChallenge(p.transaction_id, p.preview_digest, Date.parse(tx.expires_at)));
    const grant = await approveWith(alice, p, aliceKey.get(options));
    const done = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'CreateUser', params: p.params, receipt: grant.receipt });
    assert.equal(done.state, 'Succeeded');
    const entry = logEntries().find((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id);
    assert.equal(entry?.details.second_factor, 'passkey');
    assert.equal(entry?.details.passkey_id, passkeyId(Buffer.from(aliceKey.credentials[0]!.id).toString('base64url')));
  });

  test('an assertion made for one transaction does not approve another, and is not accepted twice', async () => {
    const [p1, p2] = [await highPreview(), await highPreview()];
    const forP1 = aliceKey.get(await optionsFor(alice, p1));
    const e = await rejectsWith(approveWith(alice, p2, forP1), 'authorization', 'bad_assertion');
    assert.match(e.message, /challenge/i);
    assert.equal(await stateOf(p2), 'Previewed');
    await approveWith(alice, p1, forP1);
    await rejectsWith(approveWith(alice, p1, forP1), 'stale_approval', 'not_pending');
  });

  test('an assertion kept back is refused once a newer one was used (the counter moved past it)', async () => {
    const [p1, p2] = [await highPreview(), await highPreview()];
    const older = aliceKey.get(await optionsFor(alice, p1));
    await approveWith(alice, p2, aliceKey.get(await optionsFor(alice, p2)));
    const e = await rejectsWith(approveWith(alice, p1, older), 'authorization', 'bad_assertion');
    assert.match(e.message, /counter/i);
    assert.equal(await stateOf(p1), 'Previewed');
  });

  test('no user verification, a wrong origin, a wrong RP ID: refused', async () => {
    const p = await highPreview();
    const options = await optionsFor(alice, p);
    for (const c of [{ userVerified: false }, { origin: 'https://evil.example' }, { origin: 'http://localhost:9999' }, { rpId: 'evil.example' }]) {
      await rejectsWith(approveWith(alice, p, aliceKey.get(options, c)), 'authorization', 'bad_assertion');
    }
    assert.equal(await stateOf(p), 'Previewed');
  });

  test("another person's passkey approves nothing for this one", async () => {
    const p = await highPreview();
    const byBob = bobKey.get(await optionsFor(bob, p));
    await rejectsWith(approveWith(alice, p, byBob), 'authorization', 'unknown_passkey');
    assert.equal(await stateOf(p), 'Previewed');
  });

  test('approval options go only to who may approve, for a pending transaction', async () => {
    const p = await highPreview();
    await rejectsWith(agent.call('passkey.approval_options', { transaction_id: p.transaction_id }), 'authorization');
    await approveWith(alice, p, aliceKey.get(await optionsFor(alice, p)));
    await rejectsWith(alice.call('passkey.approval_options', { transaction_id: p.transaction_id }), 'stale_approval', 'not_pending');
  });
});

describe('a plan', () => {
  test('three dependent steps, one of them High, approved with one assertion over the plan and executed as one', async () => {
    const steps = [
      { action_name: 'CreateUser', params: { user: 'pkplan' } },
      { action_name: 'CreateGroup', params: { group: 'pkplangroup' } },
      { action_name: 'AddUserToGroup', params: { user: 'pkplan', group: 'pkplangroup' } },
    ];
    const p = await agent.call('plan.preview', { steps });
    assert.equal(p.action_name, 'Plan');
    assert.equal(p.risk, 'high');
    // The plan's preview digest covers every step's: the one challenge binds them all.
    const options = await optionsFor(alice, p);
    const tx = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.equal(options.challenge, approvalChallenge(p.transaction_id, p.preview_digest, Date.parse(tx.expires_at)));
    const grant = await approveWith(alice, p, aliceKey.get(options));
    const done = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'Plan', params: p.params, receipt: grant.receipt });
    assert.equal(done.state, 'Succeeded');
    assert.deepEqual(done.plan_steps?.map((s) => s.state), ['succeeded', 'succeeded', 'succeeded']);
    assert.equal(logEntries().filter((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id).length, 1);
  });
});

describe('the policy asks for a passkey', () => {
  test('from High up, a TOTP code approves nothing High, and a passkey does', async () => {
    await writePolicy('[passkeys]\nrequired_from = "high"\n');
    try {
      const p = await highPreview();
      const advice = await alice.call('transaction.get', { transaction_id: p.transaction_id });
      assert.equal(advice.your_approval?.passkey_required, true);
      const e = await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('alice') }), 'authorization', 'passkey_required');
      assert.match(e.message, /passkey/);
      assert.equal(await stateOf(p), 'Previewed');
      await approveWith(alice, p, aliceKey.get(await optionsFor(alice, p)));
      assert.equal(await stateOf(p), 'Queued');
      // Medium still takes no factor at all.
      const m = await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'pkgroup' } });
      await alice.call('approve', { transaction_id: m.transaction_id, preview_digest: m.preview_digest });
    } finally {
      await writePolicy('');
    }
  });

  test("a lost phone: an admin approver, through sudo with their own code, deletes a person's factor and passkeys; the passkey approves nothing after", async () => {
    const before = await highPreview();
    const options = await optionsFor(alice, before); // what alice's lost phone could still sign
    const asBob = await w.rootAs('bob');
    const done = await asBob.call('totp.reset', { user: 'alice', passkeys: true, totp_code: await w.codes.code('bob') });
    assert.equal(done.factor, true);
    assert.ok((done.passkeys ?? 0) >= 1, JSON.stringify(done));
    await rejectsWith(approveWith(alice, before, aliceKey.get(options)), 'authorization', 'unknown_passkey');
    assert.equal(await stateOf(before), 'Previewed');
    const entry = logEntries().filter((e) => e.kind === 'totp_reset').at(-1);
    assert.equal(entry?.details.passkeys, done.passkeys);
    await rejectsWith(asBob.call('totp.reset', { user: 'alice', passkeys: true, totp_code: '000000' }), 'validation', 'no_factor');
  });

  test('the log of all this verifies with the public key alone', async () => {
    const pub = parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8'));
    const report = await verifyLog(readSqliteLog(w.d.files.db), pub, readFileSync(w.d.files.checkpoints, 'utf8'));
    assert.equal(report.status, 'intact');
  });
});
