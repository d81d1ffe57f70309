/**
 * Tree heads into a PostgreSQL table on another server: one row per head, never updated.
 * Another machine's database, written through a role that may only INSERT and SELECT,
 * is out of reach of someone who takes this host: the rows pin the log's size and root
 * as of each head. Two rows for one origin and size with different roots are a fork,
 * plain to see; the primary key lets the same head be sent again harmlessly.
 *
 * What an operator sets up on that server (the daemon creates the table only if its role
 * may; with the role below, create it once as its owner):
 *
 *   CREATE TABLE airlock_tree_heads (origin text NOT NULL, size bigint NOT NULL, root text NOT NULL,
 *     note text NOT NULL, received_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (origin, size, root));
 *   CREATE ROLE airlock_host LOGIN;            -- one per host, or one shared; password in root's ~/.pgpass
 *   GRANT USAGE ON SCHEMA public TO airlock_host;
 *   GRANT INSERT, SELECT ON airlock_tree_heads TO airlock_host;   -- no UPDATE, no DELETE, no TRUNCATE
 *
 * ON CONFLICT DO NOTHING needs only the INSERT privilege, so the role never needs UPDATE.
 */
import pg from 'pg';
import { printable, type Sink, type TreeHead } from './sink.js';

export interface PostgresSinkOptions {
  url: string;
  /** The log's origin (every row names it: many hosts share a table). */
  origin: string;
  /** Schema holding the table (default: the role's search_path); tests use one per run. */
  schema?: string;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

export class PostgresSink implements Sink {
  readonly name = 'postgres';
  private readonly pool: pg.Pool;
  private readonly table: string;
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly o: PostgresSinkOptions) {
    if (o.schema !== undefined && !IDENT.test(o.schema)) throw new RangeError(`not a schema name: ${JSON.stringify(o.schema)}`);
    this.table = o.schema ? `"${o.schema}".airlock_tree_heads` : 'airlock_tree_heads';
    // One connection is plenty (one head per interval); the pool reconnects by itself after a loss.
    this.pool = new pg.Pool({
      connectionString: o.url,
      max: 1,
      connectionTimeoutMillis: o.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      statement_timeout: o.statementTimeoutMs ?? 5_000,
      query_timeout: (o.statementTimeoutMs ?? 5_000) + 1_000,
      application_name: 'airlock-tree-heads',
    });
    // An idle connection that dies is an 'error' on the pool: without a listener it would end the daemon.
    this.pool.on('error', () => {});
  }

  async publish(head: TreeHead): Promise<void> {
    if (this.closed) throw new Error('the postgres sink is closed');
    try {
      await (this.ready ??= this.ensureTable());
    } catch (e) {
      this.ready = null; // try again with the next head
      throw e;
    }
    try {
      await this.pool.query(`INSERT INTO ${this.table} (origin, size, root, note) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [this.o.origin, head.size, head.root, head.note]);
    } catch (e) {
      throw new Error(`cannot insert into ${this.table}: ${printable((e as Error).message)}`);
    }
  }

  /** Creates the table when it is absent and the role may; a role with INSERT and SELECT only finds it there. */
  private async ensureTable(): Promise<void> {
    const r = await this.pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [this.table]);
    if (r.rows[0]?.t) return;
    await this.pool.query(
      `CREATE TABLE IF NOT EXISTS ${this.table} (origin text NOT NULL, size bigint NOT NULL, root text NOT NULL, note text NOT NULL, received_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (origin, size, root))`,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.end();
  }
}
