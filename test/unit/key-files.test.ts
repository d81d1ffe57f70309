/**
 * The daemon's side of rotation without a daemon: the sealer switches keys at the rotation
 * entry's seq (also when a store seals concurrently or retries), and the key files rotate in
 * an order a crash cannot break (pending seed 0600 and exclusive, history kept, old seed gone).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { rotationDetails } from '../../src/audit/rotation.js';
import { AuditSealer } from '../../src/daemon/sealer.js';
import { KeyFiles } from '../../src/daemon/key-files.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const k1 = signingKeyFromSeed(Buffer.alloc(32, 1));
const k2 = signingKeyFromSeed(Buffer.alloc(32, 2));
const plain: EntryDraft = opaqueDraft({ kind: 'preview', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} });
const rotation = (key: 'audit' | 'approval', next = k2): EntryDraft => ({ ...plain, kind: 'key_rotated', details: rotationDetails(key, k1.keyId, k1, next) });
const keyOf = (body: string) => (JSON.parse(body) as { key_id: string }).key_id;

test('the sealer seals the rotation entry with the old key and every later seq with the new one, before it settles', () => {
  const s = new AuditSealer(k1);
  s.expect('audit', k2);
  assert.equal(keyOf(s.seal(plain, 4, '0'.repeat(64)).body), k1.keyId, 'before the rotation entry');
  assert.equal(keyOf(s.seal(rotation('audit'), 5, '0'.repeat(64)).body), k1.keyId, 'the rotation entry: the old key');
  // Another transaction seals right after the rotation committed, before the rotating code settles.
  assert.equal(keyOf(s.seal(plain, 6, '0'.repeat(64)).body), k2.keyId);
  // A transaction that lost the race seals at the rotation's seq again, after it: still the old key.
  assert.equal(keyOf(s.seal(plain, 5, '0'.repeat(64)).body), k1.keyId);
  assert.equal(s.current.keyId, k1.keyId, 'checkpoints sign with the old key until it settles');
  assert.equal(s.rotationSeq, 5);
  s.settle();
  assert.equal(s.current.keyId, k2.keyId);
  assert.equal(keyOf(s.seal(plain, 7, '0'.repeat(64)).body), k2.keyId);
});

test('a retried rotation entry moves the switch; an approval rotation switches nothing; one never sealed is abandoned', () => {
  const s = new AuditSealer(k1);
  s.expect('audit', k2);
  s.seal(rotation('audit'), 5, '0'.repeat(64));
  s.seal(rotation('audit'), 7, '0'.repeat(64)); // the store retried at a later seq
  assert.equal(keyOf(s.seal(plain, 6, '0'.repeat(64)).body), k1.keyId);
  assert.equal(keyOf(s.seal(plain, 8, '0'.repeat(64)).body), k2.keyId);
  assert.throws(() => s.abandon(), /sealed/);
  s.settle();

  const a = new AuditSealer(k1);
  a.expect('approval', k2);
  a.seal(rotation('approval'), 3, '0'.repeat(64));
  assert.equal(keyOf(a.seal(plain, 4, '0'.repeat(64)).body), k1.keyId, 'the approval key never signs the log');
  assert.equal(a.rotationSeq, 3);
  a.settle();
  assert.equal(a.current.keyId, k1.keyId);

  const n = new AuditSealer(k1);
  n.expect('audit', k2);
  assert.equal(n.rotationSeq, null);
  n.abandon();
  n.expect('audit', k2);
  assert.throws(() => n.expect('audit', k2), /already under way/, 'one rotation at a time');
});

test('key files: a pending seed (0600, exclusive), then commit: history, new seed in place, old seed and pending name gone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-keyfiles-'));
  try {
    const f = new KeyFiles({ seed: join(dir, 'audit.key'), history: join(dir, 'audit-keys.pub'), publicKey: join(dir, 'audit.pub') }, true);
    f.ensureHistory();
    const first = f.current;
    assert.equal(readFileSync(join(dir, 'audit.pub'), 'utf8'), `ed25519:${first.publicRaw.toString('hex')}\n`);
    assert.equal(f.history().length, 1);
    assert.equal(statSync(join(dir, 'audit-keys.pub')).mode & 0o777, 0o644);
    const next = f.prepare();
    assert.equal(statSync(f.pendingPath).mode & 0o777, 0o600);
    assert.throws(() => f.prepare(), /already under way/, 'one pending seed at a time');
    assert.equal(f.pending()!.keyId, next.keyId);
    f.commit(next, 41);
    f.commit(next, 41); // idempotent: start-up recovery may repeat it
    assert.equal(f.current.keyId, next.keyId);
    assert.deepEqual(f.history().map((l) => [l.keyId, l.fromSeq]), [[first.keyId, 1], [next.keyId, 42]]);
    assert.equal(signingKeyFromSeed(readFileSync(join(dir, 'audit.key'))).keyId, next.keyId);
    assert.equal(statSync(join(dir, 'audit.key')).mode & 0o777, 0o600);
    for (const gone of ['audit.key.new', 'audit.key.old']) assert.ok(!existsSync(join(dir, gone)), gone);
    assert.match(readFileSync(join(dir, 'audit.pub'), 'utf8'), new RegExp(next.publicRaw.toString('hex')));
    // A restart reads the same state.
    const again = new KeyFiles(f.paths, false);
    again.ensureHistory();
    assert.equal(again.current.keyId, next.keyId);
    // A discarded rotation leaves nothing behind.
    again.prepare();
    again.discard();
    assert.equal(again.pending(), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('key files: a key file replaced by hand (not the history\'s last key) stops the start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-keyfiles-'));
  try {
    const paths = { seed: join(dir, 'a.key'), history: join(dir, 'a-keys.pub') };
    new KeyFiles(paths, true).ensureHistory();
    rmSync(paths.seed);
    const other = new KeyFiles(paths, true); // a new random seed where the old one was
    assert.throws(() => other.ensureHistory(), /is not the last key of/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
