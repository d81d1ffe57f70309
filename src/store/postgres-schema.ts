/**
 * The PostgreSQL store's tables. Many logs (one per host's daemon) share one database, so
 * every table carries `log_id` and every query names it. The tables are created in the
 * first schema of the connection's search_path (a test gives its own schema through the
 * URL's `options=-c search_path=...`).
 */
import type { PoolClient } from 'pg';
import { AirlockError } from '../protocol/errors.js';

export const SCHEMA_VERSION = '1';

/**
 * Any fixed number shared by every daemon: two daemons starting at once take this advisory
 * lock around CREATE TABLE IF NOT EXISTS, which is not safe under concurrency on its own
 * (both can see the table missing and the second then fails on the catalog's unique index).
 */
export const SCHEMA_LOCK = 0x4169726c6f636b; // "Airlock"

export const TABLES = `
CREATE TABLE IF NOT EXISTS logs (
  log_id TEXT PRIMARY KEY,
  origin TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  log_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (log_id, key)
);
CREATE TABLE IF NOT EXISTS rule_use (log_id TEXT NOT NULL REFERENCES logs(log_id), rule_id TEXT NOT NULL, at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS rule_use_at ON rule_use(log_id, rule_id, at);
-- secret: sealed under the daemon's totp.key (src/daemon/totp-seal.ts) once meta totp_secrets = 'sealed-v1'.
CREATE TABLE IF NOT EXISTS totp (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  approver TEXT NOT NULL,
  secret TEXT NOT NULL,
  enrolled_at BIGINT NOT NULL,
  last_step BIGINT NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  locked_until BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (log_id, approver)
);
CREATE TABLE IF NOT EXISTS totp_pending (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  approver TEXT NOT NULL,
  secret TEXT NOT NULL,
  issued_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (log_id, approver)
);
CREATE TABLE IF NOT EXISTS transactions (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  id TEXT NOT NULL,
  -- SQLite's rowid: the insertion order that breaks ties in history().
  ord BIGINT GENERATED ALWAYS AS IDENTITY,
  action_name TEXT NOT NULL,
  params_json TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  risk TEXT NOT NULL,
  state TEXT NOT NULL,
  requester_uid BIGINT NOT NULL,
  requester_name TEXT NOT NULL,
  requester_role TEXT NOT NULL,
  requester_person_uid BIGINT,
  preview_json TEXT NOT NULL,
  preview_digest TEXT NOT NULL,
  summary TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  approved_by TEXT,
  receipt_commitment TEXT,
  consumed_at BIGINT,
  result_json TEXT,
  -- When its details were compacted (src/store/compaction.ts); a store from before retention gets the column from MIGRATIONS.
  compacted_at BIGINT,
  PRIMARY KEY (log_id, id)
);
CREATE INDEX IF NOT EXISTS tx_state_expiry ON transactions(log_id, state, expires_at);
CREATE INDEX IF NOT EXISTS tx_created ON transactions(log_id, created_at);
CREATE TABLE IF NOT EXISTS audit_log (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  seq BIGINT NOT NULL CHECK (seq >= 1),
  body TEXT NOT NULL,
  sig TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (log_id, seq)
);
-- audit prove: a transaction's entries without a pass over the whole log (bodies are canonical JSON).
CREATE INDEX IF NOT EXISTS audit_log_tx ON audit_log (log_id, ((body::jsonb) ->> 'transaction_id'));
-- The log's Merkle tree: the hash of every complete subtree (src/audit/merkle.ts), written with the entries.
CREATE TABLE IF NOT EXISTS merkle_nodes (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  level INTEGER NOT NULL CHECK (level >= 0 AND level < 64),
  idx BIGINT NOT NULL CHECK (idx >= 0),
  hash BYTEA NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (log_id, level, idx)
);
`;

