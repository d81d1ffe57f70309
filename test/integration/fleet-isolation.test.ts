/**
 * Issue 22, finding 3: one fleet database, and no host can touch another's decisions. Attacks
 * against the real PostgreSQL server: host A's daemon connection (its own role) goes after host
 * B's factor and finished transaction; a superuser (a DBA, who bypasses row-level security)
 * edits B's rows directly; and the lifecycle check of `audit verify` names the rule a log breaks.
 */
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEntry } from '../../src/audit/entry.js';
import { formatPublicKey, signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { airlock } from '../support/cli.js';
import { FLEET_TABLES, provisionFleet } from '../../src/store/postgres-roles.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres.js';
import type { Sealer } from '../../src/store/store.js';
import { draft, txRecord } from '../support/store-contract.js';
import { TEST_ROW_KEY, testSchema, type TestSchema } from '../support/pg-schema.js';
import { provisionHost, provisionAuditor, dropRoles, roleUrl } from '../support/pg-roles.js';

const sealWith = (key: SigningKey): Sealer => (d, seq, prev) => sealEntry(key, d, seq, prev);
const now = 1_800_000_000_000;

describe('fleet isolation on a shared PostgreSQL database', () => {
  let schema: TestSchema;
  const keyA = signingKeyFromSeed(randomBytes(32));
  const keyB = signingKeyFromSeed(randomBytes(32));
  const suffix = randomBytes(4).toString('hex');
  const roleA = `airlock_host_a_${suffix}`;
  const roleB = `airlock_host_b_${suffix}`;
  const auditor = `airlock_audit_${suffix}`;
  let a: PostgresStore;
  let b: PostgresStore;
  let asA: pg.Client;
  let asAuditor: pg.Client;

  before(async () => {
    schema = await testSchema();
    await provisionHost(schema, roleA, keyA.keyId);
    await provisionHost(schema, roleB, keyB.keyId);
    await provisionAuditor(schema, auditor);
    a = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: roleUrl(schema, roleA), logId: keyA.keyId, origin: `a/airlock/${keyA.keyId}`, seal: sealWith(keyA) });
    b = await openPostgresStore({ rowKey: TEST_ROW_KEY, url: roleUrl(schema, roleB), logId: keyB.keyId, origin: `b/airlock/${keyB.keyId}`, seal: sealWith(keyB) });
    asA = new pg.Client({ connectionString: roleUrl(schema, roleA) });
    await asA.connect();
    asAuditor = new pg.Client({ connectionString: roleUrl(schema, auditor) });
    await asAuditor.connect();
    // B: a confirmed factor for alice, and a transaction approved, executed and finished.
    await b.issueTotp('alice', 'sealed-alice', now, now + 60_000, undefined, draft('totp_issued'));
    assert.equal(await b.confirmTotp('alice', 'sealed-alice', 100, now, draft('totp_enrolled', null, { approver: 'alice', replaced: false })), true);
    await b.createTransaction(txRecord('done', now), draft('preview', 'done'));
    assert.equal(await b.recordApproval('done', { approvedBy: 'alice', commitment: 'c-done', expiresAt: now + 60_000, now }, draft('approval_granted', 'done')), 'approved');
    assert.equal(await b.consumeReceipt('done', 'c-done', now + 1, [draft('approval_consumed', 'done'), draft('execution_started', 'done')]), 'consumed');
    await b.finish('done', 'Succeeded', { state: 'Succeeded' }, now + 2, draft('outcome', 'done'));
  });
  after(async () => {
    await asA?.end();
    await asAuditor?.end();
    await a?.close();
    await b?.close();
    await schema.drop();
    await dropRoles([roleA, roleB, auditor]);
  });

  test("host A's role cannot delete host B's factor row nor set B's finished transaction back to Queued", async () => {
    const del = await asA.query('DELETE FROM totp WHERE log_id = $1', [keyB.keyId]).catch((e: Error) => e);
    const upd = await asA.query("UPDATE transactions SET state = 'Queued', consumed_at = NULL WHERE log_id = $1", [keyB.keyId]).catch((e: Error) => e);
    const peek = await asA.query('SELECT * FROM transactions WHERE log_id = $1', [keyB.keyId]).catch((e: Error) => e);
    // Nothing of B's changed, whatever form A's refusal took (no row visible, or an error).
    assert.ok(del instanceof Error || del.rowCount === 0, 'A deleted B\'s factor');
    assert.ok(upd instanceof Error || upd.rowCount === 0, 'A updated B\'s transaction');
    assert.ok(peek instanceof Error || peek.rowCount === 0, 'A read B\'s transactions');
    assert.equal((await b.totp('alice'))?.sealedSecret, 'sealed-alice');
    assert.equal((await b.getTransaction('done'))?.state, 'Succeeded');
    assert.equal(await b.consumeReceipt('done', 'c-done', now + 3, [draft('approval_consumed', 'done')]), 'already_consumed');
    // A inserting a row under B's log id is refused too.
    const forged = await asA.query('INSERT INTO rule_use (log_id, rule_id, at) VALUES ($1, $2, $3)', [keyB.keyId, 'r', now]).catch((e: Error) => e);
    assert.ok(forged instanceof Error, 'A wrote a row into B\'s log');
    // A's own rows still work through its own store.
    await a.createTransaction(txRecord('mine', now), draft('preview', 'mine'));
    assert.equal((await a.getTransaction('mine'))?.state, 'Previewed');
  });

  test('the auditor role reads every host and writes nothing', async () => {
    const seen = await asAuditor.query<{ log_id: string }>('SELECT DISTINCT log_id FROM audit_log ORDER BY log_id');
    assert.deepEqual(seen.rows.map((r) => r.log_id), [keyA.keyId, keyB.keyId].sort());
    const w = await asAuditor.query('DELETE FROM totp').catch((e: Error) => e);
    assert.ok(w instanceof Error && /permission denied/.test(w.message), String(w));
  });

  test("a superuser's edit of B's finished transaction back to Queued: B's store fails closed and nothing executes twice", async () => {
    await b.createTransaction(txRecord('twice', now), draft('preview', 'twice'));
    assert.equal(await b.recordApproval('twice', { approvedBy: 'alice', commitment: 'c-twice', expiresAt: now + 60_000, now }, draft('approval_granted', 'twice')), 'approved');
    assert.equal(await b.consumeReceipt('twice', 'c-twice', now + 1, [draft('approval_consumed', 'twice')]), 'consumed');
    await b.finish('twice', 'Succeeded', { state: 'Succeeded' }, now + 2, draft('outcome', 'twice'));
    await schema.admin.query("UPDATE transactions SET state = 'Queued', consumed_at = NULL WHERE log_id = $1 AND id = 'twice'", [keyB.keyId]);
    const again = await b.consumeReceipt('twice', 'c-twice', now + 3, [draft('approval_consumed', 'twice')]).catch((e: Error) => e);
    assert.ok(again instanceof Error && (again as Error & { code?: string }).code === 'row_mac', `the receipt was consumed again: ${String(again)}`);
    await assert.rejects(b.getTransaction('twice'), (e: Error & { code?: string }) => e.code === 'row_mac');
    // The store's own check names the row too, without waiting for a read.
    const found = await b.integrityCheck(10);
    assert.ok(found.some((l) => /the transactions row "twice" of log .* does not carry this host's MAC/.test(l)), found.join('\n'));
  });

  test("a superuser's edit of B's factor (its last spent step set back): B's store refuses the factor", async () => {
    await schema.admin.query("UPDATE totp SET last_step = 0 WHERE log_id = $1 AND approver = 'alice'", [keyB.keyId]);
    await assert.rejects(b.totp('alice'), (e: Error & { code?: string }) => e.code === 'row_mac');
    await b.createTransaction(txRecord('replay', now), draft('preview', 'replay'));
    await assert.rejects(
      b.recordApproval('replay', { approvedBy: 'alice', commitment: 'c', expiresAt: now + 60_000, now, spend: { approver: 'alice', step: 50 } }, draft('approval_granted', 'replay')),
      (e: Error & { code?: string }) => e.code === 'row_mac',
    );
    assert.equal((await schema.admin.query("SELECT state FROM transactions WHERE log_id = $1 AND id = 'replay'", [keyB.keyId])).rows[0].state, 'Previewed');
  });

  test("a superuser's pending enrolment for B, planted as proven and waiting (their own secret): B's store refuses it, so no approver can make it a factor", async () => {
    await schema.admin.query('INSERT INTO totp_pending (log_id, approver, secret, issued_at, expires_at, confirmed_step) VALUES ($1, $2, $3, $4, $5, $6)', [keyB.keyId, 'mallory', 'sealed-dba', now, now + 3_600_000, 9]);
    await assert.rejects(b.pendingTotp('mallory'), (e: Error & { code?: string }) => e.code === 'row_mac');
    await assert.rejects(b.approveTotp([{ approver: 'mallory', sealedSecret: 'sealed-dba', entry: draft('totp_enrolled') }], now, { approver: 'bob', step: 1 }), (e: Error & { code?: string }) => e.code === 'row_mac');
    // A wrong code counted against it does not launder it with this host's MAC either.
    await assert.rejects(b.recordPendingTotpFailure('mallory', 5), (e: Error & { code?: string }) => e.code === 'row_mac');
    assert.equal((await schema.admin.query("SELECT count(*)::int AS n FROM totp WHERE log_id = $1 AND approver = 'mallory'", [keyB.keyId])).rows[0].n, 0);
  });

  test("a superuser's deletion of B's factor: the agent's enrolment over it is found by audit verify (as the auditor role), naming enrolment_after_reset", async () => {
    await schema.admin.query("DELETE FROM totp WHERE log_id = $1 AND approver = 'alice'", [keyB.keyId]);
    // What the daemon's enrolment does (src/daemon/totp-enrolment.ts): it finds no factor, so none is replaced.
    const replaced = (await b.totp('alice')) !== null;
    await b.issueTotp('alice', 'sealed-agent', now, now + 60_000, undefined, draft('totp_issued', null, { approver: 'alice', replaces: 'none' }));
    assert.equal(await b.confirmTotp('alice', 'sealed-agent', 200, now, draft('totp_enrolled', null, { approver: 'alice', replaced })), true);
    const enrolledAt = b.logHead().size;
    const dir = mkdtempSync(join(tmpdir(), 'airlock-fleet-'));
    try {
      writeFileSync(join(dir, 'keys.pub'), formatPublicKey(keyB.publicRaw));
      writeFileSync(join(dir, 'checkpoints'), '');
      const v = await airlock(['audit', 'verify', '--db', roleUrl(schema, auditor), '--pubkey', join(dir, 'keys.pub'), '--checkpoints', join(dir, 'checkpoints'), '--json']);
      const report = JSON.parse(v.stdout);
      const host = report.hosts.find((h: { log_id?: string; report?: { first_broken?: unknown } }) => JSON.stringify(h).includes(keyB.keyId));
      assert.ok(host, v.stdout);
      assert.equal(host.report.status, 'broken', v.stdout);
      assert.deepEqual([host.report.first_broken.seq, host.report.first_broken.rule], [enrolledAt, 'enrolment_after_reset']);
      assert.notEqual(v.code, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a superuser's copy of B's earlier Queued row back over the finished one (its MAC was valid): the receipt still runs once", async () => {
    await b.createTransaction(txRecord('copied', now), draft('preview', 'copied'));
    assert.equal(await b.recordApproval('copied', { approvedBy: 'alice', commitment: 'c-copied', expiresAt: now + 60_000, now }, draft('approval_granted', 'copied')), 'approved');
    const saved = (await schema.admin.query("SELECT * FROM transactions WHERE log_id = $1 AND id = 'copied'", [keyB.keyId])).rows[0];
    assert.equal(await b.consumeReceipt('copied', 'c-copied', now + 1, [draft('approval_consumed', 'copied')]), 'consumed');
    await b.finish('copied', 'Succeeded', { state: 'Succeeded' }, now + 2, draft('outcome', 'copied'));
    await schema.admin.query('UPDATE transactions SET state = $1, consumed_at = $2, result_json = $3, updated_at = $4, mac = $5 WHERE log_id = $6 AND id = $7', [saved.state, saved.consumed_at, saved.result_json, saved.updated_at, saved.mac, keyB.keyId, 'copied']);
    assert.equal((await b.getTransaction('copied'))?.state, 'Queued', 'the copied row carries a valid MAC');
    assert.equal(await b.consumeReceipt('copied', 'c-copied', now + 3, [draft('approval_consumed', 'copied')]), 'already_consumed');
  });

  test("a host role claims no log id but a key id: not the fleet-wide '*' rows, nothing else", async () => {
    const late = `airlock_host_star_${suffix}`;
    try {
      await provisionFleet(schema.url, { host: { role: late, logId: null } });
      const asLate = new pg.Client({ connectionString: roleUrl(schema, late) });
      await asLate.connect();
      try {
        for (const claim of ['*', 'not-a-key-id']) {
          const r = await asLate.query('INSERT INTO fleet_roles (role_name, log_id) VALUES (current_user, $1)', [claim]).catch((e: Error) => e);
          assert.ok(r instanceof Error, `the role claimed the log id ${claim}`);
        }
      } finally {
        await asLate.end();
      }
    } finally {
      await schema.admin.query('DELETE FROM fleet_roles WHERE role_name = $1', [late]);
      await dropRoles([late]);
    }
  });

  test('a role made before its host had a key binds itself to the first log its daemon opens, for good; no role takes a bound log', async () => {
    const late = `airlock_host_late_${suffix}`;
    const keyC = signingKeyFromSeed(randomBytes(32));
    try {
      await provisionFleet(schema.url, { host: { role: late, logId: null } });
      const open = (logId: string) => openPostgresStore({ rowKey: TEST_ROW_KEY, url: roleUrl(schema, late), logId, origin: `c/airlock/${logId}`, seal: sealWith(keyC) });
      await assert.rejects(open(keyB.keyId), (e: Error & { code?: string }) => e.code === 'role_log');
      const c = await open(keyC.keyId);
      await c.close();
      const other = signingKeyFromSeed(randomBytes(32));
      await assert.rejects(open(other.keyId), (e: Error & { code?: string }) => e.code === 'role_log' && e.message.includes(keyC.keyId));
      const moved = await asA.query('UPDATE fleet_roles SET log_id = $1 WHERE role_name = $2', [keyB.keyId, roleA]).catch((e: Error) => e);
      assert.ok(moved instanceof Error, 'a host role rebound itself');
    } finally {
      await schema.admin.query('DELETE FROM fleet_roles WHERE role_name = $1', [late]);
      await dropRoles([late]);
    }
  });

  test('`airlock install --store URL --print-sql` prints the script a DBA runs: it makes the host role, the auditor role and the policies', async () => {
    const host = `airlock_host_sql_${suffix}`;
    const aud = `airlock_audit_sql_${suffix}`;
    try {
      const r = await airlock(['install', '--store', schema.url, '--store-role', host, '--auditor-role', aud, '--print-sql']);
      assert.equal(r.code, 0, r.stderr);
      await schema.admin.query(r.stdout);
      const roles = await schema.admin.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname', [[host, aud]]);
      assert.deepEqual(roles.rows.map((x) => x.rolname), [aud, host].sort());
      const policies = await schema.admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_policies WHERE schemaname = $1 AND policyname = 'airlock_host'", [schema.name]);
      assert.equal(policies.rows[0]!.n, FLEET_TABLES.length); // one policy per table of the store, whichever tables it has
      const bad = await airlock(['install', '--store', schema.url, '--store-role', 'Robert"); DROP', '--print-sql']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /a database role name is lower-case letters/);
    } finally {
      await schema.admin.query('DELETE FROM fleet_roles WHERE role_name = ANY($1)', [[host, aud]]);
      await dropRoles([host, aud]);
    }
  });

  test("a superuser's edit of B's rule use (moved back a day to lift its cap and cooldown): B's store refuses the rule's approvals", async () => {
    const rule = { id: 'nightly', dailyCap: 1, cooldownMs: 60_000 };
    await b.createTransaction(txRecord('r1', now), draft('preview', 'r1'));
    await b.createTransaction(txRecord('r2', now), draft('preview', 'r2'));
    const grant = (id: string) => b.recordApproval(id, { approvedBy: 'policy:nightly', commitment: `c-${id}`, expiresAt: now + 60_000, now, rule }, draft('approval_granted', id));
    assert.equal(await grant('r1'), 'approved');
    assert.equal(await grant('r2'), 'rule_exhausted');
    await schema.admin.query("UPDATE rule_use SET at = at - 86400000 * 2 WHERE log_id = $1 AND rule_id = 'nightly'", [keyB.keyId]);
    await assert.rejects(grant('r2'), (e: Error & { code?: string }) => e.code === 'row_mac');
    await assert.rejects(b.ruleUsage('nightly', now), (e: Error & { code?: string }) => e.code === 'row_mac');
  });

  test('a superuser deleting the MAC of a row does not make it trusted', async () => {
    await b.createTransaction(txRecord('bare', now), draft('preview', 'bare'));
    await schema.admin.query("UPDATE transactions SET mac = NULL WHERE log_id = $1 AND id = 'bare'", [keyB.keyId]).catch(() => {});
    await assert.rejects(b.getTransaction('bare'), (e: Error & { code?: string }) => e.code === 'row_mac');
  });

  test("rows without a MAC are adopted once, when a log first runs with MACs: a host that lost its row key adopts no forged row later", async () => {
    await b.createTransaction(txRecord('forged', now), draft('preview', 'forged'));
    await schema.admin.query("UPDATE transactions SET state = 'Queued', mac = NULL WHERE log_id = $1 AND id = 'forged'", [keyB.keyId]);
    // B's state directory lost row.key: the daemon makes a new one and opens the store with adoptRows.
    const again = await openPostgresStore({ rowKey: TEST_ROW_KEY, adoptRows: true, url: roleUrl(schema, roleB), logId: keyB.keyId, origin: `b/airlock/${keyB.keyId}`, seal: sealWith(keyB) });
    try {
      await assert.rejects(again.getTransaction('forged'), (e: Error & { code?: string }) => e.code === 'row_mac');
    } finally {
      await again.close();
    }
  });
});

