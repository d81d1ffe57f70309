/**
 * `airlock revert` against a real daemon on a throwaway overlay of this host, its clients real
 * Unix users (issue 27): a plan reverted as a whole, its steps in reverse order; a revert made
 * twice refused as drifted, and a revert of the revert redoing the change; a revert at the
 * reverted change's risk (a Medium-only requester cannot revert a High change); what cannot be
 * reverted refused with why (a read, a rolled-back job; the bound on pre-state is
 * test/unit/revert-transaction.test.ts's: no preview of a file that large fits); the CLI and
 * the MCP tool; the signed log linking the revert to what it reverts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { airlockAs } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

let w: World;
let agent: Principal, dev: Principal, alice: Principal;
const hostsPath = () => `/proc/${w.d.box.pid}/root/etc/hosts`;
const groupPath = () => `/proc/${w.d.box.pid}/root/etc/group`;

before(async () => {
  w = await startWorld(['--test-fault-file', '/run/airlock-test-fault']);
  agent = await w.as('agent', ['airlock-admin']);
  dev = await w.as('devon', ['airlock-dev']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

/** preview by `who`, approved by alice, executed by `who`. */
async function run(who: Principal, action: string, params: Record<string, unknown>) {
  return w.lifecycle(who, alice, action, params);
}

/** A plan previewed, approved and executed by the agent. */
async function plan(steps: Array<{ action_name: string; params: Record<string, unknown> }>) {
  const p: PreviewEnvelope = await agent.call('plan.preview', { steps });
  const g = await w.approveSoon(alice, p);
  const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt });
  return { p, r };
}

