/**
 * Reads the audit log straight from a SQLite database file, read-only, so an
 * auditor can verify a copy of the database with no daemon running.
 *
 * The store runs in WAL mode: while the daemon runs, its latest entries are in
 * `airlock.db-wal` beside the database, not yet in the file itself. A copy of
 * airlock.db alone is an older log; databaseSource says so instead of letting it
 * pass for the whole log.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { basename } from 'node:path';
import Database from 'better-sqlite3';
import { AirlockError } from '../protocol/errors.js';
import type { AuditSource } from './source.js';
import type { LogRow } from './verify.js';
import { logArchived, parseLogBase, startOfBase, type LogBase } from './log-base.js';
import { decodeRow, STORED_ROWS, type StoredLogRow } from './sqlite-log.js';

/** The base of a database's live log (entries before it were archived), read-only; NO_BASE when there is none. */
export function readSqliteBase(dbPath: string): LogBase {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return baseIn(db);
  } finally {
    db.close();
  }
}

function baseIn(db: Database.Database): LogBase {
  const meta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").pluck().get();
  return parseLogBase(meta ? (db.prepare("SELECT value FROM meta WHERE key = 'log_base'").pluck().get() as string | undefined) : undefined);
}

/**
 * The database's live rows in seq order, in one read transaction (one snapshot, however the
 * daemon writes meanwhile). `startedAt`: the base the reader's start() saw; a daemon that
 * archived a segment since moved it, and those rows are gone from this snapshot: that is
 * `transient/log_archived` (run again: nothing is missing), never a gap to call deletion.
 */
export function* readSqliteLog(dbPath: string, startedAt?: number): Generator<LogRow> {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    db.exec('BEGIN');
    if (startedAt !== undefined) {
      const now = baseIn(db).seq;
      if (now !== startedAt) throw logArchived(now, startedAt, basename(dbPath));
    }
    // Bodies as the store encodes them (sqlite-log.ts), decoded to the signed bytes.
    const stmt = db.prepare(`${STORED_ROWS} ORDER BY a.seq`);
    for (const row of stmt.iterate() as Iterable<StoredLogRow>) yield decodeRow(row);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/**
 * A database to verify, checked before it is opened: it exists and this account can read it
 * and its -wal file (throws a typed error naming the file, and what to do instead).
 * `throughDaemon`: the command that verifies through the daemon instead, for the hint.
 */
export function databaseSource(path: string, throughDaemon: string): AuditSource {
  const wal = `${path}-wal`;
  const instead = `run \`${throughDaemon}\` to verify through the daemon, or sudo`;
  let owner: number;
  try {
    owner = statSync(path).uid;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES') throw new AirlockError('authorization', 'permission_denied', `permission denied: ${path} (only root can read it; ${instead})`);
    if (code === 'ENOENT') throw new AirlockError('validation', 'no_database', `no database at ${path}`, `give the database or a copy of it with --db, or ${instead.replace(', or sudo', '')}`);
    throw new AirlockError('validation', 'no_database', `cannot read ${path}: ${code ?? (e as Error).message}`);
  }
  const readable = (p: string) => {
    try {
      accessSync(p, constants.R_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (!readable(path)) throw new AirlockError('authorization', 'permission_denied', `permission denied: ${path} (${owner === 0 ? 'only root can read it' : `this account cannot read it; uid ${owner} owns it`}; ${instead})`);
  // An empty -wal is what opening a copy leaves beside it (SQLite creates one): it holds nothing either.
  let walSize = 0;
  try {
    walSize = statSync(wal).size;
  } catch {
    walSize = -1;
  }
  const walExists = walSize >= 0;
  if (walExists && !readable(wal)) {
    throw new AirlockError('authorization', 'permission_denied', `permission denied: ${wal}, which holds the latest entries of ${path} (read without it, the log would look shorter than it is; ${instead})`);
  }
  /** The base start() read: the rows must begin right after it (an archival since moves it). */
  let startedAt: number | undefined;
  return {
    name: `database ${path}`,
    checkpoints: async () => [],
    entries: () => readSqliteLog(path, startedAt),
    start: async () => {
      const base = readSqliteBase(path);
      startedAt = base.seq;
      return startOfBase(base);
    },
    ...(walSize > 0
      ? {}
      : { shortfallHint: `${basename(path)} may be a copy made without its ${basename(wal)} (${walExists ? 'the one beside it is empty' : 'there is none beside it'}), where a running daemon keeps its latest entries; copy both files, or write one file with \`airlock audit export --out FILE\`` }),
  };
}
