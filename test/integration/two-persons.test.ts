/**
 * Two persons for High ([approval] high = 2), against a real daemon with real Unix users: the
 * first approval is recorded and mints nothing, the same person again is refused and spends
 * nothing, the requester keeps waiting, a second person's approval mints the one receipt (its
 * approval_granted naming the first), two persons at once end with exactly one receipt, a denial
 * between the two leaves nothing to mint, Medium is unaffected, a reload to one lets the next
 * approval mint, and the log verifies. Each approver is its own enrolled person (w.as), so no
 * test waits long for a person's next code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { Principal } from '../../src/sandbox/principal.js';
import { isRecorded, type ApproveResult, type PreviewEnvelope } from '../../src/protocol/messages.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { verifyLog } from '../../src/audit/verify.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'harry', 'ivan', 'jane', 'kim'] as const;
let w: World;
let agent: Principal;

before(async () => {
  w = await startWorld();
  writeFileSync(join(w.d.box.shared, 'policy.toml'), '[approval]\nhigh = 2\n');
  await w.reload();
  agent = await w.as('agent', ['airlock-admin']);
  // Every approver at once, vouched for with one code: none spends a code of its own enrolling later.
  await w.approvers(NAMES, APPROVER);
});
after(() => w?.close());

let n = 0;
/** A fresh High preview (CreateUser is High). */
const highPreview = () => agent.call('preview', { action_name: 'CreateUser', params: { user: `tp${n++}` } });
const approveAs = async (who: Principal, name: string, p: PreviewEnvelope): Promise<ApproveResult> =>
  who.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code(name) });
const stateOf = async (p: PreviewEnvelope) => (await agent.call('transaction.get', { transaction_id: p.transaction_id })).state;
const approver = (name: string) => w.as(name, APPROVER);
type Entry = { kind: string; transaction_id: string | null; principal: { user: string } | null; details: Record<string, unknown> };
const entriesOf = (p: PreviewEnvelope) => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry).filter((e) => e.transaction_id === p.transaction_id);
const kinds = (p: PreviewEnvelope) => entriesOf(p).map((e) => e.kind);

