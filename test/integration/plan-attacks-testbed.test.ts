/**
 * A plan's rollback, attacked on the booted Debian test bed (systemd as PID 1, a private
 * network, nftables): an action whose job changes live state last, with nothing to undo it
 * ("nothing can fail after it" holds for one action, not for a step of a plan that a later step
 * fails), must never be reported rolled back when only its files came back. The report is
 * what a person trusts after a failed plan: "rolled back" with a port still open is a lie.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';

let w: World;
let agent: Principal, alice: Principal;
before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

const liveRules = async () => (await w.d.box.run('/usr/sbin/nft', ['list', 'table', 'inet', 'airlock'])).stdout;

test('a plan that opens a port and then fails: the port is not reported rolled back while it stays open', async () => {
  assert.doesNotMatch(await liveRules(), /dport 8443/);
  const p = await agent.call('plan.preview', {
    steps: [
      { action_name: 'AllowPort', params: { port: 8443, protocol: 'tcp' } },
      { action_name: 'StartService', params: { unit: 'airlock-no-such-unit.service' } },
    ],
  });
  assert.equal(p.plan!.steps[1]!.computed_after, 1);
  // The approver is told before: the rule, once loaded, is not undone if a later step fails.
  assert.equal(p.plan!.steps[0]!.rollback_available, false);
  assert.equal(p.rollback_available, false);
  const g = await w.approve(alice, p);
  const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'Plan', params: p.params, receipt: g.receipt });
  assert.equal(r.plan_steps![1]!.state, 'failed', r.summary);
  // `nft --file` loaded the rule into the running table, and nothing undoes that: restoring the
  // table's file would leave the port open. The step is left as it ran, and the result says so.
  assert.match(await liveRules(), /dport 8443/);
  assert.equal(r.plan_steps![0]!.state, 'not_rolled_back', `the port is open, yet the result says: ${r.summary}`);
  assert.equal(r.state, 'Failed', r.summary);
  assert.equal(r.changed, true);
  assert.match(r.summary, /NOT rolled back \(nothing undoes all it did, or its undo failed\): step 1/);
});
