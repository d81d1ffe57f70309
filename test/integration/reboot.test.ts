/**
 * A reboot through Airlock, for real: the booted test bed's daemon runs as a systemd unit
 * enabled at boot; the agent previews RebootHost, a person approves it with their code, the
 * agent executes it and gets NeedsReboot; the container reboots (systemd-nspawn exits 133 and
 * the sandbox boots the same overlay again, so the daemon's store survives as on a disk); the
 * unit starts the daemon in the new boot, which reconciles the transaction: Succeeded, with a
 * signed reboot_reconciled entry naming both boot ids, and the log verifies.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOXED_UNIT } from '../../src/sandbox/overlay.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { TransactionDetail } from '../../src/protocol/messages.js';
import { airlock } from '../support/cli.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

let w: World;
let agent: Principal;
let alice: Principal;

before(async () => {
  w = await startWorld([], 'testbed', { reboots: 1 });
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  // Nothing of the test's inside the test bed may hold its shutdown (World.closeRootClients): the first factor's sudo client is done.
  await w.closeRootClients();
});
after(() => w?.close());

async function bootId(): Promise<string> {
  const r = await w.d.box.run('/usr/bin/cat', ['/proc/sys/kernel/random/boot_id']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

/** The transaction as its requester reads it, once the daemon answers again (a new connection: the old one died with it). */
async function transactionOnceBack(id: string, ms = 60_000): Promise<TransactionDetail> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await agent.call('transaction.get', { transaction_id: id }, { fresh: true });
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

test('RebootHost: NeedsReboot, the test bed reboots, the daemon starts again as its unit and reconciles it Succeeded, signed; the log verifies', async () => {
  const before = await bootId();
  // Not a plan step: it takes the daemon down with the host.
  await rejectsWith(agent.call('plan.preview', { steps: [{ action_name: 'HostInfo', params: {} }, { action_name: 'RebootHost', params: {} }] }), 'validation', 'not_a_plan_step');
  const p = await agent.call('preview', { action_name: 'RebootHost', params: { message: 'Airlock reboot test' } });
  assert.equal(p.risk, 'high');
  assert.equal(p.reboot_required, true);
  assert.equal(p.rollback_available, false);
  assert.equal((p.current_state as { boot_id: string }).boot_id, before, 'the preview shows this boot');
  assert.deepEqual(p.proposed_change.mechanism.map((s) => (s.kind === 'command' ? [s.program, ...s.args] : [s.kind])), [['systemctl', 'reboot', '--no-block', '--message=Airlock reboot test']]);
  const g = await w.approve(alice, p);
  const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'RebootHost', params: p.params, receipt: g.receipt });
  assert.equal(r.state, 'NeedsReboot', r.summary);
  assert.equal(r.needs_reboot, true);

  await w.d.box.rebooted(180_000);
  const after = await bootId();
  assert.notEqual(after, before, 'a new boot');
  const tx = await transactionOnceBack(p.transaction_id);
  assert.equal(tx.state, 'Succeeded', JSON.stringify(tx.result));
  const result = tx.result as { boot_id_before?: string; boot_id_after?: string; needs_reboot?: boolean; summary?: string };
  assert.deepEqual([result.boot_id_before, result.boot_id_after, result.needs_reboot], [before, after, false]);
  assert.match(result.summary ?? '', /rebooted and came back/);
  // The daemon of the new boot is the unit systemd started at boot.
  assert.equal((await w.d.box.run('/usr/bin/systemctl', ['is-active', `${SANDBOXED_UNIT}.service`])).stdout.trim(), 'active');

  const entries = await w.entriesOf(p.transaction_id);
  assert.deepEqual(entries.map((e) => e.kind), ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome', 'reboot_reconciled']);
  assert.equal(entries[3]!.details.boot_id, before, 'execution_started names the boot it ran in');
  assert.equal(entries[4]!.details.state, 'NeedsReboot', 'written before the reboot started');
  assert.deepEqual(entries[5]!.details, { previous_state: 'NeedsReboot', new_state: 'Succeeded', boot_id_before: before, boot_id_after: after, reason: 'the daemon started in another boot than the one the change ran in' });
  assert.equal(entries[5]!.principal, null, 'the daemon itself reconciles');

  // The whole log, the lifecycle rules included, with the public key.
  const v = await airlock(['--socket', w.d.socket, 'audit', 'verify', '--pubkey', w.d.files.publicKey, '--checkpoints', w.d.files.checkpoints, '--json']);
  const report = JSON.parse(v.stdout || '{}') as { status?: string };
  assert.equal(report.status, 'intact', v.stdout + v.stderr);

  // An approval of the boot before cannot run in this one: the preview is bound to the boot id.
  const again = await agent.call('preview', { action_name: 'RebootHost', params: {} }, { fresh: true });
  assert.equal((again.current_state as { boot_id: string }).boot_id, after);
  await agent.call('cancel', { transaction_id: again.transaction_id });
});
