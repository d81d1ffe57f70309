/**
 * Refusals leave a trace in the signed log, and a flood of them cannot grow the log
 * without bound: per principal and reason, the first is written at once and the rest
 * of its window become one entry with their count.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { readSqliteLog } from '../../src/audit/log-file.js';

let w: World;
const kept = mkdtempSync(join(tmpdir(), 'airlock-refusals-'));
before(async () => {
  w = await startWorld([], 'overlay', { policy: 'reads = "ask"\n' });
});
after(() => {
  execFileSync('/usr/bin/chattr', ['-R', '-a', '--', kept]); // the daemon marks its checkpoint file append-only
  rmSync(kept, { recursive: true, force: true });
});

type Entry = { kind: string; transaction_id: string | null; principal: { user: string } | null; details: Record<string, unknown> };

test('200 forged receipts and 200 digest mismatches become four signed entries that count them all', async () => {
  const agent = await w.as('agent', ['airlock-admin']);
  const alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  // One approved transaction to execute with forged receipts, one pending one to approve with the wrong digest.
  const p = await agent.call('preview', { action_name: 'ListUsers', params: {} });
  await w.approve(alice, p);
  const q = await agent.call('preview', { action_name: 'ListGroups', params: {} });
  const forged = 'alr1.' + 'A'.repeat(107);
  // In batches of 50 connections (a principal may hold 64).
  for (let batch = 0; batch < 4; batch++) {
    const execs = await agent.parallel('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: forged }, 50);
    assert.ok(execs.every((r) => !r.ok && r.error?.code === 'bad_receipt'), JSON.stringify(execs[0]));
    const approvals = await alice.parallel('approve', { transaction_id: q.transaction_id, preview_digest: '0'.repeat(64) }, 50);
    assert.ok(approvals.every((r) => !r.ok && r.error?.code === 'digest_mismatch'), JSON.stringify(approvals[0]));
  }
  await rejectsWith(alice.call('approve', { transaction_id: q.transaction_id, preview_digest: '0'.repeat(64) }), 'stale_approval', 'digest_mismatch');
  // Stopping flushes the counts of windows still open.
  await w.close({ keepSharedAs: join(kept, 'shared') });
  const refused = [...readSqliteLog(join(kept, 'shared', 'state', 'airlock.db'))].map((e) => JSON.parse(e.body) as Entry).filter((e) => e.kind === 'refused');
  const of = (user: string, code: string) => refused.filter((e) => e.principal?.user === user && e.details.code === code);
  const agentRefusals = refused.filter((e) => e.principal?.user === 'agent');
  assert.equal(agentRefusals.length, 2, JSON.stringify(agentRefusals));
  assert.deepEqual(agentRefusals.map((e) => e.details.count), [1, 199]);
  assert.equal(agentRefusals[1]!.details.coalesced, true);
  assert.ok(agentRefusals.every((e) => e.transaction_id === p.transaction_id && e.details.method === 'execute'));
  const digest = of('alice', 'digest_mismatch');
  assert.equal(digest.length, 2);
  assert.equal(digest.reduce((n, e) => n + Number(e.details.count), 0), 201);
});
