/**
 * Approvals that reach the agent, against a real daemon with every client a real Unix user:
 * `transaction.wait` hands the requester (and nobody else) its receipt when a person approves
 * from another account, or the reason when a person denies; it ends cleanly on expiry, on
 * cancel and at its timeout; its slots are bounded per principal and come back when a waiter
 * disconnects; the idle deadline does not cut it. `deny` is for people who may approve, and is
 * a signed entry. `audit.entries` pages verify with the public key alone.
 */
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AirlockClient } from '../../src/client/client.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope, WaitOutcome } from '../../src/protocol/messages.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

/** Every read waits for a person here, so reads make quick transactions for a person to decide. */
const ASK_POLICY = 'reads = "ask"\n';
let w: World;
let agent: Principal, bob: Principal, alice: Principal, dora: Principal, olga: Principal;

before(async () => {
  w = await startWorld([], 'overlay', { policy: ASK_POLICY });
  agent = await w.as('agent', ['airlock-admin']);
  bob = await w.as('bob', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  dora = await w.as('dora', ['airlock-dev', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
});
after(() => w?.close());

const preview = (who: Principal, action = 'ListUsers', params: Record<string, unknown> = {}) => who.call('preview', { action_name: action, params });
const waitFor = (who: Principal, p: PreviewEnvelope, timeout_ms?: number) => who.call('transaction.wait', { transaction_id: p.transaction_id, ...(timeout_ms !== undefined ? { timeout_ms } : {}) });
const execute = (who: Principal, p: PreviewEnvelope, receipt: string) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt });
const state = async (p: PreviewEnvelope) => (await alice.call('transaction.get', { transaction_id: p.transaction_id })).state;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Entry = { kind: string; transaction_id: string | null; principal: { user: string } | null; details: Record<string, unknown> };
const entries = () => [...readSqliteLog(w.d.files.db)].map((r) => JSON.parse(r.body) as Entry);
/** Polls `probe` until it returns true (or fails after `ms`). */
async function eventually(probe: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
}
/** Resolves true when the promise settles within ms. */
const settlesWithin = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true, () => true), sleep(ms).then(() => false)]);

