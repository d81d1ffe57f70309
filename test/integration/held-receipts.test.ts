/**
 * The receipts the daemon holds for their requesters (src/daemon/verbs/held-receipts.ts),
 * against a real daemon with every client a real Unix user. Since the daemon holds the
 * policy's receipts too, any principal mints held receipts at will (every read the reads lane
 * approves is one, with no person in the way): a principal that floods the map must lose its
 * own oldest receipts, never another requester's, whose approval a person gave.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HELD_PER_REQUESTER, MAX_HELD_RECEIPTS } from '../../src/daemon/verbs/held-receipts.js';
import { Principal } from '../../src/sandbox/principal.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

let w: World;
let agent: Principal, alice: Principal, olga: Principal;

before(async () => {
  w = await startWorld([], 'overlay', { policy: 'reads = "auto"\n' });
  agent = await w.as('agent', ['airlock-dev']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
});
after(() => w?.close());

describe('held receipts', () => {
  test("the policy's receipt is held for its requester alone: not another principal, an approver, or another root", async () => {
    const p = await olga.call('preview', { action_name: 'ListUsers', params: {} });
    assert.ok(p.auto_approval, 'the reads lane approved it');
    const id = { transaction_id: p.transaction_id };
    assert.equal((await olga.call('transaction.get', id)).receipt, p.auto_approval.receipt);
    assert.equal((await alice.call('transaction.get', id)).receipt, undefined, 'an admin approver reads it, without its receipt');
    await rejectsWith(agent.call('transaction.get', id), 'authorization', 'not_yours');
    for (const other of [agent, alice]) await rejectsWith(other.call('transaction.wait', { ...id, timeout_ms: 0 }), 'authorization', 'not_the_requester');
    // Root with nobody behind it, and root on alice's behalf, are two requesters: neither gets the other's receipt.
    const nobody = await w.root();
    const rootAlice = await w.rootAs('alice');
    const q = await nobody.call('preview', { action_name: 'ListUsers', params: {} });
    assert.ok(q.auto_approval);
    assert.equal((await rootAlice.call('transaction.get', { transaction_id: q.transaction_id })).receipt, undefined);
    await rejectsWith(rootAlice.call('transaction.wait', { transaction_id: q.transaction_id, timeout_ms: 0 }), 'authorization', 'not_the_requester');
    const r = await rootAlice.call('preview', { action_name: 'ListUsers', params: {} });
    assert.ok(r.auto_approval);
    assert.equal((await nobody.call('transaction.get', { transaction_id: r.transaction_id })).receipt, undefined);
    await rejectsWith(nobody.call('transaction.wait', { transaction_id: r.transaction_id, timeout_ms: 0 }), 'authorization', 'not_the_requester');
    assert.equal((await alice.call('transaction.get', { transaction_id: r.transaction_id })).receipt, undefined, "alice's own account is not root on her behalf");
    const waited = await rootAlice.call('transaction.wait', { transaction_id: r.transaction_id, timeout_ms: 0 });
    assert.equal(waited.outcome, 'approved');
  });

  test("a flood of one principal's policy-approved reads does not evict another requester's receipt", async () => {
    // The agent's change, approved by a person: its receipt is held for the agent alone.
    const p = await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'heldg1' } });
    assert.equal(p.auto_approval, undefined, 'a change waits for a person');
    await w.approve(alice, p);
    assert.equal(typeof (await agent.call('transaction.get', { transaction_id: p.transaction_id })).receipt, 'string');
    // Another principal previews reads the policy approves at once, more than the daemon holds in all
    // and more than one requester may hold: each is a held receipt.
    const flood = Math.max(MAX_HELD_RECEIPTS, MAX_HELD_PER_REQUESTER) + 64;
    const olgas: string[] = [];
    for (let done = 0; done < flood; ) {
      const batch = Math.min(32, flood - done);
      const rs = await olga.parallel('preview', { action_name: 'ListUsers', params: {} }, batch);
      for (const r of rs) assert.ok(r.ok && r.result?.auto_approval, `a read the policy approves: ${JSON.stringify(r.error)}`);
      olgas.push(...rs.map((r) => r.result!.transaction_id));
      done += batch;
    }
    // The flood cost its own sender: its oldest receipts went, its newest are held.
    assert.equal((await olga.call('transaction.get', { transaction_id: olgas[0]! })).receipt, undefined);
    assert.equal(typeof (await olga.call('transaction.get', { transaction_id: olgas.at(-1)! })).receipt, 'string');
    const detail = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.equal(detail.state, 'Queued');
    assert.equal(typeof detail.receipt, 'string', "the agent's receipt is still held: another principal's flood evicted only its own");
    const waited = await agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 0 });
    assert.equal(waited.outcome, 'approved');
  });
});
