/**
 * A policy rule on RevertTransaction is checked, at load, against its declared risk (Medium);
 * the revert of a High change is High (riskFrom), and no rule approves it: a person does. The
 * revert of a Medium change is the rule's to approve, as any Medium request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { VerbContext } from '../../src/daemon/verbs/context.js';
import { preview } from '../../src/daemon/verbs/preview.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { probeState } from '../../src/catalogue/lib/state-probes.js';
import type { Risk } from '../../src/protocol/risk.js';
import { FixtureHost } from './catalogue-fixture-host.js';

const key = signingKeyFromSeed(randomBytes(32));

async function previewRevertOf(risk: Risk) {
  const TX = 'tx_' + randomBytes(12).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-revert-rules-'));
  const store = new SqliteStore(join(dir, 'db.sqlite'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    const policy = parsePolicy('[[rule]]\nid = "reverts"\naction = "RevertTransaction"\nparams = { transaction_id = "tx_*" }\ncooldown_minutes = 0\ndaily_cap = 10\n');
    const host = new FixtureHost({ '/etc/hosts': 'a\n' });
    const probes = [{ file: '/etc/hosts' }];
    host.finished.set(TX, { transactionId: TX, actionName: 'Something', stepActions: [], risk, state: 'Succeeded', summary: 's', kept: [{ kind: 'file', path: '/etc/hosts', existed: true, content: 'old\n', mode: 0o644, owner: { uid: 0, gid: 0 } }], probes, before: { x: '0' }, after: await probeState(probes, host) });
    const ctx = new VerbContext({ store, host, executor: { checkPaths: async () => {} } as never, approvalKey: key, policy, policyPath: '/x', tokensPath: '/x', secondFactor: {} as never, pseudonymKey: Buffer.alloc(32), approvalTtlMs: 60_000, receiptTtlMs: 60_000 });
    const agent = { uid: 1000, user: 'agent', role: 'admin', approver: false, pid: 1, person: { uid: 1000, user: 'agent', role: 'admin', approver: false, via: 'self' } } as never;
    return await preview(ctx, { caller: ctx.caller(agent), params: { action_name: 'RevertTransaction', params: { transaction_id: TX } }, signal: new AbortController().signal, notice: () => false } as never);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a rule on RevertTransaction never approves the revert of a High change: a person does', async () => {
  const p = await previewRevertOf('high');
  assert.equal(p.risk, 'high');
  assert.equal(p.auto_approval, undefined);
});

test('the same rule approves the revert of a Medium change, as any Medium request it covers', async () => {
  const p = await previewRevertOf('medium');
  assert.equal(p.risk, 'medium');
  assert.equal(p.auto_approval?.rule, 'reverts');
});
