/**
 * The pieces of "verify as anyone" below the CLI: the daemon's checkpoint pages
 * (whole lines, bounded, every line once, a shrunk file refused) and the bundle file
 * (written whole or not at all, read strictly, verified by the one verifier).
 */
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { sealEntry, GENESIS_HASH } from '../../src/audit/entry.js';
import { checkpointOrigin, formatCheckpointLine, signCheckpoint } from '../../src/audit/checkpoint.js';
import { bundleSource, writeBundle } from '../../src/audit/bundle.js';
import { verifySource, type AuditSource } from '../../src/audit/source.js';
import type { LogRow } from '../../src/audit/verify.js';
import { CHECKPOINT_PAGE_BYTES, checkpointPage } from '../../src/daemon/checkpoint-page.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';

const key = signingKeyFromSeed(Buffer.alloc(32, 9));
const origin = checkpointOrigin('host.example', key.keyId);
const at = new Date('2026-12-01T10:00:00.000Z');

function log(n: number): { rows: LogRow[]; cps: string[] } {
  const rows: LogRow[] = [];
  const cps: string[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const e = sealEntry(key, opaqueDraft({ kind: 'daemon_started', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: { n: i } }), i, prev, at);
    rows.push({ seq: i, body: e.body, sig: e.sig });
    prev = e.hash;
    if (i % 5 === 0) cps.push(formatCheckpointLine(signCheckpoint(key, origin, i, prev, at)));
  }
  return { rows, cps };
}

