/**
 * Plans (docs/protocol.md section 6.21) attacked as the agent would: a real daemon in an
 * overlay host, every client a real Unix user. The agent holds its own account in
 * airlock-admin, reads the docs and code, and talks to the socket; it tries to get the host
 * changed beyond what the person saw and approved, or to get past the door: a step computed
 * after an earlier one that the approver cannot read, a step of a plan run as a single
 * transaction, a plan reshaped or its receipt reused, another principal deciding on it, text
 * that would repaint the approver's terminal, a factor meant for a lower risk.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI } from '../support/cli.js';
import { typeAt } from '../support/terminal.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

let w: World;
let agent: Principal, alice: Principal, otto: Principal, olga: Principal;

before(async () => {
  w = await startWorld([], 'overlay');
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  otto = await w.as('otto', ['airlock-admin']);
  olga = await w.as('olga', ['airlock-observer']);
  await w.d.addUser('abob', []);
});
after(() => w?.close());

type Steps = Array<{ action_name: string; params: Record<string, unknown> }>;
const plan = (who: Principal, steps: Steps) => who.call('plan.preview', { steps });
const execute = (who: Principal, p: PreviewEnvelope, receipt: string, o: { action_name?: string; params?: Record<string, unknown> } = {}) =>
  who.call('execute', { transaction_id: p.transaction_id, action_name: o.action_name ?? p.action_name, params: o.params ?? p.params, receipt });

/** The agent's own key, which it wants authorized for root. */
const AGENT_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d agent-owns-this@evil';
/** A first step that declares no effects (AddHostsEntry): every step after it is computed after it. */
const blind = (n: number): Steps[number] => ({ action_name: 'AddHostsEntry', params: { ip: `10.9.8.${n}`, names: [`attack${n}.internal`] } });

