/**
 * The planner's door (src/planner/door.ts) against a real daemon in a throwaway host, the
 * agent a real Unix user: scripted planners (defined here) propose steps and run reads.
 * The daemon's preview is the truth: a step whose planner claims Low risk shows the
 * daemon's risk, a step the daemon refuses is shown refused; an intent with a secret never
 * reaches a planner, nor the daemon; the planner's reads run only when Low, read-only and
 * non-sensitive (refused before the daemon is asked otherwise), each one is a transaction
 * in the history, at most 16 are asked, the view lists them as the door saw them, and one
 * the policy does not approve is canceled, not run.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { planIntent, type DaemonCalls } from '../../src/planner/door.js';
import type { PlanStep } from '../../src/planner/contract.js';
import { parseOsRelease } from '../../src/protocol/os-release.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { scriptedPlanner } from '../support/scripted-planner.js';
import { livePreview } from '../../src/protocol/compacted.js';

let w: World;
let agent: Principal;
/** The agent's own process (a real Unix user) as the door's connection to the daemon. */
let client: DaemonCalls;
before(async () => {
  w = await startWorld(); // the default policy: non-sensitive Low reads approved by it
  agent = await w.as('agent', ['airlock-admin']);
  client = { call: (method, params) => agent.callUnchecked(method, params) as never };
});
after(() => w?.close());

const plan = (summary: string, steps: Array<PlanStep & Record<string, unknown>>) => ({ kind: 'plan' as const, summary, steps });
const historyOf = async (action: string) => agent.call('history', { action, limit: 50 });

