/**
 * Plans (docs/protocol.md section 6.21) against a real daemon in an overlay host, every client
 * a real Unix user: dependent steps previewed against the host as the steps before them leave
 * it, approved once, executed as one; a failing step rolls back the steps before it; a host
 * changed after the approval stops the plan with the receipt unspent; a plan cannot be
 * extended or reordered after its approval; the door's requester and approver rules hold.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airlockAs, CLI } from '../support/cli.js';
import { typeAt, type Answer } from '../support/terminal.js';
import type { UnixIdentity } from '../../src/sandbox/principal.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { planDigest, planStepDigest } from '../../src/protocol/plan.js';
import { propose, type DaemonCalls } from '../../src/client/proposal.js';
import { previewDigestMatches } from '../../src/protocol/hash.js';

let w: World;
let agent: Principal, alice: Principal, otto: Principal, olga: Principal;

before(async () => {
  w = await startWorld([], 'overlay', { policy: 'unattended = ["pbot"]\n' });
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  otto = await w.as('otto', ['airlock-admin']);
  olga = await w.as('olga', ['airlock-observer']);
  for (const u of ['pbob', 'pcarl']) await w.d.addUser(u, []);
});
after(() => w?.close());

type Steps = Array<{ action_name: string; params: Record<string, unknown> }>;
const plan = (who: Principal, steps: Steps) => who.call('plan.preview', { steps });
const execute = (who: Principal, p: PreviewEnvelope, receipt: string, params = p.params) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params, receipt });
const members = async (group: string) => {
  const line = ((await w.d.box.readFile('/etc/group')) ?? '').split('\n').find((l) => l.startsWith(`${group}:`));
  return line === undefined ? null : line.split(':')[3]!.split(',').filter(Boolean);
};
const groupSteps = (g: string): Steps => [
  { action_name: 'CreateGroup', params: { group: g } },
  { action_name: 'AddUserToGroup', params: { user: 'pbob', group: g } },
  { action_name: 'AddUserToGroup', params: { user: 'pcarl', group: g } },
];
const entriesOf = (id: string) => w.entriesOf(id);

describe('a plan is previewed in sequence, approved once and executed as one', () => {
  test('create a group and add two users to it: each step previewed against the group the first creates, one approval, one result', async () => {
    const p = await plan(agent, groupSteps('ops1'));
    assert.equal(p.action_name, 'Plan');
    assert.equal(p.risk, 'high', "the plan's risk is its highest step's");
    assert.deepEqual(p.plan!.steps.map((s) => s.summary), ['Create group ops1', 'Add pbob to group ops1', 'Add pcarl to group ops1']);
    assert.deepEqual(p.plan!.computed_at_execution, []);
    // Every step bound, and the plan digest over every step's request hash and preview digest.
    for (const s of p.plan!.steps) assert.equal(s.preview_digest, planStepDigest(s));
    assert.equal(p.plan!.digest, planDigest(p.plan!.steps));
    assert.equal(p.proposed_change.digest, p.plan!.digest);
    assert.ok(previewDigestMatches(p), 'the preview digest the approver approves covers the plan');
    assert.equal(await members('ops1'), null, 'a preview changes nothing');

    const g = await w.approveSoon(alice, p); // one approval, with the factor High needs
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'Succeeded', r.summary);
    assert.deepEqual(r.plan_steps!.map((s) => s.state), ['succeeded', 'succeeded', 'succeeded']);
    assert.deepEqual(await members('ops1'), ['pbob', 'pcarl']);

    const kinds = (await entriesOf(p.transaction_id)).map((e) => e.kind);
    assert.deepEqual(kinds, ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'plan_step', 'plan_step', 'plan_step', 'outcome']);
  });

  test('create a user and give them a key: the key file previewed in the home the first step creates, owned by the uid it will get', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d dan@laptop';
    const p = await plan(agent, [
      { action_name: 'CreateUser', params: { user: 'pdan' } },
      { action_name: 'AddAuthorizedKey', params: { user: 'pdan', key } },
    ]);
    const write = p.plan!.steps[1]!.proposed_change!.mechanism[0]!;
    assert.equal(write.kind, 'fileWrite');
    assert.equal((write as { path: string }).path, '/home/pdan/.ssh/authorized_keys');
    // Alice herself: a deputy enrolled now would be a new account, and the uid pdan gets would move.
    const g = await w.approve(alice, p);
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'Succeeded', r.summary);
    const id = async (flag: string) => Number((await w.d.box.run('/usr/bin/id', [flag, '--', 'pdan'])).stdout.trim());
    assert.deepEqual((write as { owner: unknown }).owner, { uid: await id('-u'), gid: await id('-g') }, 'the projected uid and gid are the ones useradd chose');
    assert.equal(await w.d.box.readFile('/home/pdan/.ssh/authorized_keys'), `${key}\n`);
  });

  test('a plan whose third step fails: the first two are rolled back, and the result says so', async () => {
    // StartService after two changes cannot be projected (systemctl's answer): it is computed after step 2,
    // and at execution the unit does not exist, so step 3 fails.
    const p = await plan(agent, [...groupSteps('ops2').slice(0, 2), { action_name: 'StartService', params: { unit: 'airlock-no-such-unit.service' } }]);
    const third = p.plan!.steps[2]!;
    assert.equal(third.computed_after, 2);
    assert.equal(third.proposed_change, null);
    assert.match(third.summary, /computed after step 2/);
    assert.deepEqual(p.plan!.computed_at_execution, [3]);
    const g = await w.approveSoon(alice, p);
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'RolledBack', r.summary);
    assert.deepEqual(r.plan_steps!.map((s) => s.state), ['rolled_back', 'rolled_back', 'failed']);
    assert.match(r.summary, /step 3 \(StartService\)/);
    assert.match(r.summary, /rolled back: step 1, 2/);
    assert.equal(r.error?.message.startsWith('step 3 (StartService)'), true, r.error?.message);
    assert.equal(await members('ops2'), null, 'the group the first step created is gone again');
    const steps = (await entriesOf(p.transaction_id)).filter((e) => e.kind === 'plan_step').map((e) => `${e.details.step}:${e.details.state}`);
    assert.deepEqual(steps, ['1:succeeded', '2:succeeded', '3:failed', '2:rolled_back', '1:rolled_back']);
  });

  test('the host changed between approval and execution: the plan stops, nothing runs, the receipt stays unspent', async () => {
    const p = await plan(agent, groupSteps('ops3').slice(0, 2));
    const g = await w.approveSoon(alice, p);
    assert.equal((await w.d.box.run('/usr/sbin/groupadd', ['--', 'ops3'])).code, 0);
    const e = await rejectsWith(execute(agent, p, g.receipt), 'stale_approval', 'state_changed');
    assert.match(e.message, /step 1 \(CreateGroup\)/);
    assert.deepEqual(await members('ops3'), [], 'step 2 did not run');
    assert.equal((await alice.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Queued');
    // The host as approved again: the same receipt runs the plan.
    assert.equal((await w.d.box.run('/usr/sbin/groupdel', ['--', 'ops3'])).code, 0);
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded');
    assert.deepEqual(await members('ops3'), ['pbob']);
  });

  test('a plan cannot be reordered or extended after its approval: another request, another digest', async () => {
    const steps = groupSteps('ops4');
    const p = await plan(agent, steps);
    const g = await w.approveSoon(alice, p);
    const reordered = { steps: [p.params.steps as Steps].flat().reverse() };
    await rejectsWith(execute(agent, p, g.receipt, reordered), 'stale_approval', 'request_mismatch');
    const extended = { steps: [...(p.params.steps as Steps), { action_name: 'AddUserToGroup', params: { user: 'agent', group: 'ops4' } }] };
    await rejectsWith(execute(agent, p, g.receipt, extended), 'stale_approval', 'request_mismatch');
    // Previewed as a plan of its own, the longer one has another plan digest and needs its own approval.
    const longer = await plan(agent, [...steps, { action_name: 'AddUserToGroup', params: { user: 'agent', group: 'ops4' } }]);
    assert.notEqual(longer.plan!.digest, p.plan!.digest);
    await rejectsWith(alice.call('approve', { transaction_id: longer.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('alice') }), 'stale_approval', 'digest_mismatch');
    assert.equal(await members('ops4'), null, 'nothing ran');
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded', 'the approved plan, as approved, still runs');
  });
});

/** `airlock --socket S ARGS` as `who`, with no terminal. */
const cliAs = (who: UnixIdentity, args: string[]) => airlockAs(who, w.d.socket, args);
/** `airlock --socket S ARGS` as `who` at a real pseudo-terminal. */
const atTerminal = (who: UnixIdentity, args: string[], answers: Answer[]) =>
  typeAt(`/usr/bin/setpriv --reuid=${who.uid} --regid=${who.gid} --groups=${who.groups.join(',')} -- ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} ${args.join(' ')}`, answers);

