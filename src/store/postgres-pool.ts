/**
 * The bounded connection pool the PostgreSQL store and its log reader use, and what a
 * failed query becomes. A daemon must never wait forever on a database nor hold an
 * unbounded number of connections: the pool, the connect, every statement and every
 * transaction left idle have a limit. A connection the server drops is discarded by the
 * pool, which opens a new one for the next call.
 */
import pg from 'pg';
import { AirlockError } from '../protocol/errors.js';
export { describeUrl } from '../audit/pg-url.js';

export interface PoolLimits {
  /** Connections at most (1..32; default 4: writes are serialized per log anyway). */
  max?: number;
  /** Milliseconds to get a connection (default 5000). */
  connectMs?: number;
  /** Milliseconds any one statement, lock waits included, may take (default 15000). */
  statementMs?: number;
}

const BIGINT_OID = 20;

/**
 * BIGINT columns hold milliseconds, uids and seqs: numbers, not the strings pg returns by
 * default. One outside the safe-integer range is not something this store wrote: refuse it.
 */
function parseBigint(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new AirlockError('integrity', 'bad_integer', `the database returned ${text.slice(0, 40)}, not a safe integer`);
  return n;
}

const types = {
  getTypeParser: ((oid: number, format?: string) => (oid === BIGINT_OID && format !== 'binary' ? parseBigint : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

export function makePool(url: string, limits: PoolLimits = {}): pg.Pool {
  const max = Math.max(1, Math.min(32, Math.trunc(limits.max ?? 4)));
  const statementMs = Math.max(100, Math.trunc(limits.statementMs ?? 15_000));
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: Math.max(100, Math.trunc(limits.connectMs ?? 5000)),
    idleTimeoutMillis: 30_000,
    // Server side: a statement (or a lock wait) past this is canceled; a transaction left idle
    // (a daemon stalled mid-transaction) is ended, releasing the log's row lock.
    statement_timeout: statementMs,
    idle_in_transaction_session_timeout: statementMs,
    // Client side: a server that stops answering (a cut network) still ends the call.
    query_timeout: statementMs + 5000,
    keepAlive: true,
    types,
  });
  // An idle connection the server drops emits 'error' on the pool: without a listener that
  // would end the daemon. The pool has already discarded the connection; the next call opens one.
  pool.on('error', () => {});
  return pool;
}

/** SQLSTATE classes that mean the connection or the server is gone, not that the statement was wrong. */
const CONNECTION_CLASSES = ['08', '57', '53'];

export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err?.code === 'string') {
    if (CONNECTION_CLASSES.some((c) => (err.code as string).startsWith(c))) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(err.code)) return true;
  }
  const m = typeof err?.message === 'string' ? err.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|not queryable/i.test(m);
}

/**
 * What a failed database call becomes. The store never returns success for a transaction
 * that did not commit: the caller gets an integrity error, and nothing runs.
 */
export function storeError(e: unknown, where: string): AirlockError {
  if (e instanceof AirlockError) return e;
  if (isConnectionError(e)) {
    return new AirlockError('integrity', 'store_unreachable', `the audit store at ${where} is unreachable: nothing is executed until it is back (${(e as Error).message})`, 'check the PostgreSQL server and the network to it; the daemon reconnects by itself');
  }
  return new AirlockError('integrity', 'store_failed', `the audit store at ${where} refused an operation: ${(e as Error).message}`);
}
