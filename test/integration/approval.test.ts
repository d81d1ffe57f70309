/**
 * Roles, approval and receipts against a real daemon, with every client a real
 * Unix user: denials, self-approval, replayed/expired/cross-transaction/forged
 * receipts, parameters changed after preview, and 50 concurrent executes.
 */
import { grantOf } from '../../src/client/client.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { mintReceipt } from '../../src/audit/receipt.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

/** Every read waits for a person here, so these tests exercise human approval of any action. */
const ASK_POLICY = 'reads = "ask"\n';
let w: World;
let agent: Principal, approver: Principal, observer: Principal, dev: Principal, devApprover: Principal, lowApprover: Principal;

before(async () => {
  w = await startWorld([], 'overlay', { policy: ASK_POLICY });
  agent = await w.as('agent', ['airlock-admin']);
  approver = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  observer = await w.as('olga', ['airlock-observer']);
  dev = await w.as('dave', ['airlock-dev']);
  devApprover = await w.as('dora', ['airlock-dev', 'airlock-approvers']);
  lowApprover = await w.as('lars', ['airlock-observer', 'airlock-approvers']);
});
after(() => w?.close());

const preview = (who: Principal, action: string, params: Record<string, unknown>) => who.call('preview', { action_name: action, params });
/** An approval as a person gives it: with a fresh authenticator code when the risk needs one. */
const approve = (who: Principal, p: PreviewEnvelope) => w.approve(who, p);
const execute = (who: Principal, p: PreviewEnvelope, receipt: string, params = p.params) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params, receipt });
const state = async (id: string) => (await approver.call('transaction.get', { transaction_id: id })).state;

describe('roles from kernel peer credentials', () => {
  test('a user in no airlock group cannot even connect', async () => {
    const nobody = await w.as('nora', []);
    await rejectsWith(nobody.call('actions.list', {}, { fresh: true }), 'authorization', 'no_role');
  });

  test('the welcome names the principal the kernel reported', async () => {
    // The worker's shared connection exists by now; ask the daemon who it thinks we are via a preview's requested_by.
    const p = await preview(observer, 'ListUsers', {});
    assert.match(p.requested_by, /^olga\(uid \d+\)$/);
  });

  test('observer may preview low but not medium or high; dev not high', async () => {
    await preview(observer, 'ListUsers', {});
    await rejectsWith(preview(observer, 'CreateGroup', { group: 'g1' }), 'authorization', 'role_too_low');
    await rejectsWith(preview(observer, 'CreateUser', { user: 'zz' }), 'authorization', 'role_too_low');
    await preview(dev, 'CreateGroup', { group: 'g1' });
    await rejectsWith(preview(dev, 'CreateUser', { user: 'zz' }), 'authorization', 'role_too_low');
  });

  test('the role is checked before parameters are validated (no information leaks)', async () => {
    // Invalid params for a high action: an observer learns only that it lacks the role.
    await rejectsWith(preview(observer, 'CreateUser', { user: '; rm -rf /', nonsense: 1 }), 'authorization', 'role_too_low');
    await rejectsWith(preview(agent, 'CreateUser', { user: '; rm -rf /' }), 'validation', 'bad_params');
  });

  test('a parameter that cannot be hashed canonically (lone surrogate) is a validation error', async () => {
    await rejectsWith(preview(agent, 'UserInfo', { user: '\ud800' }), 'validation');
    await rejectsWith(preview(agent, 'ReadConfigFile', { path: '/etc/logrotate.d/\ud800x' }), 'validation');
  });

  test("an observer sees the history but not another principal's previews", async () => {
    const p = await preview(agent, 'ListUsers', {});
    await rejectsWith(observer.call('transaction.get', { transaction_id: p.transaction_id }), 'authorization', 'not_yours');
    const own = await preview(observer, 'ListUsers', {});
    assert.equal((await observer.call('transaction.get', { transaction_id: own.transaction_id })).state, 'Previewed');
    assert.ok((await observer.call('history', { limit: 50 })).some((t) => t.transaction_id === p.transaction_id));
  });

  test('unknown actions are refused before any effect', async () => {
    await rejectsWith(preview(agent, 'RunShell', { cmd: 'id' }), 'validation', 'unknown_action');
  });
});

