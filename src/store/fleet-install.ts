/**
 * `airlock install --store postgres://OWNER@db/NAME`: this host's part of a fleet database
 * (postgres-roles.ts). Store code, so the CLI never loads it: install runs it through the
 * privileged entry point (`airlock daemon --provision-store URL`, daemon/entry.ts). Connecting as the tables' owner, it creates the tables, the
 * row-level security policies, and a role of this host's own bound to its log (the audit key's
 * id when the daemon already made the key for a log in the database; otherwise, and when this
 * host's log is in SQLite, which the daemon refuses to continue in the database, the role binds
 * itself to the log its daemon opens first). With --print-sql it changes nothing and prints the
 * script for a DBA instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isPostgresUrl, describeUrl } from '../audit/pg-url.js';
import { keyIdOf, parsePublicKey } from '../audit/keys.js';
import { DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { fleetSql, provisionFleet } from './postgres-roles.js';

export interface StoreInstallOptions {
  store: string;
  storeRole?: string;
  auditorRole?: string;
}

/** airlock_ and the host name, as a plain lower-case identifier. */
export function defaultRole(host = hostname()): string {
  return `airlock_${host.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

const files = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);
/** A log in SQLite here: the daemon will not continue it in the database under the same key (daemon/entry.ts). */
const sqliteLog = () => existsSync(files.db);

/** This host's log id when its daemon has made the audit key for a log in the database; null before, or while its log is in SQLite. */
function localLogId(): string | null {
  return existsSync(files.publicKey) && !sqliteLog() ? keyIdOf(parsePublicKey(readFileSync(files.publicKey, 'utf8'))) : null;
}

function plan(o: StoreInstallOptions) {
  if (!isPostgresUrl(o.store)) throw new AirlockError('validation', 'bad_store', '--store takes a PostgreSQL URL: postgres://owner@host:port/database');
  const role = o.storeRole ?? defaultRole();
  const logId = localLogId();
  return { role, logId, sql: fleetSql({ host: { role, logId }, ...(o.auditorRole ? { auditor: o.auditorRole } : {}) }) };
}

/** The script a DBA runs as the tables' owner. */
export function storeSql(o: StoreInstallOptions): string {
  return plan(o).sql;
}

/** Runs the script on the database; returns what was done, for install's list. */
export async function installStore(o: StoreInstallOptions): Promise<string[]> {
  const p = plan(o);
  await provisionFleet(o.store, { host: { role: p.role, logId: p.logId }, ...(o.auditorRole ? { auditor: o.auditorRole } : {}) });
  const url = new URL(o.store);
  url.username = p.role;
  url.password = '';
  return [
    `database ${describeUrl(o.store)}: tables, row-level security, and the role ${p.role} for ${p.logId ? `the log ${p.logId}` : 'the log its daemon opens first'}${o.auditorRole ? `; the read-only auditor role ${o.auditorRole}` : ''}`,
    ...(sqliteLog() ? [`this host's log is in ${files.db}: before the daemon starts with --store, set it aside with its audit key (the daemon's refusal prints the commands); the role takes the new log`] : []),
    `set how ${p.role} logs in (a password or a client certificate), then run the daemon with --store ${url.toString()}`,
  ];
}
