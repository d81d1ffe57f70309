/**
 * PostgreSQL store: the same Store as SqliteStore (same outcomes, same refusals), for a
 * fleet whose daemons share one database, each with its own log (log_id = its audit key id).
 *
 * Locking, and why not SERIALIZABLE: every method that writes runs one READ COMMITTED
 * transaction that first takes its log's row lock (`SELECT ... FROM logs WHERE log_id = $1
 * FOR UPDATE`). Every table row belongs to one log, so that lock serializes all writes of a
 * log exactly as SQLite's IMMEDIATE transaction does for its one file: a rule's count and its
 * new use, a step's check and its spending, and the next seq and its entry cannot be split by
 * another writer, in this process or another. SERIALIZABLE would give the same safety but
 * abort conflicting transactions, and each abort would need a retry that re-seals entries;
 * one lock per log never aborts and cannot deadlock (it is the only lock taken first, and
 * always the same one). Writes of different logs never wait for each other.
 *
 * The next seq is read from the database inside that lock, never from memory; the in-memory
 * head (for the synchronous logHead()) moves only after COMMIT returned. Within one process,
 * writes are group-committed (group-commit.ts): those that arrive together share one transaction,
 * each in a savepoint of its own, and one fsync, so blocked writers do not hold the pool's
 * connections and the heads reach onAppend in commit order.
 *
 * A transaction that cannot commit throws (store_unreachable when the server is gone):
 * never success for something not written.
 */
import { COMPACTED_JSON, compactedResult, FINISHED_SQL, idsDigest, RULE_USE_KEEP_MS } from './compaction.js';
import { toRecord, type NewRow, type Row } from './tx-row.js';
import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { EntryDraft } from '../audit/entry.js';
import { GENESIS_HASH } from '../audit/entry.js';
import type { MerkleFrontier, NodeReader } from '../audit/merkle.js';
import type { LogRow } from '../audit/verify.js';
import { AirlockError } from '../protocol/errors.js';
import { describeUrl, makePool, storeError, type PoolLimits } from './postgres-pool.js';
import { ensureSchema } from './postgres-schema.js';
import { pgIntegrityCheck } from './postgres-check.js';
import { frontierAt, pgNodeReader, writeNodes } from './postgres-merkle.js';
import { LOG_BASE_KEY, readBase } from './log-base.js';
import { GroupCommit, RollBack, type BatchDialect, type Tip } from './group-commit.js';
import { TransactionLifecycle, type LifecycleDialect, type StoredRow } from './lifecycle.js';
import { archiveSegment, type ArchiveDialect } from './archival.js';
import type { TransitionUpdate } from './transitions.js';
import { RowMac, type MacTable } from './row-mac.js';
import type { ApprovedEnrolment, FactorsReset, HistoryFilter, LogBase, LogHead, PasskeyRecord, PasskeyUse, PendingTotp, RuleUsage, Sealer, SpentStep, Store, TotpRecord, TxRecord } from './store.js';
import { passkeyOfRow, type PasskeyRow } from './passkey-row.js';
import { coApprovalOfRow, rowOfCoApproval, type CoApproval, type CoApprovalRow } from './co-approval.js';

/** meta totp_secrets: the secrets in totp and totp_pending are sealed. */
const TOTP_SEALED = 'sealed-v1';
const DAY_MS = 24 * 60 * 60_000;
/** The most uses of one rule in 24 hours: the largest daily_cap a policy may give (src/policy/policy.ts). */
const MAX_RULE_ROWS = 10_000;
/** A log id is an audit key id: 16 lower-case hex digits (keyIdOf). Anything else is refused before it reaches SQL. */
const LOG_ID = /^[0-9a-f]{16}$/;

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db (an `options=-c search_path=...` query parameter picks the schema). */
  url: string;
  /** This daemon's log: its audit key id. */
  logId: string;
  /** The log's checkpoint origin (checkpointOrigin): recorded with the log, checked at every open. */
  origin: string;
  seal: Sealer;
  /** This host's row MAC key (row.key, src/store/row-mac.ts): never in the database. */
  rowKey: Buffer;
  /**
   * Give the rows that have no MAC yet this host's MAC, once, at open: only when the key was
   * just created (a store from before row MACs). Otherwise a row without one is refused.
   */
  adoptRows?: boolean;
  /** After each commit that appended entries: the new head and those entries, in order. */
  onAppend?: (head: LogHead, entries: readonly EntryDraft[]) => void;
  pool?: PoolLimits;
}