const rejects = async (p: Promise<unknown>, code: string, message?: RegExp) => {
  await assert.rejects(p, (e: { code?: string; message: string }) => {
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
};

test('audit.checkpoints pages: whole lines, each once, under the page bound; a line still being written waits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-cp-'));
  try {
    const file = join(dir, 'checkpoints.log');
    assert.deepEqual(await checkpointPage(file, {}), { lines: [], next_offset: null }, 'no file yet: no checkpoint yet');
    const line = formatCheckpointLine(signCheckpoint(key, origin, 1, 'a'.repeat(64), at));
    const count = Math.ceil((3 * CHECKPOINT_PAGE_BYTES) / (line.length + 1)) + 7;
    writeFileSync(file, Array.from({ length: count }, (_, i) => line.replace(' 1 ', ` ${i + 1} `)).join('\n') + '\n');
    appendFileSync(file, 'airlock-checkpoint half a li'); // an append in progress
    const got: string[] = [];
    let offset = 0;
    let pages = 0;
    for (;;) {
      const p = await checkpointPage(file, { offset });
      pages++;
      assert.ok(Buffer.byteLength(p.lines.join('\n')) <= CHECKPOINT_PAGE_BYTES);
      got.push(...p.lines);
      if (p.next_offset === null) break;
      offset = p.next_offset;
    }
    assert.ok(pages >= 4, `${pages} pages`);
    assert.equal(got.length, count, 'every whole line once, and not the unfinished one');
    assert.equal(got[count - 1], line.replace(' 1 ', ` ${count} `));
    assert.ok(got.every((l) => !l.includes('\n')));

    await rejects(checkpointPage(file, { offset: readFileSync(file).length + 1 }), 'checkpoints_shrank', /truncated or replaced/);
    await rejects(checkpointPage(file, { offset: -1 }), 'bad_audit_query');
    await rejects(checkpointPage(file, { offset: '0' }), 'bad_audit_query');
    writeFileSync(file, 'x'.repeat(CHECKPOINT_PAGE_BYTES + 10) + '\n');
    await rejects(checkpointPage(file, {}), 'bad_checkpoint_file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bundle holds the source as it was, verifies on its own, and is refused when malformed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bundle-'));
  try {
    const { rows, cps } = log(23);
    const src: AuditSource = { name: 'a test log', checkpoints: async () => [{ from: 'its checkpoints', text: cps.join('\n') + '\n' }], entries: () => rows };
    const out = join(dir, 'log.jsonl');
    const written = await writeBundle(src, out, { publicKey: null, force: false, now: at });
    assert.deepEqual({ ...written, bytes: undefined, sha256: undefined }, { checkpoints: 4, tree_heads: 0, public_keys: 0, entries: 23, bytes: undefined, sha256: undefined });
    assert.deepEqual([written.bytes, written.sha256], [readFileSync(out).length, createHash('sha256').update(readFileSync(out)).digest('hex')], 'the size and digest of the file on disk');
    const r = await verifySource(bundleSource(out), key.publicRaw, { workers: 1 });
    assert.deepEqual([r.status, r.entries, r.checkpoint?.size], ['intact', 23, 20]);
    assert.ok(r.warnings.some((w) => /came from bundle .* alone/.test(w)), 'its checkpoints are its own word');
    await rejects(writeBundle(src, out, { publicKey: null, force: false }), 'file_exists');
    await writeBundle({ ...src, entries: () => rows.slice(0, 10) }, out, { publicKey: null, force: true });
    assert.equal((await verifySource(bundleSource(out), key.publicRaw, { workers: 1 })).status, 'broken', 'replaced with --force: 10 entries, checkpoints up to 20');
    assert.deepEqual(readFileSync(out, 'utf8').split('\n').length, 1 + 4 + 10 + 1 + 1, 'no temporary file left in its place');

    await writeBundle(src, out, { publicKey: null, force: true });
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    const variant = (name: string, ls: string[]) => {
      const p = join(dir, name);
      writeFileSync(p, ls.join('\n') + '\n');
      return bundleSource(p);
    };
    // An entry in the middle removed, the end record adjusted: the chain names the gap.
    const gap = variant('gap.jsonl', [...lines.slice(0, 10), ...lines.slice(11, -1), JSON.stringify({ type: 'end', checkpoints: 4, tree_heads: 0, public_keys: 0, entries: 22 })]);
    const g = await verifySource(gap, key.publicRaw, { workers: 1 });
    assert.equal(g.status, 'broken');
    assert.match(g.first_broken!.reason, /entry 6 is missing/);
    const header = JSON.parse(lines[0]!);
    const refusals: Array<[string, string[], RegExp]> = [
      ['version.jsonl', [JSON.stringify({ ...header, version: 4 }), ...lines.slice(1)], /version 4; this airlock reads versions 1 to 3/],
      ['type.jsonl', [...lines.slice(0, 3), JSON.stringify({ type: 'cosignature', size: 3 }), ...lines.slice(3)], /type "cosignature", which this version does not know/],
      ['v1-tree-head.jsonl', [JSON.stringify({ ...header, version: 1 }), ...lines.slice(1, 3), JSON.stringify({ type: 'tree_head', note: 'x' }), ...lines.slice(3)], /type "tree_head", which this version does not know/],
      ['tree-head-types.jsonl', [...lines.slice(0, 3), JSON.stringify({ type: 'tree_head', size: 3 }), ...lines.slice(3)], /a tree head record without its note/],
      ['after-end.jsonl', [...lines, lines[7]!], /a record after the end record/],
      ['counts.jsonl', [...lines.slice(0, 10), ...lines.slice(11)], /end record counts 4 checkpoints, 0 tree heads, 0 public keys and 23 entries, the bundle holds 4, 0, 0 and 22/],
      ['not-a-bundle.jsonl', lines.slice(1), /not an audit bundle/],
      ['entry-types.jsonl', [...lines.slice(0, 6), JSON.stringify({ type: 'entry', seq: '1', body: 'x', sig: 'y' }), ...lines.slice(6)], /needs seq \(a number\)/],
    ];
    for (const [name, ls, why] of refusals) await rejects(verifySource(variant(name, ls), key.publicRaw, { workers: 1 }), 'bad_bundle', why);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a database archived between its start and its rows is transient/log_archived, not entries deleted', async () => {
  const { SqliteStore } = await import('../../src/store/sqlite.js');
  const { databaseSource } = await import('../../src/audit/log-file.js');
  const { rootAt } = await import('../../src/audit/merkle.js');
  const { signTreeHead } = await import('../../src/audit/note.js');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-db-race-'));
  const key = signingKeyFromSeed(Buffer.alloc(32, 4));
  const store = new SqliteStore(join(dir, 'airlock.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    const d = { kind: 'refused' as const, transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: {} };
    for (let i = 0; i < 30; i++) await store.appendEntries([opaqueDraft(d)]);
    const src = databaseSource(join(dir, 'airlock.db'), 'airlock audit verify');
    assert.equal(await src.start!(), null);
    const root = await rootAt(20, store.merkleNodes);
    await store.archiveSegment(20, signTreeHead(key, checkpointOrigin('h', key.keyId), 20, root, new Date()), opaqueDraft({ ...d, kind: 'archived', details: { first_seq: 1, last_seq: 20, root: root.toString('hex') } }));
    assert.throws(() => [...(src.entries() as Iterable<LogRow>)], (e: { code?: string }) => e.code === 'log_archived');
    // Asked again, it starts from the new base.
    assert.equal((await src.start!())!.start.seq, 20);
    assert.equal([...(src.entries() as Iterable<LogRow>)][0]!.seq, 21);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
