/**
 * The lifecycle rules of `airlock audit verify` (src/audit/lifecycle.ts): logs whose every entry
 * is signed and chained, but whose story cannot happen, are broken and the report names the rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { GENESIS_HASH, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { draft } from '../support/store-contract.js';
import { ENROLMENT_RULES } from '../../src/audit/lifecycle.js';

const key = signingKeyFromSeed(randomBytes(32));

function log(drafts: EntryDraft[]): LogRow[] {
  let prev = GENESIS_HASH;
  return drafts.map((d, i) => {
    const s = sealEntry(key, d, i + 1, prev);
    prev = s.hash;
    return { seq: s.seq, body: s.body, sig: s.sig };
  });
}

const lifecycle = (id: string) => [draft('preview', id), draft('approval_granted', id), draft('approval_consumed', id), draft('execution_started', id), draft('outcome', id)];
const enrol = (approver: string, replaced: boolean) => draft('totp_enrolled', null, { approver, replaced });

test('an ordinary log breaks no lifecycle rule (it is cannot_verify only for want of a checkpoint)', async () => {
  const r = await verifyLog(log([draft('daemon_started'), enrol('alice', false), ...lifecycle('t1'), enrol('alice', true), draft('totp_reset', null, { approver: 'alice' }), enrol('alice', false), ...lifecycle('t2')]), key.publicRaw, null, { workers: 1 });
  assert.equal(r.status, 'cannot_verify', JSON.stringify(r.first_broken));
});

test('a receipt consumed a second time after its outcome: one_consumption_per_approval, at that entry', async () => {
  const r = await verifyLog(log([draft('daemon_started'), ...lifecycle('t1'), draft('approval_consumed', 't1'), draft('execution_started', 't1')]), key.publicRaw, null, { workers: 1 });
  assert.equal(r.status, 'broken');
  assert.deepEqual([r.first_broken?.seq, r.first_broken?.rule], [7, 'one_consumption_per_approval']);
});

test('an execution with no approval consumed: execute_after_approval', async () => {
  const r = await verifyLog(log([draft('daemon_started'), draft('preview', 't1'), draft('execution_started', 't1')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([r.status, r.first_broken?.seq, r.first_broken?.rule], ['broken', 3, 'execute_after_approval']);
  const none = await verifyLog(log([draft('daemon_started'), draft('approval_consumed', 'ghost')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([none.first_broken?.seq, none.first_broken?.rule], [2, 'one_consumption_per_approval']);
});

test('an enrolment over a confirmed factor with no reset: enrolment_after_reset names the approver and the first enrolment', async () => {
  const r = await verifyLog(log([draft('daemon_started'), enrol('alice', false), enrol('bob', false), enrol('alice', false)]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([r.status, r.first_broken?.seq, r.first_broken?.rule], ['broken', 4, 'enrolment_after_reset']);
  assert.match(r.first_broken!.reason, /"alice".*seq 2 has no totp_reset/);
});

/** A daemon_started of a daemon that enforces approved first enrolments. */
const enforcing = () => draft('daemon_started', null, { enrolment_rules: ENROLMENT_RULES });
const firstApprover = (approver: string) => draft('totp_enrolled', null, { approver, replaced: false, first_approver: true });
const approvedBy = (approver: string, by: string) => draft('totp_enrolled', null, { approver, replaced: false, approved_by: by });

test('under a daemon that enforces it, every first enrolment is the first approver through sudo or approved by another holder of a factor', async () => {
  const ok = await verifyLog(log([enforcing(), firstApprover('alice'), approvedBy('bob', 'alice'), draft('totp_reset', null, { approver: 'alice' }), approvedBy('alice', 'bob'), ...lifecycle('t1')]), key.publicRaw, null, { workers: 1 });
  assert.equal(ok.status, 'cannot_verify', JSON.stringify(ok.first_broken));
  // A row inserted behind the daemon's back: bob's factor with no approval while alice holds one.
  const forged = await verifyLog(log([enforcing(), firstApprover('alice'), enrol('bob', false)]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([forged.status, forged.first_broken?.seq, forged.first_broken?.rule], ['broken', 3, 'enrolment_approved']);
  assert.match(forged.first_broken!.reason, /"bob".*1 other approver\(s\) held a factor/);
  // Approved by itself, or by somebody holding no factor, is no approval.
  for (const by of ['bob', 'mallory']) {
    const r = await verifyLog(log([enforcing(), firstApprover('alice'), approvedBy('bob', by)]), key.publicRaw, null, { workers: 1 });
    assert.deepEqual([r.first_broken?.seq, r.first_broken?.rule], [3, 'enrolment_approved'], by);
  }
  // The host's first factor without the first-approver mark (not through sudo).
  const first = await verifyLog(log([enforcing(), enrol('alice', false)]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([first.first_broken?.seq, first.first_broken?.rule], [2, 'enrolment_approved']);
  // A log written before the rule (no enrolment_rules in daemon_started) is not judged by it.
  const old = await verifyLog(log([draft('daemon_started'), enrol('alice', false), enrol('bob', false)]), key.publicRaw, null, { workers: 1 });
  assert.equal(old.status, 'cannot_verify', JSON.stringify(old.first_broken));
});

test('a reboot reconciled after its NeedsReboot outcome is a story that happens; one after a Succeeded outcome, a second one, or one of a transaction never seen: reboot_after_needs_reboot', async () => {
  const waited = (id: string) => [draft('preview', id), draft('approval_granted', id), draft('approval_consumed', id), draft('execution_started', id, { steps: 1, boot_id: 'b1' }), draft('outcome', id, { state: 'NeedsReboot' })];
  const reconciled = (id: string) => draft('reboot_reconciled', id, { previous_state: 'NeedsReboot', new_state: 'Succeeded', boot_id_before: 'b1', boot_id_after: 'b2', reason: 'r' });
  const ok = await verifyLog(log([draft('daemon_started'), ...waited('t1'), draft('daemon_started'), reconciled('t1')]), key.publicRaw, null, { workers: 1 });
  assert.equal(ok.status, 'cannot_verify', JSON.stringify(ok.first_broken));
  const done = await verifyLog(log([draft('daemon_started'), ...lifecycle('t1'), reconciled('t1')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([done.status, done.first_broken?.seq, done.first_broken?.rule], ['broken', 7, 'reboot_after_needs_reboot']);
  const twice = await verifyLog(log([draft('daemon_started'), ...waited('t1'), reconciled('t1'), reconciled('t1')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([twice.first_broken?.seq, twice.first_broken?.rule], [8, 'reboot_after_needs_reboot']);
  const ghost = await verifyLog(log([draft('daemon_started'), reconciled('ghost')]), key.publicRaw, null, { workers: 1 });
  assert.deepEqual([ghost.first_broken?.seq, ghost.first_broken?.rule], [2, 'reboot_after_needs_reboot']);
});
