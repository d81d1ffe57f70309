/**
 * Each method's parameters against its schema (src/protocol/methods.ts): a value that fails
 * it is refused with the code clients have always got for that field, or the method's own,
 * and the message says what was expected and what came.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_TABLE, METHODS, type Method } from '../../src/protocol/methods.js';
import { paramsRefusal } from '../../src/protocol/param-schemas.js';

const TX = 'tx_' + '0'.repeat(24);
function refusal(m: Method, raw: Record<string, unknown>) {
  const row = METHOD_TABLE[m];
  const r = row.params.safeParse(raw);
  assert.ok(!r.success, `${m} accepted ${JSON.stringify(raw)}`);
  const e = paramsRefusal(m, row.params, raw, r.error, row.refusal);
  return { category: e.category, code: e.code, message: e.message };
}

test('a field is refused with its own code, saying what it expects and what came', () => {
  const cases: Array<[Method, Record<string, unknown>, string, string, RegExp]> = [
    ['transaction.wait', { transaction_id: 'tx_nope' }, 'validation', 'bad_transaction_id', /transaction_id must be tx_ followed by 24 hex digits; it got the string "tx_nope"/],
    ['transaction.wait', { transaction_id: TX, timeout_ms: '5' }, 'validation', 'bad_wait_timeout', /timeout_ms must be an integer from 0 to 300000 .*; it got the string "5"/],
    ['deny', { transaction_id: TX, reason: 42 }, 'validation', 'bad_reason', /reason must be text of at most 500 .*; it got the number 42/],
    ['preview', { action_name: 'HostInfo', unmask: 'yes' }, 'validation', 'bad_unmask', /unmask must be true or false; it got the string "yes"/],
    ['preview', { action_name: 'HostInfo', params: ['root'] }, 'validation', 'bad_params', /params must be an object of the action's parameters; it got an array of 1/],
    ['approve', { transaction_id: TX, preview_digest: 7 }, 'stale_approval', 'digest_mismatch', /it got the number 7/],
    ['execute', { transaction_id: TX, action_name: 'ListUsers' }, 'stale_approval', 'bad_receipt', /receipt must be .*; it got nothing/],
    ['totp.confirm', {}, 'authorization', 'totp_required', /code must be the first 6-digit code/],
    ['totp.reset', { user: '--help' }, 'validation', 'bad_user', /user must be a login name such as alice; it got the string "--help"/],
  ];
  for (const [m, raw, category, code, message] of cases) {
    const r = refusal(m, raw);
    assert.deepEqual([r.category, r.code], [category, code], `${m} ${JSON.stringify(raw)}`);
    assert.match(r.message, message);
  }
});

test("a field without a refusal of its own gets its method's code", () => {
  assert.equal(refusal('history', { state: 'Bogus' }).code, 'bad_history_query');
  assert.equal(refusal('history', { limit: 10_000_000 }).code, 'bad_history_query');
  assert.equal(refusal('audit.entries', { limit: 2001 }).code, 'bad_audit_query');
  assert.equal(refusal('keys.rotate', { key: 'totp' }).code, 'bad_key_name');
  assert.equal(refusal('totp.approve', { enrolments: [{ user: 'B', check: 'x' }] }).code, 'bad_user');
  assert.match(refusal('totp.approve', { enrolments: [{ user: 'B', check: 'x' }] }).message, /enrolments\[0\]\.user/);
});

test('a key the method does not know is refused, naming what it takes', () => {
  const r = refusal('totp.enroll', { user: 'nina' });
  assert.deepEqual([r.category, r.code], ['validation', 'bad_params']);
  assert.match(r.message, /totp\.enroll takes current_code; "user" is not one of them/);
  for (const m of METHODS) assert.ok(!METHOD_TABLE[m].params.safeParse({ not_a_parameter: 1 }).success, `${m} accepts an unknown key`);
});

test('what a correct client sends passes', () => {
  assert.ok(METHOD_TABLE.execute.params.safeParse({ transaction_id: TX, action_name: 'ListUsers', params: {}, receipt: 'r' }).success);
  assert.ok(METHOD_TABLE.history.params.safeParse({ state: 'Previewed', since: '2026-01-01T00:00:00Z', limit: 5 }).success);
  assert.ok(METHOD_TABLE['audit.pubkey'].params.safeParse({}).success);
});
