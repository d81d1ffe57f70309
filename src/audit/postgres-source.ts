/**
 * Reads the logs of a PostgreSQL store for verification, with no daemon: one AuditSource per
 * log in the database (one per host). Rows are read in pages by seq on a connection of the
 * source's own, never all at once, and the session is read-only: verifying changes nothing.
 * Like a SQLite file, the database holds no checkpoints; it is trusted for nothing: every
 * entry is checked with the public key, and the log id and origin it gives only choose which
 * key to check with.
 */
import pg from 'pg';
import { AirlockError } from '../protocol/errors.js';
import { describeUrl } from './pg-url.js';
import type { AuditSource } from './source.js';
import type { LogRow } from './verify.js';
import { logArchived, parseLogBase, startOfBase, type LogBase } from './log-base.js';

export interface PostgresLogSource extends AuditSource {
  /** As the database says: untrusted text, escaped wherever it is shown. */
  readonly logId: string;
  readonly origin: string;
}

/** Rows per page: a few megabytes of entries at most in memory. */
export const PAGE_ROWS = 2000;
/** The most logs one database lists (far more hosts than a fleet shares one database with). */
export const MAX_LOGS = 10_000;
const TIMEOUT_MS = 30_000;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, statement_timeout: TIMEOUT_MS, query_timeout: TIMEOUT_MS + 5000 });
  client.on('error', () => {}); // a cut connection fails the query in flight, which says so
  try {
    await client.connect();
    await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    return client;
  } catch (e) {
    await client.end().catch(() => {});
    throw unreachable(url, e);
  }
}

function unreachable(url: string, e: unknown): AirlockError {
  return new AirlockError('validation', 'no_database', `cannot read the PostgreSQL database ${describeUrl(url)}: ${(e as Error).message}`, 'check the URL, the server, and that this account may read the airlock tables');
}

/** BIGINT arrives as text: a seq outside the safe-integer range is not one the store wrote. */
function toSeq(v: unknown): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new AirlockError('integrity', 'bad_integer', `the database returned the seq ${String(v).slice(0, 40)}`);
  return n;
}

/**
 * The log's live rows, page by page. `startedAt`: the base its source's start() read. The host's
 * daemon may archive a segment meanwhile, and the rows not yet read leave the store: a page that
 * does not begin where the last one ended is checked against the base again, and one moved past
 * it is `transient/log_archived` (run again: nothing is missing), never a gap to call deletion.
 */
async function* readLog(url: string, logId: string, startedAt: number): AsyncGenerator<LogRow> {
  const client = await connect(url);
  try {
    let after = 0;
    let next = startedAt + 1;
    for (;;) {
      let rows: Array<{ seq: unknown; body: string; sig: string }>;
      try {
        rows = (await client.query('SELECT seq, body, sig FROM audit_log WHERE log_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [logId, after, PAGE_ROWS])).rows;
      } catch (e) {
        throw unreachable(url, e);
      }
      if (rows.length > 0 && toSeq(rows[0]!.seq) !== next) {
        const base = await baseOn(client, url, logId);
        if (base.seq >= next) throw logArchived(base.seq, startedAt, `log ${logId}`);
      }
      for (const r of rows) {
        after = toSeq(r.seq);
        yield { seq: after, body: r.body, sig: r.sig };
      }
      next = after + 1;
      if (rows.length < PAGE_ROWS) return;
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/** One source per log in the database, in log id order. */
export async function postgresSources(url: string): Promise<PostgresLogSource[]> {
  const client = await connect(url);
  let logs: Array<{ log_id: string; origin: string }>;
  try {
    logs = (await client.query('SELECT log_id, origin FROM logs ORDER BY log_id LIMIT $1', [MAX_LOGS + 1])).rows;
  } catch (e) {
    throw unreachable(url, e);
  } finally {
    await client.end().catch(() => {});
  }
  if (logs.length > MAX_LOGS) throw new AirlockError('validation', 'too_many_logs', `the database ${describeUrl(url)} lists more than ${MAX_LOGS} logs`);
  const where = describeUrl(url);
  return logs.map((l) => {
    /** The base start() read: the rows must begin right after it. */
    let startedAt = 0;
    return {
      logId: l.log_id,
      origin: l.origin,
      name: `log ${l.origin} in ${where}`,
      checkpoints: async () => [],
      entries: () => readLog(url, l.log_id, startedAt),
      start: async () => {
        const base = await readBase(url, l.log_id);
        startedAt = base.seq;
        return startOfBase(base);
      },
    };
  });
}

/** Where the log starts once its first segments were archived (the store's base row; none: entry 1). */
async function readBase(url: string, logId: string): Promise<LogBase> {
  const client = await connect(url);
  try {
    return await baseOn(client, url, logId);
  } finally {
    await client.end().catch(() => {});
  }
}

async function baseOn(client: pg.Client, url: string, logId: string): Promise<LogBase> {
  let value: string | undefined;
  try {
    value = (await client.query<{ value: string }>('SELECT value FROM meta WHERE log_id = $1 AND key = $2', [logId, 'log_base'])).rows[0]?.value;
  } catch (e) {
    throw unreachable(url, e);
  }
  return parseLogBase(value);
}
