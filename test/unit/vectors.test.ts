/**
 * Replays the known-answer vectors of test/vectors/ against the real code: every valid
 * case is recomputed (bytes, hashes, signatures) and must match, every invalid case must
 * be refused by the real verifier. The files are read, never regenerated here, so a
 * change of format fails this test; the last test checks that the generator still
 * reproduces them byte for byte, so they cannot drift from the code silently either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { canonicalize, CanonicalizationError } from '../../src/protocol/canonical.js';
import { previewDigest, previewDigestInput, previewDigestMatches, requestHash, requestHashInput } from '../../src/protocol/hash.js';
import { PreviewEnvelopeSchema } from '../../src/protocol/wire/preview.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { storedPreview } from '../../src/daemon/stored-preview.js';
import type { TxRecord } from '../../src/store/store.js';
import { ed25519Verify, signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { mintReceipt, receiptCommitment, receiptMessage, verifyReceipt, type ReceiptClaims } from '../../src/audit/receipt.js';
import { entryHash, entryMessage, entrySignatureValid, GENESIS_HASH, sealEntry, type EntryDraft, type LogEntry } from '../../src/audit/entry.js';
import { checkpointMessage, checkpointOrigin, checkpointText, formatCheckpointLine, parseCheckpoints, signCheckpoint, type Checkpoint } from '../../src/audit/checkpoint.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { renderVectors, VECTORS_DIR } from '../../scripts/gen-vectors.js';
import { opaqueDraft } from '../support/opaque-draft.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the files are data; each field is checked where it is used */
const load = (name: string): any => JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'));
const hex = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b).toString('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The key a file names, rebuilt from its seed; its public key and id must be the ones written. */
function keyOf(k: { seed_hex: string; public_key_hex: string; key_id: string }): SigningKey {
  const key = signingKeyFromSeed(Buffer.from(k.seed_hex, 'hex'));
  assert.equal(key.publicRaw.toString('hex'), k.public_key_hex);
  assert.equal(key.keyId, k.key_id);
  return key;
}

test('request-hash.json: hashes recomputed; wrong hashes and refused values are refused', () => {
  const v = load('request-hash.json');
  assert.ok(v.valid.length >= 9 && v.invalid.length >= 8);
  for (const c of v.valid) {
    const params = JSON.parse(c.input_json);
    assert.equal(canonicalize(params), c.params_jcs_utf8, c.name);
    assert.equal(hex(canonicalize(params)), c.params_jcs_hex, c.name);
    assert.equal(hex(requestHashInput(c.action_name, params)), c.hashed_bytes_hex, c.name);
    assert.equal(sha256(Buffer.from(c.hashed_bytes_hex, 'hex')), c.request_hash, c.name);
    assert.equal(requestHash(c.action_name, params), c.request_hash, c.name);
  }
  for (const c of v.invalid) {
    const params = JSON.parse(c.input_json);
    if (c.refused) assert.throws(() => requestHash(c.action_name, params), CanonicalizationError, c.name);
    else assert.notEqual(requestHash(c.action_name, params), c.claimed_request_hash, c.name);
  }
});

/** A transaction row holding this preview, as the store would give it back. */
const txOf = (p: PreviewEnvelope): TxRecord => ({
  id: p.transaction_id,
  actionName: p.action_name,
  params: p.params,
  requestHash: p.request_hash,
  risk: p.risk,
  state: 'Previewed',
  requesterUid: 1001,
  requesterName: 'agent',
  requesterRole: 'dev',
  requesterPersonUid: null,
  preview: p as unknown as Record<string, unknown>,
  previewDigest: p.preview_digest,
  summary: p.summary,
  createdAt: 0,
  updatedAt: 0,
  expiresAt: 0,
  approvedBy: null,
  receiptCommitment: null,
  compactedAt: null,
  result: null,
});

test('preview-digest.json: digests recomputed; the client check and the stored-preview check refuse every altered envelope', () => {
  const v = load('preview-digest.json');
  assert.ok(v.valid.length >= 3 && v.invalid.length >= 7);
  for (const c of v.valid) {
    const env = (c.envelope ?? JSON.parse(c.envelope_json)) as PreviewEnvelope;
    assert.ok(PreviewEnvelopeSchema.safeParse(env).success, c.name);
    if (c.digest_input_utf8 !== undefined) {
      assert.equal(previewDigestInput(env), c.digest_input_utf8, c.name);
      assert.equal(hex(previewDigestInput(env)), c.digest_input_hex, c.name);
      assert.equal(sha256(Buffer.from(c.digest_input_hex, 'hex')), c.preview_digest, c.name);
    }
    assert.equal(env.preview_digest, c.preview_digest, c.name);
    assert.equal(previewDigest(env), c.preview_digest, c.name);
    assert.equal(previewDigestMatches(env), true, c.name);
    assert.deepEqual(storedPreview(txOf(env)), env, c.name);
  }
  for (const c of v.invalid) {
    const env = c.envelope as PreviewEnvelope;
    assert.equal(previewDigestMatches(env), false, c.name);
    assert.throws(() => storedPreview(txOf(env)), (e: any) => e.code === 'bad_stored_preview', c.name);
    if (c.refused) assert.throws(() => previewDigest(env), CanonicalizationError, c.name);
  }
});

const claimsOf = (c: any): ReceiptClaims => ({ transactionId: c.transaction_id, requestHash: c.request_hash, approver: c.approver, executor: c.executor, expiresAt: c.expires_at });

test('receipt.json: receipts minted again byte for byte; verifyReceipt refuses every invalid one', () => {
  const v = load('receipt.json');
  const key = keyOf(v.key);
  keyOf(v.other_key);
  assert.ok(v.valid.length >= 2 && v.invalid.length >= 14);
  for (const c of v.valid) {
    const claims = claimsOf(c.claims);
    const nonce = Buffer.from(c.nonce_hex, 'hex');
    const message = receiptMessage(claims, nonce);
    assert.equal(hex(message), c.signed_message_hex, c.name);
    assert.ok(ed25519Verify(key.publicKey, message, Buffer.from(c.signature_hex, 'hex')), c.name);
    assert.deepEqual(mintReceipt(key, claims, nonce), { receipt: c.receipt, commitment: c.commitment }, c.name);
    assert.equal(c.receipt.length, 112);
    assert.equal(Buffer.from(c.receipt.slice(5), 'base64url').toString('hex'), c.nonce_hex + c.signature_hex, c.name);
    assert.equal(receiptCommitment(c.receipt), c.commitment, c.name);
    assert.equal(verifyReceipt(key, claims, c.receipt), true, c.name);
  }
  for (const c of v.invalid) assert.equal(verifyReceipt(key, claimsOf(c.claims), c.receipt), false, c.name);
  for (const c of v.invalid_commitments) assert.notEqual(receiptCommitment(c.receipt), c.claimed_commitment, c.name);
});

const draftOf = (e: LogEntry): EntryDraft => {
  const { seq: _s, ts: _t, key_id: _k, prev_hash: _p, ...draft } = e;
  return opaqueDraft(draft);
};

test('log-entry.json: entries sealed again byte for byte and chained; verifyLog finds every broken log at its entry', async () => {
  const v = load('log-entry.json');
  const key = keyOf(v.key);
  keyOf(v.other_key);
  assert.equal(v.genesis_hash, GENESIS_HASH);
  assert.ok(v.valid.length >= 3 && v.invalid.length >= 12);
  let prev = GENESIS_HASH;
  for (const c of v.valid) {
    const e = c.entry as LogEntry;
    assert.equal(e.prev_hash, prev, `entry ${e.seq} chains to the one before`);
    assert.equal(e.key_id, key.keyId);
    assert.equal(canonicalize(e), c.body_utf8);
    assert.equal(hex(entryMessage(c.body_utf8)), c.signed_message_hex);
    assert.equal(sha256(Buffer.from(c.body_utf8, 'utf8')), c.entry_hash);
    assert.equal(entryHash(c.body_utf8), c.entry_hash);
    assert.deepEqual(sealEntry(key, draftOf(e), e.seq, e.prev_hash, new Date(e.ts)), { seq: e.seq, body: c.body_utf8, sig: c.signature_hex, hash: c.entry_hash });
    assert.equal(entrySignatureValid(key.publicKey, c.body_utf8, c.signature_hex), true);
    prev = c.entry_hash;
  }
  const rows = v.log.rows as LogRow[];
  assert.deepEqual(rows, v.valid.map((c: any) => ({ seq: c.entry.seq, body: c.body_utf8, sig: c.signature_hex })));
  // With no checkpoint nothing rules out a cut tail: every entry verifies, and the verdict is cannot_verify (fail closed).
  const rep = await verifyLog(rows, key.publicRaw, null, { workers: 1 });
  assert.deepEqual([rep.status, rep.entries, rep.head_hash, rep.first_broken], ['cannot_verify', v.log.entries, v.log.head_hash, undefined]);
  for (const c of v.invalid) {
    const r = await verifyLog(c.rows as LogRow[], key.publicRaw, null, { workers: 1 });
    assert.deepEqual([r.status, r.first_broken?.seq], ['broken', c.first_broken_seq], `${c.name}: ${r.first_broken?.reason}`);
  }
});

test('checkpoint.json: checkpoints signed again byte for byte; every invalid line is refused; log checks come out as written', async () => {
  const v = load('checkpoint.json');
  const key = keyOf(v.key);
  keyOf(v.other_key);
  for (const o of v.origins) assert.equal(checkpointOrigin(o.host_name, o.key_id), o.origin, o.host_name);
  assert.ok(v.valid.length >= 2 && v.invalid.length >= 20 && v.log_checks.length >= 5);
  for (const c of v.valid) {
    const cp = c.checkpoint as Checkpoint;
    assert.equal(checkpointText(cp), c.signed_text_utf8, c.name);
    assert.equal(hex(checkpointMessage(c.signed_text_utf8)), c.signed_message_hex, c.name);
    assert.ok(ed25519Verify(key.publicKey, Buffer.from(c.signed_message_hex, 'hex'), Buffer.from(c.signature_hex, 'hex')), c.name);
    const signed = signCheckpoint(key, cp.origin, cp.size, cp.head_hash, new Date(cp.ts));
    assert.deepEqual(signed, { checkpoint: cp, text: c.signed_text_utf8, sig: c.signature_hex }, c.name);
    assert.equal(formatCheckpointLine(signed), c.line, c.name);
    for (const opts of [{}, { origin: cp.origin }]) {
      const parsed = parseCheckpoints(c.line, key.publicKey, opts);
      assert.deepEqual(parsed, [{ ok: true, value: signed }], c.name);
    }
  }
  for (const c of v.invalid) {
    const parsed = parseCheckpoints(c.line, key.publicKey, c.expected_origin ? { origin: c.expected_origin } : {});
    assert.equal(parsed.length, 1, `${c.name}: read as a checkpoint line`);
    assert.equal(parsed[0]!.ok, false, c.name);
  }
  for (const c of v.log_checks) {
    const r = await verifyLog(c.rows as LogRow[], key.publicRaw, c.checkpoints, { workers: 1, ...(c.expected_origin ? { origin: c.expected_origin } : {}) });
    assert.equal(r.status, c.expect.status, `${c.name}: ${r.first_broken?.reason}`);
    if (c.expect.first_broken_seq !== undefined) assert.equal(r.first_broken?.seq, c.expect.first_broken_seq, c.name);
    assert.equal(r.checkpoint?.size ?? null, c.expect.checkpoint_size, c.name);
  }
});

test('docs/protocol.md links every vector file', () => {
  const doc = readFileSync(join(VECTORS_DIR, '..', '..', 'docs', 'protocol.md'), 'utf8');
  for (const name of readdirSync(VECTORS_DIR)) assert.ok(doc.includes(`](../test/vectors/${name})`), `${name} is linked from docs/protocol.md`);
});

test('scripts/gen-vectors.ts reproduces the committed files byte for byte', () => {
  const fresh = renderVectors();
  assert.deepEqual(readdirSync(VECTORS_DIR).sort(), [...fresh.keys()].sort(), 'test/vectors holds exactly the generated files');
  for (const [name, text] of fresh) {
    const committed = readFileSync(join(VECTORS_DIR, name), 'utf8');
    if (committed === text) continue;
    const a = committed.split('\n');
    const b = text.split('\n');
    let i = 0;
    while (a[i] === b[i]) i++;
    assert.fail(`test/vectors/${name} differs from what scripts/gen-vectors.ts produces, first at line ${i + 1}:\n  file:      ${a[i]}\n  generated: ${b[i]}\nA format changed: if on purpose, run \`npm run vectors\`, update docs/protocol.md and say so.`);
  }
});