describe('planIntent', () => {
  test("every step is previewed by the daemon: its risk is the daemon's, never the planner's claim; a step it refuses is shown refused", async () => {
    const planner = scriptedPlanner({
      verdict: plan('make a group for the web team', [
        // The planner claims Low risk, in a field of its own and in its words: neither counts.
        { action_name: 'CreateGroup', params: { group: 'webteam' }, reason: 'harmless, low risk', risk: 'low' },
        { action_name: 'GetHostname', params: { rockets: 'launch' }, reason: 'bad parameter' },
      ]),
      notes: ['I did not understand "the web team"'],
    });
    const { view, previews } = await planIntent('create a group for the web team', { client, planner });

    // The planner saw the daemon's catalogue, only what this host supports, and the distribution from os-release.
    const host = planner.calls[0]!.host;
    assert.ok(host.actions.length > 50 && host.actions.every((a) => a.supported_here));
    assert.equal(host.distribution.id, parseOsRelease(readFileSync('/etc/os-release', 'utf8')).ID);

    assert.equal(view.verdict, 'plan');
    assert.deepEqual(view.notes, ['I did not understand "the web team"']);
    assert.equal(view.plan, null, 'one change and a read: each step alone');
    assert.equal(view.steps.length, 2);
    const [group, bad] = view.steps;
    assert.ok(group?.ok);
    assert.equal(group.preview.risk, 'medium', "the daemon's risk for CreateGroup");
    assert.deepEqual(Object.keys(group.step).sort(), ['action_name', 'params', 'reason'], "the planner's claimed risk is not kept");
    assert.equal(group.preview.auto_approval, null, 'a change waits for a person');
    const tx = await agent.call('transaction.get', { transaction_id: group.preview.transaction_id });
    assert.equal(tx.state, 'Previewed');
    assert.equal(livePreview(tx).risk, 'medium');
    assert.ok(previews.has(group.preview.transaction_id));
    assert.ok(bad && !bad.ok && bad.error.category === 'validation', JSON.stringify(bad));
    assert.equal(previews.size, 1, 'refused steps have no preview');
    assert.doesNotMatch(JSON.stringify(view), /alr1\./, 'no receipt in the view');
  });

  test('two or more changes are previewed as ONE plan: one transaction, each step its own risk; a refused step refuses the plan, named', async () => {
    const planner = scriptedPlanner({
      verdict: plan('a group and a member', [
        { action_name: 'CreateGroup', params: { group: 'doorteam' }, reason: 'the group', risk: 'low' },
        { action_name: 'AddUserToGroup', params: { user: 'agent', group: 'doorteam' }, reason: 'its member' },
      ]),
    });
    const { view, previews } = await planIntent('create a group doorteam and put agent in it', { client, planner });
    assert.ok(view.plan?.ok, JSON.stringify(view.plan));
    const id = view.plan.transaction_id;
    assert.equal(view.plan.risk, 'high', "the plan's risk is its highest step's");
    assert.deepEqual(view.steps.map((s) => (s.ok ? [s.preview.transaction_id, s.preview.risk, s.preview.summary] : null)), [[id, 'medium', 'Create group doorteam'], [id, 'high', 'Add agent to group doorteam']]);
    assert.deepEqual([...previews.keys()], [id]);
    const tx = await agent.call('transaction.get', { transaction_id: id });
    assert.deepEqual([tx.action_name, tx.state], ['Plan', 'Previewed']);

    const refusing = scriptedPlanner({
      verdict: plan('nonsense', [
        { action_name: 'CreateGroup', params: { group: 'webteam2' }, reason: '' },
        { action_name: 'LaunchTheRockets', params: {}, reason: 'made up' },
        { action_name: 'CreateGroup', params: { group: 'Not A Group!' }, reason: 'bad parameter' },
      ]),
    });
    const r = await planIntent('create a group webteam2', { client, planner: refusing });
    assert.ok(r.view.plan && !r.view.plan.ok);
    assert.equal(r.view.plan.error.category, 'validation');
    assert.match(r.view.plan.error.message, /^step 2 \(LaunchTheRockets\): /);
    assert.ok(r.view.steps.every((s) => !s.ok));
    assert.equal(r.previews.size, 0);
  });

  test('an intent that holds a secret is refused before any planner is called, and the daemon is never asked', async () => {
    const planner = scriptedPlanner({ verdict: plan('x', []), refuseToBeCalled: true });
    const before = (await agent.call('history', { limit: 200 })).length;
    for (const intent of [
      'create user deploy with password=Tr0ub4dor&3xyz',
      'use the token ghp_0123456789abcdefghijABCDEFGHIJ012345 for the mirror',
      'add the key -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----',
    ]) {
      const e = await rejectsWith(planIntent(intent, { client, planner }), 'validation', 'secret_in_intent');
      assert.doesNotMatch(e.message, /Tr0ub4dor|ghp_0123|b3BlbnNzaC1/, 'the refusal does not repeat the secret');
    }
    await rejectsWith(planIntent('restart nginx '.repeat(200), { client, planner }), 'validation', 'intent_too_long');
    await rejectsWith(planIntent('restart nginx\u001b[2J', { client, planner }), 'validation', 'intent_control_characters');
    assert.equal(planner.calls.length, 0);
    assert.equal((await agent.call('history', { limit: 200 })).length, before, 'nothing reached the daemon');
  });

  test('the planner reads only Low, non-sensitive reads, through the one door: others are refused before the daemon is asked; each read is in the history', async () => {
    const planner = scriptedPlanner({
      queries: [
        { action_name: 'ListSessions', params: {} }, // Low but sensitive
        { action_name: 'LastLogins', params: { user: 'agent' } }, // a Medium read
        { action_name: 'CreateGroup', params: { group: 'sneaky' } }, // a change
        { action_name: 'NoSuchRead', params: {} },
        { action_name: 'DiskUsage', params: {} },
      ],
      verdict: { kind: 'refusal', reason: 'nothing to do' },
    });
    const { view } = await planIntent('how full are the disks?', { client, planner });
    const [sensitive, medium, change, unknown, disk] = planner.calls[0]!.answers;
    for (const [a, why] of [[sensitive, /sensitive/], [medium, /medium risk/], [change, /a change/], [unknown, /not an action/]] as const) {
      assert.ok(a && !a.ok && a.transaction_id === null, JSON.stringify(a));
      assert.match(a.error, why);
    }
    assert.ok(disk?.ok, JSON.stringify(disk));
    assert.ok(disk.output.join('\n').length > 0);
    for (const name of ['ListSessions', 'LastLogins', 'NoSuchRead']) assert.deepEqual(await historyOf(name), [], `${name}: the daemon was never asked`);
    assert.deepEqual((await historyOf('CreateGroup')).filter((t) => /sneaky/.test(t.summary)), [], 'CreateGroup: the daemon was never asked');
    const reads = await historyOf('DiskUsage');
    const ran = reads.find((t) => t.transaction_id === disk.transaction_id);
    assert.equal(ran?.state, 'Succeeded', 'the read ran through preview, the policy approval and execute, and is recorded');
    assert.equal(view.verdict, 'refusal');
    assert.equal(view.steps.length, 0);
    assert.deepEqual(view.queries.map((q) => [q.action_name, q.ok]), [['ListSessions', false], ['LastLogins', false], ['CreateGroup', false], ['NoSuchRead', false], ['DiskUsage', true]]);
  });

  test("the reads in the view are the door's record, not the planner's report; at most 16 asked; its notes bounded; a read the policy does not approve is canceled, not run", async () => {
    const liar = {
      kind: 'offline' as const,
      plan: async (_i: string, _h: unknown, query: (a: string, p: Record<string, unknown>) => Promise<unknown>) => {
        for (let i = 0; i < 20; i++) await query('Uptime', {});
        return { verdict: { kind: 'refusal' as const, reason: 'n/a' }, planner: { kind: 'offline' as const, model: null }, notes: Array(30).fill('x'.repeat(5000)), usage: { turns: 1, input_tokens: 0, output_tokens: 0, elapsed_ms: 0 }, queries: [{ action_name: 'MadeUp', params: {}, transaction_id: 'tx_' + '0'.repeat(24), ok: true }] };
      },
    };
    const { view } = await planIntent('uptime?', { client, planner: liar });
    assert.equal(view.queries.length, 16, 'the 17th and later were refused before the daemon was asked');
    assert.ok(view.queries.every((q) => q.action_name === 'Uptime' && q.ok && q.transaction_id?.startsWith('tx_')));
    assert.equal(view.notes.length, 20, "the planner's words are bounded");
    assert.ok(view.notes.every((n) => n.length <= 1001));

    // A host whose policy asks a person for every read: the planner's read is not run, and waits for nobody.
    const strict = await startWorld([], 'overlay', { policy: 'reads = "ask"\n' });
    try {
      const a = await strict.as('agent', ['airlock-admin']);
      const planner = scriptedPlanner({ queries: [{ action_name: 'DiskUsage', params: {} }], verdict: { kind: 'refusal', reason: 'n/a' } });
      await planIntent('disks?', { client: { call: (m, p) => a.callUnchecked(m, p) as never }, planner });
      const answer = planner.calls[0]!.answers[0]!;
      assert.ok(!answer.ok && answer.transaction_id, JSON.stringify(answer));
      assert.match(answer.error, /policy does not approve/);
      assert.equal((await a.call('transaction.get', { transaction_id: answer.transaction_id })).state, 'Canceled');
    } finally {
      await strict.close();
    }
  });
});
