/**
 * Signed tree heads as evidence, and proofs checked offline: a real SQLite store holds a log of
 * transactions; the daemon's TreeHeads signs heads and builds proofs from the stored Merkle
 * nodes; verifyLog judges the log against heads (cut tail, rewritten root, a fork of two heads
 * of one size, witness cosignatures), and checkProof accepts exactly the honest proofs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { checkpointOrigin } from '../../src/audit/checkpoint.js';
import { cosign, formatWitnessVkey, parseNote, parseVkey, signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import { nodeHash } from '../../src/audit/merkle.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { checkProof } from '../../src/audit/proof.js';
import { TreeHeads } from '../../src/daemon/tree-heads.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(randomBytes(32));
const other = signingKeyFromSeed(randomBytes(32));
const witness = signingKeyFromSeed(randomBytes(32));
const witness2 = signingKeyFromSeed(randomBytes(32));
const origin = checkpointOrigin('web1.example', key.keyId);
const at = new Date('2026-11-30T10:00:00.000Z');
const txIds = Array.from({ length: 6 }, () => 'tx_' + randomBytes(12).toString('hex'));
const draft = (tx: string | null, kind: EntryDraft['kind']): EntryDraft => opaqueDraft({ kind, transaction_id: tx, action_name: tx ? 'RestartService' : null, risk: tx ? 'medium' : null, request_hash: tx ? 'ab'.repeat(32) : null, principal: null, details: {} });

const dir = mkdtempSync(join(tmpdir(), 'airlock-th-'));
const store = new SqliteStore(join(dir, 'a.db'), (d, seq, prev) => sealEntry(key, d, seq, prev, at));
const heads = new TreeHeads(store, (size, root) => signTreeHead(key, origin, size, root, at));
let rows: LogRow[] = [];
const headAt = async (size: number) => (await heads.head({ size })).note;

test.before(async () => {
  await store.appendEntries([draft(null, 'daemon_started')]);
  for (const tx of txIds) for (const kind of ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome'] as const) await store.appendEntries([draft(tx, kind)]);
  rows = await store.logRows(0, 1000);
  assert.equal(rows.length, 31);
});
test.after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const evidence = (...notes: string[]) => [{ from: 'the sink', text: notes.map(treeHeadLine).join('\n') + '\n' }];

test('a log that matches its tree heads is intact, and the report carries the head and the root', async () => {
  const rep = await verifyLog(rows, key.publicRaw, evidence(await headAt(10), await headAt(31)), { workers: 1 });
  assert.equal(rep.status, 'intact', JSON.stringify(rep));
  assert.equal(rep.root, store.logHead().root);
  assert.deepEqual([rep.checkpoint?.kind, rep.checkpoint?.size, rep.checkpoint?.root], ['tree_head', 31, store.logHead().root]);
});

test('a cut tail, a rewritten entry, and two heads of one size (a fork) are each broken and named', async () => {
  const full = await headAt(31);
  const cut = await verifyLog(rows.slice(0, 29), key.publicRaw, evidence(full), { workers: 1 });
  assert.equal(cut.status, 'broken');
  assert.deepEqual([cut.first_broken?.seq, /tail was cut/.test(cut.first_broken!.reason)], [30, true]);
  // An entry re-signed with the log's own key (the attacker has it) keeps signatures and chain... but not the root.
  const forged = rows.slice(0, 12);
  const bogus = sealEntry(key, draft(txIds[0]!, 'outcome'), 12, JSON.parse(rows[11]!.body).prev_hash, at);
  forged[11] = { seq: 12, body: bogus.body, sig: bogus.sig };
  const rewritten = await verifyLog(forged, key.publicRaw, evidence(await headAt(12)), { workers: 1 });
  assert.equal(rewritten.status, 'broken', JSON.stringify(rewritten));
  assert.match(rewritten.first_broken!.reason, /do not make the tree the head .* signed.*history was rewritten/);
  // Fork: the key signed another root for size 31, shown to someone else.
  const forkNote = signTreeHead(key, origin, 31, nodeHash(Buffer.alloc(32, 1), Buffer.alloc(32, 2)), at);
  const fork = await verifyLog(rows, key.publicRaw, evidence(full, forkNote), { workers: 1 });
  assert.equal(fork.status, 'broken');
  assert.match(fork.first_broken!.reason, /two different trees of size 31.*forked/);
});

test('witness cosignatures count only for witness keys the auditor gives; a cosigned head the log falls short of is broken', async () => {
  const full = await headAt(31);
  const body = (parseNote(full) as { body: string }).body;
  const cosigned = full + cosign(witness, 'witness.example', body, at);
  const w = parseVkey(formatWitnessVkey('witness.example', witness.publicRaw));
  const rep = await verifyLog(rows, key.publicRaw, evidence(cosigned), { workers: 1, witnesses: [w] });
  assert.equal(rep.status, 'intact');
  assert.deepEqual(rep.witnessed?.witnesses, ['witness.example']);
  const untrusted = await verifyLog(rows, key.publicRaw, evidence(cosigned), { workers: 1, witnesses: [parseVkey(formatWitnessVkey('witness.example', witness2.publicRaw))] });
  assert.equal(untrusted.witnessed, null, "another key's cosignature is not this witness's");
  const short = await verifyLog(rows.slice(0, 20), key.publicRaw, evidence(cosigned), { workers: 1, witnesses: [w] });
  assert.equal(short.status, 'broken');
  assert.match(short.first_broken!.reason, /cosigned by witness\.example.*tail was cut/);
});

test('two witnesses shown two different heads of one size: the verifier holding both sees the fork', async () => {
  const honest = await headAt(31);
  const forkNote = signTreeHead(key, origin, 31, nodeHash(Buffer.alloc(32, 3), Buffer.alloc(32, 4)), at);
  const a = honest + cosign(witness, 'a.example', (parseNote(honest) as { body: string }).body, at);
  const b = forkNote + cosign(witness2, 'b.example', (parseNote(forkNote) as { body: string }).body, at);
  const ws = [parseVkey(formatWitnessVkey('a.example', witness.publicRaw)), parseVkey(formatWitnessVkey('b.example', witness2.publicRaw))];
  const rep = await verifyLog(rows, key.publicRaw, evidence(a, b), { workers: 1, witnesses: ws });
  assert.equal(rep.status, 'broken');
  assert.match(rep.first_broken!.reason, /cosigned by a\.example.*cosigned by b\.example.*forked/);
});

test('heads not signed by the log key, of another log, or malformed are noise: with nothing else, cannot verify', async () => {
  const stranger = signTreeHead(other, checkpointOrigin('web1.example', other.keyId), 31, Buffer.alloc(32), at);
  const wrongLog = signTreeHead(key, checkpointOrigin('web1.example', other.keyId), 31, Buffer.alloc(32), at);
  const rep = await verifyLog(rows, key.publicRaw, [{ from: 'syslog', text: `${treeHeadLine(stranger)}\n${treeHeadLine(wrongLog)}\nairlock-tree-head !!!\n` }], { workers: 1 });
  assert.equal(rep.status, 'cannot_verify');
  assert.equal(rep.warnings.length, 3, rep.warnings.join('\n'));
  assert.match(rep.warnings.join('\n'), /no signature of a known log key/);
  assert.match(rep.warnings.join('\n'), /names another log/);
});

test('an inclusion proof of every entry of a transaction verifies offline; any change to it does not', async () => {
  const doc = await heads.prove({ transaction_id: txIds[3]! });
  assert.equal(doc.entries.length, 5);
  const ok = checkProof(doc, [key.publicRaw]);
  assert.equal(ok.status, 'valid', ok.summary);
  assert.deepEqual(ok.entries?.map((e) => e.kind), ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']);
  assert.equal(checkProof(doc, [other.publicRaw]).status, 'invalid', 'another key');
  const mutate = (f: (d: typeof doc) => void) => {
    const d = structuredClone(doc);
    f(d);
    return checkProof(d, [key.publicRaw]);
  };
  assert.match(mutate((d) => (d.entries[0]!.proof[0] = Buffer.alloc(32).toString('base64'))).summary, /does not lead to the signed root/);
  assert.match(mutate((d) => (d.entries[1]!.seq += 1)).summary, /claims seq/);
  assert.match(mutate((d) => (d.entries[2]!.body = d.entries[2]!.body.replace('approval_consumed', 'approval_granted'))).summary, /signature does not verify/);
  assert.match(mutate((d) => (d.tree_head = d.tree_head.replace(/\n31\n/, '\n32\n'))).summary, /tree head does not verify/);
  assert.match(mutate((d) => (d.transaction_id = txIds[2]!)).summary, /is of transaction/);
  assert.match(mutate((d) => d.entries[0]!.proof.push(Buffer.alloc(32).toString('base64'))).summary, /does not lead to the signed root/);
  // A real entry of another transaction with its real proof is not an entry of this one.
  const otherDoc = await heads.prove({ transaction_id: txIds[1]! });
  assert.match(mutate((d) => (d.entries[0] = otherDoc.entries[0]!)).summary, /is of transaction/);
});

test('a consistency proof between two heads verifies offline; between a head and a forked head it does not', async () => {
  for (const [a, b] of [[1, 31], [7, 8], [16, 31], [31, 31], [5, 20]] as const) {
    const doc = await heads.consistency({ old_size: a, new_size: b });
    assert.equal(checkProof(doc, [key.publicRaw]).status, 'valid', `${a} -> ${b}`);
  }
  const doc = await heads.consistency({ old_size: 10, new_size: 31 });
  const forked = { ...doc, new_head: signTreeHead(key, origin, 31, nodeHash(Buffer.alloc(32, 5), Buffer.alloc(32, 6)), at) };
  assert.match(checkProof(forked, [key.publicRaw]).summary, /does not extend the tree of size 10/);
  assert.match(checkProof({ ...doc, old_head: doc.new_head, new_head: doc.old_head }, [key.publicRaw]).summary, /larger than the new one/);
  await assert.rejects(heads.consistency({ old_size: 40 }), /past the end of the log/);
  await assert.rejects(heads.prove({ transaction_id: 'tx_' + '0'.repeat(24) }), /holds no entry/);
});

test("a head of this log signed by a key the auditor does not hold (a rotation's, say, with the log cut before it) fails closed; with that key given, it breaks the log", async () => {
  // `other` stands for the key a rotation at the end of the log brought in: the log cut to 25 no longer shows it.
  const later = signTreeHead(other, origin, 31, Buffer.from(store.logHead().root, 'hex'), at);
  const cut = rows.slice(0, 25);
  const early = await headAt(20);
  const alone = await verifyLog(cut, key.publicRaw, evidence(early, later), { workers: 1 });
  assert.equal(alone.status, 'cannot_verify', JSON.stringify(alone));
  assert.match(alone.reason!, /1 tree head\(s\) naming this log \(the largest of size 31\) are signed by a key you do not hold/);
  const withHistory = await verifyLog(cut, [key.publicRaw, other.publicRaw], evidence(early, later), { workers: 1 });
  assert.equal(withHistory.status, 'broken');
  assert.match(withHistory.first_broken!.reason, /covers 31: the tail was cut/);
  // A line claiming the auditor's own key whose signature fails (size changed under it) is a forgery, noise as before.
  const forged = (await headAt(31)).replace(/\n31\n/, '\n40\n');
  assert.equal((await verifyLog(rows, key.publicRaw, evidence(await headAt(31), forged), { workers: 1 })).status, 'intact');
});

test('witnesses named but none cosigned a head: cannot verify, the heads being the host word alone', async () => {
  const w = parseVkey(formatWitnessVkey('witness.example', witness.publicRaw));
  const rep = await verifyLog(rows, key.publicRaw, evidence(await headAt(31)), { workers: 1, witnesses: [w] });
  assert.equal(rep.status, 'cannot_verify');
  assert.match(rep.reason!, /no tree head of this log is cosigned by the witness you named \(witness\.example\)/);
});

test('stored Merkle nodes changed under the daemon (another writer, a hand edit) are never signed', async () => {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(dir, 'a.db'));
  const old = db.prepare('SELECT hash FROM merkle_nodes WHERE level = 4 AND idx = 0').pluck().get() as Buffer;
  db.prepare('UPDATE merkle_nodes SET hash = ? WHERE level = 4 AND idx = 0').run(Buffer.alloc(32, 9));
  try {
    await assert.rejects(heads.head({}), /do not give the root this daemon wrote: nothing is signed/);
    await assert.rejects(heads.prove({ transaction_id: txIds[0]! }), /nothing is signed/);
  } finally {
    db.prepare('UPDATE merkle_nodes SET hash = ? WHERE level = 4 AND idx = 0').run(old);
    db.close();
  }
  assert.equal((await heads.head({})).size, 31, 'restored, it signs again');
});
