/**
 * Reads the audit log straight from a SQLite database file, read-only, so an
 * auditor can verify a copy of the database with no daemon running.
 */
import Database from 'better-sqlite3';
import type { LogRow } from './verify.js';

export function* readSqliteLog(dbPath: string): Generator<LogRow> {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const stmt = db.prepare('SELECT seq, body, sig FROM audit_log ORDER BY seq');
    for (const row of stmt.iterate() as Iterable<LogRow>) yield row;
  } finally {
    db.close();
  }
}