describe('a revert', () => {
  test('of a plan undoes it whole, its steps in reverse order, and the host reads as before it', async () => {
    const hosts = await readFile(hostsPath(), 'utf8');
    const group = await readFile(groupPath(), 'utf8');
    const { p, r } = await plan([
      { action_name: 'CreateGroup', params: { group: 'rvdeploy' } },
      { action_name: 'AddHostsEntry', params: { ip: '10.9.8.7', names: ['rv-one.internal'] } },
      { action_name: 'AddHostsEntry', params: { ip: '10.9.8.8', names: ['rv-two.internal'] } },
    ]);
    assert.equal(r.state, 'Succeeded', r.summary);
    assert.notEqual(await readFile(hostsPath(), 'utf8'), hosts);
    const back = await run(agent, 'RevertTransaction', { transaction_id: p.transaction_id });
    assert.equal(back.p.risk, 'medium', 'the plan was Medium (CreateGroup, AddHostsEntry): so is its revert');
    const change = back.p.proposed_change.change as { steps_in_reverse: string[] };
    assert.deepEqual(change.steps_in_reverse, ['AddHostsEntry', 'AddHostsEntry', 'CreateGroup']);
    assert.equal(back.r.state, 'Succeeded', back.r.summary);
    assert.equal(back.r.state_check?.matches, true);
    assert.equal(await readFile(hostsPath(), 'utf8'), hosts, '/etc/hosts byte for byte as before the plan');
    assert.equal(await readFile(groupPath(), 'utf8'), group, '/etc/group byte for byte as before the plan');
    // The signed log links the revert to what it reverts: its preview entry names it in its parameters.
    const entries = await w.entriesOf(back.p.transaction_id);
    assert.equal(entries[0]!.kind, 'preview');
    assert.equal(entries[0]!.action_name, 'RevertTransaction');
    assert.deepEqual(back.p.params, { transaction_id: p.transaction_id });
    assert.equal((entries.find((e) => e.kind === 'outcome')!.details as { state_matches?: boolean }).state_matches, true);
  });

  test('made twice is refused as drifted; the revert of the revert makes the change again', async () => {
    const hosts = await readFile(hostsPath(), 'utf8');
    const first = await run(agent, 'AddHostsEntry', { ip: '10.9.8.9', names: ['rv-twice.internal'] });
    assert.equal(first.r.state, 'Succeeded');
    const changed = await readFile(hostsPath(), 'utf8');
    const back = await run(agent, 'RevertTransaction', { transaction_id: first.p.transaction_id });
    assert.equal(back.r.state, 'Succeeded');
    assert.equal(await readFile(hostsPath(), 'utf8'), hosts);
    const again = await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: first.p.transaction_id } }), 'conflict', 'drifted');
    assert.match(again.message, /\/etc\/hosts changed since/);
    const redo = await run(agent, 'RevertTransaction', { transaction_id: back.p.transaction_id });
    assert.equal(redo.r.state, 'Succeeded', redo.r.summary);
    assert.equal(await readFile(hostsPath(), 'utf8'), changed, 'the revert of the revert puts the change back');
  });

  test('is approved at the risk of the change it reverts: a Medium-only requester cannot revert a High change', async () => {
    const high = await run(agent, 'CreateUser', { user: 'rvhigh' });
    assert.equal(high.r.state, 'Succeeded', high.r.summary);
    const refused = await rejectsWith(dev.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: high.p.transaction_id } }), 'authorization');
    assert.match(refused.message, /agent|high|High|admin/);
    // Nor another principal's Medium change: the revert's preview shows what that change kept, for its readers only.
    const medium = await run(agent, 'CreateGroup', { group: 'rvreader' });
    const notYours = await rejectsWith(dev.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: medium.p.transaction_id } }), 'authorization', 'not_yours');
    assert.match(notYours.message, /only agent/);
    assert.equal((await run(agent, 'RevertTransaction', { transaction_id: medium.p.transaction_id })).r.state, 'Succeeded');
    // A file put in the new home since is drift: userdel -r would delete it, so the revert is refused.
    const notes = `/proc/${w.d.box.pid}/root/home/rvhigh/notes.txt`;
    await writeFile(notes, 'written after the account was made\n');
    const drifted = await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: high.p.transaction_id } }), 'conflict', 'drifted');
    assert.match(drifted.message, /ls -lAR --time-style=\+%s -- \/home\/rvhigh/);
    await rm(notes);
    const back = await run(agent, 'RevertTransaction', { transaction_id: high.p.transaction_id });
    assert.equal(back.p.risk, 'high');
    assert.equal(back.r.state, 'Succeeded', back.r.summary);
    assert.doesNotMatch(await readFile(`/proc/${w.d.box.pid}/root/etc/passwd`, 'utf8'), /^rvhigh:/m);
  });

  test('of what kept nothing to revert is refused with why: a read, a job rolled back', async () => {
    const read = await run(agent, 'HostInfo', {});
    assert.match((await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: read.p.transaction_id } }), 'validation', 'not_revertible')).message, /kept no pre-state/);
    await writeFile(`/proc/${w.d.box.pid}/root/run/airlock-test-fault`, 'x');
    let failed;
    try {
      failed = await run(agent, 'AddHostsEntry', { ip: '10.9.8.10', names: ['rv-failed.internal'] });
    } finally {
      await w.d.box.run('/usr/bin/rm', ['-f', '/run/airlock-test-fault']);
    }
    assert.equal(failed.r.state, 'RolledBack');
    assert.match((await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: failed.p.transaction_id } }), 'validation', 'not_revertible')).message, /RolledBack/);
  });

  test('from the command line: airlock revert TX --wait, approved by a person, says the state reads as before', async () => {
    const hosts = await readFile(hostsPath(), 'utf8');
    const change = await run(agent, 'AddHostsEntry', { ip: '10.9.8.12', names: ['rv-cli.internal'] });
    const cli = airlockAs(agent.identity, w.d.socket, ['revert', change.p.transaction_id, '--wait', '120']);
    // The person approves the revert the agent's command is waiting on.
    let p: PreviewEnvelope | undefined;
    for (let i = 0; i < 100 && !p; i++) {
      const rows = await agent.call('history', { action: 'RevertTransaction', state: 'Previewed', limit: 5 });
      if (rows.length) p = (await agent.call('transaction.get', { transaction_id: rows[0]!.transaction_id })).preview as PreviewEnvelope;
      else await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(p, 'the revert was previewed');
    await w.approveSoon(alice, p);
    const out = await cli;
    assert.equal(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stdout, /Succeeded Revert tx_/);
    assert.match(out.stdout, /verified: the \d+ things it touched read as before the change it reverts/);
    assert.equal(await readFile(hostsPath(), 'utf8'), hosts);
    const bad = await airlockAs(agent.identity, w.d.socket, ['revert', 'nonsense']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /not a transaction id/);
  });
});