describe('two persons approve a High change when the policy asks', () => {
  let p: PreviewEnvelope;
  let alice: Principal, bob: Principal;

  test('the first approval is recorded and mints nothing; the requester still waits', async () => {
    [alice, bob] = [await approver('alice'), await approver('bob')];
    p = await highPreview();
    const r = await approveAs(alice, 'alice', p);
    assert.ok(isRecorded(r), 'a recorded approval, not a grant');
    assert.equal('receipt' in r, false);
    assert.deepEqual({ needed: r.approvals.needed, have: r.approvals.have }, { needed: 2, have: 1 });
    assert.match(r.approvals.by[0]!, /^alice\(uid \d+\)$/);
    assert.equal(await stateOf(p), 'Previewed');
    const waited = await agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 300 });
    assert.equal(waited.outcome, 'pending');
    assert.deepEqual(kinds(p), ['preview', 'approval_recorded']);
    const e = entriesOf(p)[1]!;
    assert.deepEqual({ needed: e.details.needed, have: e.details.have, second_factor: e.details.second_factor, preview_digest: e.details.preview_digest }, { needed: 2, have: 1, second_factor: 'totp', preview_digest: p.preview_digest });
  });

  test('your_approval tells the first approver they cannot approve twice, and the next how many are needed', async () => {
    const mine = (await alice.call('transaction.get', { transaction_id: p.transaction_id })).your_approval;
    assert.equal(mine.may_approve, false);
    assert.equal(mine.refusal?.code, 'same_approver');
    assert.deepEqual({ needed: mine.approvals?.needed, have: mine.approvals?.have }, { needed: 2, have: 1 });
    const theirs = (await bob.call('transaction.get', { transaction_id: p.transaction_id })).your_approval;
    assert.equal(theirs.may_approve, true);
    assert.equal(theirs.approvals?.have, 1);
    assert.match(theirs.approvals!.by[0]!, /^alice/);
  });

  test('the same person again, with a fresh code, is refused and spends nothing', async () => {
    const code = await w.codes.code('alice');
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: code }), 'authorization', 'same_approver');
    assert.equal(await stateOf(p), 'Previewed');
    assert.equal(kinds(p).filter((k) => k.startsWith('approval_')).length, 1);
    // The code was not spent: it still counts, as alice's first approval of another change.
    const other = await highPreview();
    const r = await alice.call('approve', { transaction_id: other.transaction_id, preview_digest: other.preview_digest, totp_code: code });
    assert.ok(isRecorded(r));
  });

  test("a second person's approval mints the receipt, names the first, and the agent executes", async () => {
    const waiting = agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 60_000 });
    const g = await approveAs(bob, 'bob', p);
    assert.ok(!isRecorded(g));
    assert.match(g.approved_by, /^bob\(uid \d+\)$/);
    const waited = await waiting;
    assert.equal(waited.outcome, 'approved');
    assert.equal(waited.outcome === 'approved' && waited.receipt, g.receipt);
    const done = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'CreateUser', params: p.params, receipt: g.receipt });
    assert.equal(done.state, 'Succeeded');
    const approvals = entriesOf(p).filter((e) => e.kind.startsWith('approval_'));
    assert.deepEqual(approvals.map((e) => e.kind), ['approval_recorded', 'approval_granted', 'approval_consumed']);
    assert.deepEqual(approvals[1]!.details.co_approvers, [approvals[0]!.details.approver]);
    assert.match(String(approvals[0]!.details.approver), /^alice/);
  });

  test('two different persons at once: exactly one receipt, both approvals in the log', async () => {
    const [carol, dave] = [await approver('carol'), await approver('dave')];
    const q = await highPreview();
    const [cc, dc] = [await w.codes.code('carol'), await w.codes.code('dave')];
    const results = await Promise.allSettled([
      carol.call('approve', { transaction_id: q.transaction_id, preview_digest: q.preview_digest, totp_code: cc }),
      dave.call('approve', { transaction_id: q.transaction_id, preview_digest: q.preview_digest, totp_code: dc }),
    ]);
    const ok = results.filter((r): r is PromiseFulfilledResult<ApproveResult> => r.status === 'fulfilled').map((r) => r.value);
    assert.equal(ok.length, 2, JSON.stringify(results));
    assert.equal(ok.filter((r) => !isRecorded(r)).length, 1, 'exactly one receipt');
    assert.equal(ok.filter((r) => isRecorded(r)).length, 1);
    assert.equal(await stateOf(q), 'Queued');
    const es = entriesOf(q).filter((e) => e.kind.startsWith('approval_'));
    assert.deepEqual(es.map((e) => e.kind), ['approval_recorded', 'approval_granted']);
    assert.deepEqual(es[1]!.details.co_approvers, [es[0]!.details.approver]);
    assert.notEqual(es[0]!.principal?.user, es[1]!.principal?.user);
  });

  test('two copies of the same person at once count once, and mint nothing', async () => {
    const erin = await approver('erin');
    const erin2 = Principal.spawn(erin.identity, w.d.socket); // a second connection of the same person
    const q = await highPreview();
    const [c1, c2] = [await w.codes.code('erin'), await w.codes.code('erin')];
    const results = await Promise.allSettled([
      erin.call('approve', { transaction_id: q.transaction_id, preview_digest: q.preview_digest, totp_code: c1 }),
      erin2.call('approve', { transaction_id: q.transaction_id, preview_digest: q.preview_digest, totp_code: c2 }),
    ]).finally(() => erin2.close());
    const ok = results.filter((r): r is PromiseFulfilledResult<ApproveResult> => r.status === 'fulfilled').map((r) => r.value);
    assert.equal(ok.length, 1, JSON.stringify(results));
    assert.ok(isRecorded(ok[0]!));
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal(refused.reason.code, 'same_approver');
    assert.equal(await stateOf(q), 'Previewed');
    assert.deepEqual(entriesOf(q).filter((e) => e.kind.startsWith('approval_')).map((e) => e.kind), ['approval_recorded']);
  });

  test('a denial between the two leaves nothing to mint', async () => {
    const [frank, gina] = [await approver('frank'), await approver('gina')];
    const q = await highPreview();
    assert.ok(isRecorded(await approveAs(frank, 'frank', q)));
    await gina.call('deny', { transaction_id: q.transaction_id, reason: 'not this one' });
    const harry = await approver('harry');
    await rejectsWith(approveAs(harry, 'harry', q), 'stale_approval', 'not_pending');
    assert.equal(kinds(q).includes('approval_granted'), false);
    const waited = await agent.call('transaction.wait', { transaction_id: q.transaction_id, timeout_ms: 0 });
    assert.equal(waited.outcome, 'denied');
  });

  test('Medium risk is unaffected: one person approves with a receipt', async () => {
    const ivan = await approver('ivan');
    const m = await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'tpgroup' } });
    assert.equal(m.risk, 'medium');
    const g = await ivan.call('approve', { transaction_id: m.transaction_id, preview_digest: m.preview_digest });
    assert.ok(!isRecorded(g));
    assert.ok(g.receipt.length > 0);
  });

  test('a reload to one person between the two: the next approval mints, naming the earlier approver', async () => {
    const [jane, kim] = [await approver('jane'), await approver('kim')];
    const q = await highPreview();
    assert.ok(isRecorded(await approveAs(jane, 'jane', q)));
    writeFileSync(join(w.d.box.shared, 'policy.toml'), '[approval]\nhigh = 1\n');
    await w.reload();
    try {
      const g = await approveAs(kim, 'kim', q);
      assert.ok(!isRecorded(g));
      const granted = entriesOf(q).find((e) => e.kind === 'approval_granted')!;
      assert.match(String((granted.details.co_approvers as string[])[0]), /^jane/);
    } finally {
      writeFileSync(join(w.d.box.shared, 'policy.toml'), '[approval]\nhigh = 2\n');
      await w.reload();
    }
  });

  test('the log of all this verifies with the public key alone', async () => {
    const pub = parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8'));
    const report = await verifyLog(readSqliteLog(w.d.files.db), pub, readFileSync(w.d.files.checkpoints, 'utf8'));
    assert.equal(report.status, 'intact');
  });
});
