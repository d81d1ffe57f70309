/**
 * The daemon's journal lines: every kind of signed log entry has a sentence of its own
 * (no JSON, no "undefined"), agent and host text in them is escaped so a line cannot
 * forge another, and a job's outcome says how long it ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTRY_KINDS, type EntryKind } from '../../src/audit/entry.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';
import { formatDuration, journal, journalLine, MAX_TIMED_JOBS } from '../../src/daemon/journal.js';

const TX = 'tx_0123456789abcdef01234567';
const agent = { uid: 1002, user: 'agent', role: 'admin' as const };
const alice = { uid: 1001, user: 'alice', role: 'admin' as const };
const DETAILS: Record<EntryKind, OpaqueDetails> = {
  daemon_started: { version: '0.1.0', platform: 'debian', policy_digest: 'ab', policy_source: '/etc/airlock/policy.toml', audit_key_id: 'k1', approval_key_id: 'k2', reconciled: 0 },
  preview: { preview_digest: 'd', summary: 'Create user bob', warnings: [] },
  approval_granted: { executor: 'agent(uid 1002)', second_factor: 'totp', preview_digest: 'd', receipt_commitment: 'c', receipt_expires_at: 't' },
  approval_recorded: { preview_digest: 'd', approver: 'bob(uid 1003)', needed: 2, have: 1, second_factor: 'totp', self_approval: false },
  approval_consumed: { preview_digest: 'd', receipt_commitment: 'c' },
  execution_started: { steps: 2 },
  outcome: { state: 'Succeeded', error_category: null, error_code: null, rolled_back: false, output_lines: 0 },
  canceled: { by: 'agent(uid 1002)' },
  denied: { by: 'alice(uid 1001)', reason: 'not today' },
  expired: { previous_state: 'Previewed', deadline: '2030-01-01T00:00:00.000Z' },
  reconciled: { previous_state: 'Running', new_state: 'Failed', reason: 'daemon restarted while the job ran; effect unknown' },
  totp_enrolled: { approver: 'alice(uid 1001)', replaced: false },
  totp_lockout: { approver: 'alice(uid 1001)', failures: 5, locked_until: '2030-01-01T00:15:00.000Z' },
  totp_issued: { approver: 'alice(uid 1001)', replaces: 'none', pending_expires_at: 't' },
  totp_reset: { approver: 'alice(uid 1001)', factor: true, pending: false },
  totp_awaiting_approval: { approver: 'bob(uid 1002)', user: 'bob', expires_at: '2026-01-02T00:00:00.000Z' },
  policy_reloaded: { old_digest: 'a', new_digest: 'b'.repeat(64), source: '/etc/airlock/policy.toml', tokens: 0 },
  compacted: { count: 500, finished_before: '2030-01-01T00:00:00.000Z', ids_sha256: 'ab'.repeat(32) },
  history_pruned: { count: 500, finished_before: '2030-01-01T00:00:00.000Z', ids_sha256: 'ab'.repeat(32) },
  key_rotated: { key: 'audit', log_id: '0123456789abcdef', old_key_id: '0123456789abcdef', new_key_id: 'fedcba9876543210', old_public_key: 'ed25519:00', new_public_key: 'ed25519:11', old_key_signature: 'aa', new_key_signature: 'bb' },
  archived: { first_seq: 1, last_seq: 100000, entries: 100000, file: '0123456789abcdef-000000000001-000000100000.jsonl.gz', bytes: 7200000, sha256: 'ab'.repeat(32), root: 'cd'.repeat(32) },
  storage_pressure: { state: 'low', state_dir: '/var/lib/airlock', free_bytes: 1000, min_free_bytes: 2000, reserve_bytes: 500, reserve_held: true },
  refused: { method: 'approve', category: 'authorization', code: 'not_approver', count: 3, since: '2030-01-01T00:00:00.000Z' },
  plan_step: { step: 2, step_action: 'AddUserToGroup', step_request_hash: 'ab'.repeat(32), state: 'rolled_back', mechanism_digest: 'cd'.repeat(32), error_code: null },
  passkey_registered: { approver: 'alice(uid 1001)', passkey_id: '0123456789abcdef', name: 'laptop', rp_id: 'localhost', factor: 'totp' },
  session_granted: { grant_id: 'sg_' + '0'.repeat(24), approver: 'alice(uid 1001)', requester: 'agent(uid 1002)', preview_digest: 'ab'.repeat(32), passkey_id: '0123456789abcdef', until: '2030-01-01T08:00:00.000Z' },
  session_revoked: { grant_id: 'sg_' + '0'.repeat(24), by: 'alice(uid 1001)', granted_by: 'alice(uid 1001)', uses: 2 },
  reboot_reconciled: { previous_state: 'NeedsReboot', new_state: 'Succeeded', boot_id_before: '0f3c5e1a-1111-4222-8333-944455556666', boot_id_after: '7a8b9c0d-1111-4222-8333-944455556666', reason: 'the daemon started in another boot than the one the change ran in' },
};
const draft = (kind: EntryKind, over: Partial<Parameters<typeof opaqueDraft>[0]> = {}) => opaqueDraft({
  kind,
  transaction_id: TX,
  action_name: 'CreateUser',
  risk: 'high',
  request_hash: 'h',
  principal: kind === 'approval_granted' ? alice : agent,
  details: DETAILS[kind],
  ...over,
});

test('every kind of log entry reads as a sentence, without JSON or holes', () => {
  for (const kind of ENTRY_KINDS) {
    const line = journalLine(draft(kind));
    assert.doesNotMatch(line, /[{}]|undefined|\[object/, `${kind}: ${line}`);
    assert.ok(line.length > 20, `${kind}: ${line}`);
  }
  assert.equal(journalLine(draft('approval_granted')), `alice(uid 1001) approved CreateUser ${TX} requested by agent(uid 1002), with a second factor`);
  assert.equal(journalLine(draft('preview')), `agent(uid 1002) previewed CreateUser ${TX} (high): Create user bob`);
  assert.equal(journalLine(draft('outcome'), 2100), `${TX} CreateUser Succeeded in 2.1 s`);
  assert.equal(journalLine(draft('denied')), `alice(uid 1001) denied CreateUser ${TX}: not today`);
  assert.equal(journalLine(draft('storage_pressure', { principal: null })), 'disk space low: 1000 bytes free in /var/lib/airlock (min_free 2000); new previews are refused, approved executes still run');
  assert.equal(journalLine(draft('refused', { transaction_id: null })), 'refused approve for agent(uid 1002): authorization/not_approver (3 times since 2030-01-01T00:00:00.000Z)');
});

test('an approval by a policy rule names the rule; a root peer is named by the person behind it', () => {
  const byRule = draft('approval_granted', { principal: null, details: { ...DETAILS.approval_granted, second_factor: 'none', rule_id: 'restart-web' } });
  assert.equal(journalLine(byRule), `policy rule \`restart-web\` approved CreateUser ${TX} requested by agent(uid 1002)`);
  const viaSudo = draft('totp_reset', { principal: { uid: 0, user: 'root', role: 'admin', person: 'carol(uid 1003) via sudo' } });
  assert.match(journalLine(viaSudo), /^carol\(uid 1003\) via sudo reset the second factor of alice\(uid 1001\)$/);
  const byToken = draft('preview', { principal: { uid: -1, user: 'token:ci', role: 'dev' } });
  assert.match(journalLine(byToken), /^token:ci previewed CreateUser /);
});

test('agent and host text is escaped: no control, C1 or bidi character reaches the journal', () => {
  const evil = 'ok\n2030-01-01 airlock-daemon: alice approved everything\x1b[2J\x9b31m\u202egnp.exe';
  for (const kind of ['preview', 'denied'] as const) {
    const line = journalLine(draft(kind, { details: { ...DETAILS[kind], summary: evil, reason: evil } }));
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/, line);
    assert.match(line, /ok\\x0a2030.*\\x1b\[2J\\x9b31m\\u202egnp\.exe/);
  }
});

test('a job is timed from its start to its outcome, and only so many starts are kept', () => {
  let t = 1000;
  const lines: string[] = [];
  const write = journal((l) => lines.push(l), () => t);
  write([draft('approval_consumed'), draft('execution_started')]);
  t += 65_000;
  write([draft('outcome')]);
  assert.equal(lines.at(-1), `${TX} CreateUser Succeeded in 1 min 5 s`);
  write([draft('outcome')]);
  assert.equal(lines.at(-1), `${TX} CreateUser Succeeded`, 'a second outcome has no start to time from');
  for (let i = 0; i <= MAX_TIMED_JOBS; i++) write([draft('execution_started', { transaction_id: `tx_${i}` })]);
  write([draft('outcome', { transaction_id: 'tx_0' })]);
  assert.doesNotMatch(lines.at(-1)!, / in /, 'the oldest start was forgotten');
  assert.equal(formatDuration(300), '0.3 s');
  assert.equal(formatDuration(45_400), '45 s');
});
