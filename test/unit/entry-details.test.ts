/**
 * Entry details, typed per kind in one place (src/audit/entry-details.ts): docs/protocol.md
 * section 14 lists exactly each kind's fields, and an approval has one shape whoever granted it.
 * (That the daemon's entries match these schemas as stored is checked on a real log in
 * test/integration/audit.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_ACT, ENTRY_KINDS, entryDraft } from '../../src/audit/entry.js';
import { approvalGrantedDetails, detailFields, ENTRY_DETAILS } from '../../src/audit/entry-details.js';
import { ROOT } from '../support/error-codes.js';

/** The rows of protocol.md's table of kinds: kind -> the fields its details column names. */
function documentedKinds(): Map<string, string[]> {
  const doc = readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8');
  const start = doc.indexOf('| kind | principal | details | meaning |');
  assert.ok(start > 0, 'protocol.md has the table of kinds and their details');
  const rows = new Map<string, string[]>();
  for (const line of doc.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(' | ');
    const kind = /^\| `([a-z_]+)`$/.exec(cells[0]!)?.[1];
    assert.ok(kind, `a row names its kind: ${line.slice(0, 60)}`);
    assert.ok(!rows.has(kind), `${kind} has one row`);
    rows.set(kind, [...cells[2]!.matchAll(/`([a-z0-9_]+\??)`/g)].map((m) => m[1]!));
  }
  return rows;
}

test('protocol.md lists every kind of entry, each with exactly the fields of its schema', () => {
  const documented = documentedKinds();
  assert.deepEqual([...documented.keys()].sort(), [...ENTRY_KINDS].sort(), 'one row per kind, and no row for a kind the log never writes');
  for (const kind of ENTRY_KINDS) assert.deepEqual(documented.get(kind), detailFields(kind), `the details of ${kind}`);
  // The marker is read from the schema, not assumed: a kind has both kinds of field.
  assert.deepEqual(detailFields('canceled'), ['by', 'superseded_by?']);
});

test("an approval has one shape, whether a person or the policy granted it, and binds the preview digest to the receipt's commitment", () => {
  const grant = { previewDigest: 'a'.repeat(64), commitment: 'b'.repeat(64), executor: 'agent(uid 1002)', expiresAt: '2030-01-01T00:15:00.000Z' };
  const person = approvalGrantedDetails(grant, { person: { totp: true, selfApproval: false } });
  const policy = approvalGrantedDetails(grant, { policy: { ruleId: 'reads', policyDigest: `sha256:${'c'.repeat(64)}` } });
  assert.deepEqual(Object.keys(person).sort(), Object.keys(policy).sort());
  for (const d of [person, policy]) assert.equal(ENTRY_DETAILS.approval_granted.safeParse(d).success, true, JSON.stringify(d));
  assert.deepEqual([person.second_factor, person.self_approval, person.rule_id, person.policy_digest], ['totp', false, null, null]);
  assert.deepEqual([policy.second_factor, policy.self_approval, policy.rule_id, policy.policy_digest], ['none', false, 'reads', `sha256:${'c'.repeat(64)}`]);
  for (const d of [person, policy]) assert.deepEqual([d.preview_digest, d.receipt_commitment], [grant.previewDigest, grant.commitment]);
});

test('a schema refuses details of another kind, a missing field and an unknown one', () => {
  assert.equal(ENTRY_DETAILS.execution_started.safeParse({ steps: 2 }).success, true);
  assert.equal(ENTRY_DETAILS.execution_started.safeParse({ state: 'Succeeded' }).success, false);
  assert.equal(ENTRY_DETAILS.approval_consumed.safeParse({ preview_digest: 'a'.repeat(64) }).success, false);
  assert.equal(ENTRY_DETAILS.approval_consumed.safeParse({ preview_digest: 'a'.repeat(64), receipt_commitment: 'b'.repeat(64), secret: 'x' }).success, false);
});

test('a draft is built from its kind and that kind\'s details', () => {
  const d = entryDraft('execution_started', DAEMON_ACT, { steps: 2 });
  assert.deepEqual(d, { ...DAEMON_ACT, kind: 'execution_started', details: { steps: 2 } });
});

// Compiled, never run: a detail of another kind is a type error (the typecheck fails if it is not).
export function wrongDetailsDoNotCompile(): void {
  // @ts-expect-error outcome has no steps
  entryDraft('outcome', DAEMON_ACT, { steps: 2 });
  // @ts-expect-error an approval names its lane's fields
  entryDraft('approval_granted', DAEMON_ACT, { preview_digest: 'd', receipt_commitment: 'c', executor: 'e', receipt_expires_at: 't', second_factor: 'none' });
}