describe('who may wait', () => {
  test("a second principal can neither wait on someone else's transaction nor receive its receipt", async () => {
    const p = await preview(agent);
    const refusal = await rejectsWith(waitFor(bob, p, 100), 'authorization', 'not_the_requester');
    // The approver who will approve it is not the requester either: a wait hands over nobody else's receipt.
    await rejectsWith(waitFor(alice, p, 100), 'authorization', 'not_the_requester');
    await rejectsWith(waitFor(olga, p, 100), 'authorization', 'not_the_requester');
    const g = await w.approve(alice, p);
    for (const other of [bob, alice, olga]) await rejectsWith(waitFor(other, p, 100), 'authorization', 'not_the_requester');
    // The same refusal execute gives, word for word.
    const byExecute = await rejectsWith(execute(bob, p, g.receipt), 'authorization', 'not_the_requester');
    assert.equal(refusal.message, byExecute.message);
    // An admin reads the transaction, but its receipt is the requester's alone.
    assert.equal((await bob.call('transaction.get', { transaction_id: p.transaction_id })).receipt, undefined);
    assert.equal((await alice.call('transaction.get', { transaction_id: p.transaction_id })).receipt, undefined);
    await rejectsWith(olga.call('transaction.get', { transaction_id: p.transaction_id }), 'authorization', 'not_yours');
    assert.equal(await state(p), 'Queued', 'nothing the others did changed it');
    const mine = await waitFor(agent, p, 100);
    assert.equal(mine.outcome, 'approved');
    assert.equal((await execute(agent, p, (mine as { receipt: string }).receipt)).state, 'Succeeded');
  });

  test('bad ids and timeouts are validation errors', async () => {
    await rejectsWith(agent.call('transaction.wait', { transaction_id: 'tx_nope' }), 'validation', 'bad_transaction_id');
    await rejectsWith(agent.call('transaction.wait', { transaction_id: 'tx_' + '0'.repeat(24) }), 'validation', 'no_such_transaction');
    const p = await preview(agent);
    for (const t of [-1, 1.5, 300_001, '100', null]) {
      await rejectsWith(agent.callUnchecked('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: t }), 'validation', 'bad_wait_timeout');
    }
  });
});

describe('what a wait ends with', () => {
  test('the waiter gets the receipt when a person approves from another principal, and executes with it', async () => {
    const p = await preview(agent);
    const t0 = Date.now();
    const waiting = waitFor(agent, p, 20_000);
    assert.equal(await settlesWithin(waiting, 700), false, 'it waits for a person');
    const g = await w.approve(alice, p);
    const o = await waiting;
    assert.equal(o.outcome, 'approved', JSON.stringify(o));
    const got = o as Extract<WaitOutcome, { outcome: 'approved' }>;
    assert.equal(got.transaction_id, p.transaction_id);
    assert.equal(got.receipt, g.receipt, 'the receipt the approver was given, bound to the requester');
    assert.equal(got.approved_by, g.approved_by);
    assert.match(got.approved_by, /^alice\(uid \d+\)$/);
    assert.equal(got.expires_at, g.expires_at);
    assert.ok(Date.now() - t0 < 10_000);
    const r = await execute(agent, p, got.receipt);
    assert.equal(r.state, 'Succeeded');
    // Asked again, it answers at once: the receipt was used.
    assert.deepEqual(await waitFor(agent, p), { transaction_id: p.transaction_id, outcome: 'finished', state: 'Succeeded' });
  });

  test('a transaction approved already answers at once with the held receipt', async () => {
    const p = await preview(agent);
    const g = await w.approve(alice, p);
    const t0 = Date.now();
    const o = await waitFor(agent, p, 60_000);
    assert.ok(Date.now() - t0 < 3000);
    assert.equal(o.outcome === 'approved' && o.receipt, g.receipt);
  });

  test('a requester asking while a person approves never finds it approved without its receipt', async () => {
    // The approval's commit is visible to readers before approve() holds the receipt (it waits
    // for the disk first): a wait read in between answered receipt_not_held ("the daemon
    // restarted since"), which ended `airlock do` in CI. Eight asks in flight, for each of 20 approvals.
    for (let round = 0; round < 20; round++) {
      const p = await preview(agent);
      let approved = false;
      const approval = w.approve(alice, p).finally(() => (approved = true));
      for (let seen = 0; seen < 2; ) {
        const answers = await Promise.all(Array.from({ length: 8 }, () => waitFor(agent, p, 0)));
        for (const o of answers) assert.ok(o.outcome === 'pending' || (o.outcome === 'approved' && o.receipt.length > 0), JSON.stringify(o));
        if (approved) seen++;
      }
      const o = await waitFor(agent, p, 0);
      assert.equal(o.outcome === 'approved' && o.receipt, (await approval).receipt);
    }
  });

  test('a denial, with its reason, reaches the waiting requester, and is a signed entry of who and why', async () => {
    const p = await preview(agent);
    const waiting = waitFor(agent, p, 20_000);
    assert.equal(await settlesWithin(waiting, 500), false);
    // A reason is text a person reads: escaped like all text, never refused for a control character.
    const view = await alice.call('deny', { transaction_id: p.transaction_id, reason: 'not on a Friday\u001b[2J, ask again Monday' });
    assert.equal(view.state, 'Canceled');
    assert.match(view.denied_by!, /^alice\(uid \d+\)$/);
    assert.equal(view.deny_reason, 'not on a Friday\\x1b[2J, ask again Monday');
    const o = await waiting;
    assert.deepEqual(o, { transaction_id: p.transaction_id, outcome: 'denied', denied_by: view.denied_by, reason: view.deny_reason });
    const t = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.deepEqual([t.state, t.denied_by, t.deny_reason], ['Canceled', view.denied_by, view.deny_reason]);
    assert.ok((await olga.call('history', { limit: 20 })).some((h) => h.transaction_id === p.transaction_id && h.denied_by === view.denied_by));
    const denied = entries().filter((e) => e.kind === 'denied' && e.transaction_id === p.transaction_id);
    assert.equal(denied.length, 1, 'one signed denied entry');
    assert.equal(denied[0]!.principal?.user, 'alice');
    assert.equal(denied[0]!.details.by, view.denied_by);
    assert.equal(denied[0]!.details.reason, view.deny_reason);
    assert.equal(denied[0]!.details.preview_digest, p.preview_digest);
    const report = await verifyLog(readSqliteLog(w.d.files.db), parsePublicKey((await olga.call('audit.pubkey')).public_key), readFileSync(w.d.files.checkpoints, 'utf8'), { workers: 1 });
    assert.equal(report.status, 'intact', JSON.stringify(report.first_broken));
    // Denied is final: neither approved nor denied again afterwards.
    await rejectsWith(w.approve(alice, p), 'stale_approval', 'not_pending');
    await rejectsWith(alice.call('deny', { transaction_id: p.transaction_id }), 'stale_approval', 'not_pending');
    // Without a reason, the waiter is told there was none.
    const q = await preview(agent);
    await alice.call('deny', { transaction_id: q.transaction_id });
    assert.deepEqual(await waitFor(agent, q), { transaction_id: q.transaction_id, outcome: 'denied', denied_by: view.denied_by, reason: null });
  });

  test('who may deny: a person who may approve it, without a code; not an agent, not a lower role', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'waitg1' });
    await rejectsWith(agent.call('deny', { transaction_id: p.transaction_id }), 'authorization', 'not_an_approver');
    await rejectsWith(bob.call('deny', { transaction_id: p.transaction_id, reason: 'mine now' }), 'authorization', 'not_an_approver');
    await rejectsWith(olga.call('deny', { transaction_id: p.transaction_id }), 'authorization', 'not_an_approver');
    const high = await preview(agent, 'CreateUser', { user: 'waitu1' });
    await rejectsWith(dora.call('deny', { transaction_id: high.transaction_id }), 'authorization', 'role_too_low');
    assert.equal(await state(p), 'Previewed');
    assert.equal(await state(high), 'Previewed');
    await rejectsWith(alice.call('deny', { transaction_id: p.transaction_id, reason: 'x'.repeat(501) }), 'validation', 'bad_reason');
    await rejectsWith(alice.callUnchecked('deny', { transaction_id: p.transaction_id, reason: 42 }), 'validation', 'bad_reason');
    assert.equal((await dora.call('deny', { transaction_id: p.transaction_id, reason: 'x'.repeat(500) })).state, 'Canceled', 'a dev approver denies medium');
    // High risk, and no authenticator code: refusing is the safe direction.
    assert.equal((await alice.call('deny', { transaction_id: high.transaction_id })).state, 'Canceled');
    // An approved one is not denied (it is canceled instead).
    const q = await preview(agent);
    await w.approve(alice, q);
    const e = await rejectsWith(alice.call('deny', { transaction_id: q.transaction_id }), 'stale_approval', 'not_pending');
    assert.match((e as { hint?: string }).hint ?? '', /airlock cancel/);
  });

  test('a cancel ends the wait with canceled', async () => {
    const p = await preview(agent);
    const waiting = waitFor(agent, p, 20_000);
    assert.equal(await settlesWithin(waiting, 300), false);
    await agent.call('cancel', { transaction_id: p.transaction_id });
    assert.deepEqual(await waiting, { transaction_id: p.transaction_id, outcome: 'canceled' });
  });

  test('a timeout returns pending cleanly, and changes nothing', async () => {
    const p = await preview(agent);
    const t0 = Date.now();
    const o = await waitFor(agent, p, 400);
    const took = Date.now() - t0;
    assert.deepEqual(o, { transaction_id: p.transaction_id, outcome: 'pending', expires_at: p.expires_at });
    assert.ok(took >= 380 && took < 5000, `${took} ms`);
    assert.deepEqual(await waitFor(agent, p, 0), o, 'timeout_ms 0 answers at once');
    assert.equal(await state(p), 'Previewed');
    const g = await w.approve(alice, p);
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded', 'the wait spent nothing');
  });
});

