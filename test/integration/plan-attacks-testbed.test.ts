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

test('a plan that opens a port and then fails: the port is closed again, and only then reported rolled back', async () => {
  assert.doesNotMatch(await liveRules(), /dport 8443/);
  const p = await agent.call('plan.preview', {
    steps: [
      { action_name: 'AllowPort', params: { port: 8443, protocol: 'tcp' } },
      { action_name: 'StartService', params: { unit: 'airlock-no-such-unit.service' } },
    ],
  });
  assert.equal(p.plan!.steps[1]!.computed_after, 1);
  // The approver is told before: the rule, once loaded, is undone if a later step fails (issue 27: the
  // table refilled as it was, in one nft transaction), and the preview says how.
  assert.equal(p.plan!.steps[0]!.rollback_available, true);
  const g = await w.approve(alice, p);
  const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'Plan', params: p.params, receipt: g.receipt });
  assert.equal(r.plan_steps![1]!.state, 'failed', r.summary);
  // Reported rolled back only because it is: the running table no longer has the port, and the state probes read as before.
  assert.doesNotMatch(await liveRules(), /dport 8443/);
  assert.equal(r.plan_steps![0]!.state, 'rolled_back', r.summary);
  assert.equal(r.state, 'RolledBack', r.summary);
  assert.equal(r.state_check?.matches, true);
});
