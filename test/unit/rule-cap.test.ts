/**
 * A rule's daily cap and cooldown are counted and enforced in the same store
 * transaction that records the approval, so concurrent previews cannot all pass a cap
 * of one, even when every store call yields to other requests (as an asynchronous
 * store such as PostgreSQL does).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store, TxRecord } from '../../src/store/store.js';
import { sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { VerbContext } from '../../src/daemon/verbs/context.js';
import { preview } from '../../src/daemon/verbs/preview.js';
import { parsePolicy } from '../../src/policy/policy.js';
import type { Identity } from '../../src/daemon/identity.js';
import { FixtureHost } from './catalogue-fixture-host.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));

function withStore(body: (store: SqliteStore) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-rule-cap-'));
    const store = new SqliteStore(join(dir, 'db.sqlite'), (d, seq, prev) => sealEntry(key, d, seq, prev));
    try {
      await body(store);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The same store, but every call first yields to the event loop, so concurrent requests interleave between calls. */
function yielding(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || prop === 'logHead') return v;
      return async (...args: unknown[]) => {
        await new Promise((r) => setImmediate(r));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const entry = (kind: EntryDraft['kind'], id: string): EntryDraft => opaqueDraft({ kind, transaction_id: id, action_name: 'CreateGroup', risk: 'medium', request_hash: 'h', principal: null, details: {} });
const tx = (id: string, now: number): TxRecord => ({
  id,
  actionName: 'CreateGroup',
  params: { group: id },
  requestHash: 'h',
  risk: 'medium',
  state: 'Previewed',
  requesterUid: 1000,
  requesterPersonUid: 1000,
  requesterName: 'agent',
  requesterRole: 'admin',
  preview: {},
  previewDigest: 'd',
  summary: 's',
  createdAt: now,
  updatedAt: now,
  expiresAt: now + 60_000,
  approvedBy: null,
  receiptCommitment: null,
  compactedAt: null,
  result: null,
});
const approval = (now: number, rule?: { id: string; dailyCap: number; cooldownMs: number }) => ({ approvedBy: 'policy:r', commitment: randomBytes(8).toString('hex'), expiresAt: now + 60_000, now, ...(rule ? { rule } : {}) });

test(
  'the store counts and refuses a rule at its cap atomically: 8 interleaved approvals under daily_cap = 1 give one',
  withStore(async (sqlite) => {
    const store = yielding(sqlite);
    const now = Date.now();
    const ids = Array.from({ length: 8 }, (_, i) => `tx_${String(i).padStart(24, '0')}`);
    for (const id of ids) await store.createTransaction(tx(id, now), entry('preview', id));
    const rule = { id: 'capped', dailyCap: 1, cooldownMs: 0 };
    const outcomes = await Promise.all(ids.map((id) => store.recordApproval(id, approval(now, rule), entry('approval_granted', id))));
    assert.deepEqual(outcomes.filter((o) => o === 'approved').length, 1);
    assert.ok(outcomes.filter((o) => o !== 'approved').every((o) => o === 'rule_exhausted'), outcomes.join());
    // A refused approval changed nothing: still Previewed, no entry appended.
    const states = await Promise.all(ids.map(async (id) => (await store.getTransaction(id))!.state));
    assert.equal(states.filter((s) => s === 'Queued').length, 1);
    assert.equal(store.logHead().size, 8 + 1);
    // Without a rule the same store approves as before.
    const free = 'tx_' + 'f'.repeat(24);
    await store.createTransaction(tx(free, now), entry('preview', free));
    assert.equal(await store.recordApproval(free, approval(now), entry('approval_granted', free)), 'approved');
  }),
);

test(
  'the cooldown counts from the last approval of the rule, and the daily cap over the last 24 hours',
  withStore(async (store) => {
    const t0 = Date.now();
    const rule = { id: 'cool', dailyCap: 2, cooldownMs: 10 * 60_000 };
    const make = async (i: number, at: number) => {
      const id = `tx_${String(i).padStart(24, '0')}`;
      await store.createTransaction(tx(id, at), entry('preview', id));
      return store.recordApproval(id, approval(at, rule), entry('approval_granted', id));
    };
    assert.equal(await make(1, t0), 'approved');
    assert.equal(await make(2, t0 + 5 * 60_000), 'rule_exhausted', 'inside the cooldown');
    assert.equal(await make(3, t0 + 11 * 60_000), 'approved', 'after the cooldown');
    assert.equal(await make(4, t0 + 30 * 60_000), 'rule_exhausted', 'at the daily cap of 2');
    assert.equal(await make(5, t0 + 24 * 60 * 60_000 + 1), 'approved', 'the first approval left the 24-hour window');
  }),
);

test(
  "the service's auto-approval goes through that check: 8 concurrent previews under daily_cap = 1 give one receipt",
  withStore(async (sqlite) => {
    const policy = parsePolicy('[[rule]]\nid = "capped"\naction = "CreateGroup"\nparams = { group = "cap-*" }\ncooldown_minutes = 0\ndaily_cap = 1\n');
    const host = new FixtureHost({ '/etc/group': 'root:x:0:\n', '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\n' });
    const ctx = new VerbContext({
      store: yielding(sqlite),
      host,
      executor: { checkPaths: async () => {} } as never, // CreateGroup hands no path to a program by name
      approvalKey: key,
      policy,
      policyPath: '/nonexistent/policy.toml',
      tokensPath: '/nonexistent/tokens.toml',
      secondFactor: {} as never,
      pseudonymKey: Buffer.alloc(32),
      approvalTtlMs: 60_000,
      receiptTtlMs: 60_000,
    });
    const agent: Identity = { uid: 1000, user: 'agent', role: 'admin', approver: false, pid: 1, person: { uid: 1000, user: 'agent', role: 'admin', approver: false, via: 'self' } };
    const previews = await Promise.all(Array.from({ length: 8 }, (_, i) => preview(ctx, { caller: ctx.caller(agent), params: { action_name: 'CreateGroup', params: { group: `cap-${i}` } }, signal: new AbortController().signal, notice: () => false })));
    assert.equal(previews.filter((p) => p.auto_approval).length, 1);
    const states = await Promise.all(previews.map(async (p) => (await sqlite.getTransaction(p.transaction_id))!.state));
    assert.deepEqual(states.sort(), ['Previewed', 'Previewed', 'Previewed', 'Previewed', 'Previewed', 'Previewed', 'Previewed', 'Queued']);
  }),
);
