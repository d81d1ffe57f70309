/**
 * SQLite store (embedded default). better-sqlite3 is synchronous, so each method
 * runs one IMMEDIATE transaction start to finish; the daemon is the only writer.
 * WAL keeps readers (an auditor's `audit verify`) from blocking it.
 */
import Database from 'better-sqlite3';
import type { EntryDraft } from '../audit/entry.js';
import { GENESIS_HASH } from '../audit/entry.js';
import { leafHash, type MerkleFrontier, type NodeReader } from '../audit/merkle.js';
import type { LogRow } from '../audit/verify.js';
import { hexColumn } from '../audit/log-file.js';
import { AirlockError } from '../protocol/errors.js';
import type { TxState } from '../protocol/risk.js';
import { MERKLE_SCHEMA, nodeWriter, openFrontier, pruneArchivedNodes, sqliteNodeReader } from './sqlite-merkle.js';
import { archiveRange, LOG_BASE_KEY, readBase } from './log-base.js';
import { COMPACTED_JSON, compactedResult, FINISHED_SQL, idsDigest, RULE_USE_KEEP_MS } from './compaction.js';
import { consumeRefusal, EXPIRED_PREVIEW, EXPIRED_RECEIPT, toRecord, type Row } from './tx-row.js';
import { type ApprovalOutcome, type ConsumeOutcome, type HistoryFilter, type LogBase, type LogHead, type PendingTotp, type ApprovedEnrolment, type RuleLimit, type RuleUsage, type Sealer, type SpentStep, type Store, type TotpRecord, type TxRecord } from './store.js';

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
CREATE INDEX IF NOT EXISTS tx_state_expiry ON transactions(state, expires_at);
CREATE INDEX IF NOT EXISTS tx_created ON transactions(created_at);
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY,
  body TEXT NOT NULL,
  sig TEXT NOT NULL,
  hash TEXT NOT NULL
);
-- audit prove: a transaction's entries without a pass over the whole log.
CREATE INDEX IF NOT EXISTS audit_log_tx ON audit_log(json_extract(body, '$.transaction_id'));
`;
const SCHEMA_VERSION = '1';
/** meta totp_secrets: the secrets in totp and totp_pending are sealed (absent: a store from before sealing, or a new one). */
const TOTP_SEALED = 'sealed-v1';
const STEP_SPENT = Symbol('step spent');
const GONE = Symbol('enrolment gone');
/** The most operations one group commit holds: bounds the batch's time and its memory. */
export const MAX_BATCH = 256;

interface PendingOp {
  fn: () => unknown;
  entries: (result: unknown) => EntryDraft[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
const DAY_MS = 24 * 60 * 60_000;

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private head: LogHead;
  private base: LogBase;
  /** The Merkle tree's right edge at `head`; like head, replaced only when a transaction commits. */
  private frontier: MerkleFrontier;
  private readonly writeNodes: ReturnType<typeof nodeWriter>;
  readonly merkleNodes: NodeReader;
  private readonly stmts;
  /** One IMMEDIATE transaction around body, built once: db.transaction() is costly to call per operation. */
  private readonly immediate: (body: () => unknown) => unknown;
  /** Operations waiting for the next group commit (atomically), in arrival order. */
  private readonly pending: PendingOp[] = [];
  private commitScheduled = false;

  constructor(
    path: string,
    private readonly seal: Sealer,
    /** After each commit that appended entries: the new head and those entries, in order. */
    private readonly onAppend: (head: LogHead, entries: readonly EntryDraft[]) => void = () => {},
  ) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    // Deleted and overwritten content is zeroed in the file, so an old (clear or pending) secret
    // does not linger in free space for a copy of the database to reveal.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.db.exec(MERKLE_SCHEMA);
    const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string | undefined;
    if (version === undefined) this.db.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?)").run(SCHEMA_VERSION);
    else if (version !== SCHEMA_VERSION) throw new AirlockError('integrity', 'schema_version', `database schema ${version} is not the supported ${SCHEMA_VERSION}`);
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
    this.frontier = openFrontier(this.db, last ? last.seq : 0);
    this.head = { size: last ? last.seq : 0, hash: last ? last.hash : GENESIS_HASH, root: this.frontier.root().toString('hex') };
    this.writeNodes = nodeWriter(this.db);
    this.merkleNodes = sqliteNodeReader(this.db);
    this.base = readBase(this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(LOG_BASE_KEY) as string | undefined);
    this.stmts = {
      insertTx: this.db.prepare(`INSERT INTO transactions (id, action_name, params_json, request_hash, risk, state, requester_uid, requester_name, requester_role,
        requester_person_uid, preview_json, preview_digest, summary, created_at, updated_at, expires_at) VALUES
        (@id, @action_name, @params_json, @request_hash, @risk, @state, @requester_uid, @requester_name, @requester_role, @requester_person_uid, @preview_json, @preview_digest, @summary, @created_at, @updated_at, @expires_at)`),
      getTx: this.db.prepare('SELECT * FROM transactions WHERE id = ?'),
      approve: this.db.prepare(`UPDATE transactions SET state = 'Queued', approved_by = ?, receipt_commitment = ?, expires_at = ?, updated_at = ?
        WHERE id = ? AND state = 'Previewed' AND expires_at > ?`),
      consume: this.db.prepare(`UPDATE transactions SET state = 'Running', consumed_at = ?, updated_at = ?
        WHERE id = ? AND state = 'Queued' AND consumed_at IS NULL AND receipt_commitment = ? AND expires_at > ?`),
      consumeProbe: this.db.prepare('SELECT state, consumed_at, receipt_commitment, expires_at FROM transactions WHERE id = ?'),
      finish: this.db.prepare("UPDATE transactions SET state = ?, result_json = ?, updated_at = ? WHERE id = ? AND state = 'Running'"),
      cancel: this.db.prepare("UPDATE transactions SET state = 'Canceled', updated_at = ?, result_json = COALESCE(?, result_json) WHERE id = ? AND state IN ('Previewed', 'Queued') AND (? IS NULL OR state = ?)"),
      logRows: this.db.prepare(`SELECT seq, body, ${hexColumn('sig')} AS sig FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`),
      txRows: this.db.prepare(`SELECT seq, body, ${hexColumn('sig')} AS sig FROM audit_log WHERE json_extract(body, '$.transaction_id') = ? ORDER BY seq LIMIT ?`),
      due: this.db.prepare("SELECT * FROM transactions WHERE state IN ('Previewed', 'Queued') AND expires_at <= ?"),
      running: this.db.prepare("SELECT * FROM transactions WHERE state = 'Running'"),
      fail: this.db.prepare("UPDATE transactions SET state = 'Failed', result_json = ?, updated_at = ? WHERE id = ? AND state = 'Running'"),
      expire: this.db.prepare(`UPDATE transactions SET state = 'Canceled', updated_at = ?, result_json = CASE state WHEN 'Previewed' THEN ? ELSE ? END
        WHERE id = ? AND state IN ('Previewed', 'Queued') AND expires_at <= ?`),
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
      ruleUse: this.db.prepare('INSERT INTO rule_use (rule_id, at) VALUES (?, ?)'),
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
      insertLog: this.db.prepare('INSERT INTO audit_log (seq, body, sig, hash) VALUES (?, ?, ?, ?)'),
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT op'),
      release: this.db.prepare('RELEASE op'),
      rollbackTo: this.db.prepare('ROLLBACK TO op'),
    };
    this.immediate = this.db.transaction((body: () => unknown) => body()).immediate;
  }

  /**
   * Runs fn and appends entries, with the Merkle nodes they finish, atomically and durably: the
   * promise settles only after the commit that holds them is on disk (synchronous = FULL).
   *
   * Group commit: operations asked for in the same turn of the event loop (a microtask runs the
   * commit: a lone operation waits for no timer or I/O poll) share one IMMEDIATE transaction, each inside a savepoint of its
   * own, in arrival order. An operation that throws rolls back to its savepoint alone (as if it
   * had been a transaction of its own); the others commit. One fsync then covers the whole
   * batch, which is what lets concurrent writers append many times faster than the disk syncs.
   * A failed COMMIT rejects every operation of the batch: nothing of it was stored. The
   * in-memory head and frontier move only once the batch is committed, and nobody learns an
   * operation's outcome before then.
   */
  private atomically<T>(entries: (result: T) => EntryDraft[], fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, entries, resolve: resolve as (v: unknown) => void, reject } as PendingOp);
      if (!this.commitScheduled) {
        this.commitScheduled = true;
        queueMicrotask(() => this.commitBatch());
      }
    });
  }

  private commitBatch(): void {
    this.commitScheduled = false;
    const batch = this.pending.splice(0, MAX_BATCH);
    if (this.pending.length > 0) {
      this.commitScheduled = true;
      setImmediate(() => this.commitBatch());
    }
    let head = this.head;
    let frontier = this.frontier;
    const done: Array<{ op: PendingOp; ok: true; result: unknown; appended: EntryDraft[]; head: LogHead } | { op: PendingOp; ok: false; error: unknown }> = [];
    try {
      this.stmts.begin.run();
    } catch (e) {
      for (const op of batch) op.reject(e);
      return;
    }
    try {
      for (const op of batch) {
        this.stmts.savepoint.run();
        const before = { head, frontier };
        try {
          const result = op.fn();
          const appended = op.entries(result);
          if (appended.length > 0) {
            // A copy: rolling this operation back must leave the batch's frontier as it was.
            frontier = frontier.clone();
            let { size, hash } = head;
            for (const draft of appended) {
              const sealed = this.seal(draft, size + 1, hash);
              // Leaf i is entry i + 1; a sealer that numbered otherwise would misplace every later leaf.
              if (sealed.seq !== frontier.size + 1) throw new AirlockError('integrity', 'merkle_seq', `entry ${sealed.seq} sealed where leaf ${frontier.size + 1} belongs`);
              // The signature and hash as bytes: half the size of their hex (readers get hex, hexColumn).
              this.stmts.insertLog.run(sealed.seq, sealed.body, Buffer.from(sealed.sig, 'hex'), Buffer.from(sealed.hash, 'hex'));
              this.writeNodes(frontier.append(leafHash(sealed.body)));
              size = sealed.seq;
              hash = sealed.hash;
            }
            head = { size, hash, root: frontier.root().toString('hex') };
          }
          this.stmts.release.run();
          done.push({ op, ok: true, result, appended, head });
        } catch (error) {
          this.stmts.rollbackTo.run();
          this.stmts.release.run();
          ({ head, frontier } = before);
          done.push({ op, ok: false, error });
        }
      }
      this.stmts.commit.run();
    } catch (e) {
      try {
        this.stmts.rollback.run();
      } catch {
        // SQLite rolled back already (a failed COMMIT on a full disk does)
      }
      for (const op of batch) op.reject(e);
      return;
    }
    this.head = head;
    this.frontier = frontier;
    for (const d of done) {
      if (!d.ok) {
        d.op.reject(d.error);
        continue;
      }
      if (d.appended.length > 0) this.onAppend(d.head, d.appended);
      d.op.resolve(d.result);
    }
  }

  async createTransaction(tx: TxRecord, entry: EntryDraft): Promise<void> {
    await this.atomically(
      () => [entry],
      () =>
        this.stmts.insertTx.run({
          id: tx.id,
          action_name: tx.actionName,
          params_json: JSON.stringify(tx.params),
          request_hash: tx.requestHash,
          risk: tx.risk,
          state: tx.state,
          requester_uid: tx.requesterUid,
          requester_name: tx.requesterName,
          requester_role: tx.requesterRole,
          requester_person_uid: tx.requesterPersonUid,
          preview_json: JSON.stringify(tx.preview),
          preview_digest: tx.previewDigest,
          summary: tx.summary,
          created_at: tx.createdAt,
          updated_at: tx.updatedAt,
          expires_at: tx.expiresAt,
        }),
    );
  }

  async getTransaction(id: string): Promise<TxRecord | null> {
    const r = this.stmts.getTx.get(id) as Row | undefined;
    return r ? toRecord(r) : null;
  }

  async recordApproval(id: string, a: { approvedBy: string; commitment: string; expiresAt: number; now: number; spend?: SpentStep; rule?: RuleLimit }, entry: EntryDraft): Promise<ApprovalOutcome> {
    try {
      return await this.atomically(
        (o) => (o === 'approved' ? [entry] : []),
        (): ApprovalOutcome => {
          // The rule is checked first, inside the same IMMEDIATE transaction that records its use.
          if (a.rule && this.ruleExhausted(a.rule, a.now)) return 'rule_exhausted';
          if (this.stmts.approve.run(a.approvedBy, a.commitment, a.expiresAt, a.now, id, a.now).changes !== 1) return 'not_pending';
          // Throwing rolls the approval back with the transaction: both happen or neither does.
          if (a.spend && this.stmts.spendStep.run(a.spend.step, a.spend.approver, a.spend.step).changes !== 1) throw STEP_SPENT;
          if (a.rule) this.stmts.ruleUse.run(a.rule.id, a.now);
          return 'approved';
        },
      );
    } catch (e) {
      if (e === STEP_SPENT) return 'step_spent';
      throw e;
    }
  }

  /** At its daily cap (approvals in the last 24 hours) or inside its cooldown (since its last approval). */
  private ruleExhausted(rule: RuleLimit, now: number): boolean {
    const u = this.usageOf(rule.id, now);
    if (u.lastDay >= rule.dailyCap) return true;
    return u.last !== null && now - u.last < rule.cooldownMs;
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

  async issueTotp(approver: string, sealedSecret: string, now: number, expiresAt: number, spend: SpentStep | undefined, entry: EntryDraft): Promise<'issued' | 'step_spent'> {
    try {
      return await this.atomically(
        () => [entry],
        () => {
          if (spend && this.stmts.spendStep.run(spend.step, spend.approver, spend.step).changes !== 1) throw STEP_SPENT;
          this.stmts.putPending.run(approver, sealedSecret, now, expiresAt);
          return 'issued' as const;
        },
      );
    } catch (e) {
      if (e === STEP_SPENT) return 'step_spent';
      throw e;
    }
  }

  async pendingTotp(approver: string): Promise<PendingTotp | null> {
    const r = this.stmts.getPending.get(approver) as { approver: string; secret: string; issued_at: number; expires_at: number; failures: number; confirmed_step: number | null } | undefined;
    return r ? { approver: r.approver, sealedSecret: r.secret, issuedAt: r.issued_at, expiresAt: r.expires_at, failures: r.failures, confirmedStep: r.confirmed_step } : null;
  }

  async anyTotp(): Promise<boolean> {
    return this.stmts.anyTotp.get() === 1;
  }

  async awaitTotpApproval(approver: string, sealedSecret: string, step: number, now: number, expiresAt: number, entry: EntryDraft): Promise<boolean> {
    return this.atomically(
      (ok) => (ok ? [entry] : []),
      () => this.stmts.provePending.run(step, expiresAt, approver, sealedSecret, now).changes === 1,
    );
  }

  async approveTotp(enrolments: readonly ApprovedEnrolment[], now: number, spend: SpentStep): Promise<'approved' | 'gone' | 'step_spent'> {
    try {
      return await this.atomically<'approved'>(
        () => enrolments.map((e) => e.entry),
        () => {
          for (const e of enrolments) {
            const step = this.stmts.takeProven.get(e.approver, e.sealedSecret, now) as number | undefined;
            if (step === undefined) throw GONE; // rolls back the ones taken before it
            this.stmts.putTotp.run(e.approver, e.sealedSecret, now, step);
          }
          if (this.stmts.spendStep.run(spend.step, spend.approver, spend.step).changes !== 1) throw STEP_SPENT;
          return 'approved';
        },
      );
    } catch (e) {
      if (e === STEP_SPENT) return 'step_spent';
      if (e === GONE) return 'gone';
      throw e;
    }
  }

  async confirmTotp(approver: string, sealedSecret: string, step: number, now: number, entry: EntryDraft): Promise<boolean> {
    return this.atomically(
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

  async resetTotp(approver: string, entryFor: (had: { factor: boolean; pending: boolean }) => EntryDraft, spend?: SpentStep): Promise<{ factor: boolean; pending: boolean } | 'step_spent'> {
    try {
      return await this.atomically<{ factor: boolean; pending: boolean }>(
        (had) => (had.factor || had.pending ? [entryFor(had)] : []),
        () => {
          if (spend && this.stmts.spendStep.run(spend.step, spend.approver, spend.step).changes !== 1) throw STEP_SPENT;
          return { factor: this.stmts.deleteTotp.run(approver).changes === 1, pending: this.stmts.deletePending.run(approver).changes === 1 };
        },
      );
    } catch (e) {
      if (e === STEP_SPENT) return 'step_spent';
      throw e;
    }
  }

  async totp(approver: string): Promise<TotpRecord | null> {
    const r = this.stmts.getTotp.get(approver) as { approver: string; secret: string; enrolled_at: number; last_step: number; failures: number; locked_until: number } | undefined;
    return r ? { approver: r.approver, sealedSecret: r.secret, enrolledAt: r.enrolled_at, lastStep: r.last_step, failures: r.failures, lockedUntil: r.locked_until } : null;
  }

  async recordTotpFailure(approver: string, now: number, limits: { maxFailures: number; lockMs: number }, lockoutEntry: EntryDraft): Promise<TotpRecord> {
    const locked = await this.atomically(
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

  async consumeReceipt(id: string, commitment: string, now: number, entries: EntryDraft[]): Promise<ConsumeOutcome> {
    return this.atomically(
      (o) => (o === 'consumed' ? entries : []),
      (): ConsumeOutcome => {
        if (this.stmts.consume.run(now, now, id, commitment, now).changes === 1) return 'consumed';
        const p = this.stmts.consumeProbe.get(id) as { state: string; consumed_at: number | null; receipt_commitment: string | null; expires_at: number } | undefined;
        return consumeRefusal(p, commitment);
      },
    );
  }

  async finish(id: string, state: TxState, result: Record<string, unknown>, now: number, entry: EntryDraft): Promise<void> {
    await this.atomically(
      () => [entry],
      () => {
        if (this.stmts.finish.run(state, JSON.stringify(result), now, id).changes !== 1) {
          throw new AirlockError('integrity', 'not_running', `transaction ${id} is not Running`);
        }
      },
    );
  }

  async cancel(id: string, now: number, entry: EntryDraft, opts: { result?: Record<string, unknown>; onlyFrom?: 'Previewed' } = {}): Promise<boolean> {
    const result = opts.result ? JSON.stringify(opts.result) : null;
    const from = opts.onlyFrom ?? null;
    return this.atomically(
      (ok) => (ok ? [entry] : []),
      () => this.stmts.cancel.run(now, result, id, from, from).changes === 1,
    );
  }

  async logRows(afterSeq: number, limit: number): Promise<LogRow[]> {
    return this.stmts.logRows.all(afterSeq, limit) as LogRow[];
  }

  async transactionEntries(id: string, limit: number): Promise<LogRow[]> {
    return this.stmts.txRows.all(id, limit) as LogRow[];
  }

  async expireDue(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]> {
    const due = () => (this.stmts.due.all(now) as Row[]).map(toRecord);
    return (await this.atomically(
      (txs) => txs.map(entryFor),
      () => due().filter((tx) => this.stmts.expire.run(now, EXPIRED_PREVIEW, EXPIRED_RECEIPT, tx.id, now).changes === 1),
    )).map((t) => t.id);
  }

  async expire(id: string, now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<TxRecord | null> {
    return this.atomically(
      (tx) => (tx ? [entryFor(tx)] : []),
      () => {
        const r = this.stmts.getTx.get(id) as Row | undefined;
        return r && this.stmts.expire.run(now, EXPIRED_PREVIEW, EXPIRED_RECEIPT, id, now).changes === 1 ? toRecord(r) : null;
      },
    );
  }

  async reconcileInterrupted(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]> {
    const result = JSON.stringify({ state: 'Failed', summary: 'interrupted: the daemon stopped while this ran; its effect is unknown' });
    return (await this.atomically(
      (txs) => txs.map(entryFor),
      () => (this.stmts.running.all() as Row[]).map(toRecord).filter((tx) => this.stmts.fail.run(result, now, tx.id).changes === 1),
    )).map((t) => t.id);
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
    const done = await this.atomically(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      () => {
        const due = this.stmts.dueForCompaction.all(cutoffMs, limit) as Array<Row & { consumed_at: number | null }>;
        return due
          .filter((r) => this.stmts.compactDelete.run(r.id).changes === 1)
          .map((r) => {
            const { id, action_name, request_hash, risk, state, requester_uid, requester_name, requester_role, requester_person_uid, preview_digest, summary, created_at, updated_at, expires_at, approved_by, consumed_at } = r;
            this.stmts.compactInsert.run({ id, action_name, request_hash, risk, state, requester_uid, requester_name, requester_role, requester_person_uid, preview_digest, summary, created_at, updated_at, expires_at, approved_by, consumed_at, result_json: compactedResult(r.state, r.result_json), compacted_at: now });
            return id;
          });
      },
    );
    return done.length;
  }

  async pruneHistory(cutoffMs: number, limit: number, now: number, entryFor: (count: number, idsSha256: string) => EntryDraft): Promise<number> {
    const done = await this.atomically(
      (ids) => (ids.length ? [entryFor(ids.length, idsDigest(ids))] : []),
      () => {
        this.stmts.pruneRuleUse.run(now - RULE_USE_KEEP_MS, limit);
        return (this.stmts.dueForPruning.all(cutoffMs, limit) as string[]).filter((id) => this.stmts.prune.run(id).changes === 1);
      },
    );
    return done.length;
  }

  async appendEntries(entries: EntryDraft[], spend?: SpentStep): Promise<'appended' | 'step_spent'> {
    try {
      return await this.atomically(
        () => entries,
        () => {
          if (spend && this.stmts.spendStep.run(spend.step, spend.approver, spend.step).changes !== 1) throw STEP_SPENT;
          return 'appended' as const;
        },
      );
    } catch (e) {
      if (e === STEP_SPENT) return 'step_spent';
      throw e;
    }
  }

  logHead(): LogHead {
    return this.head;
  }

  logBase(): LogBase {
    return this.base;
  }

  async archiveSegment(upTo: number, treeHead: string, entry: EntryDraft): Promise<LogBase> {
    const base = await this.atomically(
      () => [entry],
      (): LogBase => {
        if (!Number.isSafeInteger(upTo) || upTo <= this.base.seq || upTo > this.head.size) throw archiveRange(upTo, this.base, this.head.size);
        const hash = this.db.prepare(`SELECT ${hexColumn('hash')} FROM audit_log WHERE seq = ?`).pluck().get(upTo) as string | undefined;
        if (hash === undefined) throw new AirlockError('integrity', 'archive_entry_missing', `entry ${upTo} is not in the store`);
        this.db.prepare('DELETE FROM audit_log WHERE seq <= ?').run(upTo);
        const frontier = pruneArchivedNodes(this.db, upTo).map((h) => h.toString('hex'));
        const next: LogBase = { seq: upTo, hash, frontier, tree_head: treeHead };
        this.stmts.putMeta.run(LOG_BASE_KEY, JSON.stringify(next));
        return next;
      },
    );
    this.base = base;
    return base;
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
    while (this.pending.length > 0) this.commitBatch();
    this.db.close();
  }
}
