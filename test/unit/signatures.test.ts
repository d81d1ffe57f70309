/** Receipts, log entries and checkpoints: bound, domain-separated, tamper-evident. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeedFile, signingKeyFromSeed, ed25519Verify, formatPublicKey, parsePublicKey } from '../../src/audit/keys.js';
import { mintReceipt, receiptCommitment, verifyReceipt, type ReceiptClaims } from '../../src/audit/receipt.js';
import { entrySignatureValid, sealEntry, GENESIS_HASH, type EntryDraft } from '../../src/audit/entry.js';
import { signCheckpoint, parseCheckpoints, formatCheckpointLine, checkpointOrigin } from '../../src/audit/checkpoint.js';
import { DOMAIN_CHECKPOINT, DOMAIN_LOG_ENTRY, DOMAIN_RECEIPT, frameFields } from '../../src/audit/domains.js';
import { verifyLog } from '../../src/audit/verify.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(Buffer.alloc(32, 7));
const origin = checkpointOrigin('host.example', key.keyId);
const claims: ReceiptClaims = { transactionId: 'tx_' + 'a'.repeat(24), requestHash: 'b'.repeat(64), approver: 'alice(uid 1002)', executor: 'agent(uid 1001)', expiresAt: '2026-11-29T12:00:00.000Z' };

test('a receipt verifies only for exactly its claims', () => {
  const { receipt, commitment } = mintReceipt(key, claims);
  assert.match(receipt, /^alr1\.[A-Za-z0-9_-]{107}$/);
  assert.equal(commitment, receiptCommitment(receipt));
  assert.equal(verifyReceipt(key, claims, receipt), true);
  for (const k of Object.keys(claims) as (keyof ReceiptClaims)[]) {
    assert.equal(verifyReceipt(key, { ...claims, [k]: claims[k] + 'x' }, receipt), false, `changing ${k} breaks it`);
  }
  assert.equal(verifyReceipt(signingKeyFromSeed(Buffer.alloc(32, 8)), claims, receipt), false, 'another key');
  assert.notEqual(mintReceipt(key, claims).receipt, receipt, 'a fresh nonce each time');
});

test('framing is injective: moving a boundary between fields changes the message', () => {
  assert.notDeepEqual(frameFields(['ab', 'c']), frameFields(['a', 'bc']));
  assert.notDeepEqual(frameFields(['', 'x']), frameFields(['x', '']));
});

test('domain tags are distinct and prefix-free', () => {
  const tags = [DOMAIN_LOG_ENTRY, DOMAIN_CHECKPOINT, DOMAIN_RECEIPT];
  for (const a of tags) for (const b of tags) if (a !== b) assert.ok(!b.subarray(0, a.length).equals(a), `${a} prefixes ${b}`);
});

const draft = (i: number): EntryDraft => opaqueDraft({ kind: 'preview', transaction_id: `tx_${i}`, action_name: 'ListUsers', risk: 'low', request_hash: 'c'.repeat(64), principal: { uid: 1000, user: 'u', role: 'observer' }, details: { n: i } });

test('an entry signature covers its bytes and only under the log-entry domain', () => {
  const e = sealEntry(key, draft(1), 1, GENESIS_HASH);
  assert.equal(entrySignatureValid(key.publicKey, e.body, e.sig), true);
  assert.equal(entrySignatureValid(key.publicKey, e.body.replace('"n":1', '"n":2'), e.sig), false);
  // The same bytes signed as a checkpoint never pass as an entry.
  const cp = signCheckpoint(key, origin, 1, e.hash);
  assert.equal(entrySignatureValid(key.publicKey, e.body, cp.sig), false);
  assert.equal(ed25519Verify(key.publicKey, Buffer.from(e.body), Buffer.from(e.sig, 'hex')), false, 'no domain, no verification');
});

test('verifyLog finds the first broken entry and checks checkpoints', async () => {
  const rows: { seq: number; body: string; sig: string }[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= 50; i++) {
    const e = sealEntry(key, draft(i), i, prev);
    rows.push({ seq: i, body: e.body, sig: e.sig });
    prev = e.hash;
  }
  const cps = formatCheckpointLine(signCheckpoint(key, origin, 50, prev)) + '\n';
  assert.equal((await verifyLog(rows, key.publicRaw, cps, { workers: 2 })).status, 'intact');
  const bad = rows.map((r) => ({ ...r }));
  bad[29]!.sig = bad[29]!.sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const rep = await verifyLog(bad, key.publicRaw, cps, { workers: 2 });
  assert.deepEqual([rep.status, rep.first_broken?.seq], ['broken', 30]);
  const cut = await verifyLog(rows.slice(0, 45), key.publicRaw, cps);
  assert.deepEqual([cut.status, cut.first_broken?.seq], ['broken', 46]);
  assert.equal(parseCheckpoints(cps.replace(' 50 ', ' 51 '), key.publicKey)[0]!.ok, false);
});

test('key files: created 0600, refused when group/world readable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-keys-'));
  try {
    const p = join(dir, 'k');
    const k1 = loadSeedFile(p, true);
    assert.equal(statSync(p).mode & 0o777, 0o600);
    assert.equal(loadSeedFile(p, false).keyId, k1.keyId);
    chmodSync(p, 0o640);
    assert.throws(() => loadSeedFile(p, false), /mode 640/);
    writeFileSync(join(dir, 'short'), randomBytes(31), { mode: 0o600 });
    assert.throws(() => loadSeedFile(join(dir, 'short'), false), /32 bytes/);
    assert.throws(() => loadSeedFile(join(dir, 'absent'), false), /cannot open key file/);
    assert.deepEqual(parsePublicKey(formatPublicKey(k1.publicRaw)), k1.publicRaw);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
