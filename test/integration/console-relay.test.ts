/**
 * The web console's side of the daemon (console.* methods), with real Unix users: the console is
 * its own account (named in the policy's [console] user), and relays: a registration a person
 * began at their own connection is answered by their browser through it and finished at their
 * terminal with their code; a person signs in with a passkey the daemon verifies; their requests
 * then go through the ordinary door as them, an approval only with a fresh assertion over that
 * transaction. Attacks: a code relayed as an approval, a reused or forged sign-in, a session
 * after sign-out, a method the console may not relay, the console's account calling anything
 * else, another account calling the console's methods.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { registrationCheck } from '../../src/protocol/passkey.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
let w: World;
let agent: Principal, alice: Principal, relay: Principal;
const aliceKey = new SoftAuthenticator();
let session = '';

type Entry = { kind: string; transaction_id: string | null; principal: Record<string, unknown> | null; details: Record<string, unknown> };
const logEntries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);
/** A request of the signed-in person, relayed by the console. */
const asAlice = <T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}) =>
  relay.call('console.call', { session, method: method as never, params }) as Promise<T>;

let n = 0;
const highPreview = () => agent.call('preview', { action_name: 'CreateUser', params: { user: `cr${n++}` } });

before(async () => {
  w = await startWorld();
  writeFileSync(join(w.d.box.shared, 'policy.toml'), '[console]\nuser = "webconsole"\n');
  await w.reload();
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', APPROVER);
  // The console's account needs a role to connect at all; the door then lets it relay and nothing else.
  relay = await w.as('webconsole', ['airlock-observer']);
});
after(() => w?.close());

describe('a passkey registered through the console, finished at the terminal', () => {
  test('begun by the person, answered by the browser through the console, finished with their code', async () => {
    const begun = await alice.call('passkey.begin', {});
    assert.equal(begun.link, `http://localhost:7443/register#${begun.registration_id}`);
    assert.equal(begun.check, registrationCheck(begun.registration_id));
    await rejectsWith(alice.call('passkey.register', {}), 'authorization', 'registration_not_ready');
    const reg = await relay.call('console.registration_options', { registration_id: begun.registration_id });
    assert.equal(reg.check, begun.check, 'the page shows the code the terminal shows');
    assert.equal(reg.user, 'alice');
    const answered = await relay.call('console.registration_response', { registration_id: begun.registration_id, response: aliceKey.create(reg.options) as never });
    assert.equal(answered.approver, begun.approver);
    // Answered once: a second answer (another authenticator's) is refused.
    const other = new SoftAuthenticator();
    await rejectsWith(relay.call('console.registration_response', { registration_id: begun.registration_id, response: other.create(reg.options) as never }), 'validation', 'registration_answered');
    const done = await alice.call('passkey.register', { name: 'console laptop', totp_code: await w.codes.code('alice') });
    assert.equal(done.name, 'console laptop');
    await rejectsWith(relay.call('console.registration_options', { registration_id: begun.registration_id }), 'authorization', 'registration_not_begun');
  });

  test('an id nobody began is refused', async () => {
    await rejectsWith(relay.call('console.registration_options', { registration_id: 'AAAAAAAAAAAAAAAAAAAAAA' }), 'authorization', 'registration_not_begun');
  });
});

describe('signing in and approving through the console', () => {
  test('a person signs in with their passkey; a challenge signs in once', async () => {
    const { challenge_id, options } = await relay.call('console.sign_in_options', {});
    const assertion = aliceKey.get(options);
    const s = await relay.call('console.sign_in', { challenge_id, assertion: assertion as never });
    assert.equal(s.user, 'alice');
    session = s.session;
    await rejectsWith(relay.call('console.sign_in', { challenge_id, assertion: assertion as never }), 'authorization', 'sign_in_expired');
  });

  test('an assertion made for another challenge, or by a passkey nobody registered, signs nobody in', async () => {
    const first = await relay.call('console.sign_in_options', {});
    const second = await relay.call('console.sign_in_options', {});
    await rejectsWith(relay.call('console.sign_in', { challenge_id: second.challenge_id, assertion: aliceKey.get(first.options) as never }), 'authorization', 'bad_assertion');
    const stranger = new SoftAuthenticator();
    const { options } = await alice.call('passkey.begin', {});
    stranger.create(options);
    const third = await relay.call('console.sign_in_options', {});
    await rejectsWith(relay.call('console.sign_in', { challenge_id: third.challenge_id, assertion: stranger.get(third.options) as never }), 'authorization', 'unknown_passkey');
  });

  test("the agent's High change is listed, approved with a fresh assertion, and runs; the log says it came through the console", async () => {
    const p: PreviewEnvelope = await highPreview();
    const waiting = await asAlice<Array<{ transaction_id: string }>>('history', { state: 'Previewed' });
    assert.ok(waiting.some((t) => t.transaction_id === p.transaction_id), 'the pending change is listed to the signed-in person');
    const tx = await asAlice<{ your_approval: { may_approve: boolean } }>('transaction.get', { transaction_id: p.transaction_id });
    assert.equal(tx.your_approval.may_approve, true);
    // A code is never relayed as an approval, with or without an assertion.
    await rejectsWith(asAlice('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: '123456' }), 'authorization', 'assertion_required');
    const { options } = await asAlice<{ options: Record<string, unknown> }>('passkey.approval_options', { transaction_id: p.transaction_id });
    const grant = await asAlice<{ receipt: string }>('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: aliceKey.get(options) });
    const done = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'CreateUser', params: p.params, receipt: grant.receipt });
    assert.equal(done.state, 'Succeeded');
    const entry = logEntries().find((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id);
    assert.equal(entry?.details.second_factor, 'passkey');
    assert.equal(entry?.principal?.user, 'alice');
    assert.equal(entry?.principal?.via, 'console');
  });

  test('a denial through the console, with a reason, reaches the agent', async () => {
    const p = await highPreview();
    await asAlice('deny', { transaction_id: p.transaction_id, reason: 'not on a Friday' });
    const t = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.equal(t.state, 'Canceled');
    assert.match(JSON.stringify(t), /not on a Friday/);
  });

  test('the console relays only what a person does there, and its account does nothing else', async () => {
    const p = await highPreview();
    await rejectsWith(asAlice('execute', { transaction_id: p.transaction_id }), 'authorization', 'not_relayed');
    await rejectsWith(relay.call('preview', { action_name: 'Uptime', params: {} }), 'authorization', 'console_relays_only');
    await rejectsWith(relay.call('inbox'), 'authorization', 'console_relays_only');
    await rejectsWith(agent.call('console.sign_in_options', {}), 'authorization', 'not_the_console');
    await rejectsWith(alice.call('console.call', { session, method: 'inbox', params: {} }), 'authorization', 'not_the_console');
    await rejectsWith(relay.call('console.call', { session: 'A'.repeat(43), method: 'inbox', params: {} }), 'authorization', 'not_signed_in');
  });

  test('after sign-out the session is worth nothing', async () => {
    assert.deepEqual(await relay.call('console.sign_out', { session }), { signed_out: true });
    await rejectsWith(asAlice('inbox'), 'authorization', 'not_signed_in');
  });
});