describe('a step computed after an earlier one is shown to the approver with what it will do', () => {
  test('the daemon names the step\'s parameters in its summary: the approver reads which key for which user', async () => {
    const p = await plan(agent, [blind(1), { action_name: 'AddAuthorizedKey', params: { user: 'root', key: AGENT_KEY } }]);
    const second = p.plan!.steps[1]!;
    assert.equal(second.computed_after, 1, 'nothing after a change without declared effects is projected');
    assert.equal(second.proposed_change, null);
    // The action alone ("AddAuthorizedKey: computed after step 1") would let a person approve a root login blind.
    assert.match(second.summary, /root/, second.summary);
    assert.match(second.summary, /agent-owns-this@evil/, second.summary);
    assert.match(p.summary, /AddAuthorizedKey .*root/, "the plan's own summary (lists, notifications) names it too");
  });

  test('`airlock approve` shows a computed-after step\'s parameters without -v', async () => {
    const p = await plan(agent, [blind(2), { action_name: 'AddAuthorizedKey', params: { user: 'root', key: AGENT_KEY } }]);
    const argv = `/usr/bin/setpriv --reuid=${alice.identity.uid} --regid=${alice.identity.gid} --groups=${alice.identity.groups.join(',')} -- ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} approve ${p.transaction_id}`;
    // The person reads the plan and refuses to type the action name: nothing is approved.
    const shown = await typeAt(argv, [['Code from your authenticator app', () => w.codes.code('alice')], ['Type the action name', 'no']]);
    const step2 = shown.out.slice(shown.out.indexOf('step 2'));
    assert.match(step2, /"user": "root"/, shown.out);
    assert.match(step2, /agent-owns-this@evil/, shown.out);
    assert.equal((await alice.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Previewed');
  });
});

describe('the host changed between the steps, where the agent can reach', () => {
  test("a computed-after key step whose user's ~/.ssh became a link to /root/.ssh after the approval fails, and step 1 is rolled back", async () => {
    const sh = async (program: string, args: string[]) => assert.equal((await w.d.box.run(program, args)).code, 0, `${program} ${args.join(' ')}`);
    await sh('/usr/sbin/useradd', ['-m', '--', 'pamal']);
    await sh('/usr/bin/mkdir', ['-p', '/root/.ssh']);
    const before = await w.d.box.readFile('/root/.ssh/authorized_keys');
    const p = await plan(agent, [blind(4), { action_name: 'AddAuthorizedKey', params: { user: 'pamal', key: AGENT_KEY } }]);
    assert.equal(p.plan!.steps[1]!.computed_after, 1, 'its path is checked only when it runs');
    const g = await w.approveSoon(alice, p);
    // Whoever owns the home (the account the agent may hold) swaps ~/.ssh for a link once the plan is approved.
    await sh('/usr/bin/ln', ['-s', '/root/.ssh', '/home/pamal/.ssh']);
    const r = await execute(agent, p, g.receipt);
    assert.deepEqual(r.plan_steps!.map((s) => s.state), ['rolled_back', 'failed'], r.summary);
    assert.equal(r.state, 'RolledBack', r.summary);
    assert.equal(await w.d.box.readFile('/root/.ssh/authorized_keys'), before, "root's keys are untouched");
    assert.doesNotMatch((await w.d.box.readFile('/etc/hosts')) ?? '', /attack4\.internal/, 'step 1 is undone');
  });
});

describe('a computed-after step that warns when it runs stops for a new approval', () => {
  test('a key for root computed after step 1: "this grants a root login" was never shown, so the plan stops and step 1 is undone', async () => {
    const before = await w.d.box.readFile('/root/.ssh/authorized_keys');
    const p = await plan(agent, [blind(5), { action_name: 'AddAuthorizedKey', params: { user: 'root', key: AGENT_KEY } }]);
    assert.deepEqual(p.plan!.steps[1]!.warnings.filter((x) => /root login/.test(x)), [], 'the preview cannot know it');
    const g = await w.approveSoon(alice, p);
    const r = await execute(agent, p, g.receipt);
    assert.deepEqual(r.plan_steps!.map((s) => s.state), ['rolled_back', 'stopped'], r.summary);
    assert.equal(r.state, 'RolledBack', r.summary);
    assert.equal(r.error?.category, 'stale_approval');
    assert.match(r.error!.message, /this grants a root login/);
    assert.equal(await w.d.box.readFile('/root/.ssh/authorized_keys'), before, "no key for root");
  });
});

describe('a plan is one transaction: its steps, shape and receipt are bound to it', () => {
  test('`Plan` is no action: neither previewed alone nor as a step of a plan', async () => {
    await rejectsWith(agent.call('preview', { action_name: 'Plan', params: { steps: [{ action_name: 'CreateGroup', params: { group: 'pa1' } }] } }), 'validation', 'unknown_action');
    const e = await rejectsWith(plan(agent, [{ action_name: 'Plan', params: { steps: [] } }]), 'validation', 'unknown_action');
    assert.match(e.message, /^step 1 \(Plan\): /);
  });

  test('a step of an approved plan cannot be executed alone, nor the plan truncated or its receipt used for another plan', async () => {
    const p = await plan(agent, [{ action_name: 'CreateGroup', params: { group: 'pa2' } }, { action_name: 'AddUserToGroup', params: { user: 'abob', group: 'pa2' } }]);
    const q = await plan(agent, [{ action_name: 'CreateGroup', params: { group: 'pa3' } }, { action_name: 'AddUserToGroup', params: { user: 'agent', group: 'pa3' } }]);
    const g = await w.approveSoon(alice, p);
    const steps = p.params.steps as Steps;
    await rejectsWith(execute(agent, p, g.receipt, { action_name: 'CreateGroup', params: steps[0]!.params }), 'stale_approval', 'request_mismatch');
    await rejectsWith(execute(agent, p, g.receipt, { params: { steps: steps.slice(0, 1) } }), 'stale_approval', 'request_mismatch');
    await rejectsWith(execute(agent, p, g.receipt, { params: { steps: [steps[0], steps[0], steps[1]] } }), 'stale_approval', 'request_mismatch');
    await rejectsWith(execute(agent, q, g.receipt), 'stale_approval', 'not_approved');
    // Parameters no request hash can cover (a lone surrogate) are another request too, not an internal error.
    await rejectsWith(execute(agent, p, g.receipt, { params: { steps: [{ action_name: 'CreateGroup', params: { group: 'pa2\ud800' } }] } }), 'stale_approval', 'request_mismatch');
    assert.equal(await w.d.box.readFile('/etc/group').then((t) => /^pa[23]:/m.test(t ?? '')), false, 'nothing ran');
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded');
    await rejectsWith(execute(agent, p, g.receipt), 'stale_approval');
  });

  test('the plan takes the factor of its highest step: a Medium first step does not lower it', async () => {
    const p = await plan(agent, [{ action_name: 'CreateGroup', params: { group: 'pa4' } }, { action_name: 'AddUserToGroup', params: { user: 'agent', group: 'pa4' } }]);
    assert.equal(p.risk, 'high');
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'totp_required');
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.plan!.digest, totp_code: await w.codes.code('alice') }), 'stale_approval', 'digest_mismatch');
  });
});