describe('bounds', () => {
  test('more than 8 concurrent waits of one principal are refused with a typed transient error, while another principal still waits', async () => {
    const p = await preview(agent);
    const mine = await preview(bob);
    const nine = agent.parallel('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 4000 }, 9);
    await sleep(1000);
    // bob is not held up by agent's waits.
    assert.deepEqual(await waitFor(bob, mine, 200), { transaction_id: mine.transaction_id, outcome: 'pending', expires_at: mine.expires_at });
    const results = await nine;
    const refused = results.filter((r) => !r.ok);
    assert.equal(refused.length, 1, JSON.stringify(results.map((r) => r.error?.code ?? r.result?.outcome)));
    assert.deepEqual([refused[0]!.error!.category, refused[0]!.error!.code], ['transient', 'too_many_waits']);
    assert.ok(results.filter((r) => r.ok).every((r) => r.result!.outcome === 'pending'));
    // All eight gave their slots back when they ended.
    const again = await agent.parallel('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 100 }, 8);
    assert.ok(again.every((r) => r.ok && r.result!.outcome === 'pending'), JSON.stringify(again.map((r) => r.error?.code)));
  });

  test('a waiter that disconnects leaves nothing behind: its slots come back', async () => {
    const p = await preview(agent);
    // A second process of the agent's account holds eight long waits...
    const other = Principal.spawn(agent.identity, w.d.socket);
    try {
      await other.call('audit.pubkey'); // started and connected: a slow start under load is not the daemon's delay
      void other.parallel('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 120_000 }, 8).catch(() => {});
      const probe = () => agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 1 });
      const refused = () => probe().then(() => false, (e: { code?: string }) => e.code === 'too_many_waits');
      await eventually(refused, 'the eight waits are held');
    } finally {
      // ...and goes away without a word: the daemon lets go of them. (Closed whatever happened: its long waits would keep the file alive.)
      other.close();
    }
    const probe = () => agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 1 });
    await eventually(() => probe().then(() => true, (e: { code?: string }) => e.code !== 'too_many_waits'), 'the slots came back', 10_000);
    const again = await agent.parallel('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 100 }, 8);
    assert.ok(again.every((r) => r.ok && r.result!.outcome === 'pending'), JSON.stringify(again.map((r) => r.error?.code)));
  });
});