describe('who may approve', () => {
  test('a non-approver cannot approve', async () => {
    const p = await preview(agent, 'ListUsers', {});
    await rejectsWith(approve(dev, p), 'authorization', 'not_an_approver');
  });

  test('an approver without the minimum role cannot approve', async () => {
    const p = await preview(agent, 'CreateUser', { user: 'rolecheck' });
    await rejectsWith(approve(lowApprover, p), 'authorization', 'role_too_low');
    await rejectsWith(approve(devApprover, p), 'authorization', 'role_too_low');
  });

  test('a person approves a request made under their own account only with their second factor, at every risk', async () => {
    // The one-user workstation: the agent runs as the human, so the factor is what tells them apart.
    const p = await preview(approver, 'ListUsers', {});
    assert.equal(p.risk, 'low');
    await rejectsWith(approver.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'totp_required');
    assert.equal(await state(p.transaction_id), 'Previewed');
    const g = grantOf(await approver.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('alice') }));
    assert.match(g.approved_by, /^alice\(uid \d+\)$/);
    assert.equal(await state(p.transaction_id), 'Queued');
  });

  test('a self-approval without an enrolled factor is refused with how to enrol or give the agent its own account', async () => {
    const solo = await w.as('sam', ['airlock-admin', 'airlock-approvers'], { enrol: false });
    const p = await preview(solo, 'ListUsers', {});
    const e = await rejectsWith(solo.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'self_approval_needs_factor');
    assert.match((e as { hint?: string }).hint ?? '', /airlock totp enroll/);
    assert.match((e as { hint?: string }).hint ?? '', /account of its own/);
    assert.equal(await state(p.transaction_id), 'Previewed');
  });

  test('an approval must name the digest of the preview that was shown', async () => {
    const p = await preview(agent, 'ListUsers', {});
    await rejectsWith(approver.call('approve', { transaction_id: p.transaction_id, preview_digest: '0'.repeat(64) }), 'stale_approval', 'digest_mismatch');
  });
});