describe('a declared effect that is wrong about the host stops the plan, never writes for the wrong account', () => {
  test('useradd picks another uid than the projection (UID_MIN raised): the key step stops, the user is removed again, no key is written', async () => {
    // The sandbox's login.defs gives useradd a uid block of its own; its UID_MIN is raised near the
    // block's top, so useradd picks a uid there while the projection (max + 1 from 1000) does not.
    const defs = (await w.d.box.readFile('/etc/login.defs'))!;
    const value = (k: string) => Number(new RegExp(`^${k}\\s+(\\d+)$`, 'm').exec(defs)![1]);
    const [uidMin, gidMin, top] = [value('UID_MIN'), value('GID_MIN'), value('UID_MAX')];
    const set = (uid: number, gid: number) => w.d.box.run('/usr/bin/sed', ['-i', '-E', `s/^UID_MIN\\s.*$/UID_MIN\\t${uid}/; s/^GID_MIN\\s.*$/GID_MIN\\t${gid}/`, '/etc/login.defs']);
    assert.equal((await set(top - 50, top - 50)).code, 0);
    try {
      const p = await plan(agent, [
        { action_name: 'CreateUser', params: { user: 'pauid' } },
        { action_name: 'AddAuthorizedKey', params: { user: 'pauid', key: AGENT_KEY } },
      ]);
      const write = p.plan!.steps[1]!.proposed_change!.mechanism[0] as { owner: { uid: number } };
      assert.ok(write.owner.uid < top - 50, `the projection assumes the next uid after the highest: ${write.owner.uid}`);
      const g = await w.approveSoon(alice, p);
      const r = await execute(agent, p, g.receipt);
      assert.deepEqual(r.plan_steps!.map((s) => s.state), ['rolled_back', 'stopped'], r.summary);
      assert.equal(r.state, 'RolledBack', r.summary);
      assert.equal(r.error?.category, 'stale_approval');
      assert.doesNotMatch((await w.d.box.readFile('/etc/passwd')) ?? '', /^pauid:/m, 'the user step 1 created is gone');
      assert.equal(await w.d.box.readFile('/home/pauid/.ssh/authorized_keys'), null);
    } finally {
      assert.equal((await set(uidMin, gidMin)).code, 0);
    }
  });
});

describe("nobody but the door's people decide on someone's plan", () => {
  test('another agent cannot cancel, approve or wait on it, an observer cannot plan a change even after reads, text with controls is refused in any step', async () => {
    const p = await plan(agent, [{ action_name: 'CreateGroup', params: { group: 'pa5' } }]);
    await rejectsWith(otto.call('cancel', { transaction_id: p.transaction_id }), 'authorization');
    await rejectsWith(otto.call('transaction.wait', { transaction_id: p.transaction_id }), 'authorization');
    await rejectsWith(olga.call('transaction.wait', { transaction_id: p.transaction_id }), 'authorization');
    await rejectsWith(otto.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization');
    await rejectsWith(plan(olga, [{ action_name: 'ListGroups', params: {} }, { action_name: 'CreateGroup', params: { group: 'pa6' } }]), 'authorization', 'role_too_low');
    for (const bad of ['\u001b]0;approved\u0007', '\u009b2J', 'root\u202egnp.exe']) {
      const e = await rejectsWith(plan(agent, [blind(3), { action_name: 'CreateUser', params: { user: 'pa7', comment: bad } }]), 'validation', 'bad_params');
      assert.match(e.message, /^step 2 \(CreateUser\): /);
    }
  });
});
