/**
 * The archiver on a real SQLite store and a real archive directory: an archival whose store
 * transaction fails (a full disk, a lost database) leaves its segment file behind with no
 * `archived` entry naming it. The next attempt may cover another range (an age-triggered
 * archival takes what is there); the leftover must not stay in the archive, where it overlaps
 * the real segment and makes `airlock audit verify --archive` cannot_verify for ever.
 */
import { signSegmentRange } from '../../src/audit/segment-range.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEntry, type EntryDraft } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { signTreeHead } from '../../src/audit/note.js';
import { checkpointOrigin } from '../../src/audit/checkpoint.js';
import { listSegments, tilingGap } from '../../src/audit/archive-source.js';
import { Archiver } from '../../src/daemon/archiver.js';
import { DEFAULT_STORE_SETTINGS } from '../../src/policy/store-settings.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { opaqueDraft, type OpaqueDetails } from '../support/opaque-draft.js';

const draft = (n: number): EntryDraft => opaqueDraft({ kind: 'refused', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: { n } });

test('a segment file left by a failed archival is replaced, not kept beside the next one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-archiver-'));
  const key = signingKeyFromSeed(randomBytes(32));
  const store = new SqliteStore(join(dir, 'airlock.db'), (d, seq, prev) => sealEntry(key, d, seq, prev));
  try {
    for (let i = 0; i < 10; i++) await store.appendEntries([draft(i)]);
    const archive = join(dir, 'archive');
    let failNext = true;
    // The store transaction of the first archival fails, as on a full disk; the file was written first.
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'archiveSegment' && failNext) {
          return async () => {
            failNext = false;
            throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Store;
    const origin = checkpointOrigin('test', key.keyId);
    const archiver = new Archiver({
      store: flaky,
      dir: () => archive,
      trustDir: async () => {},
      // Age-triggered (every entry is old): up to a segment of what is there, leaving the newest live.
      settings: () => ({ ...DEFAULT_STORE_SETTINGS, archiveSegmentEntries: 16, archiveAfterMs: 0 }),
      sign: (size, root, at) => signTreeHead(key, origin, size, root, at),
      signRange: (first, last) => signSegmentRange(key, key.keyId, first, last),
      publicKeys: () => ({ all: [key.publicRaw], current: key.publicRaw }),
      logId: key.keyId,
      log: () => {},
      now: () => Date.now() + 1000,
    });
    await assert.rejects(archiver.archiveDue(), /disk is full/);
    assert.equal(store.logBase().seq, 0, 'nothing left the store');
    assert.equal(readdirSync(archive).length, 1, 'the file was written before the store transaction');
    // More entries arrive before the next sweep: the next archival covers a longer range.
    for (let i = 10; i < 15; i++) await store.appendEntries([draft(i)]);
    const done = await archiver.archiveDue();
    assert.deepEqual([done?.first, done?.last], [1, 14]);
    const segments = listSegments(archive, key.keyId);
    assert.deepEqual(segments.map((s) => [s.first, s.last]), [[1, 14]], 'only the segment an archived entry names is in the archive');
    assert.equal(tilingGap(segments, store.logBase().seq), null);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
