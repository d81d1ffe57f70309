/**
 * One database for a fleet, and no host can touch another's rows: each host's daemon connects
 * as a database role of its own, and row-level security on every table limits that role to its
 * own log id (fleet_roles maps role to log). An auditor role reads every log and writes
 * nothing. The tables' owner (the DBA, or `airlock install --store`) runs this SQL; a superuser
 * or the owner still bypasses it, which is what the row MACs (row-mac.ts) and the lifecycle
 * check of `airlock audit verify` are for.
 *
 * The policies' subquery is bound to fleet_roles when the policy is created (PostgreSQL stores
 * it parsed, by object id), so a host cannot shadow it with a table of its own on its search_path.
 */
import pg from 'pg';
import { AirlockError } from '../protocol/errors.js';
import { GLOBAL_LOG, MIGRATIONS, SCHEMA_LOCK, SCHEMA_VERSION, TABLES } from './postgres-schema.js';

/** Every table of the store (all carry log_id). */
export const FLEET_TABLES = ['logs', 'meta', 'rule_use', 'totp', 'totp_pending', 'passkeys', 'co_approvals', 'transactions', 'audit_log', 'merkle_nodes'] as const;
/** The signed log and its tree are appended and archived, never edited. */
const APPEND_ONLY = new Set(['audit_log', 'merkle_nodes']);
/** A role name inlined into SQL: plain lower-case identifiers only, never quoted text. */
const ROLE = /^[a-z_][a-z0-9_]{0,62}$/;
const LOG_ID = /^[0-9a-f]{16}$/;

const OWN_LOG = '(SELECT r.log_id FROM fleet_roles r WHERE r.role_name = current_user AND NOT r.auditor)';
const IS_AUDITOR = 'EXISTS (SELECT 1 FROM fleet_roles r WHERE r.role_name = current_user AND r.auditor)';

const POLICIES = `
CREATE TABLE IF NOT EXISTS fleet_roles (
  role_name TEXT PRIMARY KEY,
  -- The one log a host role may touch; NULL for an auditor.
  log_id TEXT UNIQUE,
  auditor BOOLEAN NOT NULL DEFAULT false,
  CHECK (auditor = (log_id IS NULL)),
  -- A log id is an audit key id: never '*' (the fleet-wide rows) nor anything else a role could claim.
  CHECK (log_id IS NULL OR log_id ~ '^[0-9a-f]{16}$')
);
${FLEET_TABLES.map(
  (t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS airlock_host ON ${t};
CREATE POLICY airlock_host ON ${t} USING (log_id = ${OWN_LOG}) WITH CHECK (log_id = ${OWN_LOG});
DROP POLICY IF EXISTS airlock_auditor ON ${t};
CREATE POLICY airlock_auditor ON ${t} FOR SELECT USING (${IS_AUDITOR});`,
).join('\n')}
-- The database-wide schema version (log id '*') is read by every daemon.
DROP POLICY IF EXISTS airlock_global ON meta;
CREATE POLICY airlock_global ON meta FOR SELECT USING (log_id = '*');
-- A host role made before its host had a key binds itself to one log at its daemon's first start
-- (postgres-schema.ts): it may insert its own row, once (role_name is the key), for a log no other
-- role holds (log_id is unique); it can never change nor delete it.
ALTER TABLE fleet_roles ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS airlock_read ON fleet_roles;
CREATE POLICY airlock_read ON fleet_roles FOR SELECT USING (true);
DROP POLICY IF EXISTS airlock_claim ON fleet_roles;
CREATE POLICY airlock_claim ON fleet_roles FOR INSERT WITH CHECK (role_name = current_user AND NOT auditor);
`;

function checkRole(role: string): void {
  if (!ROLE.test(role)) throw new AirlockError('validation', 'bad_role', `a database role name is lower-case letters, digits and _ (at most 63), not ${JSON.stringify(role.slice(0, 70))}`);
}

/** Creates the role when missing (LOGIN, no password: the DBA chooses how it authenticates). */
const createRole = (role: string) =>
  `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN; END IF; END $$;`;
const schemaUsage = (role: string) => `DO $$ BEGIN EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${role}', current_schema()); END $$;`;

/** A host's role, limited to its log: `logId` now, or (null) the one its daemon opens first. */
export function hostRoleSql(role: string, logId: string | null): string {
  checkRole(role);
  if (logId !== null && !LOG_ID.test(logId)) throw new AirlockError('validation', 'bad_log_id', `a log id is 16 hex digits (the host's audit key id), not ${JSON.stringify(logId.slice(0, 40))}`);
  return [
    createRole(role),
    schemaUsage(role),
    ...FLEET_TABLES.map((t) => `GRANT SELECT, INSERT, DELETE${APPEND_ONLY.has(t) ? '' : ', UPDATE'} ON ${t} TO ${role};`),
    `GRANT SELECT, INSERT ON fleet_roles TO ${role};`,
    ...(logId === null
      ? []
      : [
          `INSERT INTO fleet_roles (role_name, log_id) VALUES ('${role}', '${logId}') ON CONFLICT (role_name) DO NOTHING;`,
          // A role already bound to another log keeps it: one role, one log, never moved silently.
          `DO $$ BEGIN IF (SELECT log_id FROM fleet_roles WHERE role_name = '${role}') IS DISTINCT FROM '${logId}' THEN RAISE EXCEPTION 'role ${role} already belongs to another log'; END IF; END $$;`,
        ]),
  ].join('\n');
}

/** An auditor's role: reads every host's rows, writes none. */
export function auditorRoleSql(role: string): string {
  checkRole(role);
  return [
    createRole(role),
    schemaUsage(role),
    ...FLEET_TABLES.map((t) => `GRANT SELECT ON ${t} TO ${role};`),
    `GRANT SELECT ON fleet_roles TO ${role};`,
    `INSERT INTO fleet_roles (role_name, log_id, auditor) VALUES ('${role}', NULL, true) ON CONFLICT (role_name) DO NOTHING;`,
  ].join('\n');
}

/** The whole script for the tables' owner: tables, policies, then the roles asked for (idempotent). */
export function fleetSql(o: { host?: { role: string; logId: string | null }; auditor?: string }): string {
  const parts = ['BEGIN;', `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK});`, TABLES.trim(), MIGRATIONS.trim(), POLICIES.trim(),
    // Written by the owner here: a host role may not write the database-wide row.
    `INSERT INTO meta (log_id, key, value) VALUES ('${GLOBAL_LOG}', 'schema_version', '${SCHEMA_VERSION}') ON CONFLICT (log_id, key) DO NOTHING;`];
  if (o.host) parts.push(hostRoleSql(o.host.role, o.host.logId));
  if (o.auditor) parts.push(auditorRoleSql(o.auditor));
  parts.push('COMMIT;');
  return parts.join('\n') + '\n';
}

/** Runs fleetSql on `adminUrl` (the tables' owner), under the same lock daemons take to create tables. */
export async function provisionFleet(adminUrl: string, o: Parameters<typeof fleetSql>[0]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(fleetSql(o));
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
}
