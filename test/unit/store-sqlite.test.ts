/** The Store contract (test/support/store-contract.ts) on SQLite: a fresh database file per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite.js';
import { storeContract } from '../support/store-contract.js';

storeContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-store-sqlite-'));
  return {
    open: async (o) => new SqliteStore(join(dir, 'airlock.db'), o.seal, o.onAppend),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
