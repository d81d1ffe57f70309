/**
 * The Store contract, written once and run against every backend (SQLite and PostgreSQL):
 * every method's outcomes and refusals, that a refused or failed operation leaves no entry,
 * that the log verifies with the public key after a mix of operations, that a reopened store
 * continues its log, and that concurrent writers never lose or repeat a seq.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { entryHash, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import type { AirlockError } from '../../src/protocol/errors.js';
import { signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { checkpointOrigin, formatCheckpointLine, signCheckpoint } from '../../src/audit/checkpoint.js';
import { EMPTY_ROOT, consistencyProof, inclusionProof, leafHash, nodeHash, rootAt, verifyConsistency, verifyInclusion } from '../../src/audit/merkle.js';
import type { LogHead, PasskeyRecord, Sealer, Store, TxRecord } from '../../src/store/store.js';
import { idsDigest } from '../../src/store/compaction.js';
import { opaqueDraft, type OpaqueDetails } from './opaque-draft.js';

export interface OpenOptions {
  seal: Sealer;
  onAppend?: (head: LogHead, entries: readonly EntryDraft[]) => void;
}

/** One place a store lives (a file, a schema and log id): open it, again after close, and remove it. */
export interface StoreSite {
  open(o: OpenOptions): Promise<Store>;
  cleanup(): Promise<void>;
  /** Makes the closed store one from before retention: no compacted_at column, no retention indexes. */
  removeCompactedAt(): Promise<void>;
}

export const draft = (kind: EntryDraft['kind'], id: string | null = null, details: OpaqueDetails = {}): EntryDraft => opaqueDraft({
  kind,
  transaction_id: id,
  action_name: id ? 'CreateGroup' : null,
  risk: id ? 'medium' : null,
  request_hash: id ? 'h' : null,
  principal: null,
  details,
});

export const txRecord = (id: string, now: number, over: Partial<TxRecord> = {}): TxRecord => ({
  id,
  actionName: 'CreateGroup',
  params: { group: id, nested: { list: [1, 'two', null], flag: true } },
  requestHash: `hash-${id}`,
  risk: 'medium',
  state: 'Previewed',
  requesterUid: 1000,
  requesterName: 'agent',
  requesterRole: 'admin',
  requesterPersonUid: null,
  preview: { summary: `create ${id}`, change: { group: 'created' } },
  previewDigest: `digest-${id}`,
  summary: `Create group ${id}`,
  createdAt: now,
  updatedAt: now,
  expiresAt: now + 60_000,
  approvedBy: null,
  receiptCommitment: null,
  result: null,
  compactedAt: null,
  ...over,
});

/** Every row of the store's log, paged as an auditor reads it. */
export async function allRows(store: Store, page = 50): Promise<LogRow[]> {
  const out: LogRow[] = [];
  for (;;) {
    const rows = await store.logRows(out.length ? out[out.length - 1]!.seq : 0, page);
    out.push(...rows);
    if (rows.length < page) return out;
  }
}

/** RFC 9162's MTH by its definition, over the leaf hashes: what the stored tree must agree with. */
export function naiveRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(naiveRoot(leaves.slice(0, k)), naiveRoot(leaves.slice(k)));
}

export async function assertIntact(store: Store, key: SigningKey, size: number): Promise<void> {
  const rows = await allRows(store);
  assert.deepEqual(
    rows.map((r) => r.seq),
    Array.from({ length: size }, (_, i) => i + 1),
  );
  // A checkpoint of the head the store reports: the evidence of how long the log should be.
  const checkpoint = formatCheckpointLine(signCheckpoint(key, checkpointOrigin('contract', key.keyId), store.logHead().size, store.logHead().hash));
  const report = await verifyLog(rows, key.publicRaw, [{ from: 'the test', text: checkpoint }], { workers: 1 });
  assert.equal(report.status, 'intact', JSON.stringify(report.first_broken));
  assert.equal(report.entries, size);
  assert.deepEqual(store.logHead(), { ...store.logHead(), size, hash: report.head_hash });
  // The Merkle tree: the head's root is the MTH of the stored bodies, and the stored nodes give it too.
  const root = naiveRoot(rows.map((r) => leafHash(r.body)));
  assert.equal(store.logHead().root, root.toString('hex'));
  assert.deepEqual(await rootAt(size, store.merkleNodes), root);
}

const kinds = async (store: Store) => (await allRows(store)).map((r) => JSON.parse(r.body).kind as string);

