/**
 * Database roles for fleet tests: a host role bound to one log, an auditor role, made by the
 * product's own provisioning (src/store/postgres-roles.ts) in a test's schema. Roles are
 * cluster-wide, so names carry a random suffix and are dropped after the test.
 */
import pg from 'pg';
import { provisionFleet } from '../../src/store/postgres-roles.js';
import { PG_BASE, type TestSchema } from './pg-schema.js';

export const provisionHost = (s: TestSchema, role: string, logId: string) => provisionFleet(s.url, { host: { role, logId } });
export const provisionAuditor = (s: TestSchema, role: string) => provisionFleet(s.url, { auditor: role });

/** The schema's URL, connecting as `role` (trust authentication on the test server). */
export const roleUrl = (s: TestSchema, role: string): string => s.url.replace(/^postgres:\/\/[^@/]*@/, `postgres://${role}@`);

/** Drops the roles (after their schema: nothing of theirs is left but grants elsewhere, which DROP OWNED removes). */
export async function dropRoles(roles: readonly string[]): Promise<void> {
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  try {
    for (const r of roles) {
      await c.query(`DROP OWNED BY ${r}`).catch(() => {});
      await c.query(`DROP ROLE IF EXISTS ${r}`);
    }
  } finally {
    await c.end();
  }
}
