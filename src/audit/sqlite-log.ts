/**
 * The SQLite store's audit_log rows, written and read the same way by every reader (the daemon's
 * logRows and transactionEntries, the offline verifier's readSqliteLog, the tree's build at
 * upgrade): a body as entry-encoding.ts keeps it, the signature and hash as bytes, and `tx`, the
 * transaction the entry concerns (txKey), which the partial index audit_log_by_tx finds a
 * transaction's entries by without a pass over the log.
 */
import type Database from 'better-sqlite3';
import { GENESIS_HASH, type SealedEntry } from './entry.js';
import type { LogRow } from './verify.js';
import { decodeEntryBody, encodeEntryBody } from './entry-encoding.js';
import { LOG_BASE_KEY } from './log-base.js';
import { AirlockError } from '../protocol/errors.js';

/**
 * A `sig` or `hash` column of audit_log (optionally qualified: `a.sig`), read as lower-case hex:
 * the store writes them as bytes (half the size of their hex), and rows written before that hold hex text.
 */
export const hexColumn = (column: string): string => `CASE typeof(${column}) WHEN 'blob' THEN lower(hex(${column})) ELSE ${column} END`;

/** Finds a transaction's entries (created with schema 2, or by the upgrade from 1). */
export const TX_INDEX = 'CREATE INDEX IF NOT EXISTS audit_log_by_tx ON audit_log(tx) WHERE tx IS NOT NULL';

/**
 * Rows as stored, with the hash an encoded body leaves out (`prev`): the previous row's, or for
 * the first live row the log base's (log-base.ts), read in the same statement so that an
 * archival committed meanwhile cannot split the two. Append `WHERE a...` and `ORDER BY a.seq`,
 * and give each row to decodeRow.
 */
export const STORED_ROWS = `SELECT a.seq AS seq, a.body AS body, ${hexColumn('a.sig')} AS sig,
  COALESCE(p.hash, (SELECT json_extract(m.value, '$.hash') FROM meta AS m WHERE m.key = '${LOG_BASE_KEY}' AND json_extract(m.value, '$.seq') = a.seq - 1)) AS prev
  FROM audit_log AS a LEFT JOIN audit_log AS p ON p.seq = a.seq - 1`;

export interface StoredLogRow {
  seq: number;
  body: string | Buffer;
  sig: string;
  prev: string | Buffer | null;
}

/** A stored row as the verifier reads it: its exact signed body (integrity/store_undecodable, naming the entry, when it cannot be). */
export function decodeRow(r: StoredLogRow): LogRow {
  if (typeof r.body === 'string') return { seq: r.seq, body: r.body, sig: r.sig };
  const prev = r.prev === null ? (r.seq === 1 ? GENESIS_HASH : null) : typeof r.prev === 'string' ? r.prev : r.prev.toString('hex');
  try {
    return { seq: r.seq, body: decodeEntryBody(r.body, prev), sig: r.sig };
  } catch (e) {
    throw new AirlockError('integrity', 'store_undecodable', `entry ${r.seq} of the log: ${(e as Error).message} (the store was altered or damaged)`);
  }
}

/**
 * The `tx` column for a transaction id: the daemon's ids (tx_ and hex) as the hex's bytes, any
 * other id as its text (a BLOB never equals a TEXT, so the two kinds cannot collide).
 */
export function txKey(id: string): Buffer | string {
  return /^tx_(?:[0-9a-f]{2})+$/.test(id) ? Buffer.from(id.slice(3), 'hex') : id;
}

/** The `tx` column of an entry: the transaction its body names (null: none, or a body that is not an entry). */
export function txOfBody(body: string): Buffer | string | null {
  try {
    const id = (JSON.parse(body) as { transaction_id?: unknown }).transaction_id;
    return typeof id === 'string' ? txKey(id) : null;
  } catch {
    return null;
  }
}

/** Inserts sealed entries; `prevHash`: the hash the first of them chains to. */
export function logInserter(db: Database.Database): (entries: readonly SealedEntry[], prevHash: string) => void {
  const insert = db.prepare('INSERT INTO audit_log (seq, body, sig, hash, tx) VALUES (?, ?, ?, ?, ?)');
  return (entries, prevHash) => {
    let prev = prevHash;
    for (const e of entries) {
      insert.run(e.seq, encodeEntryBody(e.body, prev), Buffer.from(e.sig, 'hex'), Buffer.from(e.hash, 'hex'), txOfBody(e.body));
      prev = e.hash;
    }
  };
}
