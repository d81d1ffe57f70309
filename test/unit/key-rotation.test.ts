/**
 * Key rotation in the verifier: a log whose audit key rotated verifies with the first key (or
 * the whole history), names which key signed which entries, and breaks at an entry signed by
 * a retired key, at a forged rotation, and at a rotation replayed from another log; a key file
 * holding only a later key says to export the history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryMessage, GENESIS_HASH, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { ed25519Sign, formatHistoryLine, parsePublicKeys, signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { checkRotation, rotationDetails, rotationMessage } from '../../src/audit/rotation.js';
import { checkpointOrigin, formatCheckpointLine, signCheckpoint } from '../../src/audit/checkpoint.js';
import { DOMAIN_CHECKPOINT, DOMAIN_KEY_ROTATION, DOMAIN_LOG_ENTRY, DOMAIN_RECEIPT } from '../../src/audit/domains.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';

const k1 = signingKeyFromSeed(Buffer.alloc(32, 1));
const k2 = signingKeyFromSeed(Buffer.alloc(32, 2));
const k3 = signingKeyFromSeed(Buffer.alloc(32, 3));
const a1 = signingKeyFromSeed(Buffer.alloc(32, 11));
const a2 = signingKeyFromSeed(Buffer.alloc(32, 12));
const logId = k1.keyId;

const plain = (i: number): EntryDraft => opaqueDraft({ kind: 'preview', transaction_id: `tx_${i}`, action_name: 'ListUsers', risk: 'low', request_hash: 'c'.repeat(64), principal: null, details: { n: i } });
const rotated = (details: OpaqueDetails): EntryDraft => opaqueDraft({ kind: 'key_rotated', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details });

/** A signature by `k` over exactly these stored bytes. */
const signWith = (k: SigningKey, body: string) => ed25519Sign(k, entryMessage(body)).toString('hex');

/** Builds a log: each step is a draft and the key that seals it. */
function build(steps: Array<[EntryDraft, SigningKey]>): { rows: LogRow[]; head: string } {
  const rows: LogRow[] = [];
  let prev = GENESIS_HASH;
  steps.forEach(([d, k], i) => {
    const e = sealEntry(k, d, i + 1, prev);
    rows.push({ seq: e.seq, body: e.body, sig: e.sig });
    prev = e.hash;
  });
  return { rows, head: prev };
}

/** 1-3 by k1, rotation to k2 at 4 (sealed by k1), 5-6 by k2, approval rotation at 7, 8 by k2, rotation to k3 at 9, 10 by k3. */
function rotatedLog() {
  const steps: Array<[EntryDraft, SigningKey]> = [
    [plain(1), k1],
    [plain(2), k1],
    [plain(3), k1],
    [rotated(rotationDetails('audit', logId, k1, k2)), k1],
    [plain(5), k2],
    [plain(6), k2],
    [rotated(rotationDetails('approval', logId, a1, a2)), k2],
    [plain(8), k2],
    [rotated(rotationDetails('audit', logId, k2, k3)), k2],
    [plain(10), k3],
  ];
  return { steps, ...build(steps) };
}

test('the key-rotation domain tag is distinct from and prefix-free with the others', () => {
  const tags = [DOMAIN_LOG_ENTRY, DOMAIN_CHECKPOINT, DOMAIN_RECEIPT, DOMAIN_KEY_ROTATION];
  for (const a of tags) for (const b of tags) if (a !== b) assert.ok(!b.subarray(0, a.length).equals(a), `${a} prefixes ${b}`);
});