describe('the command line speaks plans', () => {
  test('`airlock approve` of a plan shows every step and approves them all at once; `airlock execute` runs it', async () => {
    const p = await plan(agent, groupSteps('ops9'));
    const ok = await atTerminal(alice.identity, ['approve', p.transaction_id], [['Code from your authenticator app', () => w.codes.code('alice')], ['Type the action name', 'Plan']]);
    assert.equal(ok.code, 0, ok.out);
    for (const [i, summary] of ['Create group ops9', 'Add pbob to group ops9', 'Add pcarl to group ops9'].entries()) assert.match(ok.out, new RegExp(`step ${i + 1} ${summary}`), ok.out);
    assert.match(ok.out, /groupadd -- ops9/, 'each step shows how');
    assert.match(ok.out, /one approval binds every step, plan digest [0-9a-f]{12}/);
    const receipt = /receipt (alr1\.[A-Za-z0-9_-]+)/.exec(ok.out)![1]!;
    const r = await cliAs(agent.identity, ['execute', p.transaction_id, '--receipt', receipt, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).plan_steps.map((s: { state: string }) => s.state), ['succeeded', 'succeeded', 'succeeded']);
    assert.deepEqual(await members('ops9'), ['pbob', 'pcarl']);
  });
});

describe('a plan from a file: airlock preview --file', () => {
  /** A file the agent's account can read, outside the sandbox (the CLI runs on this host). */
  const planFile = (name: string, text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-plan-'));
    chmodSync(dir, 0o755);
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o644 });
    return path;
  };

  test('a YAML plan previewed as one plan, approved once, executed as one; JSON the same', async () => {
    const yaml = planFile('deployers.yaml', '# the group and its two members\n- action_name: CreateGroup\n  params: {group: ops11}\n- action_name: AddUserToGroup\n  params:\n    user: pbob\n    group: ops11\n- action_name: AddUserToGroup\n  params: {user: pcarl, group: ops11}\n');
    const shown = await cliAs(agent.identity, ['preview', '--file', yaml]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /step 1 Create group ops11[\s\S]*step 3 Add pcarl to group ops11/);
    assert.match(shown.stdout, /one approval binds every step/);
    const id = /airlock approve (tx_[0-9a-f]{24})/.exec(shown.stdout)![1]!;
    await cliAs(agent.identity, ['cancel', id]);

    const j = await cliAs(agent.identity, ['preview', '--file', yaml, '--json']);
    assert.equal(j.code, 0, j.stderr);
    const p = JSON.parse(j.stdout) as PreviewEnvelope;
    assert.deepEqual([p.action_name, p.plan!.steps.length], ['Plan', 3]);
    await w.approveSoon(alice, p); // once, for the three steps
    const r = await cliAs(agent.identity, ['execute', p.transaction_id, '--wait', '30', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).plan_steps.map((s: { state: string }) => s.state), ['succeeded', 'succeeded', 'succeeded']);
    assert.deepEqual(await members('ops11'), ['pbob', 'pcarl']);
    const kinds = (await entriesOf(p.transaction_id)).map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'approval_granted').length, 1, 'one approval');

    const json = planFile('p.json', JSON.stringify({ steps: [{ action_name: 'CreateGroup', params: { group: 'ops12' } }, { action_name: 'AddUserToGroup', params: { user: 'pbob', group: 'ops12' } }] }));
    const pj = JSON.parse((await cliAs(agent.identity, ['preview', '--file', json, '--json'])).stdout) as PreviewEnvelope;
    assert.deepEqual(pj.plan!.steps.map((s) => s.summary), ['Create group ops12', 'Add pbob to group ops12']);
  });

  test('a file it cannot use is refused before the daemon, saying where and what to fix (exit 5)', async () => {
    const before = (await agent.call('history', { limit: 200 })).length;
    const cases: Array<[string, string, RegExp]> = [
      ['bad.yaml', '- action_name: CreateGroup\n  params: {group: x}\n  risk: low\n', /step 1 has "risk": a step holds only action_name and params/],
      ['bad2.yaml', '- action_name: create group\n', /step 1: action_name must be an action's name/],
      ['bad3.yaml', '- action_name: CreateGroup\n  params: [1]\n', /step 1 \(CreateGroup\): params must be an object/],
      ['bad4.json', '[{"action_name": "CreateGroup",', /not valid JSON/],
      ['empty.yaml', '[]\n', /the plan has no step/],
      ['plan.txt', '[]', /must end in \.yaml, \.yml or \.json/],
      ['alias.yaml', '- &a {action_name: CreateGroup, params: {group: x}}\n- *a\n', /not valid YAML/],
      ['long.yaml', Array.from({ length: 21 }, (_, i) => `- {action_name: CreateGroup, params: {group: g${i}}}`).join('\n'), /21 steps; a plan has at most 20/],
      ['big.yaml', `# ${'x'.repeat(256 * 1024)}\n[]`, /larger than 256 KiB/],
    ];
    for (const [name, text, why] of cases) {
      const r = await cliAs(agent.identity, ['preview', '--file', planFile(name, text)]);
      assert.equal(r.code, 5, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /bad_plan_file/, name);
      assert.match(r.stderr, why, `${name}: ${r.stderr}`);
    }
    const both = await cliAs(agent.identity, ['preview', 'CreateGroup', '--file', planFile('x.yaml', '[]')]);
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /--file takes the steps from the file/);
    assert.equal((await agent.call('history', { limit: 200 })).length, before, 'nothing reached the daemon');
  });
});

