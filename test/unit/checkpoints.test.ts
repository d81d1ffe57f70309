/**
 * Checkpoints name their log and are verified over their stored bytes: a line with the
 * same fields in another encoding, or naming another log, does not count.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalize } from '../../src/protocol/canonical.js';
import { signingKeyFromSeed, ed25519Sign } from '../../src/audit/keys.js';
import { sealEntry, GENESIS_HASH } from '../../src/audit/entry.js';
import { checkpointMessage, checkpointOrigin, formatCheckpointLine, parseCheckpoints, signCheckpoint, CHECKPOINT_TAG } from '../../src/audit/checkpoint.js';
import { verifyLog } from '../../src/audit/verify.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(Buffer.alloc(32, 9));
const origin = checkpointOrigin('web1.example', key.keyId);
const at = new Date('2026-03-01T12:00:00.000Z');
const head = 'c'.repeat(64);
const signed = signCheckpoint(key, origin, 7, head, at);
const line = formatCheckpointLine(signed);
/** A line signed by the right key over any text: what a verifier must still refuse. */
const signedLine = (text: string) => `${CHECKPOINT_TAG}${text} ${ed25519Sign(key, checkpointMessage(text)).toString('hex')}`;
const only = (text: string, opts: { origin?: string } = {}) => {
  const parsed = parseCheckpoints(text, key.publicKey, opts);
  assert.equal(parsed.length, 1, 'the line is read as a checkpoint line');
  return parsed[0]!;
};

test('a checkpoint line: the origin first, then size, head and time, then the signature over exactly that text', () => {
  assert.equal(origin, `web1.example/airlock/${key.keyId}`);
  assert.equal(signed.text, `${origin} 7 ${head} 2026-03-01T12:00:00.000Z`);
  assert.equal(line, `airlock-checkpoint ${signed.text} ${signed.sig}`);
  const p = only(line);
  assert.ok(p.ok);
  assert.deepEqual(p.value, signed);
  // In a syslog export the line has a prefix, and a CRLF export a carriage return: neither is signed.
  assert.ok(only(`Mar  1 12:00:00 web1 airlock[77]: ${line}\r`).ok);
});

test('the host part of the origin: lower case, [a-z0-9.-] only, never empty', () => {
  assert.equal(checkpointOrigin('Web_1.Example', key.keyId), `web-1.example/airlock/${key.keyId}`);
  assert.equal(checkpointOrigin('db 2/x', key.keyId), `db-2-x/airlock/${key.keyId}`);
  assert.equal(checkpointOrigin('', key.keyId), `unnamed-host/airlock/${key.keyId}`);
  assert.equal(checkpointOrigin('hôte', key.keyId), `h-te/airlock/${key.keyId}`);
  assert.throws(() => checkpointOrigin('h', 'not-a-key-id'), RangeError);
});

test('the same fields in another key order or other whitespace do not verify: the signature covers the stored bytes', () => {
  const c = signed.checkpoint;
  const reencoded = [
    // The JSON of earlier versions, canonical and not: verifying it would mean re-canonicalizing parsed fields.
    `${CHECKPOINT_TAG}${canonicalize({ checkpoint: c, sig: signed.sig })}`,
    `${CHECKPOINT_TAG}${JSON.stringify({ sig: signed.sig, checkpoint: { ts: c.ts, size: c.size, origin: c.origin, head_hash: c.head_hash } })}`,
    // The text format with its fields moved or spaced differently, keeping the signature.
    `${CHECKPOINT_TAG}${c.size} ${c.origin} ${c.head_hash} ${c.ts} ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin}  ${c.size} ${c.head_hash} ${c.ts} ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin}\t${c.size} ${c.head_hash} ${c.ts} ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin} ${c.size} ${c.head_hash} ${c.ts}  ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin} ${c.size} ${c.head_hash} ${c.ts} ${signed.sig} `,
    `${CHECKPOINT_TAG}${c.origin} 07 ${c.head_hash} ${c.ts} ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin} ${c.size} ${c.head_hash.toUpperCase()} ${c.ts} ${signed.sig}`,
    `${CHECKPOINT_TAG}${c.origin} ${c.size} ${c.head_hash} ${c.ts} ${signed.sig.toUpperCase()}`,
  ];
  for (const l of reencoded) assert.equal(only(l).ok, false, l);
  // Even signed by the right key, a text in another spelling of the same fields is refused:
  // a checkpoint has exactly one text, so readers can never disagree about what was signed.
  for (const text of [`${c.origin} 07 ${c.head_hash} ${c.ts}`, `${c.origin}  7 ${c.head_hash} ${c.ts}`, `${c.origin} 7 ${c.head_hash} 2026-03-01T12:00:00Z`, `${c.origin} 7 ${c.head_hash.toUpperCase()} ${c.ts}`]) {
    const p = only(signedLine(text));
    assert.equal(p.ok, false, text);
    assert.match((p as { reason: string }).reason, /malformed/);
  }
});

