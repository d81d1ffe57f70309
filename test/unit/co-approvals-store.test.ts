/**
 * The co_approvals table of both stores ([approval] high = 2, src/store/co-approval.ts): the
 * first approval is recorded and mints nothing, the same person again is refused with nothing
 * written, the second person mints with the first named; two persons at once give one receipt,
 * one person twice at once counts once; a canceled transaction mints nothing; in PostgreSQL a
 * row planted without the host's MAC fails the approval closed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { QuorumApproval } from '../../src/store/co-approval.js';
import type { Sealer, Store } from '../../src/store/store.js';
import { draft, txRecord } from '../support/store-contract.js';
import { testSchema, TEST_ROW_KEY, type TestSchema } from '../support/pg-schema.js';

const key = signingKeyFromSeed(randomBytes(32));
const seal: Sealer = (d, seq, prev) => sealEntry(key, d, seq, prev);
const now = 1_800_000_000_000;
const entries = (id: string) => ({ recorded: () => draft('approval_recorded', id), granted: (co: string[]) => draft('approval_granted', id, { co_approvers: co }) });
const by = (id: string, person: string, over: Partial<QuorumApproval> = {}): QuorumApproval => ({
  approvedBy: `${person}(uid 1)`, person: `${person}(uid 1)`, previewDigest: `digest-${id}`, needed: 2, commitment: `c-${id}-${person}`, expiresAt: now + 900_000, now: now + 1, ...over,
});

function contract(name: string, open: () => Promise<{ store: Store & { close(): Promise<void> }; planted?: (id: string) => Promise<void>; done: () => Promise<void> }>) {
  describe(`co-approvals: ${name}`, () => {
    let s: Awaited<ReturnType<typeof open>>;
    before(async () => void (s = await open()));
    after(async () => {
      await s.store.close();
      await s.done();
    });
    const tx = async (id: string) => s.store.createTransaction(txRecord(id, now, { risk: 'high' }), draft('preview', id));

    test('recorded, then the same person refused with nothing written, then another person mints naming the first', async () => {
      await tx('a');
      assert.deepEqual(await s.store.recordQuorumApproval('a', by('a', 'alice'), entries('a')), { recorded: 1 });
      assert.equal((await s.store.getTransaction('a'))!.state, 'Previewed');
      assert.deepEqual((await s.store.coApprovals('a')).map((x) => x.principal), ['alice(uid 1)']);
      const head = s.store.logHead().size;
      assert.equal(await s.store.recordQuorumApproval('a', by('a', 'alice', { spend: { approver: 'alice(uid 1)', step: 7 } }), entries('a')), 'same_approver');
      assert.equal(s.store.logHead().size, head, 'no entry');
      assert.equal(await s.store.recordQuorumApproval('a', by('a', 'bob', { previewDigest: 'other' }), entries('a')), 'digest_mismatch');
      assert.deepEqual(await s.store.recordQuorumApproval('a', by('a', 'bob'), entries('a')), { approved: ['alice(uid 1)'] });
      const t = (await s.store.getTransaction('a'))!;
      assert.equal(t.state, 'Queued');
      assert.deepEqual(await s.store.coApprovals('a'), [], 'the rows went into the signed entry');
      assert.equal(await s.store.recordQuorumApproval('a', by('a', 'carol'), entries('a')), 'not_pending');
    });

    test('two persons at once: one recorded, one minting; one person twice at once: once', async () => {
      await tx('b');
      const both = await Promise.all([s.store.recordQuorumApproval('b', by('b', 'alice'), entries('b')), s.store.recordQuorumApproval('b', by('b', 'bob'), entries('b'))]);
      assert.equal(both.filter((o) => typeof o === 'object' && 'approved' in o).length, 1, JSON.stringify(both));
      assert.equal(both.filter((o) => typeof o === 'object' && 'recorded' in o).length, 1, JSON.stringify(both));
      await tx('c');
      const twice = await Promise.all([s.store.recordQuorumApproval('c', by('c', 'alice'), entries('c')), s.store.recordQuorumApproval('c', by('c', 'alice'), entries('c'))]);
      assert.deepEqual(twice.map((o) => JSON.stringify(o)).sort(), ['"same_approver"', '{"recorded":1}']);
      assert.equal((await s.store.getTransaction('c'))!.state, 'Previewed');
    });

    test('canceled between the two: nothing is minted', async () => {
      await tx('d');
      assert.deepEqual(await s.store.recordQuorumApproval('d', by('d', 'alice'), entries('d')), { recorded: 1 });
      assert.equal(await s.store.cancel('d', now + 2, draft('denied', 'd'), { onlyFrom: 'Previewed' }), true);
      assert.equal(await s.store.recordQuorumApproval('d', by('d', 'bob', { now: now + 3 }), entries('d')), 'not_pending');
    });

    test('a spent step rolls the recorded approval back with its row', async () => {
      await tx('e');
      // No factor row for this approver: the step cannot be spent, so nothing stays.
      assert.equal(await s.store.recordQuorumApproval('e', by('e', 'nobody', { spend: { approver: 'nobody(uid 1)', step: 9 } }), entries('e')), 'step_spent');
      assert.deepEqual(await s.store.coApprovals('e'), []);
    });

    if (name === 'PostgreSQL') {
      test("a co_approvals row without the host's MAC counts as nobody: the approval fails closed", async () => {
        await tx('f');
        await s.planted!('f');
        await assert.rejects(s.store.recordQuorumApproval('f', by('f', 'bob'), entries('f')), (e: { code?: string }) => e.code === 'row_mac');
        assert.equal((await s.store.getTransaction('f'))!.state, 'Previewed');
      });
    }
  });
}

contract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-co-'));
  return { store: new SqliteStore(join(dir, 'airlock.db'), seal), done: async () => rmSync(dir, { recursive: true, force: true }) };
});

contract('PostgreSQL', async () => {
  const schema: TestSchema = await testSchema();
  const logId = randomBytes(8).toString('hex');
  const store = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: schema.url, logId, origin: `test/airlock/${logId}`, seal });
  return {
    store,
    planted: async (id: string) =>
      void (await schema.admin.query('INSERT INTO co_approvals (log_id, tx_id, approver, principal, preview_digest, at, mac) VALUES ($1, $2, $3, $3, $4, $5, $6)', [logId, id, 'mallory(uid 9)', `digest-${id}`, now, '0'.repeat(64)])),
    done: () => schema.drop(),
  };
});