describe('audit.entries', () => {
  test('pages of the signed log verify with verifyLog and the public key alone, and are the stored bytes', async () => {
    // The checkpoints first: each then covers at most the entries read after it.
    const checkpoints = readFileSync(w.d.files.checkpoints, 'utf8');
    const rows: LogRow[] = [];
    let after = 0;
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 1000);
      const page = await olga.call('audit.entries', { after_seq: after, limit: 7 });
      assert.ok(page.rows.length <= 7);
      rows.push(...page.rows);
      if (page.next_after_seq === null) break;
      assert.equal(page.next_after_seq, page.rows[page.rows.length - 1]!.seq);
      after = page.next_after_seq;
    }
    assert.ok(rows.length > 20);
    assert.deepEqual(rows.map((r) => r.seq), rows.map((_, i) => i + 1), 'seq order, no gap');
    const pub = parsePublicKey((await olga.call('audit.pubkey')).public_key);
    const report = await verifyLog(rows, pub, checkpoints, { workers: 1 });
    assert.equal(report.status, 'intact', JSON.stringify(report.first_broken));
    assert.equal(report.entries, rows.length);
    assert.ok(rows.some((r) => JSON.parse(r.body).kind === 'denied'), 'denials are among them, a kind verifyLog knows');
    const stored = [...readSqliteLog(w.d.files.db)].slice(0, rows.length);
    assert.deepEqual(rows, stored, 'byte for byte what the store holds');
    // A row changed in transit does not verify.
    const forged = rows.map((r, i) => (i === 3 ? { ...r, body: r.body.replace('"kind":', '"kind": ') } : r));
    assert.equal((await verifyLog(forged, pub, null, { workers: 1 })).status, 'broken');
    const whole = await olga.call('audit.entries');
    assert.equal(whole.rows[0]!.seq, 1, 'from the start by default');
    await rejectsWith(olga.call('audit.entries', { limit: 2001 }), 'validation', 'bad_audit_query');
    await rejectsWith(olga.call('audit.entries', { after_seq: -1 }), 'validation', 'bad_audit_query');
  });
});

describe('deadlines', () => {
  test('an expired preview ends the wait with expired, and the idle deadline does not cut a wait', async () => {
    // A preview lives 3 s, nothing sweeps, and a silent connection is dropped after 1 s.
    const short = await startWorld(['--approval-ttl', '0.05', '--sweep-interval', '600', '--idle-timeout', '1'], 'overlay', { policy: ASK_POLICY });
    try {
      const a = await short.as('agent', ['airlock-admin']);
      // Fresh connections only: the shared one would be dropped between calls here.
      const fresh = { fresh: true };
      const root = await AirlockClient.connect(short.d.socket);
      assert.equal(root.welcome.limits.idle_timeout_ms, 1000);
      await sleep(1600);
      assert.equal(root.closed, true, 'a silent connection is dropped after the idle deadline');
      root.close();

      const p = await a.call('preview', { action_name: 'ListUsers', params: {} }, fresh);
      // Longer than the idle deadline, shorter than the preview's life: the wait runs to its own end.
      const t0 = Date.now();
      const o = await a.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 2000 }, fresh);
      assert.equal(o.outcome, 'pending', JSON.stringify(o));
      assert.ok(Date.now() - t0 >= 1900);
      // Then the preview's deadline passes while it is waited for: the wait expires it, with its signed entry.
      const e = await a.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 20_000 }, fresh);
      assert.deepEqual(e, { transaction_id: p.transaction_id, outcome: 'expired' });
      assert.ok(Date.now() - t0 < 8000, 'at the deadline, not at the timeout');
      const expired = [...readSqliteLog(short.d.files.db)].map((r) => JSON.parse(r.body)).filter((x) => x.kind === 'expired' && x.transaction_id === p.transaction_id);
      assert.equal(expired.length, 1);
      assert.equal(expired[0].details.previous_state, 'Previewed');
      assert.deepEqual(await a.call('transaction.wait', { transaction_id: p.transaction_id }, fresh), e, 'asked again: still expired');
    } finally {
      await short.close();
    }
  });
});