test('a checkpoint naming another log does not count, even validly signed', () => {
  const otherKeyLog = `web1.example/airlock/${'0'.repeat(16)}`;
  const p = only(formatCheckpointLine(signCheckpoint(key, otherKeyLog, 7, head, at)));
  assert.equal(p.ok, false);
  assert.match((p as { reason: string }).reason, /names another log/);
  // The host part counts when the auditor says which log they audit.
  const otherHost = checkpointOrigin('web2.example', key.keyId);
  const q = only(formatCheckpointLine(signCheckpoint(key, otherHost, 7, head, at)), { origin });
  assert.equal(q.ok, false);
  assert.match((q as { reason: string }).reason, /names another log \(web2\.example\/airlock\/[0-9a-f]{16}\), not web1\.example/);
  assert.ok(only(line, { origin }).ok);
});

test('verifyLog: a checkpoint of another log neither breaks nor vouches for this one', async () => {
  const rows = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= 3; i++) {
    const e = sealEntry(key, opaqueDraft({ kind: 'daemon_started', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: { n: i } }), i, prev, at);
    rows.push({ seq: i, body: e.body, sig: e.sig });
    prev = e.hash;
  }
  const mine = formatCheckpointLine(signCheckpoint(key, origin, 3, prev, at));
  // The other host's log (same key: a cloned host) is longer and has another head.
  const theirs = formatCheckpointLine(signCheckpoint(key, checkpointOrigin('web2.example', key.keyId), 9, 'd'.repeat(64), at));
  const both = `${mine}\n${theirs}\n`;
  const rep = await verifyLog(rows, key.publicRaw, both, { workers: 1, origin });
  assert.equal(rep.status, 'intact');
  assert.deepEqual(rep.checkpoint, { size: 3, ts: at.toISOString(), origin, kind: 'checkpoint' });
  assert.match(rep.warnings.join(' '), /names another log/);
  // Without --origin both name this key's log, so the clone's checkpoint is believed and contradicts it: loud, not silent.
  assert.equal((await verifyLog(rows, key.publicRaw, both, { workers: 1 })).status, 'broken');
  const alone = await verifyLog(rows, key.publicRaw, `${theirs}\n`, { workers: 1, origin });
  assert.deepEqual([alone.status, alone.checkpoint], ['cannot_verify', null], 'no checkpoint of its own: fails closed');
  assert.match(alone.reason!, /no valid checkpoint or tree head of this log/);
  assert.match(alone.warnings.join(' '), /names another log/);
});

test('the writer refuses fields the reader would refuse', () => {
  assert.throws(() => signCheckpoint(key, 'no origin', 1, head, at), RangeError);
  assert.throws(() => signCheckpoint(key, origin, -1, head, at), RangeError);
  assert.throws(() => signCheckpoint(key, origin, 1.5, head, at), RangeError);
  assert.throws(() => signCheckpoint(key, origin, 1, 'C'.repeat(64), at), RangeError);
});