test('a rotation statement is signed by both keys, over the log id, the key and both public keys', () => {
  const d = rotationDetails('audit', logId, k1, k2);
  const ok = checkRotation(d);
  assert.ok(typeof ok !== 'string', String(ok));
  assert.equal(ok.newKeyId, k2.keyId);
  // Each field is covered: change any and a signature fails.
  for (const [field, value] of Object.entries({ log_id: k3.keyId, key: 'approval' })) {
    assert.match(String(checkRotation({ ...d, [field]: value })), /signature of this rotation does not verify/, field);
  }
  assert.match(String(checkRotation({ ...d, new_key_signature: d.old_key_signature })), /new audit key's signature/);
  assert.match(String(checkRotation({ ...d, old_key_signature: 'ab'.repeat(64) })), /old audit key's signature/);
  assert.match(String(checkRotation({ ...d, new_key_id: k3.keyId })), /key ids are not those of its public keys/);
  assert.match(String(checkRotation({ ...d, key: 'totp' })), /names no key/);
  assert.match(String(checkRotation(null)), /without details/);
  // The statement is framed: the message for one split of fields is not another's.
  assert.notDeepEqual(rotationMessage('a', 'audit', 'b', 'c'), rotationMessage('a', 'audit', 'bc', ''));
});

test('a rotated log verifies with the first key alone, and the report names which key signed what', async () => {
  const { rows, head } = rotatedLog();
  const r = await verifyLog(rows, k1.publicRaw, null, { workers: 2 });
  // No checkpoint given: every entry verifies, but a cut tail cannot be ruled out.
  assert.equal(r.status, 'cannot_verify', JSON.stringify(r.first_broken));
  assert.equal(r.first_broken, undefined);
  assert.equal(r.head_hash, head);
  assert.deepEqual(r.keys, [
    { key_id: k1.keyId, first_seq: 1, last_seq: 4, introduced_by: 'your key file' },
    { key_id: k2.keyId, first_seq: 5, last_seq: 9, introduced_by: 'rotation at seq 4' },
    { key_id: k3.keyId, first_seq: 10, last_seq: 10, introduced_by: 'rotation at seq 9' },
  ]);
  // A history file (several lines, extra columns) is read as several trusted keys.
  const history = formatHistoryLine(k1.publicRaw, 1) + formatHistoryLine(k2.publicRaw, 5) + formatHistoryLine(k3.publicRaw, 10);
  const keys = parsePublicKeys(history);
  assert.equal(keys.length, 3);
  const withHistory = await verifyLog(rows, keys, null, { workers: 1 });
  assert.deepEqual([withHistory.status, withHistory.first_broken, withHistory.keys.length], ['cannot_verify', undefined, 3], 'every entry verifies (no checkpoint: the tail is unchecked)');
});

test('a rotation as the last entry: the new key is listed, signing nothing yet, and its checkpoints count', async () => {
  const steps: Array<[EntryDraft, SigningKey]> = [
    [plain(1), k1],
    [rotated(rotationDetails('audit', logId, k1, k2)), k1],
  ];
  const { rows, head } = build(steps);
  const origin = checkpointOrigin('h.example', logId);
  const cp = formatCheckpointLine(signCheckpoint(k2, origin, 2, head));
  const r = await verifyLog(rows, k1.publicRaw, cp, { workers: 1 });
  assert.equal(r.status, 'intact');
  assert.deepEqual(r.checkpoint?.size, 2, 'a checkpoint signed by the new key, naming the log id (the first key), counts');
  assert.deepEqual(r.keys.at(-1), { key_id: k2.keyId, first_seq: 3, last_seq: 2, introduced_by: 'rotation at seq 2' });
  // A checkpoint signed by a key that is not in the chain is noise.
  const stranger = formatCheckpointLine(signCheckpoint(k3, origin, 2, head));
  const s = await verifyLog(rows, k1.publicRaw, stranger, { workers: 1 });
  assert.equal(s.checkpoint, null);
  assert.match(s.warnings.join(' '), /does not verify with any of the log's keys/);
});

test("an entry after a rotation re-signed with the old key is broken, and says which key is current", async () => {
  const { steps } = rotatedLog();
  // The holder of the retired key k1 writes entry 6 under its own name: the key_id says k1.
  const forged = build(steps.map(([d, k], i) => (i === 5 ? [d, k1] : [d, k])));
  const r = await verifyLog(forged.rows, k1.publicRaw, null, { workers: 1 });
  assert.equal(r.status, 'broken');
  assert.equal(r.first_broken?.seq, 6);
  assert.equal(r.first_broken?.reason, `entry 6 is signed by key ${k1.keyId}; the current key from seq 5 is ${k2.keyId} (the key it names was replaced before this entry)`);
  // Or it keeps the current key's id and signs with the old key: the signature check names the current key.
  const rows = [...rotatedLog().rows];
  const body6 = rows[5]!.body;
  rows[5] = { ...rows[5]!, sig: signWith(k1, body6) };
  const t = await verifyLog(rows, k1.publicRaw, null, { workers: 1 });
  assert.equal(t.status, 'broken');
  assert.equal(t.first_broken?.seq, 6);
  assert.match(t.first_broken!.reason, new RegExp(`not signed by key ${k2.keyId} \\(the current key from seq 5\\)`));
});

test('a forged rotation (the new key did not sign, or signed something else) is broken at the rotation', async () => {
  const good = rotationDetails('audit', logId, k1, k2);
  const attacker = signingKeyFromSeed(Buffer.alloc(32, 99));
  // The old key's holder names the attacker's key as the successor, but the attacker signs a different statement.
  const other = rotationDetails('audit', logId, k1, attacker);
  const cases: Array<[string, EntryDraft['details'], RegExp]> = [
    ['new signature missing', { ...good, new_key_signature: '' }, /new audit key's signature/],
    ['new signature of another rotation', { ...other, new_key_signature: rotationDetails('audit', k3.keyId, k1, attacker).new_key_signature }, /new audit key's signature/],
    ['old signature wrong', { ...good, old_key_signature: good.new_key_signature }, /old audit key's signature/],
    ['a rotation of another log', rotationDetails('audit', k3.keyId, k1, k2), /names log .* not this log/],
    ['replacing a key that is not current', rotationDetails('audit', logId, k3, k2), /replaces audit key .* but the current key is/],
  ];
  for (const [name, details, reason] of cases) {
    const { rows } = build([
      [plain(1), k1],
      [rotated(details), k1],
      [plain(3), k2],
    ]);
    const r = await verifyLog(rows, k1.publicRaw, null, { workers: 1 });
    assert.equal(r.status, 'broken', name);
    assert.equal(r.first_broken?.seq, 2, name);
    assert.match(r.first_broken!.reason, reason, name);
  }
});

test('an approval rotation is checked too: both approval keys, and it must replace the approval key in force', async () => {
  const bad = { ...rotationDetails('approval', logId, a1, a2), new_key_signature: '00'.repeat(64) };
  const { rows } = build([
    [plain(1), k1],
    [rotated(bad), k1],
  ]);
  const r = await verifyLog(rows, k1.publicRaw, null, { workers: 1 });
  assert.equal(r.first_broken?.seq, 2);
  assert.match(r.first_broken!.reason, /new approval key's signature/);
  const twice = build([
    [plain(1), k1],
    [rotated(rotationDetails('approval', logId, a1, a2)), k1],
    [rotated(rotationDetails('approval', logId, a1, k3)), k1],
  ]);
  const t = await verifyLog(twice.rows, k1.publicRaw, null, { workers: 1 });
  assert.equal(t.first_broken?.seq, 3);
  assert.match(t.first_broken!.reason, /replaces approval key .* but the previous rotation made .* current/);
  // An approval rotation does not change which key signs the log.
  const after = build([
    [plain(1), k1],
    [rotated(rotationDetails('approval', logId, a1, a2)), k1],
    [plain(3), a2],
  ]);
  assert.equal((await verifyLog(after.rows, k1.publicRaw, null, { workers: 1 })).first_broken?.seq, 3);
});

test('a key file holding only a later key cannot verify the log, and says to export the history', async () => {
  const { rows } = rotatedLog();
  const r = await verifyLog(rows, k2.publicRaw, null, { workers: 1 });
  assert.equal(r.status, 'cannot_verify');
  assert.match(r.reason ?? '', /entry 1 is signed by key [0-9a-f]{16}, which your key file does not hold .*a later key of this log \(the rotation at seq 4 names it\).*airlock audit pubkey --history --out FILE/);
  assert.equal(r.entries, 0);
  // A key of no rotation of this log: plainly broken at entry 1, no history advice.
  const other = await verifyLog(rows, signingKeyFromSeed(Buffer.alloc(32, 77)).publicRaw, null, { workers: 1 });
  assert.equal(other.status, 'broken');
  assert.equal(other.first_broken?.seq, 1);
  assert.equal(other.reason, undefined);
  assert.match(other.first_broken!.reason, /which your key file does not hold/);
});

test('a rotation back to a retired key is refused', async () => {
  const { rows } = build([
    [plain(1), k1],
    [rotated(rotationDetails('audit', logId, k1, k2)), k1],
    [rotated(rotationDetails('audit', logId, k2, k1)), k2],
  ]);
  const r = await verifyLog(rows, k1.publicRaw, null, { workers: 1 });
  assert.equal(r.first_broken?.seq, 3);
  assert.match(r.first_broken!.reason, /brings back audit key/);
});

test('a key file: several lines, extra columns ignored, comments skipped, a bad line refused', () => {
  const text = `# history\n${formatHistoryLine(k1.publicRaw, 1)}\n${formatHistoryLine(k2.publicRaw, 40)}`;
  assert.deepEqual(parsePublicKeys(text), [k1.publicRaw, k2.publicRaw]);
  assert.match(formatHistoryLine(k2.publicRaw, 40), new RegExp(`^ed25519:[0-9a-f]{64}  ${k2.keyId}  from seq 40\\n$`));
  assert.throws(() => parsePublicKeys(`${formatHistoryLine(k1.publicRaw, 1)}garbage\n`), /public key file/);
  assert.throws(() => parsePublicKeys('\n\n'), /public key file/);
});

test('a sealer poisoned after a failed rotation append seals nothing more: no entry under an unannounced key', async () => {
  const { AuditSealer } = await import('../../src/daemon/sealer.js');
  const sealer = new AuditSealer(k1);
  sealer.expect('audit', k2);
  sealer.seal(rotated(rotationDetails('audit', logId, k1, k2)), 2, GENESIS_HASH);
  sealer.poison('the audit key rotation append failed after it was sealed');
  assert.throws(() => sealer.seal(plain(3), 3, GENESIS_HASH), /nothing is sealed any more: the audit key rotation append failed/);
  assert.throws(() => sealer.seal(plain(4), 2, GENESIS_HASH), /nothing is sealed any more/);
});
