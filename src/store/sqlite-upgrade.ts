/**
 * Upgrades a SQLite store of schema 1 to 2 in place, when the daemon opens it: each entry gets
 * its `tx` column (src/audit/sqlite-log.ts) and its body encoded (src/audit/entry-encoding.ts), a batch of rows per
 * transaction, the rows done so far recorded in the same transaction, so an upgrade cut short
 * (a crash, a full disk) resumes where it stopped; the first transaction drops the old index,
 * the last builds the new one and sets the version. Schema 1 stored bodies as JSON text, found a transaction's entries by an
 * index on json_extract(body) and had no `tx` column.
 */
import type Database from 'better-sqlite3';
import { encodeEntryBody } from '../audit/entry-encoding.js';
import type { LogBase } from './store.js';
import { hexColumn, txOfBody, TX_INDEX } from '../audit/sqlite-log.js';

/** Rows per upgrade transaction: bounds its time, memory and write-ahead log. */
export const UPGRADE_BATCH = 1000;
/** meta: the last seq upgraded, while an upgrade is under way. */
const PROGRESS_KEY = 'upgrade_2_seq';

export function upgradeFrom1(db: Database.Database, base: LogBase): void {
  const immediate = (body: () => void) => db.transaction(body).immediate();
  const columns = (db.prepare('PRAGMA table_info(audit_log)').all() as { name: string }[]).map((c) => c.name);
  // The old index first: it would evaluate json_extract on every encoded body, and fail on it.
  immediate(() => {
    db.exec('DROP INDEX IF EXISTS audit_log_tx');
    if (!columns.includes('tx')) db.exec('ALTER TABLE audit_log ADD COLUMN tx BLOB');
  });
  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const rows = db.prepare(`SELECT seq, body, ${hexColumn('hash')} AS hash FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`);
  const hashOf = db.prepare(`SELECT ${hexColumn('hash')} FROM audit_log WHERE seq = ?`).pluck();
  const update = db.prepare('UPDATE audit_log SET body = ?, tx = ? WHERE seq = ?');
  for (let more = true; more; ) {
    immediate(() => {
      const done = Number(getMeta.get(PROGRESS_KEY) ?? 0);
      const batch = rows.all(done, UPGRADE_BATCH) as Array<{ seq: number; body: string | Buffer; hash: string }>;
      more = batch.length === UPGRADE_BATCH;
      if (batch.length === 0) return;
      // The hash the first row chains to, as a reader will find it: the row before it, or the base.
      let prev = (hashOf.get(batch[0]!.seq - 1) as string | undefined) ?? (batch[0]!.seq - 1 === base.seq ? base.hash : null);
      for (const r of batch) {
        // Every schema-1 body is text; one that is not is left as it is, for the verifier to judge.
        if (typeof r.body === 'string') update.run(prev === null ? r.body : encodeEntryBody(r.body, prev), txOfBody(r.body), r.seq);
        prev = r.hash;
      }
      putMeta.run(PROGRESS_KEY, String(batch.at(-1)!.seq));
    });
  }
  immediate(() => {
    db.exec(TX_INDEX);
    db.prepare('DELETE FROM meta WHERE key = ?').run(PROGRESS_KEY);
    putMeta.run('schema_version', '2');
  });
}