export function storeContract(name: string, site: () => Promise<StoreSite>): void {
  const key = signingKeyFromSeed(randomBytes(32));
  const seal: Sealer = (d, seq, prev) => sealEntry(key, d, seq, prev);
  /** Runs body on a fresh store, closed and removed afterwards. */
  const withStore = (body: (store: Store, s: StoreSite, heads: LogHead[]) => Promise<void>) => async () => {
    const s = await site();
    const heads: LogHead[] = [];
    const store = await s.open({ seal, onAppend: (h) => heads.push(h) });
    try {
      await body(store, s, heads);
    } finally {
      await store.close();
      await s.cleanup();
    }
  };
  const now = 1_800_000_000_000;

  describe(`Store contract: ${name}`, () => {
    test('a transaction round-trips every field; an unknown id is null', withStore(async (store) => {
      const tx = txRecord('t1', now, { requesterPersonUid: 1001, risk: 'high' });
      await store.createTransaction(tx, draft('preview', 't1'));
      assert.deepEqual(await store.getTransaction('t1'), tx);
      assert.equal(await store.getTransaction('nope'), null);
      assert.equal((await store.getTransaction('t1'))!.requesterPersonUid, 1001);
      await store.createTransaction(txRecord('t2', now), draft('preview', 't2'));
      assert.equal((await store.getTransaction('t2'))!.requesterPersonUid, null);
      await assertIntact(store, key, 2);
    }));

    test('a duplicate transaction id is refused and appends nothing', withStore(async (store) => {
      await store.createTransaction(txRecord('t1', now), draft('preview', 't1'));
      await assert.rejects(store.createTransaction(txRecord('t1', now), draft('preview', 't1')));
      await assertIntact(store, key, 1);
    }));

    test('approval: approved once, then not_pending; an expired preview is not_pending; no entry when refused', withStore(async (store) => {
      await store.createTransaction(txRecord('a', now), draft('preview', 'a'));
      await store.createTransaction(txRecord('late', now, { expiresAt: now + 10 }), draft('preview', 'late'));
      const grant = { approvedBy: 'alice', commitment: 'c-a', expiresAt: now + 900_000, now: now + 1 };
      assert.equal(await store.recordApproval('a', grant, draft('approval_granted', 'a')), 'approved');
      const a = (await store.getTransaction('a'))!;
      assert.equal(a.state, 'Queued');
      assert.equal(a.approvedBy, 'alice');
      assert.equal(a.receiptCommitment, 'c-a');
      assert.equal(a.expiresAt, now + 900_000);
      assert.equal(a.updatedAt, now + 1);
      assert.equal(await store.recordApproval('a', grant, draft('approval_granted', 'a')), 'not_pending');
      assert.equal(await store.recordApproval('late', { ...grant, now: now + 10 }, draft('approval_granted', 'late')), 'not_pending');
      assert.equal(await store.recordApproval('missing', grant, draft('approval_granted', 'missing')), 'not_pending');
      assert.deepEqual(await kinds(store), ['preview', 'preview', 'approval_granted']);
    }));

    test('approval with a spent TOTP step is step_spent and rolls the approval back', withStore(async (store) => {
      await store.issueTotp('alice', 'sealed-1', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.confirmTotp('alice', 'sealed-1', 100, now, draft('totp_enrolled')), true);
      await store.createTransaction(txRecord('x', now), draft('preview', 'x'));
      await store.createTransaction(txRecord('y', now), draft('preview', 'y'));
      const g = { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 };
      assert.equal(await store.recordApproval('x', { ...g, spend: { approver: 'alice', step: 100 } }, draft('approval_granted', 'x')), 'step_spent');
      assert.equal((await store.getTransaction('x'))!.state, 'Previewed');
      assert.equal(await store.recordApproval('x', { ...g, spend: { approver: 'alice', step: 101 } }, draft('approval_granted', 'x')), 'approved');
      assert.equal((await store.totp('alice'))!.lastStep, 101);
      assert.equal(await store.recordApproval('y', { ...g, spend: { approver: 'alice', step: 101 } }, draft('approval_granted', 'y')), 'step_spent');
      assert.equal((await store.getTransaction('y'))!.state, 'Previewed');
      assert.deepEqual(await kinds(store), ['totp_issued', 'totp_enrolled', 'preview', 'preview', 'approval_granted']);
    }));

    describe('passkeys', () => {
      /** A person with a confirmed TOTP factor whose step `step` is spent: what addPasskey's `spend` is checked against. */
      const enrol = async (store: Store, approver: string, step = 100) => {
        assert.equal(await store.issueTotp(approver, `sealed-${approver}`, now, now + 600_000, undefined, draft('totp_issued')), 'issued');
        assert.equal(await store.confirmTotp(approver, `sealed-${approver}`, step, now, draft('totp_enrolled')), true);
      };
      const passkey = (credentialId: string, approver: string, over: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
        credentialId,
        approver,
        publicKey: randomBytes(77),
        counter: 0,
        transports: ['usb', 'nfc'],
        name: `key of ${approver}`,
        createdAt: now,
        lastUsedAt: null,
        ...over,
      });
      const registered = (p: PasskeyRecord) => draft('passkey_registered', null, { approver: p.approver, passkey_id: p.credentialId, name: p.name, rp_id: 'host.example', factor: 'totp' });
      const grant = (at: number, use: { credentialId: string; approver: string; counter: number }, over: { approvedBy?: string; spend?: { approver: string; step: number } } = {}) =>
        ({ approvedBy: use.approver, commitment: 'c', expiresAt: now + 900_000, now: at, passkey: use, ...over });
      /** The transaction ids of the log's approval_granted entries, in order. */
      const granted = async (store: Store) => (await allRows(store)).map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'approval_granted').map((e) => e.transaction_id as string);

      test('added with the person\'s step spent, listed back whole; exists for a known credential id (anyone\'s) and step_spent store nothing; an entry only when added; kept across a reopen', withStore(async (store, s) => {
        await enrol(store, 'alice');
        await enrol(store, 'bob');
        assert.deepEqual(await store.passkeys('alice'), []);
        const size = store.logHead().size;
        const a1 = passkey('cred-a1', 'alice', { counter: 3, transports: ['usb', 'hybrid', 'internal'], name: 'YubiKey 5 «bureau»' });
        assert.equal(await store.addPasskey(a1, { approver: 'alice', step: 101 }, registered(a1)), 'added');
        const listed = await store.passkeys('alice');
        assert.deepEqual(listed, [a1]);
        assert.ok(Buffer.isBuffer(listed[0]!.publicKey) && listed[0]!.publicKey.equals(a1.publicKey), 'the public key bytes');
        assert.equal(listed[0]!.lastUsedAt, null);
        assert.equal((await store.totp('alice'))!.lastStep, 101, 'the step is spent with the add');
        assert.equal(store.logHead().size, size + 1);
        const entry = JSON.parse((await allRows(store)).at(-1)!.body);
        assert.deepEqual([entry.kind, entry.details.passkey_id, entry.details.approver], ['passkey_registered', 'cred-a1', 'alice']);

        // The same credential id again, for bob or for alice: exists, and nothing changes (not even the step).
        const stolen = passkey('cred-a1', 'bob', { name: 'mine now' });
        assert.equal(await store.addPasskey(stolen, { approver: 'bob', step: 101 }, registered(stolen)), 'exists');
        assert.equal(await store.addPasskey({ ...a1, publicKey: randomBytes(77) }, { approver: 'alice', step: 102 }, registered(a1)), 'exists');
        assert.deepEqual(await store.passkeys('bob'), []);
        assert.deepEqual(await store.passkeys('alice'), [a1]);
        assert.equal((await store.totp('bob'))!.lastStep, 100);
        assert.equal((await store.totp('alice'))!.lastStep, 101);
        assert.equal(store.logHead().size, size + 1, 'no entry for exists');

        // A step spent already (or no factor at all): step_spent, nothing stored, no entry.
        const a2 = passkey('cred-a2', 'alice', { createdAt: now + 1 });
        assert.equal(await store.addPasskey(a2, { approver: 'alice', step: 101 }, registered(a2)), 'step_spent');
        assert.equal(await store.addPasskey(a2, { approver: 'alice', step: 50 }, registered(a2)), 'step_spent');
        const c1 = passkey('cred-c1', 'carol');
        assert.equal(await store.addPasskey(c1, { approver: 'carol', step: 1 }, registered(c1)), 'step_spent');
        assert.deepEqual(await store.passkeys('alice'), [a1]);
        assert.deepEqual(await store.passkeys('carol'), []);
        assert.equal(store.logHead().size, size + 1, 'no entry for step_spent');

        // A second one, with the next step: listed oldest first; bob's own is his alone.
        assert.equal(await store.addPasskey(a2, { approver: 'alice', step: 102 }, registered(a2)), 'added');
        const b1 = passkey('cred-b1', 'bob', { transports: [] });
        assert.equal(await store.addPasskey(b1, { approver: 'bob', step: 101 }, registered(b1)), 'added');
        assert.deepEqual(await store.passkeys('alice'), [a1, a2]);
        assert.deepEqual(await store.passkeys('bob'), [b1]);
        assert.deepEqual((await kinds(store)).slice(4), ['passkey_registered', 'passkey_registered', 'passkey_registered']);
        await assertIntact(store, key, size + 3);

        await store.close();
        const again = await s.open({ seal });
        try {
          assert.deepEqual(await again.passkeys('alice'), [a1, a2]);
          assert.deepEqual(await again.passkeys('bob'), [b1]);
        } finally {
          await again.close();
        }
      }));

      test("a reset with passkeys deletes that person's factor and passkeys, nobody else's, with its one entry; a reset without them keeps the passkeys", withStore(async (store) => {
        await enrol(store, 'alice');
        await enrol(store, 'bob');
        const [a1, a2, b1] = [passkey('ra-1', 'alice'), passkey('ra-2', 'alice'), passkey('rb-1', 'bob')];
        for (const [p, step] of [[a1, 101], [a2, 102], [b1, 101]] as const) assert.equal(await store.addPasskey(p, { approver: p.approver, step }, registered(p)), 'added');
        const size = store.logHead().size;
        const seen: unknown[] = [];
        const reset = (had: unknown) => (seen.push(had), draft('totp_reset', null, had as OpaqueDetails));
        assert.deepEqual(await store.resetTotp('bob', reset), { factor: true, pending: false });
        assert.deepEqual(await store.passkeys('bob'), [b1], 'without passkeys: they stay');
        assert.deepEqual(await store.resetTotp('alice', reset, undefined, { passkeys: true }), { factor: true, pending: false, passkeys: 2 });
        assert.deepEqual(await store.passkeys('alice'), []);
        assert.deepEqual(await store.passkeys('bob'), [b1], "nobody else's");
        assert.equal(await store.passkeyByCredential('ra-1'), null);
        assert.deepEqual(seen, [{ factor: true, pending: false }, { factor: true, pending: false, passkeys: 2 }]);
        assert.equal(store.logHead().size, size + 2);
        // Nothing left to reset: no entry.
        assert.deepEqual(await store.resetTotp('alice', reset, undefined, { passkeys: true }), { factor: false, pending: false, passkeys: 0 });
        assert.equal(store.logHead().size, size + 2);
      }));

      test('an approval moves the counter forward with it: the same counter again is passkey_replayed, the transaction stays Previewed with no entry; a higher one approves', withStore(async (store) => {
        await enrol(store, 'alice');
        const pk = passkey('cred-1', 'alice', { counter: 1 });
        assert.equal(await store.addPasskey(pk, { approver: 'alice', step: 101 }, registered(pk)), 'added');
        for (const id of ['p1', 'p2', 'p3', 'p4', 'p5']) await store.createTransaction(txRecord(id, now), draft('preview', id));
        const use = (counter: number) => ({ credentialId: 'cred-1', approver: 'alice', counter });

        assert.equal(await store.recordApproval('p1', grant(now + 1, use(5)), draft('approval_granted', 'p1')), 'approved');
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[5, now + 1]]);
        const size = store.logHead().size;

        // Counter 5 again (a replayed assertion), then 4 (a cloned authenticator behind): refused, nothing written.
        for (const counter of [5, 4]) {
          assert.equal(await store.recordApproval('p2', grant(now + 2, use(counter)), draft('approval_granted', 'p2')), 'passkey_replayed', `counter ${counter}`);
          const p2 = (await store.getTransaction('p2'))!;
          assert.deepEqual([p2.state, p2.approvedBy, p2.receiptCommitment, p2.updatedAt], ['Previewed', null, null, now]);
          assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[5, now + 1]]);
        }
        assert.equal(store.logHead().size, size, 'no entry for a replayed passkey');
        assert.deepEqual(await granted(store), ['p1']);

        // Counter 6: approved, the counter and its last use move with it.
        assert.equal(await store.recordApproval('p2', grant(now + 3, use(6)), draft('approval_granted', 'p2')), 'approved');
        assert.equal((await store.getTransaction('p2'))!.state, 'Queued');
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[6, now + 3]]);

        // With a TOTP step too: a replayed passkey rolls back the step it spent before it.
        assert.equal(await store.recordApproval('p3', grant(now + 4, use(6), { spend: { approver: 'alice', step: 200 } }), draft('approval_granted', 'p3')), 'passkey_replayed');
        assert.equal((await store.totp('alice'))!.lastStep, 101, 'the step spent with a refused approval is rolled back');
        assert.equal((await store.getTransaction('p3'))!.state, 'Previewed');
        assert.equal(await store.recordApproval('p3', grant(now + 5, use(7), { spend: { approver: 'alice', step: 200 } }), draft('approval_granted', 'p3')), 'approved');
        assert.equal((await store.totp('alice'))!.lastStep, 200);
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[7, now + 5]]);

        // A passkey approval of a transaction no longer pending is not_pending, and does not move the counter.
        assert.equal(await store.recordApproval('p3', grant(now + 6, use(50)), draft('approval_granted', 'p3')), 'not_pending');
        assert.equal((await store.passkeys('alice'))[0]!.counter, 7);

        // The same assertion counter arriving for two transactions at once: exactly one is approved.
        const outcomes = await Promise.all(['p4', 'p5'].map((id) => store.recordApproval(id, grant(now + 7, use(8)), draft('approval_granted', id))));
        assert.deepEqual(outcomes.slice().sort(), ['approved', 'passkey_replayed']);
        assert.equal((await store.passkeys('alice'))[0]!.counter, 8);
        assert.deepEqual(await granted(store), ['p1', 'p2', 'p3', outcomes[0] === 'approved' ? 'p4' : 'p5']);
        await assertIntact(store, key, 2 + 1 + 5 + 4);
      }));

      test('an authenticator that keeps no counter (0): 0 after 0 approves each time; once it reported more, 0 is passkey_replayed', withStore(async (store) => {
        await enrol(store, 'alice');
        const pk = passkey('cred-zero', 'alice');
        assert.equal(await store.addPasskey(pk, { approver: 'alice', step: 101 }, registered(pk)), 'added');
        for (const id of ['z1', 'z2', 'z3', 'z4']) await store.createTransaction(txRecord(id, now), draft('preview', id));
        const use = (counter: number) => ({ credentialId: 'cred-zero', approver: 'alice', counter });
        assert.equal(await store.recordApproval('z1', grant(now + 1, use(0)), draft('approval_granted', 'z1')), 'approved');
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[0, now + 1]]);
        assert.equal(await store.recordApproval('z2', grant(now + 2, use(0)), draft('approval_granted', 'z2')), 'approved');
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[0, now + 2]]);
        assert.equal(await store.recordApproval('z3', grant(now + 3, use(3)), draft('approval_granted', 'z3')), 'approved');
        assert.equal(await store.recordApproval('z4', grant(now + 4, use(0)), draft('approval_granted', 'z4')), 'passkey_replayed');
        assert.equal((await store.getTransaction('z4'))!.state, 'Previewed');
        assert.deepEqual((await store.passkeys('alice')).map((p) => [p.counter, p.lastUsedAt]), [[3, now + 3]]);
        assert.deepEqual(await granted(store), ['z1', 'z2', 'z3']);
      }));

      test("approver A's passkey used in approver B's name, or a passkey that is not there: passkey_replayed, nothing written", withStore(async (store) => {
        await enrol(store, 'alice');
        await enrol(store, 'bob');
        const pk = passkey('cred-alice', 'alice', { counter: 2 });
        assert.equal(await store.addPasskey(pk, { approver: 'alice', step: 101 }, registered(pk)), 'added');
        await store.createTransaction(txRecord('x', now), draft('preview', 'x'));
        const size = store.logHead().size;
        // bob approves, presenting alice's credential (as his, and as hers).
        for (const use of [{ credentialId: 'cred-alice', approver: 'bob', counter: 9 }, { credentialId: 'cred-unknown', approver: 'bob', counter: 9 }, { credentialId: 'cred-unknown', approver: 'alice', counter: 9 }]) {
          assert.equal(await store.recordApproval('x', grant(now + 1, use, { approvedBy: 'bob' }), draft('approval_granted', 'x')), 'passkey_replayed', JSON.stringify(use));
          assert.equal((await store.getTransaction('x'))!.state, 'Previewed');
        }
        assert.deepEqual(await store.passkeys('alice'), [pk]);
        assert.deepEqual(await store.passkeys('bob'), []);
        assert.equal(store.logHead().size, size);
        assert.deepEqual(await granted(store), []);
        // Alice's own use of it still works, from where its counter was.
        assert.equal(await store.recordApproval('x', grant(now + 2, { credentialId: 'cred-alice', approver: 'alice', counter: 3 }), draft('approval_granted', 'x')), 'approved');
        assert.deepEqual(await granted(store), ['x']);
      }));
    });

    test('a rule: its daily cap and cooldown refuse with rule_exhausted, and ruleUsage counts the last 24 hours', withStore(async (store) => {
      const rule = { id: 'r1', dailyCap: 2, cooldownMs: 1000 };
      for (const id of ['r-a', 'r-b', 'r-c', 'r-d']) await store.createTransaction(txRecord(id, now, { expiresAt: now + 10 * 86_400_000 }), draft('preview', id));
      const g = (at: number) => ({ approvedBy: 'alice', commitment: 'c', expiresAt: at + 900_000, now: at, rule });
      assert.deepEqual(await store.ruleUsage('r1', now), { lastDay: 0, last: null, firstInDay: null });
      assert.equal(await store.recordApproval('r-a', g(now), draft('approval_granted', 'r-a')), 'approved');
      assert.equal(await store.recordApproval('r-b', g(now + 500), draft('approval_granted', 'r-b')), 'rule_exhausted');
      assert.equal((await store.getTransaction('r-b'))!.state, 'Previewed');
      assert.equal(await store.recordApproval('r-b', g(now + 1000), draft('approval_granted', 'r-b')), 'approved');
      assert.equal(await store.recordApproval('r-c', g(now + 5000), draft('approval_granted', 'r-c')), 'rule_exhausted');
      assert.deepEqual(await store.ruleUsage('r1', now + 5000), { lastDay: 2, last: now + 1000, firstInDay: now });
      // A day after the first, one place is free again.
      const later = now + 86_400_000 + 1;
      assert.deepEqual(await store.ruleUsage('r1', later), { lastDay: 1, last: now + 1000, firstInDay: now + 1000 });
      assert.equal(await store.recordApproval('r-c', g(later), draft('approval_granted', 'r-c')), 'approved');
      assert.deepEqual(await store.ruleUsage('other', later), { lastDay: 0, last: null, firstInDay: null });
      assert.deepEqual(await kinds(store), ['preview', 'preview', 'preview', 'preview', 'approval_granted', 'approval_granted', 'approval_granted']);
    }));

    test('a rule with a cap of one: concurrent approvals grant exactly one', withStore(async (store) => {
      const rule = { id: 'once', dailyCap: 1, cooldownMs: 0 };
      const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
      for (const id of ids) await store.createTransaction(txRecord(id, now), draft('preview', id));
      const outcomes = await Promise.all(ids.map((id) => store.recordApproval(id, { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1, rule }, draft('approval_granted', id))));
      assert.equal(outcomes.filter((o) => o === 'approved').length, 1);
      assert.equal(outcomes.filter((o) => o === 'rule_exhausted').length, 11);
      await assertIntact(store, key, 13);
    }));

    test('consumeReceipt: consumed once; then already_consumed; mismatch, expired, not_queued, not_found', withStore(async (store) => {
      for (const id of ['q', 'm', 'e', 'p']) await store.createTransaction(txRecord(id, now), draft('preview', id));
      for (const id of ['q', 'm', 'e']) {
        await store.recordApproval(id, { approvedBy: 'alice', commitment: `c-${id}`, expiresAt: id === 'e' ? now + 5 : now + 900_000, now: now + 1 }, draft('approval_granted', id));
      }
      const started = [draft('approval_consumed', 'q'), draft('execution_started', 'q')];
      assert.equal(await store.consumeReceipt('m', 'c-wrong', now + 2, started), 'mismatch');
      assert.equal(await store.consumeReceipt('e', 'c-e', now + 5, started), 'expired');
      assert.equal(await store.consumeReceipt('p', 'c-p', now + 2, started), 'not_queued');
      assert.equal(await store.consumeReceipt('none', 'c', now + 2, started), 'not_found');
      assert.equal(await store.consumeReceipt('q', 'c-q', now + 2, started), 'consumed');
      assert.equal((await store.getTransaction('q'))!.state, 'Running');
      assert.equal(await store.consumeReceipt('q', 'c-q', now + 3, started), 'already_consumed');
      assert.deepEqual((await kinds(store)).slice(-2), ['approval_consumed', 'execution_started']);
      await assertIntact(store, key, 4 + 3 + 2);
    }));

    test('finish: Running to a terminal state with its result; finishing again is refused and appends nothing', withStore(async (store) => {
      await store.createTransaction(txRecord('f', now), draft('preview', 'f'));
      await store.recordApproval('f', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'f'));
      await store.consumeReceipt('f', 'c', now + 2, [draft('approval_consumed', 'f')]);
      await store.finish('f', 'Succeeded', { state: 'Succeeded', summary: 'done' }, now + 3, draft('outcome', 'f'));
      const f = (await store.getTransaction('f'))!;
      assert.equal(f.state, 'Succeeded');
      assert.deepEqual(f.result, { state: 'Succeeded', summary: 'done' });
      assert.equal(f.updatedAt, now + 3);
      await assert.rejects(store.finish('f', 'Failed', {}, now + 4, draft('outcome', 'f')), (e: Error & { code?: string }) => e.code === 'not_running');
      await assertIntact(store, key, 4);
    }));

    test('cancel: from Previewed or Queued, with a result; onlyFrom Previewed leaves a Queued one; never twice', withStore(async (store) => {
      for (const id of ['k1', 'k2', 'k3']) await store.createTransaction(txRecord(id, now), draft('preview', id));
      await store.recordApproval('k2', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'k2'));
      await store.recordApproval('k3', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'k3'));
      assert.equal(await store.cancel('k1', now + 2, draft('denied', 'k1'), { result: { denied_by: 'bob' }, onlyFrom: 'Previewed' }), true);
      assert.deepEqual((await store.getTransaction('k1'))!.result, { denied_by: 'bob' });
      assert.equal((await store.getTransaction('k1'))!.state, 'Canceled');
      assert.equal(await store.cancel('k2', now + 2, draft('denied', 'k2'), { onlyFrom: 'Previewed' }), false);
      assert.equal((await store.getTransaction('k2'))!.state, 'Queued');
      assert.equal(await store.cancel('k2', now + 2, draft('canceled', 'k2')), true);
      assert.equal((await store.getTransaction('k2'))!.result, null);
      assert.equal(await store.cancel('k2', now + 3, draft('canceled', 'k2')), false);
      assert.equal(await store.cancel('absent', now + 3, draft('canceled', 'absent')), false);
      assert.deepEqual((await kinds(store)).slice(5), ['denied', 'canceled']);
    }));

    test('expireDue and expire: each stage that ran out is named; a transaction not due is left alone', withStore(async (store) => {
      await store.createTransaction(txRecord('p1', now, { expiresAt: now + 10 }), draft('preview', 'p1'));
      await store.createTransaction(txRecord('q1', now, { expiresAt: now + 10 }), draft('preview', 'q1'));
      await store.createTransaction(txRecord('fresh', now, { expiresAt: now + 100_000 }), draft('preview', 'fresh'));
      await store.createTransaction(txRecord('one', now, { expiresAt: now + 10 }), draft('preview', 'one'));
      await store.recordApproval('q1', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 20, now: now + 1 }, draft('approval_granted', 'q1'));
      assert.equal(await store.expire('fresh', now + 30, (tx) => draft('expired', tx.id)), null);
      const one = await store.expire('one', now + 30, (tx) => draft('expired', tx.id));
      assert.equal(one?.id, 'one');
      assert.equal(one?.state, 'Previewed'); // as it was
      assert.equal(await store.expire('one', now + 31, (tx) => draft('expired', tx.id)), null);
      const ids = await store.expireDue(now + 30, (tx) => draft('expired', tx.id, { from: tx.state }));
      assert.deepEqual(ids.sort(), ['p1', 'q1']);
      assert.equal((await store.getTransaction('p1'))!.result!.expired, 'preview');
      assert.equal((await store.getTransaction('q1'))!.result!.expired, 'receipt');
      assert.equal((await store.getTransaction('fresh'))!.state, 'Previewed');
      assert.deepEqual(await store.expireDue(now + 30, (tx) => draft('expired', tx.id)), []);
      const rows = await allRows(store);
      const froms = rows.map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'expired' && e.transaction_id !== 'one').map((e) => e.details.from).sort();
      assert.deepEqual(froms, ['Previewed', 'Queued']);
      await assertIntact(store, key, 8);
    }));

    test('reconcileInterrupted marks Running transactions Failed, one entry each', withStore(async (store) => {
      for (const id of ['r1', 'r2', 'idle']) await store.createTransaction(txRecord(id, now), draft('preview', id));
      for (const id of ['r1', 'r2']) {
        await store.recordApproval(id, { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', id));
        await store.consumeReceipt(id, 'c', now + 2, [draft('approval_consumed', id)]);
      }
      const ids = await store.reconcileInterrupted(now + 3, (tx) => draft('reconciled', tx.id, { was: tx.state }));
      assert.deepEqual(ids.sort(), ['r1', 'r2']);
      assert.equal((await store.getTransaction('r1'))!.state, 'Failed');
      assert.match(String((await store.getTransaction('r2'))!.result!.summary), /interrupted/);
      assert.equal((await store.getTransaction('idle'))!.state, 'Previewed');
      assert.deepEqual(await store.reconcileInterrupted(now + 4, (tx) => draft('reconciled', tx.id)), []);
      const rec = (await allRows(store)).map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'reconciled');
      assert.deepEqual(rec.map((e) => e.details.was), ['Running', 'Running']);
    }));

    test('awaitingReboot lists NeedsReboot oldest first, bounded; reconcileReboot finishes one once, with its entry', withStore(async (store) => {
      for (const [i, id] of ['n1', 'n2', 'n3', 'ok'].entries()) {
        await store.createTransaction(txRecord(id, now + i), draft('preview', id));
        await store.recordApproval(id, { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 10 }, draft('approval_granted', id));
        await store.consumeReceipt(id, 'c', now + 11, [draft('approval_consumed', id)]);
        await store.finish(id, id === 'ok' ? 'Succeeded' : 'NeedsReboot', { state: 'x', boot_id_before: `boot-${id}` }, now + 12, draft('outcome', id));
      }
      assert.deepEqual((await store.awaitingReboot(2)).map((t) => t.id), ['n1', 'n2']);
      assert.deepEqual((await store.awaitingReboot(10)).map((t) => [t.id, t.result!.boot_id_before]), [['n1', 'boot-n1'], ['n2', 'boot-n2'], ['n3', 'boot-n3']]);
      assert.equal(await store.reconcileReboot('n1', 'Succeeded', { state: 'Succeeded', summary: 'back' }, now + 20, draft('reboot_reconciled', 'n1')), true);
      assert.equal(await store.reconcileReboot('n1', 'Failed', { state: 'Failed' }, now + 21, draft('reboot_reconciled', 'n1')), false, 'once');
      assert.equal(await store.reconcileReboot('ok', 'Succeeded', { state: 'Succeeded' }, now + 21, draft('reboot_reconciled', 'ok')), false, 'only from NeedsReboot');
      assert.equal(await store.reconcileReboot('n2', 'Failed', { state: 'Failed' }, now + 22, draft('reboot_reconciled', 'n2')), true);
      assert.deepEqual([(await store.getTransaction('n1'))!.state, (await store.getTransaction('n1'))!.result!.summary, (await store.getTransaction('n2'))!.state], ['Succeeded', 'back', 'Failed']);
      assert.deepEqual((await store.awaitingReboot(10)).map((t) => t.id), ['n3']);
      const rec = (await allRows(store)).map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'reboot_reconciled');
      assert.deepEqual(rec.map((e) => e.transaction_id), ['n1', 'n2'], 'one entry per reconciliation, none for a refused one');
    }));

    test('TOTP: issue, confirm, wrong codes, lockout, pending failures, reset', withStore(async (store) => {
      assert.equal(await store.totp('alice'), null);
      assert.equal(await store.pendingTotp('alice'), null);
      assert.equal(await store.issueTotp('alice', 's1', now, now + 600_000, undefined, draft('totp_issued')), 'issued');
      assert.deepEqual(await store.pendingTotp('alice'), { approver: 'alice', sealedSecret: 's1', issuedAt: now, expiresAt: now + 600_000, failures: 0, confirmedStep: null });
      assert.equal(await store.recordPendingTotpFailure('alice', 3), 2);
      assert.equal(await store.recordPendingTotpFailure('alice', 3), 1);
      assert.equal(await store.confirmTotp('alice', 'other', 5, now, draft('totp_enrolled')), false);
      assert.equal(await store.confirmTotp('alice', 's1', 5, now + 600_000, draft('totp_enrolled')), false); // expired
      assert.equal(await store.confirmTotp('alice', 's1', 5, now + 1, draft('totp_enrolled')), true);
      assert.equal(await store.pendingTotp('alice'), null);
      assert.deepEqual(await store.totp('alice'), { approver: 'alice', sealedSecret: 's1', enrolledAt: now + 1, lastStep: 5, failures: 0, lockedUntil: 0 });
      // A new pending secret, issued with a step of the confirmed factor spent.
      assert.equal(await store.issueTotp('alice', 's2', now, now + 600_000, { approver: 'alice', step: 5 }, draft('totp_issued')), 'step_spent');
      assert.equal(await store.pendingTotp('alice'), null);
      assert.equal(await store.issueTotp('alice', 's2', now, now + 600_000, { approver: 'alice', step: 6 }, draft('totp_issued')), 'issued');
      assert.equal((await store.totp('alice'))!.sealedSecret, 's1'); // still in force until confirmed
      assert.equal(await store.recordPendingTotpFailure('alice', 1), 0);
      assert.equal(await store.pendingTotp('alice'), null); // dropped at the limit
      assert.equal(await store.recordPendingTotpFailure('nobody', 3), 0);
      const limits = { maxFailures: 2, lockMs: 60_000 };
      assert.equal((await store.recordTotpFailure('alice', now, limits, draft('totp_lockout'))).failures, 1);
      const locked = await store.recordTotpFailure('alice', now, limits, draft('totp_lockout'));
      assert.equal(locked.failures, 2);
      assert.equal(locked.lockedUntil, now + 60_000);
      assert.equal((await store.totp('alice'))!.failures, 0);
      assert.deepEqual(await store.resetTotp('alice', (had) => draft('totp_reset', null, had)), { factor: true, pending: false });
      assert.deepEqual(await store.resetTotp('alice', (had) => draft('totp_reset', null, had)), { factor: false, pending: false });
      assert.equal(await store.totp('alice'), null);
      assert.deepEqual(await kinds(store), ['totp_issued', 'totp_enrolled', 'totp_issued', 'totp_lockout', 'totp_reset']);
    }));

    test('a proven first enrolment waits for another approver: approved once with their step spent, never confirmed directly, gone once replaced', withStore(async (store) => {
      const now = Date.now();
      assert.equal(await store.anyTotp(), false);
      await store.issueTotp('alice', 'sa', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.confirmTotp('alice', 'sa', 3, now, draft('totp_enrolled')), true);
      assert.equal(await store.anyTotp(), true);
      await store.issueTotp('bob', 'sb', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.awaitTotpApproval('bob', 'other', 7, now, now + 86_400_000, draft('totp_awaiting_approval')), false);
      assert.equal(await store.awaitTotpApproval('bob', 'sb', 7, now + 600_000, now + 86_400_000, draft('totp_awaiting_approval')), false); // lapsed
      const before = (await store.logHead()).size;
      assert.equal(await store.approveTotp([{ approver: 'bob', sealedSecret: 'sb', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 10 }), 'gone'); // not proven yet
      assert.equal((await store.logHead()).size, before, 'a refused approval appends nothing');
      assert.equal(await store.awaitTotpApproval('bob', 'sb', 7, now, now + 86_400_000, draft('totp_awaiting_approval')), true);
      assert.equal(await store.awaitTotpApproval('bob', 'sb', 8, now, now + 86_400_000, draft('totp_awaiting_approval')), false); // proven once
      assert.deepEqual(await store.pendingTotp('bob'), { approver: 'bob', sealedSecret: 'sb', issuedAt: now, expiresAt: now + 86_400_000, failures: 0, confirmedStep: 7 });
      // A proven enrolment is never confirmed by the person alone.
      assert.equal(await store.confirmTotp('bob', 'sb', 8, now, draft('totp_enrolled')), false);
      assert.equal(await store.totp('bob'), null);
      // The approving person's step is spent with it: a step spent already approves nothing.
      assert.equal(await store.approveTotp([{ approver: 'bob', sealedSecret: 'sb', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 3 }), 'step_spent');
      assert.equal((await store.pendingTotp('bob'))?.confirmedStep, 7, 'a refused approval leaves the enrolment waiting');
      assert.equal(await store.approveTotp([{ approver: 'bob', sealedSecret: 'sb', entry: draft('totp_enrolled') }], now + 86_400_000, { approver: 'alice', step: 11 }), 'gone'); // lapsed
      assert.equal(await store.approveTotp([{ approver: 'bob', sealedSecret: 'sb', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 11 }), 'approved');
      assert.deepEqual([(await store.totp('bob'))?.sealedSecret, (await store.totp('bob'))?.lastStep, (await store.totp('alice'))?.lastStep], ['sb', 7, 11]);
      assert.equal(await store.pendingTotp('bob'), null);
      assert.equal(await store.approveTotp([{ approver: 'bob', sealedSecret: 'sb', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 12 }), 'gone');
      // A new enrolment replaces a proven one that waits: it must be proven (and approved) again.
      await store.issueTotp('carol', 'sc', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.awaitTotpApproval('carol', 'sc', 7, now, now + 86_400_000, draft('totp_awaiting_approval')), true);
      await store.issueTotp('carol', 'sc2', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal((await store.pendingTotp('carol'))?.confirmedStep, null);
      assert.equal(await store.approveTotp([{ approver: 'carol', sealedSecret: 'sc', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 13 }), 'gone');
      // Several at once, all or none: one that cannot be approved leaves the others waiting and the step unspent.
      await store.issueTotp('dan', 'sd', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.awaitTotpApproval('dan', 'sd', 7, now, now + 86_400_000, draft('totp_awaiting_approval')), true);
      assert.equal(await store.awaitTotpApproval('carol', 'sc2', 7, now, now + 86_400_000, draft('totp_awaiting_approval')), true);
      const both = [{ approver: 'dan', sealedSecret: 'sd', entry: draft('totp_enrolled') }, { approver: 'carol', sealedSecret: 'sc2', entry: draft('totp_enrolled') }];
      assert.equal(await store.approveTotp([both[0]!, { approver: 'erin', sealedSecret: 'se', entry: draft('totp_enrolled') }], now, { approver: 'alice', step: 13 }), 'gone');
      assert.equal((await store.pendingTotp('dan'))?.confirmedStep, 7);
      const head = (await store.logHead()).size;
      assert.equal(await store.approveTotp(both, now, { approver: 'alice', step: 13 }), 'approved');
      assert.equal((await store.logHead()).size, head + 2, 'one entry per approved enrolment');
      assert.deepEqual([(await store.totp('dan'))?.sealedSecret, (await store.totp('carol'))?.sealedSecret, (await store.totp('alice'))?.lastStep], ['sd', 'sc2', 13]);
    }));

    test('sealing the TOTP secrets seals each once and marks the store sealed', withStore(async (store) => {
      assert.equal(await store.totpSecretsSealed(), false);
      await store.issueTotp('a', 'clear-a', now, now + 600_000, undefined, draft('totp_issued'));
      await store.confirmTotp('a', 'clear-a', 1, now, draft('totp_enrolled'));
      await store.issueTotp('b', 'clear-b', now, now + 600_000, undefined, draft('totp_issued'));
      assert.equal(await store.sealTotpSecrets((who, s) => `sealed(${who},${s})`), 2);
      assert.equal(await store.totpSecretsSealed(), true);
      assert.equal((await store.totp('a'))!.sealedSecret, 'sealed(a,clear-a)');
      assert.equal((await store.pendingTotp('b'))!.sealedSecret, 'sealed(b,clear-b)');
      assert.equal(await store.sealTotpSecrets((who, s) => `again(${who},${s})`), 0);
      assert.equal((await store.totp('a'))!.sealedSecret, 'sealed(a,clear-a)');
    }));

    test('history: newest first, filtered by state, action and time, limited', withStore(async (store) => {
      for (let i = 0; i < 6; i++) await store.createTransaction(txRecord(`h${i}`, now + (i < 3 ? 0 : i), { actionName: i % 2 ? 'DeleteGroup' : 'CreateGroup' }), draft('preview', `h${i}`));
      await store.cancel('h4', now + 10, draft('canceled', 'h4'));
      assert.deepEqual((await store.history({ limit: 10 })).map((t) => t.id), ['h5', 'h4', 'h3', 'h2', 'h1', 'h0']);
      assert.deepEqual((await store.history({ limit: 2 })).map((t) => t.id), ['h5', 'h4']);
      assert.deepEqual((await store.history({ limit: 10, state: 'Canceled' })).map((t) => t.id), ['h4']);
      assert.deepEqual((await store.history({ limit: 10, action: 'DeleteGroup' })).map((t) => t.id), ['h5', 'h3', 'h1']);
      assert.deepEqual((await store.history({ limit: 10, sinceMs: now + 4 })).map((t) => t.id), ['h5', 'h4']);
      assert.deepEqual((await store.history({ limit: 10, sinceMs: now + 4, action: 'CreateGroup' })).map((t) => t.id), ['h4']);
    }));

    test('appendEntries, logRows pages, logHead and onAppend follow each commit; a reopened store continues the log', withStore(async (store, s, heads) => {
      assert.deepEqual(store.logHead(), { ...store.logHead(), size: 0, hash: '0'.repeat(64) });
      await store.appendEntries([]);
      assert.equal(heads.length, 0);
      await store.appendEntries([draft('daemon_started'), draft('policy_reloaded')]);
      assert.equal(store.logHead().size, 2);
      assert.deepEqual(heads.map((h) => h.size), [2]);
      assert.deepEqual((await store.logRows(1, 10)).map((r) => r.seq), [2]);
      assert.deepEqual(await store.logRows(2, 10), []);
      assert.deepEqual((await store.logRows(0, 1)).map((r) => r.seq), [1]);
      const head = store.logHead();
      await store.close(); // withStore closes it again at the end, which is harmless
      const again = await s.open({ seal });
      try {
        assert.deepEqual(again.logHead(), head);
        await again.appendEntries([draft('daemon_started')]);
        await assertIntact(again, key, 3);
        assert.deepEqual(await again.integrityCheck(10), ['ok']);
      } finally {
        await again.close();
      }
      // withStore closes `store` again: a second close must be harmless.
    }));

    test('transactionEntries: one transaction\'s rows in seq order, at most the limit; none for an unknown id', withStore(async (store) => {
      for (const id of ['e1', 'e2']) await store.createTransaction(txRecord(id, now), draft('preview', id));
      await store.appendEntries([draft('daemon_started')]);
      await store.recordApproval('e1', { approvedBy: 'al', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'e1'));
      await store.consumeReceipt('e1', 'c', now + 2, [draft('approval_consumed', 'e1'), draft('execution_started', 'e1')]);
      assert.deepEqual((await store.transactionEntries('e1', 10)).map((r) => [r.seq, JSON.parse(r.body).kind]), [[1, 'preview'], [4, 'approval_granted'], [5, 'approval_consumed'], [6, 'execution_started']]);
      assert.deepEqual((await store.transactionEntries('e1', 2)).map((r) => r.seq), [1, 4]);
      assert.deepEqual((await store.transactionEntries('e2', 10)).map((r) => r.seq), [2]);
      assert.deepEqual(await store.transactionEntries('nope', 10), []);
      const all = await allRows(store);
      assert.deepEqual(await store.transactionEntries('e1', 1), [all[0]]); // as stored, the signed bytes
    }));

    // Retention (src/store/compaction.ts): a transaction driven to each state, then compacted and pruned.
    const finished = async (store: Store, id: string, state: 'Succeeded' | 'Failed' | 'NeedsReboot' | 'RolledBack', at: number) => {
      await store.createTransaction(txRecord(id, at, { expiresAt: at + 900_000 }), draft('preview', id));
      await store.recordApproval(id, { approvedBy: 'alice(uid 1001)', commitment: `c-${id}`, expiresAt: at + 900_000, now: at + 1 }, draft('approval_granted', id));
      await store.consumeReceipt(id, `c-${id}`, at + 2, [draft('approval_consumed', id)]);
      const error = state === 'Failed' ? { category: 'execution', code: 'program_failed', message: 'useradd said: secret-ish text', hint: 'look' } : null;
      await store.finish(id, state, { state, summary: `the summary of ${id}`, needs_reboot: state === 'NeedsReboot', changed: true, rollback_ref: null, error }, at + 3, draft('outcome', id));
    };
    const retention = (kind: 'compacted' | 'history_pruned', before: number) => (count: number, ids: string) => draft(kind, null, { count, finished_before: new Date(before).toISOString(), ids_sha256: ids });

    test('compactFinished: only finished, old, not yet compacted transactions; one verifying entry; limit; idempotent', withStore(async (store) => {
      for (const [id, state] of [['s', 'Succeeded'], ['f', 'Failed'], ['n', 'NeedsReboot'], ['r', 'RolledBack']] as const) await finished(store, id, state, now);
      await store.createTransaction(txRecord('c', now), draft('preview', 'c'));
      await store.cancel('c', now + 3, draft('denied', 'c'), { result: { state: 'Canceled', summary: 'denied', denied_by: 'bob(uid 1002)', reason: 'not today' } });
      await store.createTransaction(txRecord('pv', now, { expiresAt: now + 900_000 }), draft('preview', 'pv'));
      await store.createTransaction(txRecord('qu', now, { expiresAt: now + 900_000 }), draft('preview', 'qu'));
      await store.recordApproval('qu', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'qu'));
      await store.createTransaction(txRecord('ru', now, { expiresAt: now + 900_000 }), draft('preview', 'ru'));
      await store.recordApproval('ru', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', 'ru'));
      await store.consumeReceipt('ru', 'c', now + 2, [draft('approval_consumed', 'ru')]);
      await finished(store, 'young', 'Succeeded', now + 10_000); // finished after the cutoff
      const size = store.logHead().size;
      const before = (await store.getTransaction('f'))!;
      const cutoff = now + 5_000;
      const at = now + 20_000;
      // A limit of 2: the two that finished first (updated_at order), one entry.
      assert.equal(await store.compactFinished(cutoff, 2, at, retention('compacted', cutoff)), 2);
      assert.equal(store.logHead().size, size + 1);
      assert.equal(await store.compactFinished(cutoff, 100, at, retention('compacted', cutoff)), 3);
      assert.equal(await store.compactFinished(cutoff, 100, at + 1, retention('compacted', cutoff)), 0, 'a second pass has nothing to do');
      assert.equal(store.logHead().size, size + 2, 'and appends nothing');
      const rows = await allRows(store);
      const entries = rows.slice(-2).map((r) => JSON.parse(r.body));
      assert.deepEqual(entries.map((e) => [e.kind, e.details.count]), [['compacted', 2], ['compacted', 3]]);
      const compacted = ['s', 'f', 'n', 'r', 'c'];
      const first = entries[0].details.ids_sha256 as string;
      const second = entries[1].details.ids_sha256 as string;
      assert.ok([first, second].every((d) => /^[0-9a-f]{64}$/.test(d)));
      // Together the two batches are the five finished ones, each once.
      const pairs = compacted.flatMap((a) => compacted.filter((b) => a < b).map((b) => [a, b]));
      const firstPair = pairs.find((p) => idsDigest(p) === first);
      assert.ok(firstPair, 'the first entry digests two of the finished ids');
      assert.equal(second, idsDigest(compacted.filter((x) => !firstPair!.includes(x))));
      assert.equal(entries[0].details.finished_before, new Date(cutoff).toISOString());
      // What a compacted transaction keeps, and what it loses.
      const f = (await store.getTransaction('f'))!;
      assert.deepEqual(f, {
        ...before,
        params: {},
        preview: {},
        receiptCommitment: null,
        result: { state: 'Failed', changed: true, needs_reboot: false, error: { category: 'execution', code: 'program_failed' } },
        compactedAt: at,
      });
      assert.equal(f.approvedBy, 'alice(uid 1001)');
      assert.deepEqual((await store.getTransaction('n'))!.result, { state: 'NeedsReboot', changed: true, needs_reboot: true, error: null });
      assert.deepEqual((await store.getTransaction('c'))!.result, { state: 'Canceled', changed: false, needs_reboot: false, error: null, denied_by: 'bob(uid 1002)' });
      // Never a transaction still in progress, nor one finished after the cutoff.
      for (const id of ['pv', 'qu', 'ru', 'young']) {
        const t = (await store.getTransaction(id))!;
        assert.equal(t.compactedAt, null, id);
        assert.deepEqual(t.params, txRecord(id, now).params, id);
      }
      assert.equal((await store.getTransaction('qu'))!.receiptCommitment, 'c');
      // Even far past every deadline, a Previewed, Queued or Running transaction is left whole.
      assert.equal(await store.compactFinished(now + 10 ** 9, 100, at + 2, retention('compacted', now + 10 ** 9)), 1); // 'young' alone
      for (const id of ['pv', 'qu', 'ru']) assert.equal((await store.getTransaction(id))!.compactedAt, null, id);
      assert.equal((await store.history({ limit: 100 })).length, 9, 'history still lists every one');
      await assertIntact(store, key, size + 3);
    }));

    test('pruneHistory: deletes only compacted transactions past the cutoff, with one entry; limit; idempotent; old rule uses go', withStore(async (store) => {
      for (const id of ['a', 'b', 'c']) await finished(store, id, 'Succeeded', now);
      await finished(store, 'whole', 'Succeeded', now); // finished as long ago, but never compacted
      await store.createTransaction(txRecord('pv', now, { expiresAt: now + 10 ** 10 }), draft('preview', 'pv'));
      const cutoff = now + 5_000;
      assert.equal(await store.compactFinished(cutoff, 3, now + 6_000, retention('compacted', cutoff)), 3);
      const size = store.logHead().size;
      const notYet = await store.pruneHistory(now, 100, now + 7_000, retention('history_pruned', now)); // nothing updated before `now`
      assert.equal(notYet, 0);
      assert.equal(store.logHead().size, size, 'nothing pruned: no entry');
      assert.equal(await store.pruneHistory(cutoff, 2, now + 7_000, retention('history_pruned', cutoff)), 2);
      assert.equal(await store.pruneHistory(cutoff, 100, now + 7_000, retention('history_pruned', cutoff)), 1);
      assert.equal(await store.pruneHistory(cutoff, 100, now + 7_000, retention('history_pruned', cutoff)), 0);
      const entries = (await allRows(store)).slice(size).map((r) => JSON.parse(r.body));
      assert.deepEqual(entries.map((e) => [e.kind, e.details.count]), [['history_pruned', 2], ['history_pruned', 1]]);
      for (const id of ['a', 'b', 'c']) assert.equal(await store.getTransaction(id), null, id);
      assert.equal((await store.getTransaction('whole'))!.compactedAt, null, 'an uncompacted transaction is never deleted');
      assert.ok(await store.getTransaction('pv'));
      assert.deepEqual((await store.history({ limit: 100 })).map((t) => t.id).sort(), ['pv', 'whole']);
      // The entries of the deleted transactions stay in the log.
      assert.equal((await store.transactionEntries('a', 10)).length, 4);
      await assertIntact(store, key, size + 2);

      // Rule uses: those no daily cap counts go, except each rule's last (its cooldown measures from it).
      const rule = (id: string) => ({ id, dailyCap: 100, cooldownMs: 0 });
      const day = 86_400_000;
      for (const [i, [rid, at]] of ([['old', now], ['old', now + 1000], ['recent', now], ['recent', now + 2 * day]] as const).entries()) {
        const id = `ru${i}`;
        await store.createTransaction(txRecord(id, now, { expiresAt: now + 10 * day }), draft('preview', id));
        assert.equal(await store.recordApproval(id, { approvedBy: 'al', commitment: 'c', expiresAt: now + 10 * day, now: at, rule: rule(rid) }, draft('approval_granted', id)), 'approved');
      }
      const later = now + 2 * day + 60_000;
      assert.deepEqual(await store.ruleUsage('old', later), { lastDay: 0, last: now + 1000, firstInDay: null });
      await store.pruneHistory(cutoff, 100, later, retention('history_pruned', cutoff));
      assert.deepEqual(await store.ruleUsage('old', later), { lastDay: 0, last: now + 1000, firstInDay: null }, 'the last use stays for the cooldown');
      assert.deepEqual(await store.ruleUsage('recent', later), { lastDay: 1, last: now + 2 * day, firstInDay: now + 2 * day });
      // A day cap counts exactly what it counted before: one place used by 'recent' in the last day.
      assert.equal(await store.recordApproval('pv', { approvedBy: 'al', commitment: 'c', expiresAt: now + 10 * day, now: later, rule: { id: 'recent', dailyCap: 1, cooldownMs: 0 } }, draft('approval_granted', 'pv')), 'rule_exhausted');
    }));

    test('a store from before retention gains compacted_at when opened, and its transactions compact', withStore(async (first, s) => {
      await finished(first, 'old', 'Succeeded', now);
      await first.close();
      await s.removeCompactedAt();
      const store = await s.open({ seal });
      try {
        assert.equal((await store.getTransaction('old'))!.compactedAt, null);
        assert.equal(await store.compactFinished(now + 5_000, 10, now + 6_000, retention('compacted', now + 5_000)), 1);
        assert.equal((await store.getTransaction('old'))!.compactedAt, now + 6_000);
        await assertIntact(store, key, 5);
      } finally {
        await store.close();
      }
    }));

    test('a mix of every operation leaves a log that verifies, and the store passes its own check', withStore(async (store) => {
      await store.appendEntries([draft('daemon_started')]);
      await store.issueTotp('al', 's', now, now + 600_000, undefined, draft('totp_issued'));
      await store.confirmTotp('al', 's', 1, now, draft('totp_enrolled'));
      for (let i = 0; i < 5; i++) {
        const id = `mix${i}`;
        await store.createTransaction(txRecord(id, now), draft('preview', id));
        await store.recordApproval(id, { approvedBy: 'al', commitment: 'c', expiresAt: now + 900_000, now: now + 1, spend: { approver: 'al', step: 2 + i } }, draft('approval_granted', id));
        await store.consumeReceipt(id, 'c', now + 2, [draft('approval_consumed', id), draft('execution_started', id)]);
        await store.finish(id, i % 2 ? 'Failed' : 'Succeeded', { i }, now + 3, draft('outcome', id));
      }
      await store.recordTotpFailure('al', now, { maxFailures: 1, lockMs: 1 }, draft('totp_lockout'));
      await store.resetTotp('al', (had) => draft('totp_reset', null, had));
      await assertIntact(store, key, 3 + 5 * 5 + 2);
      assert.deepEqual(await store.integrityCheck(5), ['ok']);
    }));

    test('Merkle: inclusion and consistency proofs from the stored nodes verify; a rolled-back append leaves the tree as it was', withStore(async (store) => {
      const roots = new Map<number, Buffer>();
      for (let i = 0; i < 37; i++) {
        await store.appendEntries(i % 5 === 0 ? [draft('refused', null, { i }), draft('refused', null, { i, two: true })] : [draft('refused', null, { i })]);
        roots.set(store.logHead().size, Buffer.from(store.logHead().root, 'hex'));
      }
      const size = store.logHead().size;
      const rows = await allRows(store);
      const root = Buffer.from(store.logHead().root, 'hex');
      for (const index of [0, 1, 7, 20, size - 1]) {
        const proof = await inclusionProof(index, size, store.merkleNodes);
        assert.ok(verifyInclusion(index, size, leafHash(rows[index]!.body), proof, root), `leaf ${index}`);
        assert.ok(!verifyInclusion(index, size, leafHash(rows[(index + 1) % size]!.body), proof, root), `a wrong leaf at ${index}`);
      }
      for (const [old] of [...roots].filter(([n]) => n % 3 === 0)) {
        const proof = await consistencyProof(old, size, store.merkleNodes);
        assert.ok(verifyConsistency(old, size, proof, roots.get(old)!, root), `${old} -> ${size}`);
      }
      // A refused finish appends nothing: the root and the stored nodes stay as they were.
      await assert.rejects(store.finish('none', 'Succeeded', {}, now, draft('outcome', 'none')));
      assert.equal(store.logHead().root, root.toString('hex'));
      await store.appendEntries([draft('refused')]);
      await assertIntact(store, key, size + 1);
      assert.deepEqual(await store.integrityCheck(5), ['ok']);
      await assert.rejects(store.merkleNodes([{ level: 0, index: size + 5 }]), (e: Error & { code?: string }) => e.code === 'merkle_node_missing');
    }));

    test('operations that arrive together: one that fails (a duplicate id, a refused finish) leaves no trace, the others commit', withStore(async (store, _s, heads) => {
      const ids = Array.from({ length: 120 }, (_, i) => `g${i}`);
      const ops = [
        ...ids.map((id) => store.createTransaction(txRecord(id, now), draft('preview', id))),
        store.createTransaction(txRecord('g60', now), draft('preview', 'g60')),
        store.finish('g7', 'Succeeded', {}, now, draft('outcome', 'g7')),
        ...Array.from({ length: 40 }, () => store.appendEntries([draft('daemon_started'), draft('refused')])),
      ];
      const settled = await Promise.allSettled(ops);
      assert.deepEqual(settled.map((r, i) => (r.status === 'rejected' ? i : -1)).filter((i) => i >= 0), [120, 121]);
      assert.equal((await store.history({ limit: 1000 })).length, 120);
      await assertIntact(store, key, 120 + 80);
      assert.deepEqual(heads.map((h) => h.size), [...new Set(heads.map((h) => h.size))].sort((a, b) => a - b)); // increasing, never repeated
      assert.deepEqual(await store.integrityCheck(5), ['ok']);
    }));

    test('archiving a segment: its rows leave the store with the entry that says so; the rest verifies from the base; proofs of later entries still work; the base survives a reopen', withStore(async (store, s) => {
      for (let i = 0; i < 100; i++) await store.appendEntries([draft('refused', null, { n: i })]);
      const before = await allRows(store);
      const origin = checkpointOrigin('contract', key.keyId);
      const headAt = async (size: number) => treeHeadLine(signTreeHead(key, origin, size, await rootAt(size, store.merkleNodes), new Date()));
      const note37 = signTreeHead(key, origin, 37, await rootAt(37, store.merkleNodes), new Date());
      // Refused: nothing archived past the head, nor an empty segment.
      await assert.rejects(store.archiveSegment(101, note37, draft('archived')), (e: AirlockError) => e.code === 'archive_range');
      await assert.rejects(store.archiveSegment(0, note37, draft('archived')), (e: AirlockError) => e.code === 'archive_range');
      const root37 = (await rootAt(37, store.merkleNodes)).toString('hex');
      const base = await store.archiveSegment(37, note37, draft('archived', null, { first_seq: 1, last_seq: 37, root: root37 }));
      assert.deepEqual({ ...base, frontier: base.frontier.length }, { seq: 37, hash: entryHash(before[36]!.body), frontier: 3, tree_head: note37 });
      assert.deepEqual(store.logBase(), base);
      const rows = await allRows(store);
      assert.deepEqual([rows[0]!.seq, rows.at(-1)!.seq, rows.length], [38, 101, 64]);
      assert.equal(JSON.parse(rows.at(-1)!.body).kind, 'archived');
      assert.deepEqual(await store.integrityCheck(5), ['ok']);
      const start = { ...base, logId: key.keyId };
      const evidence = (...lines: string[]) => [{ from: 'the test', text: lines.join('\n') + '\n' }];
      const rep = await verifyLog(rows, key.publicRaw, evidence(treeHeadLine(note37), await headAt(101)), { workers: 1, start });
      assert.equal(rep.status, 'intact', JSON.stringify(rep));
      assert.deepEqual([rep.entries, rep.archived, rep.root], [101, 37, store.logHead().root]);
      // Rows removed and a base set with no archived entry saying so (a forged base): broken.
      const unannounced = await verifyLog(rows.filter((r) => JSON.parse(r.body).kind !== 'archived'), key.publicRaw, evidence(treeHeadLine(note37), await headAt(100)), { workers: 1, start });
      assert.equal(unannounced.status, 'broken');
      assert.match(unannounced.first_broken!.reason, /no signed archived entry/);
      // Without a head of size 37, nothing vouches for where the live log starts.
      const unvouched = await verifyLog(rows, key.publicRaw, evidence(await headAt(101)), { workers: 1, start });
      assert.equal(unvouched.status, 'cannot_verify');
      assert.match(unvouched.reason!, /archived/);
      // A start that is not the archived tree's (a frontier hash changed) contradicts the head of size 37.
      const forged = { ...start, frontier: [start.frontier[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0')), ...start.frontier.slice(1)] };
      assert.equal((await verifyLog(rows, key.publicRaw, evidence(treeHeadLine(note37), await headAt(101)), { workers: 1, start: forged })).status, 'broken');
      // Proofs of every live entry, and consistency from every live size, from what the store kept.
      const root = await rootAt(101, store.merkleNodes);
      for (let i = 37; i < 101; i++) assert.ok(verifyInclusion(i, 101, leafHash(rows[i - 37]!.body), await inclusionProof(i, 101, store.merkleNodes), root), `inclusion of leaf ${i}`);
      for (let m = 37; m <= 101; m++) assert.ok(verifyConsistency(m, 101, await consistencyProof(m, 101, store.merkleNodes), await rootAt(m, store.merkleNodes), root), `consistency from ${m}`);
      await assert.rejects(inclusionProof(5, 101, store.merkleNodes), (e: AirlockError) => e.code === 'merkle_node_missing');
      // A second archival takes the next segment; reopened, the store keeps its base and continues its log.
      const note80 = signTreeHead(key, origin, 80, await rootAt(80, store.merkleNodes), new Date());
      await assert.rejects(store.archiveSegment(37, note80, draft('archived')), (e: AirlockError) => e.code === 'archive_range');
      await store.archiveSegment(80, note80, draft('archived', null, { first_seq: 38, last_seq: 80, root: (await rootAt(80, store.merkleNodes)).toString('hex') }));
      await store.close(); // withStore closes it again at the end, which is harmless
      const again = await s.open({ seal });
      try {
        assert.equal(again.logBase().seq, 80);
        await again.appendEntries([draft('daemon_started')]);
        const live = await allRows(again);
        assert.deepEqual([live[0]!.seq, live.at(-1)!.seq], [81, 103]);
        const rep2 = await verifyLog(live, key.publicRaw, evidence(treeHeadLine(note80), treeHeadLine(signTreeHead(key, origin, 103, await rootAt(103, again.merkleNodes), new Date()))), { workers: 1, start: { ...again.logBase(), logId: key.keyId } });
        assert.equal(rep2.status, 'intact', JSON.stringify(rep2));
        assert.deepEqual(await again.integrityCheck(5), ['ok']);
      } finally {
        await again.close();
      }
    }));

    test('8 concurrent writers x 200 operations: seqs 1..N with no gap or repeat, and the log verifies', withStore(async (store, _s, heads) => {
      const writers = 8;
      const ops = 200;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < ops; i++) {
            const id = `w${w}-${i}`;
            if (i % 4 === 0) await store.createTransaction(txRecord(id, now), draft('preview', id));
            else if (i % 4 === 1) await store.recordApproval(`w${w}-${i - 1}`, { approvedBy: 'al', commitment: 'c', expiresAt: now + 900_000, now: now + 1 }, draft('approval_granted', `w${w}-${i - 1}`));
            else if (i % 4 === 2) await store.consumeReceipt(`w${w}-${i - 2}`, 'c', now + 2, [draft('approval_consumed', `w${w}-${i - 2}`)]);
            else await store.appendEntries([draft('refused', null, { n: i })]);
          }
        }),
      );
      await assertIntact(store, key, writers * ops);
      // The heads reached onAppend in commit order.
      assert.deepEqual(heads.map((h) => h.size), Array.from({ length: writers * ops }, (_, i) => i + 1));
    }));
  });
}
