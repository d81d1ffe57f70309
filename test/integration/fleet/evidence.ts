/**
 * The fleet's evidence, for real: each host's daemon keeps its store and signed log in the one
 * PostgreSQL database this machine runs (a schema of the run's own), from its first start, as a
 * database role of its own. As docs/audit.md has it for a fleet: the DBA runs the script
 * provisioning makes (a role per host, bound to the first log its daemon opens, and a read-only
 * auditor role); each host's admin points the unit at the database (a drop-in with `--store`)
 * before installing the package, whose daemon then starts on it. The hosts reach the database
 * through this machine's address on the fleet's bridge (a plain TCP forward to 127.0.0.1:5432,
 * where the server listens). At the end an auditor, with the auditor role and nothing but the
 * hosts' public keys and checkpoint files, verifies every host's log with
 * `airlock audit verify --db ... --all-hosts`: one report per host.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PACKAGE_LAYOUT, unitFile } from '../../../src/cli/installation.js';
import { provisionFleet } from '../../../src/store/postgres-roles.js';
import { airlock } from '../../support/cli.js';
import type { BeforePackage, Fleet } from '../../support/fleet.js';
import { dropRoles, roleUrl } from '../../support/pg-roles.js';
import { terminateBackends, testSchema, type TestSchema } from '../../support/pg-schema.js';

const PG_PORT = 5432;
const DROP_IN_DIR = '/etc/systemd/system/airlock.service.d';

export interface SharedStore {
  /** The run's schema, a role per host and the auditor role. */
  start(hosts: number): Promise<void>;
  /** On each host before the package: its unit's drop-in pointing the daemon at the database as its role. */
  beforePackage: BeforePackage;
  stop(): Promise<void>;
  /** The auditor's verification, registered last. */
  tests(f: () => Fleet): void;
}

export function sharedStore(): SharedStore {
  let schema: TestSchema | undefined;
  let forward: Server | undefined;
  const suffix = randomBytes(4).toString('hex');
  const roleOf = (i: number) => `airlock_fleet${i + 1}_${suffix}`;
  const auditor = `airlock_fleetaudit_${suffix}`;
  let roles: string[] = [];
  /** This run's schema as a host reaches it: through the bridge, as `role`. */
  const fromHost = (gateway: string, role: string) => roleUrl(schema!, role).replace(`@127.0.0.1:${PG_PORT}/`, `@${gateway}:${PG_PORT}/`);

  async function forwardFrom(gateway: string): Promise<void> {
    if (forward) return;
    forward = createServer((c) => {
      const db = createConnection(PG_PORT, '127.0.0.1');
      c.pipe(db).pipe(c);
      c.on('error', () => db.destroy());
      db.on('error', () => c.destroy());
    });
    await new Promise<void>((resolve, reject) => forward!.once('error', reject).listen(PG_PORT, gateway, resolve));
  }

  return {
    async start(hosts) {
      schema = await testSchema();
      roles = Array.from({ length: hosts }, (_, i) => roleOf(i));
      // What the DBA runs (`airlock install --store URL --store-role NAME --print-sql` prints it): no host has a key yet.
      for (const role of roles) await provisionFleet(schema.url, { host: { role, logId: null } });
      await provisionFleet(schema.url, { auditor });
    },

    async beforePackage({ index, box, gateway }) {
      await forwardFrom(gateway);
      // The package's own ExecStart with `--store URL` (a `%` is systemd's specifier: doubled).
      const exec = /^ExecStart=(.+ daemon)$/m.exec(unitFile(PACKAGE_LAYOUT))![1]!;
      writeFileSync(join(box.shared, 'store.conf'), `[Service]\nExecStart=\nExecStart=${exec} --store ${fromHost(gateway, roleOf(index)).replace(/%/g, '%%')}\n`, { mode: 0o600 });
      for (const argv of [
        ['/usr/bin/mkdir', '-p', DROP_IN_DIR],
        ['/usr/bin/install', '-m', '0600', join(box.shared, 'store.conf'), `${DROP_IN_DIR}/store.conf`],
      ]) {
        const r = await box.run(argv[0]!, argv.slice(1));
        assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      }
    },

    async stop() {
      forward?.close();
      if (!schema) return;
      await terminateBackends(schema);
      await schema.drop();
      await dropRoles([...roles, auditor]);
    },

    tests(f) {
      describe("the fleet's evidence: every host's log in the shared PostgreSQL, verified by an auditor", () => {
        test("audit verify --all-hosts, as the auditor role with the hosts' public keys and checkpoint files: each host intact", async () => {
          const dir = mkdtempSync(join(tmpdir(), 'airlock-fleet-evidence-'));
          try {
            const keys: string[] = [];
            const checkpoints: string[] = [];
            for (const h of f().hosts) {
              // Each host's public key as its admin hands it over, and what its syslog export would carry: its checkpoint file.
              const key = await h.box.readFile('/var/lib/airlock/audit.pub');
              assert.ok(key, `${h.name} has its audit.pub`);
              keys.push(key.trim());
              checkpoints.push((await h.box.readFile('/var/log/airlock/checkpoints.log')) ?? '');
            }
            writeFileSync(join(dir, 'fleet.pub'), `${keys.join('\n')}\n`);
            writeFileSync(join(dir, 'checkpoints.log'), checkpoints.join(''));
            const r = await airlock(['audit', 'verify', '--db', roleUrl(schema!, auditor), '--all-hosts', '--pubkey', join(dir, 'fleet.pub'), '--checkpoints', join(dir, 'checkpoints.log'), '--json']);
            assert.equal(r.code, 0, r.stdout + r.stderr);
            const report = JSON.parse(r.stdout) as { status: string; hosts: Array<{ origin: string; status: string; report: { entries: number } }> };
            assert.equal(report.status, 'intact');
            assert.deepEqual(report.hosts.map((x) => x.origin.split('/')[0]).sort(), f().hosts.map((h) => h.name));
            for (const x of report.hosts) {
              assert.equal(x.status, 'intact', JSON.stringify(x));
              assert.ok(x.report.entries > 10, `${x.origin} holds the fleet's work: ${x.report.entries} entries`);
            }
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });
      });
    },
  };
}
