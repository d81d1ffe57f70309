/**
 * verifyLog from an archived base (a LogStart): the walk takes up at base + 1 with the base's
 * chain hash and Merkle frontier, a signed head of the base's size must vouch for it, and a
 * first entry signed by a key the auditor lacks is a missing key (cannot_verify), not a break.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { GENESIS_HASH, sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { checkpointOrigin } from '../../src/audit/checkpoint.js';
import { leafHash, MerkleFrontier } from '../../src/audit/merkle.js';
import { signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import { verifyLog, type LogRow } from '../../src/audit/verify.js';
import { opaqueDraft } from '../support/opaque-draft.js';

const first = signingKeyFromSeed(randomBytes(32));
const later = signingKeyFromSeed(randomBytes(32));
const origin = checkpointOrigin('web1.example', first.keyId);
const d: EntryDraft = opaqueDraft({ kind: 'refused', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} });

/** The root of a run of entries as their own tree (a complete subtree of the log when aligned). */
const sub = (rows: LogRow[]) => rows.reduce((f, r) => (f.push(leafHash(r.body)), f), MerkleFrontier.empty()).root().toString('hex');

/** A log of n entries, the first ten signed by `first` and the rest by `rest` (key ids only: no rotation entry). */
function log(n: number, rest = first, announced = true) {
  const rows: LogRow[] = [];
  const frontiers: MerkleFrontier[] = [];
  const hashes: string[] = [GENESIS_HASH];
  const tree = MerkleFrontier.empty();
  for (let seq = 1; seq <= n; seq++) {
    // Entry 11 is the archival that moved the base to 10, as the daemon appends it.
    const draft: EntryDraft = seq === 11 && announced ? opaqueDraft({ ...d, kind: 'archived', details: { first_seq: 1, last_seq: 10, root: frontiers[9]!.root().toString('hex') } }) : d;
    const s = sealEntry(seq <= 10 ? first : rest, draft, seq, hashes.at(-1)!);
    rows.push({ seq, body: s.body, sig: s.sig });
    hashes.push(s.hash);
    tree.push(leafHash(s.body));
    frontiers.push(tree.clone());
  }
  return { rows, hashes, root: (seq: number) => frontiers[seq - 1]!.root() };
}

test('from a base, a head of its size vouches for the start; without one the log cannot be verified', async () => {
  const l = log(30);
  // The frontier at 10: the roots of its two complete subtrees, leaves 1-8 and 9-10.
  assert.equal(MerkleFrontier.edgeIds(10).length, 2);
  const frontier = [sub(l.rows.slice(0, 8)), sub(l.rows.slice(8, 10))];
  const start = { seq: 10, hash: l.hashes[10]!, frontier, logId: first.keyId };
  const head = (size: number, key = first) => treeHeadLine(signTreeHead(key, origin, size, l.root(size), new Date()));
  const ev = (...lines: string[]) => [{ from: 'test', text: lines.join('\n') + '\n' }];
  const ok = await verifyLog(l.rows.slice(10), first.publicRaw, ev(head(10), head(30)), { workers: 1, start });
  assert.equal(ok.status, 'intact', JSON.stringify(ok));
  assert.deepEqual([ok.entries, ok.archived], [30, 10]);
  const unvouched = await verifyLog(l.rows.slice(10), first.publicRaw, ev(head(30)), { workers: 1, start });
  assert.equal(unvouched.status, 'cannot_verify');
  // Rows that do not begin right after the base: missing, whatever the heads say.
  const gap = await verifyLog(l.rows.slice(11), first.publicRaw, ev(head(10), head(30)), { workers: 1, start });
  assert.equal(gap.status, 'broken');
  assert.match(gap.first_broken!.reason, /entry 11 is missing/);
  // A live log with no signed archived entry for its base (rows deleted and a base made up from a
  // signed head of the checkpoint file): entries 1-10 were removed, not archived.
  const silent = log(30, first, false);
  const silentStart = { ...start, hash: silent.hashes[10]!, frontier: [sub(silent.rows.slice(0, 8)), sub(silent.rows.slice(8, 10))] };
  const removed = await verifyLog(silent.rows.slice(10), first.publicRaw, [{ from: 'test', text: [10, 30].map((n) => treeHeadLine(signTreeHead(first, origin, n, silent.root(n), new Date()))).join('\n') + '\n' }], { workers: 1, start: silentStart });
  assert.equal(removed.status, 'broken', JSON.stringify(removed));
  assert.match(removed.first_broken!.reason, /no signed archived entry/);
  // A base whose chain hash is not entry 10's: the first live entry does not chain to it.
  const wrong = await verifyLog(l.rows.slice(10), first.publicRaw, ev(head(10), head(30)), { workers: 1, start: { ...start, hash: 'ab'.repeat(32) } });
  assert.equal(wrong.status, 'broken');
});

test('a first live entry signed by a key the auditor lacks is cannot_verify, naming the key history', async () => {
  const l = log(30, later);
  const start = { seq: 10, hash: l.hashes[10]!, frontier: [sub(l.rows.slice(0, 8)), sub(l.rows.slice(8, 10))], logId: first.keyId };
  const text = [treeHeadLine(signTreeHead(first, origin, 10, l.root(10), new Date())), treeHeadLine(signTreeHead(later, origin, 30, l.root(30), new Date()))].join('\n');
  const r = await verifyLog(l.rows.slice(10), first.publicRaw, [{ from: 'test', text }], { workers: 1, start });
  assert.equal(r.status, 'cannot_verify', JSON.stringify(r));
  assert.match(r.reason!, /first after the archived ones, is signed by key .*history/);
  // With the later key in the file too, it verifies.
  const both = await verifyLog(l.rows.slice(10), [first.publicRaw, later.publicRaw], [{ from: 'test', text }], { workers: 1, start });
  assert.equal(both.status, 'intact', JSON.stringify(both));
});