/** Columns and indexes added after schema 1 shipped, for a database created before them (each idempotent). */
export const MIGRATIONS = `
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS compacted_at BIGINT;
CREATE INDEX IF NOT EXISTS tx_to_compact ON transactions(log_id, updated_at) WHERE compacted_at IS NULL;
CREATE INDEX IF NOT EXISTS tx_compacted ON transactions(log_id, updated_at) WHERE compacted_at IS NOT NULL;
-- The host's MAC over the row (src/store/row-mac.ts): what the daemon trusts for a decision.
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS mac TEXT;
ALTER TABLE totp ADD COLUMN IF NOT EXISTS mac TEXT;
ALTER TABLE rule_use ADD COLUMN IF NOT EXISTS mac TEXT;
-- Approved enrolments (src/daemon/totp-enrolment.ts): a proven first enrolment waits for another approver.
ALTER TABLE totp_pending ADD COLUMN IF NOT EXISTS confirmed_step BIGINT;
ALTER TABLE totp_pending ADD COLUMN IF NOT EXISTS mac TEXT;
-- Passkeys (store.ts PasskeyRecord): public keys (COSE, base64url), each row with the host's MAC.
CREATE TABLE IF NOT EXISTS passkeys (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  credential_id TEXT NOT NULL,
  approver TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter BIGINT NOT NULL,
  transports TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,
  mac TEXT,
  PRIMARY KEY (log_id, credential_id)
);
CREATE INDEX IF NOT EXISTS passkeys_of ON passkeys(log_id, approver, created_at);
-- Approvals before the last where more than one person must approve (co-approval.ts), each row with the host's MAC.
CREATE TABLE IF NOT EXISTS co_approvals (
  log_id TEXT NOT NULL REFERENCES logs(log_id),
  tx_id TEXT NOT NULL,
  approver TEXT NOT NULL,
  principal TEXT NOT NULL,
  preview_digest TEXT NOT NULL,
  at BIGINT NOT NULL,
  mac TEXT,
  PRIMARY KEY (log_id, tx_id, approver)
);
`;

/** The database-wide meta row (schema version) uses this log id, which no key id can be (16 hex digits). */
export const GLOBAL_LOG = '*';

/** Whether this connection's role is a fleet host's (the tables exist, with fleet_roles, and it does not own them). */
async function isHostRole(client: PoolClient): Promise<boolean> {
  const r = await client.query<{ host: boolean }>(
    `SELECT to_regclass('fleet_roles') IS NOT NULL AND NOT pg_has_role(current_user, c.relowner, 'MEMBER') AS host
      FROM pg_class c WHERE c.oid = to_regclass('audit_log')`,
  );
  return r.rows[0]?.host === true;
}

/** A host role's one log: the one provisioning named, or (first start) this one, claimed now for good. */
async function bindRole(client: PoolClient, logId: string): Promise<void> {
  const bound = (await client.query<{ log_id: string | null }>('SELECT log_id FROM fleet_roles WHERE role_name = current_user')).rows[0];
  if (bound === undefined) {
    const claimed = await client.query("INSERT INTO fleet_roles (role_name, log_id) SELECT current_user, $1 WHERE NOT EXISTS (SELECT 1 FROM fleet_roles WHERE log_id = $1)", [logId]);
    if (claimed.rowCount === 1) return;
  } else if (bound.log_id === logId) return;
  throw new AirlockError('integrity', 'role_log', `this database role may not write the log ${logId}: ${bound ? `it belongs to the log ${bound.log_id}` : 'another role holds it'}`, 'give each host its own role: `airlock install --store URL` creates one');
}

/**
 * Creates the tables when missing, checks the schema version, and registers this log (or
 * checks that the row already there names the same origin: a second daemon claiming the
 * log of another host's key is refused, not merged into it).
 */
export async function ensureSchema(client: PoolClient, logId: string, origin: string, now: number): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    // A fleet database (postgres-roles.ts): the owner made the tables, and a host's role may touch one log.
    if (await isHostRole(client)) await bindRole(client, logId);
    else {
      await client.query(TABLES);
      await client.query(MIGRATIONS);
    }
    const v = await client.query<{ value: string }>('SELECT value FROM meta WHERE log_id = $1 AND key = $2', [GLOBAL_LOG, 'schema_version']);
    if (v.rows.length === 0) await client.query('INSERT INTO meta (log_id, key, value) VALUES ($1, $2, $3)', [GLOBAL_LOG, 'schema_version', SCHEMA_VERSION]);
    else if (v.rows[0]!.value !== SCHEMA_VERSION) throw new AirlockError('integrity', 'schema_version', `database schema ${v.rows[0]!.value} is not the supported ${SCHEMA_VERSION}`);
    await client.query('INSERT INTO logs (log_id, origin, created_at) VALUES ($1, $2, $3) ON CONFLICT (log_id) DO NOTHING', [logId, origin, now]);
    const row = await client.query<{ origin: string }>('SELECT origin FROM logs WHERE log_id = $1', [logId]);
    if (row.rows[0]?.origin !== origin) {
      throw new AirlockError('integrity', 'log_origin', `the log ${logId} in this database belongs to ${JSON.stringify(row.rows[0]?.origin)}, not to ${origin}`, 'give each host its own audit key: a log id is its key id');
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