describe('receipts', () => {
  test('the full lifecycle works and the receipt is single-use', async () => {
    const p = await preview(agent, 'ListUsers', {});
    const g = await approve(approver, p);
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.ok(r.output.some((l) => l.startsWith('root:x:0:0:')));
    await rejectsWith(execute(agent, p, g.receipt), 'stale_approval');
  });

  test('only the requester may execute', async () => {
    const p = await preview(agent, 'ListUsers', {});
    const g = await approve(approver, p);
    await rejectsWith(execute(dev, p, g.receipt), 'authorization');
    await rejectsWith(execute(approver, p, g.receipt), 'authorization', 'not_the_requester');
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded');
  });

  test('a receipt for one transaction does not open another', async () => {
    const p1 = await preview(agent, 'ListUsers', {});
    const p2 = await preview(agent, 'ListUsers', {});
    const g1 = await approve(approver, p1);
    await approve(approver, p2);
    await rejectsWith(execute(agent, p2, g1.receipt), 'stale_approval', 'bad_receipt');
    assert.equal(await state(p2.transaction_id), 'Queued');
  });

  test('forged receipts are refused: random bytes, another key, a tampered signature', async () => {
    const p = await preview(agent, 'ListUsers', {});
    const g = await approve(approver, p);
    const other = signingKeyFromSeed(randomBytes(32));
    const forged = mintReceipt(other, { transactionId: p.transaction_id, requestHash: p.request_hash, approver: g.approved_by, executor: g.executor, expiresAt: g.expires_at }).receipt;
    // One signature character changed (to a different one: the flip depends on the character itself).
    const at = g.receipt.length - 3;
    const flipped = g.receipt.slice(0, at) + (g.receipt[at] === 'A' ? 'B' : 'A') + g.receipt.slice(at + 1);
    assert.notEqual(flipped, g.receipt);
    for (const bad of ['alr1.' + randomBytes(80).toString('base64url'), forged, flipped, '', 'x'.repeat(5000), g.receipt + '\u0000']) {
      await rejectsWith(execute(agent, p, bad), 'stale_approval', 'bad_receipt');
    }
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded', 'the genuine receipt still works: forgeries consumed nothing');
  });

  test('parameters changed after the preview are refused without consuming the receipt', async () => {
    const p = await preview(agent, 'UserInfo', { user: 'root' });
    const g = await approve(approver, p);
    await rejectsWith(execute(agent, p, g.receipt, { user: 'alice' }), 'stale_approval', 'request_mismatch');
    await rejectsWith(agent.call('execute', { transaction_id: p.transaction_id, action_name: 'ListUsers', params: {}, receipt: g.receipt }), 'stale_approval', 'request_mismatch');
    assert.equal(await state(p.transaction_id), 'Queued');
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.ok(r.output.some((l) => l.includes('uid=0(root)')));
  });

  test('50 concurrent executes of one receipt: exactly one runs', async () => {
    const p = await preview(agent, 'ListUsers', {});
    const g = await approve(approver, p);
    const results = await agent.parallel('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt }, 50);
    const ok = results.filter((r) => r.ok);
    assert.equal(ok.length, 1, JSON.stringify(results.filter((r) => !r.ok).slice(0, 2)));
    assert.equal(ok[0]!.result!.state, 'Succeeded');
    assert.ok(results.filter((r) => !r.ok).every((r) => r.error!.category === 'stale_approval'));
  });

  test('an approved transaction can be canceled by its requester, and then not executed', async () => {
    const p = await preview(agent, 'ListUsers', {});
    const g = await approve(approver, p);
    const t = await agent.call('cancel', { transaction_id: p.transaction_id });
    assert.equal(t.state, 'Canceled');
    await rejectsWith(execute(agent, p, g.receipt), 'stale_approval');
    await rejectsWith(dev.call('cancel', { transaction_id: (await preview(agent, 'ListUsers', {})).transaction_id }), 'authorization', 'not_yours');
  });

  test('history filters by state and action', async () => {
    const rows = await observer.call('history', { state: 'Succeeded', action: 'ListUsers', limit: 5 });
    assert.ok(rows.length >= 1 && rows.length <= 5);
    assert.ok(rows.every((r) => r.state === 'Succeeded' && r.action_name === 'ListUsers'));
    await rejectsWith(observer.callUnchecked('history', { state: 'Bogus' }), 'validation', 'bad_history_query');
    await rejectsWith(observer.call('history', { limit: 10_000_000 }), 'validation', 'bad_history_query');
  });
});

describe('expiry', () => {
  test('an expired preview or receipt is refused as expired, and canceled and logged at that moment, not at the next sweep', async () => {
    // No sweep during the test: the refusal itself must cancel the transaction.
    const short = await startWorld(['--receipt-ttl', '0.02', '--approval-ttl', '0.02', '--sweep-interval', '600'], 'overlay', { policy: ASK_POLICY }); // 1.2 s
    try {
      const a = await short.as('agent', ['airlock-admin']);
      const h = await short.as('alice', ['airlock-admin', 'airlock-approvers']);
      const { readSqliteLog } = await import('../../src/audit/log-file.js');
      const expiredEntries = (id: string) => [...readSqliteLog(short.d.files.db)].map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'expired' && e.transaction_id === id);
      const stateOf = async (id: string) => (await h.call('transaction.get', { transaction_id: id })).state;
      const p1 = await a.call('preview', { action_name: 'ListUsers', params: {} });
      const g1 = grantOf(await h.call('approve', { transaction_id: p1.transaction_id, preview_digest: p1.preview_digest }));
      const p2 = await a.call('preview', { action_name: 'ListUsers', params: {} });
      await new Promise((r) => setTimeout(r, 1500));
      const run = () => a.call('execute', { transaction_id: p1.transaction_id, action_name: 'ListUsers', params: {}, receipt: g1.receipt });
      const approve = () => h.call('approve', { transaction_id: p2.transaction_id, preview_digest: p2.preview_digest });
      await rejectsWith(run(), 'stale_approval', 'receipt_expired');
      await rejectsWith(approve(), 'stale_approval', 'preview_expired');
      for (const id of [p1.transaction_id, p2.transaction_id]) {
        assert.equal(await stateOf(id), 'Canceled', 'canceled by the refusal, with no sweep');
        assert.equal(expiredEntries(id).length, 1, 'one signed expired entry');
      }
      assert.equal(expiredEntries(p1.transaction_id)[0].details.previous_state, 'Queued');
      assert.equal(expiredEntries(p2.transaction_id)[0].details.previous_state, 'Previewed');
      // Asked again, the answer is still "expired", never "already consumed" or "not pending".
      await rejectsWith(run(), 'stale_approval', 'receipt_expired');
      await rejectsWith(approve(), 'stale_approval', 'preview_expired');
      for (const id of [p1.transaction_id, p2.transaction_id]) assert.equal(expiredEntries(id).length, 1, 'expired once');
    } finally {
      await short.close();
    }
  });

  test('receipts and previews expire; the sweep cancels them, says so in the log, and a late use is told they expired', async () => {
    const short = await startWorld(['--receipt-ttl', '0.02', '--approval-ttl', '0.03', '--sweep-interval', '0.2'], 'overlay', { policy: ASK_POLICY }); // 1.2 s, 1.8 s
    try {
      const a = await short.as('agent', ['airlock-admin']);
      const h = await short.as('alice', ['airlock-admin', 'airlock-approvers']);
      const p1 = await a.call('preview', { action_name: 'ListUsers', params: {} });
      const g1 = grantOf(await h.call('approve', { transaction_id: p1.transaction_id, preview_digest: p1.preview_digest }));
      const p2 = await a.call('preview', { action_name: 'ListUsers', params: {} });
      await new Promise((r) => setTimeout(r, 2500));
      for (const id of [p1.transaction_id, p2.transaction_id]) {
        assert.equal((await h.call('transaction.get', { transaction_id: id })).state, 'Canceled');
      }
      await rejectsWith(a.call('execute', { transaction_id: p1.transaction_id, action_name: 'ListUsers', params: {}, receipt: g1.receipt }), 'stale_approval', 'receipt_expired');
      await rejectsWith(h.call('approve', { transaction_id: p2.transaction_id, preview_digest: p2.preview_digest }), 'stale_approval', 'preview_expired');
      const { readSqliteLog } = await import('../../src/audit/log-file.js');
      const kinds = [...readSqliteLog(short.d.files.db)].map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'expired').map((e) => e.transaction_id);
      assert.ok(kinds.includes(p1.transaction_id) && kinds.includes(p2.transaction_id), 'each expiry is a signed log entry');
    } finally {
      await short.close();
    }
  });
});