export async function openPostgresStore(o: PostgresStoreOptions): Promise<PostgresStore> {
  if (!LOG_ID.test(o.logId)) throw new AirlockError('validation', 'bad_log_id', `a log id is 16 hex digits (an audit key id), not ${JSON.stringify(o.logId.slice(0, 40))}`);
  const where = describeUrl(o.url);
  const pool = makePool(o.url, o.pool);
  try {
    const client = await pool.connect();
    const onError = () => {}; // the statement in flight rejects; see batchDialect()
    client.on('error', onError);
    try {
      await ensureSchema(client, o.logId, o.origin, Date.now());
      // The tree's frontier at the head, under the log's lock (it builds any missing nodes).
      await client.query('BEGIN');
      let head: ChainHead;
      let frontier: MerkleFrontier;
      let base: LogBase;
      try {
        await client.query('SELECT log_id FROM logs WHERE log_id = $1 FOR UPDATE', [o.logId]);
        head = await readHead(client, o.logId);
        frontier = await frontierAt(client, o.logId, head.size);
        base = readBase((await client.query<{ value: string }>('SELECT value FROM meta WHERE log_id = $1 AND key = $2', [o.logId, LOG_BASE_KEY])).rows[0]?.value);
        // Rows without a MAC are adopted once, when this log first runs with row MACs (a store from
        // before them); never again, so a lost row key on a later start adopts no forged row.
        const withMacs = (await client.query('SELECT 1 FROM meta WHERE log_id = $1 AND key = $2', [o.logId, ROW_MACS_KEY])).rowCount === 1;
        if (!withMacs) {
          if (o.adoptRows) await adoptRows(client, new RowMac(o.rowKey, o.logId), o.logId);
          await client.query("INSERT INTO meta (log_id, key, value) VALUES ($1, $2, '1') ON CONFLICT (log_id, key) DO NOTHING", [o.logId, ROW_MACS_KEY]);
        }
        // Pending enrolments got their MAC later than the rest: a log marked before that drops the
        // unmarked ones, once (they lapse within minutes anyway; the person enrols again).
        if ((await client.query('SELECT 1 FROM meta WHERE log_id = $1 AND key = $2', [o.logId, PENDING_MACS_KEY])).rowCount !== 1) {
          if (withMacs) await client.query('DELETE FROM totp_pending WHERE log_id = $1 AND mac IS NULL', [o.logId]);
          await client.query("INSERT INTO meta (log_id, key, value) VALUES ($1, $2, '1') ON CONFLICT (log_id, key) DO NOTHING", [o.logId, PENDING_MACS_KEY]);
        }
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
      return new PostgresStore(pool, where, o.logId, new RowMac(o.rowKey, o.logId), o.seal, o.onAppend ?? (() => {}), { ...head, root: frontier.root().toString('hex') }, frontier, base);
    } finally {
      client.removeListener('error', onError);
      client.release();
    }
  } catch (e) {
    await pool.end().catch(() => {});
    throw storeError(e, where);
  }
}

/** The key column of each table whose rows are changed in place (rule_use rows are inserted with their MAC). */
const KEY_OF = { transactions: 'id', totp: 'approver', totp_pending: 'approver', passkeys: 'credential_id' } as const;
type KeyedTable = keyof typeof KEY_OF;

/** Writes the MAC of each row (as RETURNING * gave it) into the row. */
async function sealRows(c: PoolClient, mac: RowMac, logId: string, table: KeyedTable, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  await c.query(`UPDATE ${table} AS t SET mac = u.mac FROM unnest($2::text[], $3::text[]) AS u(k, mac) WHERE t.log_id = $1 AND t.${KEY_OF[table]} = u.k`, [
    logId,
    rows.map((r) => r[KEY_OF[table]]),
    rows.map((r) => mac.of(table, r)),
  ]);
}

const CO_APPROVALS_OF = 'SELECT * FROM co_approvals WHERE log_id = $1 AND tx_id = $2 ORDER BY at, approver';

/** The meta key that marks a log whose rows carry MACs (set at its first open with them). */
const ROW_MACS_KEY = 'row_macs';
/** The meta key that marks a log whose pending enrolments carry MACs too. */
const PENDING_MACS_KEY = 'pending_macs';

/** A store from before row MACs, at the first start with a new row key: its rows get this host's MAC. */
async function adoptRows(c: PoolClient, mac: RowMac, logId: string): Promise<void> {
  for (const table of ['transactions', 'totp', 'totp_pending'] as const) {
    const rows = await c.query(`SELECT * FROM ${table} WHERE log_id = $1 AND mac IS NULL`, [logId]);
    await sealRows(c, mac, logId, table, rows.rows);
  }
  const uses = await c.query<{ tid: string; rule_id: string; at: number }>('SELECT ctid::text AS tid, rule_id, at FROM rule_use WHERE log_id = $1 AND mac IS NULL', [logId]);
  if (uses.rows.length === 0) return;
  await c.query('UPDATE rule_use AS t SET mac = u.mac FROM unnest($2::tid[], $3::text[]) AS u(k, mac) WHERE t.log_id = $1 AND t.ctid = u.k', [
    logId,
    uses.rows.map((r) => r.tid),
    uses.rows.map((r) => mac.of('rule_use', r)),
  ]);
}

/** SQL written with `?` placeholders (transitions.ts renders them so), numbered $1, $2, ... for PostgreSQL. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The last entry's seq and hash, as the database has them. */
type ChainHead = Omit<LogHead, 'root'>;

async function readHead(c: PoolClient | pg.Pool, logId: string): Promise<ChainHead> {
  const r = await c.query<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_log WHERE log_id = $1 ORDER BY seq DESC LIMIT 1', [logId]);
  return r.rows[0] ? { size: r.rows[0].seq, hash: r.rows[0].hash } : { size: 0, hash: GENESIS_HASH };
}

/** The most operations one group commit holds: bounds the batch's time (and the row lock's). */
export const MAX_BATCH = 64;
/** The most operations waiting for a batch; more are refused (transient/store_busy). */
export const MAX_PENDING = 1000;

export class PostgresStore extends TransactionLifecycle<PoolClient> implements Store {
  readonly merkleNodes: NodeReader;
  /** Every write: one transaction per batch under the log's row lock (group-commit.ts). */
  protected readonly group: GroupCommit<PoolClient>;
  protected readonly transitions: LifecycleDialect<PoolClient>;
  /** What a connection of a batch reported while checked out (a cut connection emits 'error'). */
  private readonly connectionErrors = new Map<PoolClient, { listener: (e: unknown) => void; error?: unknown }>();

  constructor(
    private readonly pool: pg.Pool,
    /** The database, without its password: what errors name. */
    readonly where: string,
    readonly logId: string,
    private readonly mac: RowMac,
    seal: Sealer,
    onAppend: (head: LogHead, entries: readonly EntryDraft[]) => void,
    head: LogHead,
    /** The Merkle tree's right edge at `head`. */
    frontier: MerkleFrontier,
    private base: LogBase,
  ) {
    super();
    this.merkleNodes = pgNodeReader(pool, logId, (e) => storeError(e, where));
    this.group = new GroupCommit(this.batchDialect(), seal, { maxBatch: MAX_BATCH, maxPending: MAX_PENDING }, onAppend, { head, frontier });
    this.transitions = this.lifecycleDialect();
  }

  /**
   * Group commit's PostgreSQL: a pooled connection per batch, its transaction first taking the
   * log's row lock (the header says why), the head read from the database inside it.
   */
  private batchDialect(): BatchDialect<PoolClient> {
    return {
      connect: async () => {
        const c = await this.pool.connect();
        // A connection cut while checked out emits 'error' on the client (not on the pool); the
        // statement in flight rejects with it anyway, so the event only needs a listener.
        const seen: { listener: (e: unknown) => void; error?: unknown } = { listener: (e) => (seen.error ??= e) };
        c.on('error', seen.listener);
        this.connectionErrors.set(c, seen);
        return c;
      },
      release: (c, failed) => {
        const seen = this.connectionErrors.get(c);
        this.connectionErrors.delete(c);
        if (seen) c.removeListener('error', seen.listener);
        // A connection that failed other than by our own refusal is destroyed rather than returned to the pool.
        const broken = seen?.error ?? (failed === undefined || failed instanceof AirlockError ? undefined : failed);
        c.release(broken instanceof Error ? broken : undefined);
      },
      begin: async (c, committed) => {
        await c.query('BEGIN');
        const lock = await c.query('SELECT log_id FROM logs WHERE log_id = $1 FOR UPDATE', [this.logId]);
        if (lock.rowCount !== 1) throw new AirlockError('integrity', 'log_missing', `the log ${this.logId} has no row in the audit store at ${this.where}: it was deleted`);
        return this.headInLock(c, committed);
      },
      savepoint: (c) => c.query('SAVEPOINT op'),
      releaseSavepoint: (c) => c.query('RELEASE SAVEPOINT op'),
      rollbackToSavepoint: (c) => c.query('ROLLBACK TO SAVEPOINT op'),
      commit: (c) => c.query('COMMIT'),
      rollback: (c) => c.query('ROLLBACK'),
      // Entries and nodes in one statement: one round trip fewer on a path serialized per log.
      write: async (c, entries, nodes) => {
        await c.query(
          `WITH entries AS (INSERT INTO audit_log (log_id, seq, body, sig, hash) SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]))
            INSERT INTO merkle_nodes (log_id, level, idx, hash) SELECT $1, * FROM unnest($6::int[], $7::bigint[], $8::bytea[])`,
          [this.logId, entries.map((e) => e.seq), entries.map((e) => e.body), entries.map((e) => e.sig), entries.map((e) => e.hash), nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => n.hash)],
        );
      },
      failure: (e) => storeError(e, this.where),
    };
  }

  private lifecycleDialect(): LifecycleDialect<PoolClient> {
    return {
      row: (c, id) => this.txRow(c, id),
      rows: async (c, w, limit) => this.checked('transactions', (await c.query<StoredRow>(numbered(`SELECT * FROM transactions WHERE log_id = ? AND ${w.where} ORDER BY ord${limit === undefined ? '' : ' LIMIT ?'}`), [this.logId, ...w.whereArgs, ...(limit === undefined ? [] : [limit])])).rows),
      insert: (c, row) => this.insertTx(c, row),
      update: (c, id, u) => this.update(c, id, u),
      spendStep: (c, s) => this.spendStep(c, s),
      usePasskey: (c, u, now) => this.usePasskey(c, u, now),
      ruleUsage: (c, ruleId, now) => this.usageOf(c, ruleId, now),
      recordRuleUse: async (c, ruleId, now) => {
        const mac = this.mac.of('rule_use', { rule_id: ruleId, at: now });
        await c.query('INSERT INTO rule_use (log_id, rule_id, at, mac) VALUES ($1, $2, $3, $4)', [this.logId, ruleId, now, mac]);
      },
      consumedInLog: async (c, id) =>
        (await c.query(
          `SELECT 1 FROM audit_log WHERE log_id = $1 AND ((body::jsonb) ->> 'transaction_id') = $2
            AND ((body::jsonb) ->> 'kind') = 'approval_consumed' LIMIT 1`,
          [this.logId, id],
        )).rowCount !== 0,
      coApprovals: async (c, id) => this.checked('co_approvals', (await c.query<CoApprovalRow>(CO_APPROVALS_OF, [this.logId, id])).rows).map(coApprovalOfRow),
      addCoApproval: async (c, a) => {
        const row = rowOfCoApproval(a);
        await c.query('INSERT INTO co_approvals (log_id, tx_id, approver, principal, preview_digest, at, mac) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          this.logId, row.tx_id, row.approver, row.principal, row.preview_digest, row.at, this.mac.of('co_approvals', { ...row }),
        ]);
      },
      dropCoApprovals: async (c, id) => void (await c.query('DELETE FROM co_approvals WHERE log_id = $1 AND tx_id = $2', [this.logId, id])),
    };
  }

  async coApprovals(id: string): Promise<CoApproval[]> {
    return this.checked('co_approvals', await this.read<CoApprovalRow>(CO_APPROVALS_OF, [this.logId, id])).map(coApprovalOfRow);
  }

  private archiveDialect(): ArchiveDialect<PoolClient> {
    return {
      ofLog: ` of log ${this.logId}`,
      entryHash: async (c, seq) => (await c.query<{ hash: string }>('SELECT hash FROM audit_log WHERE log_id = $1 AND seq = $2', [this.logId, seq])).rows[0]?.hash,
      deleteEntriesUpTo: async (c, seq) => void (await c.query('DELETE FROM audit_log WHERE log_id = $1 AND seq <= $2', [this.logId, seq])),
      readNodes: (c, ids) => pgNodeReader(c, this.logId)(ids),
      deleteNodesBelow: async (c, level, index) => void (await c.query('DELETE FROM merkle_nodes WHERE log_id = $1 AND level = $2 AND idx < $3', [this.logId, level, index])),
      writeNodes: (c, nodes) => writeNodes(c, this.logId, nodes),
      putMeta: async (c, key, value) =>
        void (await c.query('INSERT INTO meta (log_id, key, value) VALUES ($1, $2, $3) ON CONFLICT (log_id, key) DO UPDATE SET value = excluded.value', [this.logId, key, value])),
    };
  }

  private async insertTx(c: PoolClient, row: NewRow): Promise<void> {
    const cols = Object.keys(row);
    await this.sealed(c, 'transactions', await c.query(
      `INSERT INTO transactions (log_id, ${cols.join(', ')}) VALUES ($1, ${cols.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING *`,
      [this.logId, ...Object.values(row)],
    ));
  }

  /** One transition's UPDATE (transitions.ts) of a row checked first: an update would otherwise give a forged row this host's MAC. */
  private async update(c: PoolClient, id: string, u: TransitionUpdate): Promise<boolean> {
    await this.txRow(c, id);
    const r = await c.query(numbered(`UPDATE transactions SET ${u.set} WHERE log_id = ? AND id = ? AND ${u.where} RETURNING *`), [...u.setArgs, this.logId, id, ...u.whereArgs]);
    return (await this.sealed(c, 'transactions', r)).rowCount === 1;
  }

  /** Rows of `table` this host wrote, or integrity/row_mac for the first that it did not. */
  private checked<R extends object>(table: MacTable, rows: R[]): R[] {
    for (const r of rows) this.mac.check(table, r as Record<string, unknown>);
    return rows;
  }

  /** Seals the rows a write returned (RETURNING *) with this host's MAC; returns the result. */
  private async sealed<R extends pg.QueryResultRow>(c: PoolClient, table: KeyedTable, r: pg.QueryResult<R>): Promise<pg.QueryResult<R>> {
    await sealRows(c, this.mac, this.logId, table, r.rows);
    return r;
  }

  /** A transaction's row, checked, inside a write: nothing is decided on a row this host did not write. */
  private async txRow(c: PoolClient, id: string): Promise<(Row & { consumed_at: number | null }) | undefined> {
    const r = await c.query<Row & { consumed_at: number | null }>('SELECT * FROM transactions WHERE log_id = $1 AND id = $2', [this.logId, id]);
    return this.checked('transactions', r.rows)[0];
  }

  /** An approver's factor row, checked, inside a write. */
  private async totpRow(c: PoolClient, approver: string): Promise<void> {
    this.checked('totp', (await c.query('SELECT * FROM totp WHERE log_id = $1 AND approver = $2', [this.logId, approver])).rows);
  }

  /** One read outside any transaction; a failure is a store error, never an empty answer. */
  private async read<R extends pg.QueryResultRow>(sql: string, args: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, args)).rows;
    } catch (e) {
      throw storeError(e, this.where);
    }
  }

  /**
   * The head as the database has it, read under the log's lock, with its tree's frontier. The
   * database is the truth for the next seq, but it must not be behind what this store already
   * committed: a shorter or different log means entries were removed or replaced. Another
   * writer of this log (a second store object) may have appended: the frontier then comes
   * from the database too.
   */
  private async headInLock(c: PoolClient, committed: Tip): Promise<Tip> {
    const chain = await readHead(c, this.logId);
    if (chain.size < committed.head.size || (chain.size === committed.head.size && chain.hash !== committed.head.hash)) {
      throw new AirlockError('integrity', 'log_rewritten', `the log ${this.logId} in the audit store at ${this.where} ends at ${chain.size}, but this daemon wrote up to ${committed.head.size}: entries were removed or replaced`);
    }
    if (chain.size === committed.head.size) return committed;
    const frontier = await frontierAt(c, this.logId, chain.size);
    return { head: { ...chain, root: frontier.root().toString('hex') }, frontier };
  }


  /** Moves a passkey's counter forward, its row checked first (LifecycleDialect.usePasskey); false when it does not move. */
  private async usePasskey(c: PoolClient, u: PasskeyUse, now: number): Promise<boolean> {
    this.checked('passkeys', (await c.query('SELECT * FROM passkeys WHERE log_id = $1 AND credential_id = $2', [this.logId, u.credentialId])).rows);
    const r = await c.query(
      'UPDATE passkeys SET counter = $3, last_used_at = $4 WHERE log_id = $1 AND credential_id = $2 AND approver = $5 AND (counter < $3 OR (counter = 0 AND $3 = 0)) RETURNING *',
      [this.logId, u.credentialId, u.counter, now, u.approver],
    );
    return (await this.sealed(c, 'passkeys', r)).rowCount === 1;
  }

  async passkeyByCredential(credentialId: string): Promise<PasskeyRecord | null> {
    const rows = await this.read<PasskeyRow>('SELECT * FROM passkeys WHERE log_id = $1 AND credential_id = $2', [this.logId, credentialId]);
    const r = this.checked('passkeys', rows)[0];
    return r ? passkeyOfRow(r) : null;
  }

  async passkeys(approver: string): Promise<PasskeyRecord[]> {
    const rows = await this.read<PasskeyRow>('SELECT * FROM passkeys WHERE log_id = $1 AND approver = $2 ORDER BY created_at, credential_id', [this.logId, approver]);
    return this.checked('passkeys', rows).map(passkeyOfRow);
  }

  addPasskey(p: PasskeyRecord, proof: SpentStep | PasskeyUse, entry: EntryDraft): Promise<'added' | 'step_spent' | 'passkey_replayed' | 'exists'> {
    return this.group.run(
      (o) => (o === 'added' ? [entry] : []),
      async (c) => {
        if ((await c.query('SELECT 1 FROM passkeys WHERE log_id = $1 AND credential_id = $2', [this.logId, p.credentialId])).rowCount !== 0) return 'exists' as const;
        if ('step' in proof ? !(await this.spendStep(c, proof)) : !(await this.usePasskey(c, proof, p.createdAt))) return 'step' in proof ? ('step_spent' as const) : ('passkey_replayed' as const);
        await this.sealed(c, 'passkeys', await c.query(
          'INSERT INTO passkeys (log_id, credential_id, approver, public_key, counter, transports, name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *',
          [this.logId, p.credentialId, p.approver, p.publicKey.toString('base64url'), p.counter, JSON.stringify(p.transports), p.name, p.createdAt],
        ));
        return 'added' as const;
      },
    );
  }

  async getTransaction(id: string): Promise<TxRecord | null> {
    const r = this.checked('transactions', await this.read<Row>('SELECT * FROM transactions WHERE log_id = $1 AND id = $2', [this.logId, id]));
    return r[0] ? toRecord(r[0]) : null;
  }


  private async spendStep(c: PoolClient, s: SpentStep): Promise<boolean> {
    await this.totpRow(c, s.approver);
    const spent = await c.query('UPDATE totp SET last_step = $3, failures = 0 WHERE log_id = $1 AND approver = $2 AND last_step < $3 RETURNING *', [
      this.logId,
      s.approver,
      s.step,
    ]);
    const r = await this.sealed(c, 'totp', spent);
    return r.rowCount === 1;
  }

  /**
   * Counted in this process from the rule's rows of the last 24 hours and its last one, each
   * checked: a use edited (moved back in time) fails closed. At most MAX_RULE_ROWS are read;
   * more than that within a day is not what any cap allows, and is refused too.
   */
  private async usageOf(c: PoolClient | pg.Pool, ruleId: string, now: number): Promise<RuleUsage> {
    const r = await c.query<{ rule_id: string; at: number; mac: string | null }>(
      `(SELECT rule_id, at, mac FROM rule_use WHERE log_id = $1 AND rule_id = $2 AND at >= $3 LIMIT $4)
        UNION ALL (SELECT rule_id, at, mac FROM rule_use WHERE log_id = $1 AND rule_id = $2 AND at < $3 ORDER BY at DESC LIMIT 1)`,
      [this.logId, ruleId, now - DAY_MS, MAX_RULE_ROWS + 1],
    );
    const rows = this.checked('rule_use', r.rows);
    const day = rows.filter((x) => x.at >= now - DAY_MS);
    if (day.length > MAX_RULE_ROWS) throw new AirlockError('integrity', 'rule_use_overflow', `the rule ${ruleId} has more than ${MAX_RULE_ROWS} uses in 24 hours in the store: they were not written by this daemon's caps`);
    const ats = rows.map((x) => x.at);
    return { lastDay: day.length, last: ats.length ? Math.max(...ats) : null, firstInDay: day.length ? Math.min(...day.map((x) => x.at)) : null };
  }

  async ruleUsage(ruleId: string, now: number): Promise<RuleUsage> {
    try {
      return await this.usageOf(this.pool, ruleId, now);
    } catch (e) {
      throw storeError(e, this.where);
    }
  }

  private async meta(c: PoolClient | null, key: string): Promise<string | undefined> {
    const sql = 'SELECT value FROM meta WHERE log_id = $1 AND key = $2';
    const rows = c ? (await c.query<{ value: string }>(sql, [this.logId, key])).rows : await this.read<{ value: string }>(sql, [this.logId, key]);
    return rows[0]?.value;
  }

  async totpSecretsSealed(): Promise<boolean> {
    return (await this.meta(null, 'totp_secrets')) === TOTP_SEALED;
  }

  async sealTotpSecrets(seal: (approver: string, secret: string) => string): Promise<number> {
    const sealed = await this.group.run(
      () => [],
      async (c) => {
        if ((await this.meta(c, 'totp_secrets')) === TOTP_SEALED) return 0;
        let n = 0;
        for (const table of ['totp', 'totp_pending'] as const) {
          const rows = await c.query<{ approver: string; secret: string }>(`SELECT * FROM ${table} WHERE log_id = $1`, [this.logId]);
          this.checked(table, rows.rows);
          for (const r of rows.rows) {
            const u = await c.query(`UPDATE ${table} SET secret = $3 WHERE log_id = $1 AND approver = $2 RETURNING *`, [this.logId, r.approver, seal(r.approver, r.secret)]);
            await this.sealed(c, table, u);
            n++;
          }
        }
        await c.query('INSERT INTO meta (log_id, key, value) VALUES ($1, $2, $3) ON CONFLICT (log_id, key) DO UPDATE SET value = excluded.value', [this.logId, 'totp_secrets', TOTP_SEALED]);
        return n;
      },
    );
    // The old row versions still hold the clear text until the table is rewritten: VACUUM FULL
    // writes the live rows into new files and drops the old ones (the server's WAL segments keep
    // a copy until they are recycled, which this store cannot force).
    if (sealed > 0) await this.read('VACUUM FULL totp, totp_pending', []);
    return sealed;
  }

  issueTotp(approver: string, sealedSecret: string, now: number, expiresAt: number, spend: SpentStep | undefined, entry: EntryDraft): Promise<'issued' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'issued' ? [entry] : []),
      async (c) => {
        if (spend && !(await this.spendStep(c, spend))) return 'step_spent';
        await this.sealed(c, 'totp_pending', await c.query(
          `INSERT INTO totp_pending (log_id, approver, secret, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (log_id, approver) DO UPDATE SET secret = excluded.secret, issued_at = excluded.issued_at, expires_at = excluded.expires_at, failures = 0, confirmed_step = NULL
            RETURNING *`,
          [this.logId, approver, sealedSecret, now, expiresAt],
        ));
        return 'issued';
      },
    );
  }

  async pendingTotp(approver: string): Promise<PendingTotp | null> {
    type PendingRow = { approver: string; secret: string; issued_at: number; expires_at: number; failures: number; confirmed_step: number | null };
    const r = this.checked('totp_pending', await this.read<PendingRow>('SELECT * FROM totp_pending WHERE log_id = $1 AND approver = $2', [this.logId, approver]))[0];
    return r ? { approver: r.approver, sealedSecret: r.secret, issuedAt: r.issued_at, expiresAt: r.expires_at, failures: r.failures, confirmedStep: r.confirmed_step } : null;
  }

  async anyTotp(): Promise<boolean> {
    // Checked like every factor row: a planted one fails closed (integrity/row_mac), loudly, instead of closing the first-approver path unseen.
    return this.checked('totp', await this.read('SELECT * FROM totp WHERE log_id = $1', [this.logId])).length > 0;
  }

  async awaitTotpApproval(approver: string, sealedSecret: string, step: number, now: number, expiresAt: number, entry: EntryDraft): Promise<boolean> {
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      async (c) => {
        const row = this.checked('totp_pending', (await c.query('SELECT * FROM totp_pending WHERE log_id = $1 AND approver = $2 FOR UPDATE', [this.logId, approver])).rows)[0];
        if (!row || row.secret !== sealedSecret || Number(row.expires_at) <= now || row.confirmed_step !== null) return false;
        await this.sealed(c, 'totp_pending', await c.query(
          'UPDATE totp_pending SET confirmed_step = $3, expires_at = $4, failures = 0 WHERE log_id = $1 AND approver = $2 RETURNING *',
          [this.logId, approver, step, expiresAt],
        ));
        return true;
      },
    );
  }

  approveTotp(enrolments: readonly ApprovedEnrolment[], now: number, spend: SpentStep): Promise<'approved' | 'gone' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'approved' ? enrolments.map((e) => e.entry) : []),
      async (c) => {
        for (const e of enrolments) {
          const row = this.checked('totp_pending', (await c.query('SELECT * FROM totp_pending WHERE log_id = $1 AND approver = $2 FOR UPDATE', [this.logId, e.approver])).rows)[0];
          if (!row || row.secret !== e.sealedSecret || Number(row.expires_at) <= now || row.confirmed_step === null) throw new RollBack('gone' as const); // with the ones before it
          await c.query('DELETE FROM totp_pending WHERE log_id = $1 AND approver = $2', [this.logId, e.approver]);
          await this.putTotp(c, e.approver, e.sealedSecret, now, Number(row.confirmed_step));
        }
        if (!(await this.spendStep(c, spend))) throw new RollBack('step_spent' as const);
        return 'approved' as const;
      },
    );
  }

  /** Makes `sealedSecret` the approver's factor (replacing any), `step` spent, with this host's MAC. */
  private async putTotp(c: PoolClient, approver: string, sealedSecret: string, now: number, step: number): Promise<void> {
    await this.sealed(c, 'totp', await c.query(
      `INSERT INTO totp (log_id, approver, secret, enrolled_at, last_step) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (log_id, approver) DO UPDATE SET secret = excluded.secret, enrolled_at = excluded.enrolled_at, last_step = excluded.last_step, failures = 0, locked_until = 0
        RETURNING *`,
      [this.logId, approver, sealedSecret, now, step],
    ));
  }

  async confirmTotp(approver: string, sealedSecret: string, step: number, now: number, entry: EntryDraft): Promise<boolean> {
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      async (c) => {
        const took = await c.query('DELETE FROM totp_pending WHERE log_id = $1 AND approver = $2 AND secret = $3 AND expires_at > $4 AND confirmed_step IS NULL RETURNING *', [this.logId, approver, sealedSecret, now]);
        if (took.rowCount !== 1) return false;
        this.checked('totp_pending', took.rows); // a row this host did not write is refused, and the delete rolls back
        await this.putTotp(c, approver, sealedSecret, now, step);
        return true;
      },
    );
  }

  async recordPendingTotpFailure(approver: string, maxFailures: number): Promise<number> {
    return this.group.run(
      () => [],
      async (c) => {
        // Checked before it is changed: an update would otherwise give a forged row this host's MAC.
        this.checked('totp_pending', (await c.query('SELECT * FROM totp_pending WHERE log_id = $1 AND approver = $2 FOR UPDATE', [this.logId, approver])).rows);
        const r = await this.sealed(c, 'totp_pending', await c.query<{ failures: number }>('UPDATE totp_pending SET failures = failures + 1 WHERE log_id = $1 AND approver = $2 RETURNING *', [this.logId, approver]));
        const failures = r.rows[0]?.failures;
        if (failures === undefined) return 0;
        if (failures < maxFailures) return maxFailures - failures;
        await c.query('DELETE FROM totp_pending WHERE log_id = $1 AND approver = $2', [this.logId, approver]);
        return 0;
      },
    );
  }

  resetTotp(approver: string, entryFor: (had: FactorsReset) => EntryDraft, spend?: SpentStep, opts: { passkeys?: boolean } = {}): Promise<FactorsReset | 'step_spent'> {
    return this.group.run(
      (had) => (had !== 'step_spent' && (had.factor || had.pending || (had.passkeys ?? 0) > 0) ? [entryFor(had)] : []),
      async (c) => {
        if (spend && !(await this.spendStep(c, spend))) return 'step_spent' as const;
        const had: FactorsReset = {
          factor: (await c.query('DELETE FROM totp WHERE log_id = $1 AND approver = $2', [this.logId, approver])).rowCount === 1,
          pending: (await c.query('DELETE FROM totp_pending WHERE log_id = $1 AND approver = $2', [this.logId, approver])).rowCount === 1,
        };
        if (opts.passkeys) had.passkeys = (await c.query('DELETE FROM passkeys WHERE log_id = $1 AND approver = $2', [this.logId, approver])).rowCount ?? 0;
        return had;
      },
    );
  }

  async totp(approver: string): Promise<TotpRecord | null> {
    const r = this.checked('totp', await this.read<{ approver: string; secret: string; enrolled_at: number; last_step: number; failures: number; locked_until: number }>('SELECT * FROM totp WHERE log_id = $1 AND approver = $2', [this.logId, approver]))[0];
    return r ? { approver: r.approver, sealedSecret: r.secret, enrolledAt: r.enrolled_at, lastStep: r.last_step, failures: r.failures, lockedUntil: r.locked_until } : null;
  }

  async recordTotpFailure(approver: string, now: number, limits: { maxFailures: number; lockMs: number }, lockoutEntry: EntryDraft): Promise<TotpRecord> {
    const locked = await this.group.run(
      (l) => (l ? [lockoutEntry] : []),
      async (c) => {
        await this.totpRow(c, approver);
        const r = await this.sealed(c, 'totp', await c.query<{ failures: number }>('UPDATE totp SET failures = failures + 1 WHERE log_id = $1 AND approver = $2 RETURNING *', [this.logId, approver]));
        if ((r.rows[0]?.failures ?? 0) < limits.maxFailures) return false;
        await this.sealed(c, 'totp', await c.query('UPDATE totp SET failures = 0, locked_until = $3 WHERE log_id = $1 AND approver = $2 RETURNING *', [this.logId, approver, now + limits.lockMs]));
        return true;
      },
    );
    const rec = await this.totp(approver);
    return locked ? { ...rec!, failures: limits.maxFailures } : rec!;
  }




  async logRows(afterSeq: number, limit: number): Promise<LogRow[]> {
    return this.read<LogRow>('SELECT seq, body, sig FROM audit_log WHERE log_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [this.logId, afterSeq, limit]);
  }

  async transactionEntries(id: string, limit: number): Promise<LogRow[]> {
    // The expression index audit_log_tx (postgres-schema.ts) answers this without a pass over the log.
    return this.read<LogRow>("SELECT seq, body, sig FROM audit_log WHERE log_id = $1 AND (body::jsonb ->> 'transaction_id') = $2 ORDER BY seq LIMIT $3", [this.logId, id, limit]);
  }




  async history(f: HistoryFilter): Promise<TxRecord[]> {
    const where = ['log_id = ?'];
    const args: unknown[] = [this.logId];
    const add = (sql: string, v: unknown) => (args.push(v), where.push(sql));
    if (f.state) add('state = ?', f.state);
    if (f.action) add('action_name = ?', f.action);
    if (f.sinceMs !== undefined) add('created_at >= ?', f.sinceMs);
    const rows = await this.read<Row>(numbered(`SELECT * FROM transactions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, ord DESC LIMIT ?`), [...args, f.limit]);
    return this.checked('transactions', rows).map(toRecord);
  }

  async compactFinished(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number> {
    const done = await this.group.run<string[]>(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      async (c) => {
        const due = (
          await c.query<Row>(
            `SELECT * FROM transactions WHERE log_id = $1 AND compacted_at IS NULL AND updated_at < $2 AND ${FINISHED_SQL} ORDER BY updated_at, ord LIMIT $3`,
            [this.logId, cutoffMs, limit],
          )
        ).rows;
        this.checked('transactions', due);
        if (due.length === 0) return [];
        const r = await c.query<{ id: string }>(
          `UPDATE transactions AS t SET params_json = '${COMPACTED_JSON}', preview_json = '${COMPACTED_JSON}', receipt_commitment = NULL, result_json = u.result, compacted_at = $2
            FROM unnest($3::text[], $4::text[]) AS u(id, result) WHERE t.log_id = $1 AND t.id = u.id AND t.compacted_at IS NULL RETURNING t.*`,
          [this.logId, now, due.map((d) => d.id), due.map((d) => compactedResult(d.state, d.result_json))],
        );
        await this.sealed(c, 'transactions', r);
        return r.rows.map((x) => x.id);
      },
    );
    return done.length;
  }

  async pruneHistory(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number> {
    const done = await this.group.run<string[]>(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      async (c) => {
        await c.query(
          `DELETE FROM rule_use WHERE ctid IN (SELECT ctid FROM rule_use AS r WHERE r.log_id = $1 AND r.at < $2
            AND r.at < (SELECT MAX(l.at) FROM rule_use AS l WHERE l.log_id = r.log_id AND l.rule_id = r.rule_id) LIMIT $3)`,
          [this.logId, now - RULE_USE_KEEP_MS, limit],
        );
        // Those of transactions denied, canceled or expired before a second approval: kept no longer than the transactions' details.
        await c.query('DELETE FROM co_approvals WHERE ctid IN (SELECT ctid FROM co_approvals WHERE log_id = $1 AND at < $2 LIMIT $3)', [this.logId, cutoffMs, limit]);
        const r = await c.query<{ id: string }>(
          `DELETE FROM transactions WHERE log_id = $1 AND id IN (SELECT id FROM transactions WHERE log_id = $1 AND compacted_at IS NOT NULL AND updated_at < $2
            ORDER BY updated_at, ord LIMIT $3) RETURNING id`,
          [this.logId, cutoffMs, limit],
        );
        return r.rows.map((x) => x.id);
      },
    );
    return done.length;
  }

  appendEntries(entries: EntryDraft[], spend?: SpentStep): Promise<'appended' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'appended' ? entries : []),
      async (c) => (spend && !(await this.spendStep(c, spend)) ? 'step_spent' : 'appended'),
    );
  }

  logHead(): LogHead {
    return this.group.head;
  }

  logBase(): LogBase {
    return this.base;
  }

  async archiveSegment(upTo: number, treeHead: string, entry: EntryDraft): Promise<LogBase> {
    this.base = await archiveSegment(this.group, this.archiveDialect(), () => this.base, upTo, treeHead, entry);
    return this.base;
  }

  async integrityCheck(max: number): Promise<string[]> {
    const n = Math.max(1, Math.min(100, Math.trunc(max)));
    try {
      const found = (await pgIntegrityCheck(this.pool, this.logId, this.group.head, n, this.base)).filter((l) => l !== 'ok');
      found.push(...(await this.unsealedRows(n - found.length)));
      return found.length ? found.slice(0, n) : ['ok'];
    } catch (e) {
      return [`the check itself failed: ${storeError(e, this.where).message}`];
    }
  }

  /** Up to `max` rows of this log that do not carry this host's MAC (what a read would refuse), in pages. */
  private async unsealedRows(max: number): Promise<string[]> {
    const out: string[] = [];
    const PAGE = 1000;
    // passkeys too: a planted passkey is refused when it is used, and named here before that.
    for (const table of ['transactions', 'totp', 'passkeys', 'rule_use'] as const) {
      // By physical row id: a TID range scan, each page where the last one ended.
      for (let after = '(0,0)'; out.length < max; ) {
        const rows = await this.read<Record<string, unknown> & { ctid: string }>(
          `SELECT ctid::text AS ctid, * FROM ${table} WHERE log_id = $1 AND ctid > $2::tid ORDER BY ctid LIMIT $3`,
          [this.logId, after, PAGE],
        );
        for (const r of rows) {
          try {
            this.mac.check(table, r);
          } catch (e) {
            if (out.length < max) out.push((e as Error).message);
          }
        }
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1]!.ctid;
      }
    }
    return out;
  }

  private closing: Promise<void> | null = null;

  /** Waits for the pending writes, then ends the pool; closing again is harmless. */
  close(): Promise<void> {
    return (this.closing ??= this.group.drain().then(() => this.pool.end()));
  }
}
