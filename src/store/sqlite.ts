/**
 * SQLite store (embedded default). Every write runs in one IMMEDIATE transaction (a group
 * commit's, group-commit.ts, for those that append entries); better-sqlite3 is synchronous, so
 * nothing else runs on the connection meanwhile, and the daemon is the only writer. The
 * transaction's state machine is transitions.ts, run by lifecycle.ts over this file's dialect.
 * WAL keeps readers (an auditor's `audit verify`) from blocking it.
 */
import { closeSync, constants, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { EntryDraft } from '../audit/entry.js';
import { GENESIS_HASH } from '../audit/entry.js';
import type { NodeReader } from '../audit/merkle.js';
import type { LogRow } from '../audit/verify.js';
import { decodeRow, hexColumn, logInserter, STORED_ROWS, TX_INDEX, txKey, type StoredLogRow } from '../audit/sqlite-log.js';
import { upgradeFrom1 } from './sqlite-upgrade.js';
import { encodeStored } from '../audit/entry-encoding.js';
import { AirlockError } from '../protocol/errors.js';
import { MERKLE_SCHEMA, nodeReaderSync, nodeWriter, openFrontier, sqliteNodeReader } from './sqlite-merkle.js';
import { LOG_BASE_KEY, readBase } from './log-base.js';
import { COMPACTED_JSON, compactedResult, FINISHED_SQL, idsDigest, RULE_USE_KEEP_MS } from './compaction.js';
import { toRecord, type Row } from './tx-row.js';
import { GroupCommit, RollBack, type BatchDialect } from './group-commit.js';
import { TransactionLifecycle, type LifecycleDialect, type StoredRow } from './lifecycle.js';
import { archiveSegment, type ArchiveDialect } from './archival.js';
import { passkeyOfRow, type PasskeyRow } from './passkey-row.js';
import { coApprovalOfRow, rowOfCoApproval, type CoApproval, type CoApprovalRow } from './co-approval.js';
import { type HistoryFilter, type LogBase, type LogHead, type FactorsReset, type PasskeyRecord, type PasskeyUse, type PendingTotp, type ApprovedEnrolment, type RuleUsage, type Sealer, type SpentStep, type Store, type TotpRecord, type TxRecord } from './store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rule_use (rule_id TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS rule_use_at ON rule_use(rule_id, at);
-- secret: sealed under the daemon's totp.key (src/daemon/totp-seal.ts) once meta totp_secrets = 'sealed-v1'.
CREATE TABLE IF NOT EXISTS totp (
  approver TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  enrolled_at INTEGER NOT NULL,
  last_step INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  locked_until INTEGER NOT NULL DEFAULT 0
);
-- Secrets issued by totp.enroll and not yet confirmed by a first code (sealed likewise): they approve nothing.
CREATE TABLE IF NOT EXISTS totp_pending (
  approver TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  confirmed_step INTEGER
);
CREATE TABLE IF NOT EXISTS transactions (
  id TEXT PRIMARY KEY,
  action_name TEXT NOT NULL,
  params_json TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  risk TEXT NOT NULL,
  state TEXT NOT NULL,
  requester_uid INTEGER NOT NULL,
  requester_name TEXT NOT NULL,
  requester_role TEXT NOT NULL,
  requester_person_uid INTEGER,
  preview_json TEXT NOT NULL,
  preview_digest TEXT NOT NULL,
  summary TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  approved_by TEXT,
  receipt_commitment TEXT,
  consumed_at INTEGER,
  result_json TEXT,
  compacted_at INTEGER
);
-- Passkeys (store.ts PasskeyRecord): public keys only (COSE, base64url), nothing secret; transports as JSON.
CREATE TABLE IF NOT EXISTS passkeys (
  credential_id TEXT PRIMARY KEY,
  approver TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter INTEGER NOT NULL,
  transports TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX IF NOT EXISTS passkeys_of ON passkeys(approver, created_at);
-- Approvals before the last where more than one person must approve (co-approval.ts); a row per person and transaction.
CREATE TABLE IF NOT EXISTS co_approvals (
  tx_id TEXT NOT NULL,
  approver TEXT NOT NULL,
  principal TEXT NOT NULL,
  preview_digest TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (tx_id, approver)
);
CREATE INDEX IF NOT EXISTS tx_state_expiry ON transactions(state, expires_at);
CREATE INDEX IF NOT EXISTS tx_created ON transactions(created_at);
-- body: the signed body, as TEXT or encoded (src/audit/entry-encoding.ts); sig and hash as bytes; tx: the
-- transaction the entry concerns (src/audit/sqlite-log.ts txKey), indexed by audit_log_by_tx (audit prove).
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY,
  body BLOB NOT NULL,
  sig BLOB NOT NULL,
  hash BLOB NOT NULL,
  tx BLOB
);
`;
/** 2: entries encoded and found by their tx column (1: JSON text, found by json_extract; sqlite-upgrade.ts upgrades it). */
const SCHEMA_VERSION = '2';
/** meta totp_secrets: the secrets in totp and totp_pending are sealed (absent: a store from before sealing, or a new one). */
const TOTP_SEALED = 'sealed-v1';
/** The JSON columns of transactions kept encoded (src/audit/entry-encoding.ts): most of a row's bytes otherwise. */
const ENCODED_COLUMNS: ReadonlySet<string> = new Set(['preview_json', 'result_json']);
/** A value as the store writes it into `column`: every writer of a row (insert, transition, compaction) goes through here. */
const asStored = (column: string, v: unknown): unknown => (ENCODED_COLUMNS.has(column) && typeof v === 'string' ? encodeStored(v) : v);

/** The most operations one group commit holds: bounds the batch's time and its memory. */
export const MAX_BATCH = 256;
type Db = Database.Database;
const DAY_MS = 24 * 60 * 60_000;

export class SqliteStore extends TransactionLifecycle<Db> implements Store {
  private readonly db: Db;
  private base: LogBase;
  private readonly writeNodes: ReturnType<typeof nodeWriter>;
  private readonly insertEntries: ReturnType<typeof logInserter>;
  readonly merkleNodes: NodeReader;
  private readonly stmts;
  /** One IMMEDIATE transaction around body, built once: db.transaction() is costly to call per operation. */
  private readonly immediate: (body: () => unknown) => unknown;
  /** Every write that appends entries: one IMMEDIATE transaction per batch (group-commit.ts). */
  protected readonly group: GroupCommit<Db>;
  protected readonly transitions: LifecycleDialect<Db>;
  /** Prepared conditional updates of the transitions table (transitions.ts): a few fixed strings. */
  private readonly updates = new Map<string, Database.Statement>();
  /** The write-ahead log, synced after each commit (the connection runs at synchronous = NORMAL). */
  private walFd: number;
  /** The sync running, and the one queued after it for the commits made meanwhile. */
  private syncing: Promise<void> | null = null;
  private nextSync: Promise<void> | null = null;

  constructor(
    path: string,
    seal: Sealer,
    /** After each commit that appended entries: the new head and those entries, in order. */
    onAppend: (head: LogHead, entries: readonly EntryDraft[]) => void = () => {},
  ) {
    super();
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // COMMIT writes the log's frames without waiting for the disk; what makes a commit durable is
    // the sync of the write-ahead log that follows it (walSync), before anyone is told: on the
    // thread pool for a group commit's batch, so the event loop serves others meanwhile, at once
    // for the rest. A checkpoint still syncs both files itself, as at FULL.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    // Deleted and overwritten content is zeroed in the file, so an old (clear or pending) secret
    // does not linger in free space for a copy of the database to reveal.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.db.exec(MERKLE_SCHEMA);
    this.base = readBase(this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(LOG_BASE_KEY) as string | undefined);
    const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string | undefined;
    if (version === undefined) this.db.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?)").run(SCHEMA_VERSION);
    else if (version === '1') upgradeFrom1(this.db, this.base);
    else if (version !== SCHEMA_VERSION) throw new AirlockError('integrity', 'schema_version', `database schema ${version} is not the supported ${SCHEMA_VERSION}`);
    this.db.exec(TX_INDEX);
    // Added after schema 1 shipped: the person behind a root requester (for self-approval).
    const columns = (this.db.prepare('PRAGMA table_info(transactions)').all() as { name: string }[]).map((c) => c.name);
    if (!columns.includes('requester_person_uid')) this.db.exec('ALTER TABLE transactions ADD COLUMN requester_person_uid INTEGER');
    // Added with retention (compaction.ts); the partial indexes find what is due without a pass over the rest.
    if (!columns.includes('compacted_at')) this.db.exec('ALTER TABLE transactions ADD COLUMN compacted_at INTEGER');
    // Added with approved enrolments (totp-enrolment.ts): a proven first enrolment waits for another approver.
    const pendingColumns = (this.db.prepare('PRAGMA table_info(totp_pending)').all() as { name: string }[]).map((c) => c.name);
    if (!pendingColumns.includes('confirmed_step')) this.db.exec('ALTER TABLE totp_pending ADD COLUMN confirmed_step INTEGER');
    this.db.exec(`CREATE INDEX IF NOT EXISTS tx_to_compact ON transactions(updated_at) WHERE compacted_at IS NULL;
      CREATE INDEX IF NOT EXISTS tx_compacted ON transactions(updated_at) WHERE compacted_at IS NOT NULL;`);
    const last = this.db.prepare(`SELECT seq, ${hexColumn('hash')} AS hash FROM audit_log ORDER BY seq DESC LIMIT 1`).get() as { seq: number; hash: string } | undefined;
    // A store from before the tree gets its nodes built here, once, in one transaction.
    const frontier = openFrontier(this.db, last ? last.seq : 0);
    const head = { size: last ? last.seq : 0, hash: last ? last.hash : GENESIS_HASH, root: frontier.root().toString('hex') };
    this.writeNodes = nodeWriter(this.db);
    this.insertEntries = logInserter(this.db);
    this.merkleNodes = sqliteNodeReader(this.db);
    this.stmts = {
      insertTx: this.db.prepare(`INSERT INTO transactions (id, action_name, params_json, request_hash, risk, state, requester_uid, requester_name, requester_role,
        requester_person_uid, preview_json, preview_digest, summary, created_at, updated_at, expires_at) VALUES
        (@id, @action_name, @params_json, @request_hash, @risk, @state, @requester_uid, @requester_name, @requester_role, @requester_person_uid, @preview_json, @preview_digest, @summary, @created_at, @updated_at, @expires_at)`),
      getTx: this.db.prepare('SELECT * FROM transactions WHERE id = ?'),
      logRows: this.db.prepare(`${STORED_ROWS} WHERE a.seq > ? ORDER BY a.seq LIMIT ?`),
      txRows: this.db.prepare(`${STORED_ROWS} WHERE a.tx = ? ORDER BY a.seq LIMIT ?`),
      putTotp: this.db.prepare(`INSERT INTO totp (approver, secret, enrolled_at, last_step) VALUES (?, ?, ?, ?)
        ON CONFLICT(approver) DO UPDATE SET secret = excluded.secret, enrolled_at = excluded.enrolled_at, last_step = excluded.last_step, failures = 0, locked_until = 0`),
      getTotp: this.db.prepare('SELECT * FROM totp WHERE approver = ?'),
      deleteTotp: this.db.prepare('DELETE FROM totp WHERE approver = ?'),
      putPending: this.db.prepare(`INSERT INTO totp_pending (approver, secret, issued_at, expires_at) VALUES (?, ?, ?, ?)
        ON CONFLICT(approver) DO UPDATE SET secret = excluded.secret, issued_at = excluded.issued_at, expires_at = excluded.expires_at, failures = 0, confirmed_step = NULL`),
      getPending: this.db.prepare('SELECT * FROM totp_pending WHERE approver = ?'),
      takePending: this.db.prepare('DELETE FROM totp_pending WHERE approver = ? AND secret = ? AND expires_at > ? AND confirmed_step IS NULL'),
      takeProven: this.db.prepare('DELETE FROM totp_pending WHERE approver = ? AND secret = ? AND expires_at > ? AND confirmed_step IS NOT NULL RETURNING confirmed_step').pluck(),
      provePending: this.db.prepare('UPDATE totp_pending SET confirmed_step = ?, expires_at = ?, failures = 0 WHERE approver = ? AND secret = ? AND expires_at > ? AND confirmed_step IS NULL'),
      anyTotp: this.db.prepare('SELECT EXISTS (SELECT 1 FROM totp)').pluck(),
      pendingFailure: this.db.prepare('UPDATE totp_pending SET failures = failures + 1 WHERE approver = ? RETURNING failures').pluck(),
      deletePending: this.db.prepare('DELETE FROM totp_pending WHERE approver = ?'),
      getMeta: this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      putMeta: this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      spendStep: this.db.prepare('UPDATE totp SET last_step = ?, failures = 0 WHERE approver = ? AND last_step < ?'),
      passkeysOf: this.db.prepare('SELECT * FROM passkeys WHERE approver = ? ORDER BY created_at, credential_id'),
      deletePasskeys: this.db.prepare('DELETE FROM passkeys WHERE approver = ?'),
      passkeyExists: this.db.prepare('SELECT 1 FROM passkeys WHERE credential_id = ?').pluck(),
      passkeyById: this.db.prepare('SELECT * FROM passkeys WHERE credential_id = ?'),
      addPasskey: this.db.prepare('INSERT INTO passkeys (credential_id, approver, public_key, counter, transports, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      usePasskey: this.db.prepare('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ? AND approver = ? AND (counter < ? OR (counter = 0 AND ? = 0))'),
      ruleUse: this.db.prepare('INSERT INTO rule_use (rule_id, at) VALUES (?, ?)'),
      coApprovals: this.db.prepare('SELECT * FROM co_approvals WHERE tx_id = ? ORDER BY at, approver'),
      addCoApproval: this.db.prepare('INSERT INTO co_approvals (tx_id, approver, principal, preview_digest, at) VALUES (@tx_id, @approver, @principal, @preview_digest, @at)'),
      dropCoApprovals: this.db.prepare('DELETE FROM co_approvals WHERE tx_id = ?'),
      // Those of transactions denied, canceled or expired before a second approval: kept no longer than the transactions' details.
      pruneCoApprovals: this.db.prepare('DELETE FROM co_approvals WHERE rowid IN (SELECT rowid FROM co_approvals WHERE at < ? LIMIT ?)'),
      ruleUsage: this.db.prepare('SELECT COUNT(*) AS count FROM rule_use WHERE rule_id = ? AND at >= ?'),
      ruleLast: this.db.prepare('SELECT MAX(at) AS last FROM rule_use WHERE rule_id = ?'),
      ruleFirstSince: this.db.prepare('SELECT MIN(at) AS first FROM rule_use WHERE rule_id = ? AND at >= ?'),
      totpFailure: this.db.prepare('UPDATE totp SET failures = failures + 1 WHERE approver = ?'),
      totpLock: this.db.prepare('UPDATE totp SET failures = 0, locked_until = ? WHERE approver = ?'),
      dueForCompaction: this.db.prepare(`SELECT * FROM transactions WHERE compacted_at IS NULL AND updated_at < ? AND ${FINISHED_SQL} ORDER BY updated_at LIMIT ?`),
      // Compaction deletes the row and inserts its compacted form (a new rowid) rather than
      // updating it in place: SQLite never merges the pages a shrunken row leaves mostly empty,
      // so in-place updates free no page; deleted runs of old rows empty whole pages, which go
      // to the freelist and hold new rows, while the compacted rows pack densely at the end.
      compactDelete: this.db.prepare('DELETE FROM transactions WHERE id = ? AND compacted_at IS NULL'),
      compactInsert: this.db.prepare(`INSERT INTO transactions (id, action_name, params_json, request_hash, risk, state, requester_uid, requester_name, requester_role,
        requester_person_uid, preview_json, preview_digest, summary, created_at, updated_at, expires_at, approved_by, receipt_commitment, consumed_at, result_json, compacted_at) VALUES
        (@id, @action_name, '${COMPACTED_JSON}', @request_hash, @risk, @state, @requester_uid, @requester_name, @requester_role, @requester_person_uid, '${COMPACTED_JSON}', @preview_digest,
        @summary, @created_at, @updated_at, @expires_at, @approved_by, NULL, @consumed_at, @result_json, @compacted_at)`),
      dueForPruning: this.db.prepare('SELECT id FROM transactions WHERE compacted_at IS NOT NULL AND updated_at < ? ORDER BY updated_at LIMIT ?').pluck(),
      prune: this.db.prepare('DELETE FROM transactions WHERE id = ? AND compacted_at IS NOT NULL'),
      pruneRuleUse: this.db.prepare(`DELETE FROM rule_use WHERE rowid IN (SELECT rowid FROM rule_use AS r WHERE at < ?
        AND at < (SELECT MAX(at) FROM rule_use AS l WHERE l.rule_id = r.rule_id) LIMIT ?)`),
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT op'),
      release: this.db.prepare('RELEASE op'),
      rollbackTo: this.db.prepare('ROLLBACK TO op'),
    };
    const immediate = this.db.transaction((body: () => unknown) => body()).immediate;
    this.immediate = (body) => {
      const result = immediate(body);
      fdatasyncSync(this.walFd);
      return result;
    };
    this.group = new GroupCommit(this.batchDialect(), seal, { maxBatch: MAX_BATCH, maxPending: Infinity }, onAppend, { head, frontier });
    this.transitions = this.lifecycleDialect();
    // The write-ahead log exists from the first write on and stays while this connection is open
    // (a checkpoint rewinds it in place, never replaces it): one descriptor for every sync. Synced
    // now, it makes the schema and any upgrade above durable too.
    this.walFd = openSync(`${path}-wal`, constants.O_RDONLY | constants.O_NOFOLLOW);
    fdatasyncSync(this.walFd);
  }

  /** Group commit's SQLite: one IMMEDIATE transaction on the store's one connection (the daemon is the only writer). */
  private batchDialect(): BatchDialect<Db> {
    const st = this.stmts;
    return {
      connect: () => this.db,
      release: () => {},
      begin: (_db, committed) => (st.begin.run(), committed),
      savepoint: () => st.savepoint.run(),
      releaseSavepoint: () => st.release.run(),
      rollbackToSavepoint: () => st.rollbackTo.run(),
      commit: () => st.commit.run(),
      durable: () => this.walSync(),
      rollback: () => {
        // SQLite rolled back already when a failed COMMIT did (on a full disk): nothing is left to undo.
        if (this.db.inTransaction) st.rollback.run();
      },
      write: (_db, entries, nodes, prevHash) => {
        this.insertEntries(entries, prevHash);
        this.writeNodes(nodes);
      },
      failure: (e) => e,
    };
  }

  private lifecycleDialect(): LifecycleDialect<Db> {
    const st = this.stmts;
    const prepared = (sql: string) => {
      let p = this.updates.get(sql);
      if (!p) this.updates.set(sql, (p = this.db.prepare(sql)));
      return p;
    };
    return {
      row: (_db, id) => st.getTx.get(id) as StoredRow | undefined,
      rows: (_db, w, limit) => prepared(`SELECT * FROM transactions WHERE ${w.where}${limit === undefined ? '' : ' ORDER BY created_at, rowid LIMIT ?'}`).all(...w.whereArgs, ...(limit === undefined ? [] : [limit])) as StoredRow[],
      insert: (_db, row) => void st.insertTx.run({ ...row, preview_json: asStored('preview_json', row.preview_json) }),
      update: (_db, id, u) => {
        const args = u.setArgs.map((v, i) => asStored(u.setColumns[i]!, v));
        return prepared(`UPDATE transactions SET ${u.set} WHERE id = ? AND ${u.where}`).run(...args, id, ...u.whereArgs).changes === 1;
      },
      spendStep: (_db, s) => this.spendStep(s),
      usePasskey: (_db, u, now) => this.usePasskey(u, now),
      ruleUsage: (_db, ruleId, now) => this.usageOf(ruleId, now),
      recordRuleUse: (_db, ruleId, now) => void st.ruleUse.run(ruleId, now),
      // Only this root daemon writes the file: a row copied back to before its run needs root,
      // which holds the signing key too. consumed_at (the update's guard) answers alone.
      consumedInLog: () => false,
      coApprovals: (_db, id) => (st.coApprovals.all(id) as CoApprovalRow[]).map(coApprovalOfRow),
      addCoApproval: (_db, a) => void st.addCoApproval.run(rowOfCoApproval(a)),
      dropCoApprovals: (_db, id) => void st.dropCoApprovals.run(id),
    };
  }

  private archiveDialect(): ArchiveDialect<Db> {
    return {
      ofLog: '',
      entryHash: (db, seq) => db.prepare(`SELECT ${hexColumn('hash')} FROM audit_log WHERE seq = ?`).pluck().get(seq) as string | undefined,
      deleteEntriesUpTo: (db, seq) => void db.prepare('DELETE FROM audit_log WHERE seq <= ?').run(seq),
      readNodes: (db, ids) => nodeReaderSync(db)(ids),
      deleteNodesBelow: (db, level, index) => void db.prepare('DELETE FROM merkle_nodes WHERE level = ? AND idx < ?').run(level, index),
      writeNodes: (_db, nodes) => this.writeNodes(nodes),
      putMeta: (_db, key, value) => void this.stmts.putMeta.run(key, value),
    };
  }

  /**
   * Resolves once every commit made before the call is on disk: the write-ahead log synced on the
   * thread pool, off the event loop. Syncs never overlap: commits made while one runs share the
   * one after it (the log's own group commit, one level down).
   */
  private walSync(): Promise<void> {
    if (!this.syncing) return this.syncOnce();
    return (this.nextSync ??= this.syncing.catch(() => {}).then(() => {
      this.nextSync = null;
      return this.syncOnce();
    }));
  }

  private syncOnce(): Promise<void> {
    const done = new Promise<void>((resolve, reject) =>
      fdatasync(this.walFd, (e) => (e ? reject(new AirlockError('integrity', 'store_sync_failed', `the store could not sync ${this.db.name}-wal: ${e.message}`, 'check the disk, then restart the daemon')) : resolve())),
    );
    this.syncing = done;
    const clear = () => {
      if (this.syncing === done) this.syncing = null;
    };
    done.then(clear, clear);
    return done;
  }

  /** Spends this step of the approver's factor; false when it already was. */
  private spendStep(s: SpentStep): boolean {
    return this.stmts.spendStep.run(s.step, s.approver, s.step).changes === 1;
  }


  /** Moves a passkey's counter forward (LifecycleDialect.usePasskey); false when it does not. */
  private usePasskey(u: PasskeyUse, now: number): boolean {
    return this.stmts.usePasskey.run(u.counter, now, u.credentialId, u.approver, u.counter, u.counter).changes === 1;
  }

  async passkeyByCredential(credentialId: string): Promise<PasskeyRecord | null> {
    const r = this.stmts.passkeyById.get(credentialId) as PasskeyRow | undefined;
    return r ? passkeyOfRow(r) : null;
  }

  async passkeys(approver: string): Promise<PasskeyRecord[]> {
    return (this.stmts.passkeysOf.all(approver) as PasskeyRow[]).map(passkeyOfRow);
  }

  addPasskey(p: PasskeyRecord, proof: SpentStep | PasskeyUse, entry: EntryDraft): Promise<'added' | 'step_spent' | 'passkey_replayed' | 'exists'> {
    return this.group.run(
      (o) => (o === 'added' ? [entry] : []),
      () => {
        if (this.stmts.passkeyExists.get(p.credentialId) === 1) return 'exists';
        if ('step' in proof ? !this.spendStep(proof) : !this.usePasskey(proof, p.createdAt)) return 'step' in proof ? 'step_spent' : 'passkey_replayed';
        this.stmts.addPasskey.run(p.credentialId, p.approver, p.publicKey.toString('base64url'), p.counter, JSON.stringify(p.transports), p.name, p.createdAt);
        return 'added';
      },
    );
  }

  async coApprovals(id: string): Promise<CoApproval[]> {
    return (this.stmts.coApprovals.all(id) as CoApprovalRow[]).map(coApprovalOfRow);
  }

  async getTransaction(id: string): Promise<TxRecord | null> {
    const r = this.stmts.getTx.get(id) as Row | undefined;
    return r ? toRecord(r) : null;
  }


  private usageOf(ruleId: string, now: number): RuleUsage {
    const day = this.stmts.ruleUsage.get(ruleId, now - DAY_MS) as { count: number };
    const last = (this.stmts.ruleLast.get(ruleId) as { last: number | null }).last;
    const first = (this.stmts.ruleFirstSince.get(ruleId, now - DAY_MS) as { first: number | null }).first;
    return { lastDay: day.count, last, firstInDay: first };
  }

  async ruleUsage(ruleId: string, now: number): Promise<RuleUsage> {
    return this.usageOf(ruleId, now);
  }

  async totpSecretsSealed(): Promise<boolean> {
    return this.stmts.getMeta.get('totp_secrets') === TOTP_SEALED;
  }

  async sealTotpSecrets(seal: (approver: string, secret: string) => string): Promise<number> {
    const sealed = this.immediate(() => {
      if (this.stmts.getMeta.get('totp_secrets') === TOTP_SEALED) return 0;
      let n = 0;
      for (const table of ['totp', 'totp_pending']) {
        const update = this.db.prepare(`UPDATE ${table} SET secret = ? WHERE approver = ?`);
        for (const r of this.db.prepare(`SELECT approver, secret FROM ${table}`).all() as Array<{ approver: string; secret: string }>) {
          update.run(seal(r.approver, r.secret), r.approver);
          n++;
        }
      }
      this.stmts.putMeta.run('totp_secrets', TOTP_SEALED);
      return n;
    }) as number;
    // WAL frames written before sealing may still hold clear text: move the sealed pages into
    // the database file (overwriting the old ones) and empty the WAL.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return sealed;
  }

  issueTotp(approver: string, sealedSecret: string, now: number, expiresAt: number, spend: SpentStep | undefined, entry: EntryDraft): Promise<'issued' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'issued' ? [entry] : []),
      () => {
        if (spend && !this.spendStep(spend)) return 'step_spent';
        this.stmts.putPending.run(approver, sealedSecret, now, expiresAt);
        return 'issued';
      },
    );
  }

  async pendingTotp(approver: string): Promise<PendingTotp | null> {
    const r = this.stmts.getPending.get(approver) as { approver: string; secret: string; issued_at: number; expires_at: number; failures: number; confirmed_step: number | null } | undefined;
    return r ? { approver: r.approver, sealedSecret: r.secret, issuedAt: r.issued_at, expiresAt: r.expires_at, failures: r.failures, confirmedStep: r.confirmed_step } : null;
  }

  async anyTotp(): Promise<boolean> {
    return this.stmts.anyTotp.get() === 1;
  }

  async awaitTotpApproval(approver: string, sealedSecret: string, step: number, now: number, expiresAt: number, entry: EntryDraft): Promise<boolean> {
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      () => this.stmts.provePending.run(step, expiresAt, approver, sealedSecret, now).changes === 1,
    );
  }

  approveTotp(enrolments: readonly ApprovedEnrolment[], now: number, spend: SpentStep): Promise<'approved' | 'gone' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'approved' ? enrolments.map((e) => e.entry) : []),
      () => {
        for (const e of enrolments) {
          const step = this.stmts.takeProven.get(e.approver, e.sealedSecret, now) as number | undefined;
          if (step === undefined) throw new RollBack('gone' as const); // with the ones taken before it
          this.stmts.putTotp.run(e.approver, e.sealedSecret, now, step);
        }
        if (!this.spendStep(spend)) throw new RollBack('step_spent' as const);
        return 'approved' as const;
      },
    );
  }

  async confirmTotp(approver: string, sealedSecret: string, step: number, now: number, entry: EntryDraft): Promise<boolean> {
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      () => {
        if (this.stmts.takePending.run(approver, sealedSecret, now).changes !== 1) return false;
        this.stmts.putTotp.run(approver, sealedSecret, now, step);
        return true;
      },
    );
  }

  async recordPendingTotpFailure(approver: string, maxFailures: number): Promise<number> {
    return this.immediate(() => {
      const failures = this.stmts.pendingFailure.get(approver) as number | undefined;
      if (failures === undefined) return 0;
      if (failures < maxFailures) return maxFailures - failures;
      this.stmts.deletePending.run(approver);
      return 0;
    }) as number;
  }

  resetTotp(approver: string, entryFor: (had: FactorsReset) => EntryDraft, spend?: SpentStep, opts: { passkeys?: boolean } = {}): Promise<FactorsReset | 'step_spent'> {
    return this.group.run(
      (had) => (had !== 'step_spent' && (had.factor || had.pending || (had.passkeys ?? 0) > 0) ? [entryFor(had)] : []),
      () => {
        if (spend && !this.spendStep(spend)) return 'step_spent' as const;
        const had: FactorsReset = { factor: this.stmts.deleteTotp.run(approver).changes === 1, pending: this.stmts.deletePending.run(approver).changes === 1 };
        if (opts.passkeys) had.passkeys = this.stmts.deletePasskeys.run(approver).changes;
        return had;
      },
    );
  }

  async totp(approver: string): Promise<TotpRecord | null> {
    const r = this.stmts.getTotp.get(approver) as { approver: string; secret: string; enrolled_at: number; last_step: number; failures: number; locked_until: number } | undefined;
    return r ? { approver: r.approver, sealedSecret: r.secret, enrolledAt: r.enrolled_at, lastStep: r.last_step, failures: r.failures, lockedUntil: r.locked_until } : null;
  }

  async recordTotpFailure(approver: string, now: number, limits: { maxFailures: number; lockMs: number }, lockoutEntry: EntryDraft): Promise<TotpRecord> {
    const locked = await this.group.run(
      (l) => (l ? [lockoutEntry] : []),
      () => {
        this.stmts.totpFailure.run(approver);
        const failures = (this.stmts.getTotp.get(approver) as { failures: number } | undefined)?.failures ?? 0;
        if (failures < limits.maxFailures) return false;
        this.stmts.totpLock.run(now + limits.lockMs, approver);
        return true;
      },
    );
    const rec = await this.totp(approver);
    return locked ? { ...rec!, failures: limits.maxFailures } : rec!;
  }




  async logRows(afterSeq: number, limit: number): Promise<LogRow[]> {
    return (this.stmts.logRows.all(afterSeq, limit) as StoredLogRow[]).map(decodeRow);
  }

  async transactionEntries(id: string, limit: number): Promise<LogRow[]> {
    return (this.stmts.txRows.all(txKey(id), limit) as StoredLogRow[]).map(decodeRow);
  }




  async history(f: HistoryFilter): Promise<TxRecord[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.state) (where.push('state = ?'), args.push(f.state));
    if (f.action) (where.push('action_name = ?'), args.push(f.action));
    if (f.sinceMs !== undefined) (where.push('created_at >= ?'), args.push(f.sinceMs));
    const sql = `SELECT * FROM transactions ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, f.limit) as Row[]).map(toRecord);
  }

  async compactFinished(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number> {
    const done = await this.group.run(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      () => {
        const due = this.stmts.dueForCompaction.all(cutoffMs, limit) as Array<Row & { consumed_at: number | null }>;
        return due
          .filter((r) => this.stmts.compactDelete.run(r.id).changes === 1)
          .map((r) => {
            const { id, action_name, request_hash, risk, state, requester_uid, requester_name, requester_role, requester_person_uid, preview_digest, summary, created_at, updated_at, expires_at, approved_by, consumed_at } = r;
            this.stmts.compactInsert.run({ id, action_name, request_hash, risk, state, requester_uid, requester_name, requester_role, requester_person_uid, preview_digest, summary, created_at, updated_at, expires_at, approved_by, consumed_at, result_json: asStored('result_json', compactedResult(r.state, r.result_json)), compacted_at: now });
            return id;
          });
      },
    );
    return done.length;
  }

  async pruneHistory(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number> {
    const done = await this.group.run(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      () => {
        this.stmts.pruneRuleUse.run(now - RULE_USE_KEEP_MS, limit);
        this.stmts.pruneCoApprovals.run(cutoffMs, limit);
        return (this.stmts.dueForPruning.all(cutoffMs, limit) as string[]).filter((id) => this.stmts.prune.run(id).changes === 1);
      },
    );
    return done.length;
  }

  appendEntries(entries: EntryDraft[], spend?: SpentStep): Promise<'appended' | 'step_spent'> {
    return this.group.run(
      (o) => (o === 'appended' ? entries : []),
      () => (spend && !this.spendStep(spend) ? 'step_spent' : 'appended'),
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
      return (this.db.pragma(`quick_check(${n})`) as Array<{ quick_check: string }>).flatMap((r) => r.quick_check.split('\n')).slice(0, n);
    } catch (e) {
      return [`the check itself failed: ${(e as Error).message}`]; // a header too damaged to walk is a finding, not a crash
    }
  }

  async close(): Promise<void> {
    // Operations already asked for are committed (or refused) before the database closes.
    await this.group.drain();
    this.db.close();
    if (this.walFd >= 0) closeSync(this.walFd);
    this.walFd = -1; // close() may be called again
  }
}
