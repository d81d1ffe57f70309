/** The Store contract (test/support/store-contract.ts) on SQLite: a fresh database file per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite.js';
import { storeContract } from '../support/store-contract.js';

storeContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-store-sqlite-'));
  return {
    open: async (o) => new SqliteStore(join(dir, 'airlock.db'), o.seal, o.onAppend),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    removeCompactedAt: async () => {
      const db = new Database(join(dir, 'airlock.db'));
      db.exec('DROP INDEX tx_to_compact; DROP INDEX tx_compacted; ALTER TABLE transactions DROP COLUMN compacted_at');
      db.close();
    },
  };
});