describe("the door's rules hold for plans", () => {
  test('an agent cannot approve its own plan, another agent cannot execute it, an observer cannot plan a change', async () => {
    const p = await plan(agent, groupSteps('ops5').slice(0, 1));
    await rejectsWith(agent.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'not_an_approver');
    const g = await w.approveSoon(alice, p);
    await rejectsWith(execute(otto, p, g.receipt), 'authorization', 'not_the_requester');
    await rejectsWith(plan(olga, groupSteps('ops6')), 'authorization', 'role_too_low');
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded');
    await rejectsWith(execute(agent, p, g.receipt), 'stale_approval');
  });

  test("a person's own plan needs their second factor, as their own single request does", async () => {
    const p = await plan(alice, groupSteps('ops7').slice(0, 1));
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'totp_required');
  });

  test('an unattended principal proposes single actions: its plan is refused, as nobody could ever run it', async () => {
    const bot = await w.as('pbot', ['airlock-admin']);
    await rejectsWith(plan(bot, groupSteps('ops10').slice(0, 1)), 'authorization', 'unattended_plan');
  });

  test("the clients' rule: an unattended principal's two changes fall back to steps alone, each a proposal for the inbox", async () => {
    const bot = await w.as('pbot', ['airlock-admin']);
    const calls = (who: Principal): DaemonCalls => ({ call: (m, p) => who.callUnchecked(m, p) as never });
    const p = await propose(calls(bot), [{ action_name: 'CreateGroup', params: { group: 'ops13' } }, { action_name: 'CreateGroup', params: { group: 'ops14' } }]);
    assert.equal(p.kind, 'steps');
    assert.deepEqual(p.kind === 'steps' && p.results.map((r) => r.ok && r.preview.unattended === true), [true, true]);
    const planned = await propose(calls(agent), groupSteps('ops15'));
    assert.ok(planned.kind === 'plan' && planned.result.ok && planned.result.preview.action_name === 'Plan');
    const alone = await propose(calls(agent), [{ action_name: 'GetHostname', params: {} }, { action_name: 'CreateGroup', params: { group: 'ops16' } }]);
    assert.equal(alone.kind, 'steps', 'a read with one change: each alone');
  });

  test('bounds and refusals: no step, more than 20 steps, and a refused step named by its number', async () => {
    await rejectsWith(plan(agent, []), 'validation', 'bad_plan');
    await rejectsWith(plan(agent, Array.from({ length: 21 }, (_, i) => ({ action_name: 'CreateGroup', params: { group: `g${i}` } }))), 'validation', 'bad_plan');
    const e = await rejectsWith(plan(agent, [{ action_name: 'CreateGroup', params: { group: 'ops8' } }, { action_name: 'AddUserToGroup', params: { user: 'nobody-here', group: 'ops8' } }]), 'validation', 'no_such_user');
    assert.match(e.message, /^step 2 \(AddUserToGroup\): /);
  });
});
