/**
 * `store.check`'s store side: SQLite's quick_check says "ok" for a sound database, and
 * names the damage, in a bounded number of lines, when a page of it is overwritten.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite.js';
import { sealEntry } from '../../src/audit/entry.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';

const key = signingKeyFromSeed(randomBytes(32));
const open = (path: string) => new SqliteStore(path, (d, seq, prev) => sealEntry(key, d, seq, prev));

test('a sound store passes its check; one with a page overwritten fails it, in at most the lines asked for', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-store-check-'));
  try {
    const path = join(dir, 'airlock.db');
    let store = open(path);
    assert.deepEqual(await store.integrityCheck(20), ['ok']);
    await store.close();
    // Overwrite the root page of one index with garbage, as a disk or a hand might.
    const raw = new Database(path);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    const pages = raw.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND name = 'tx_state_expiry'").pluck().all() as number[];
    raw.close();
    assert.equal(pages.length, 1);
    const fd = openSync(path, 'r+');
    for (const p of pages) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (p - 1) * pageSize);
    closeSync(fd);
    store = open(path);
    const result = await store.integrityCheck(3);
    await store.close();
    assert.notDeepEqual(result, ['ok']);
    assert.ok(result.length <= 3, result.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
