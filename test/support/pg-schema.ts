/**
 * A PostgreSQL schema of its own for one test file (the server on 127.0.0.1:5432, database
 * `test`, trust authentication), so test files running at once never see each other's rows.
 * The URL picks the schema through the connection's search_path and names its connections
 * (application_name) so a test can find and terminate exactly this schema's backends.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_BASE = process.env.AIRLOCK_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  name: string;
  /** A URL whose connections use this schema. */
  url: string;
  /** A plain connection for the test's own queries (search_path set to the schema). */
  admin: pg.Client;
  drop(): Promise<void>;
}

export async function testSchema(): Promise<TestSchema> {
  const name = `airlock_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_BASE, options: `-c search_path=${name}` });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  const url = `${PG_BASE}?options=${encodeURIComponent(`-c search_path=${name}`)}&application_name=${name}`;
  return {
    name,
    url,
    admin,
    drop: async () => {
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}

/** Terminates every server connection opened through this schema's URL; returns how many. */
export async function terminateBackends(s: TestSchema): Promise<number> {
  const r = await s.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [s.name]);
  return r.rowCount ?? 0;
}

/** One row MAC key (src/store/row-mac.ts) for every store a test process opens: a reopened store must find its rows sealed. */
export const TEST_ROW_KEY = randomBytes(32);
