/**
 * The real daemon on a PostgreSQL store (`airlock daemon --store postgres://...`): one
 * preview, approval and execution through the socket, every step in this host's log in the
 * database (no SQLite file), and `airlock audit verify --db postgres://...` finds it intact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld } from '../support/world.js';
import { airlock, DAEMON } from '../support/cli.js';
import { testSchema } from '../support/pg-schema.js';
import { keyIdOf, parsePublicKey } from '../../src/audit/keys.js';
import { randomBytes } from 'node:crypto';
import { provisionFleet } from '../../src/store/postgres-roles.js';
import { dropRoles, roleUrl } from '../support/pg-roles.js';

test('a daemon with --store postgres:// runs preview, approve, execute and its log verifies from the database', async () => {
  const schema = await testSchema();
  const w = await startWorld(['--store', schema.url, '--checkpoint-interval', '0']);
  try {
    const agent = await w.as('agent', ['airlock-admin']);
    const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
    const { r } = await w.lifecycle(agent, human, 'CreateGroup', { group: 'pgaudit' });
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    assert.equal(existsSync(w.d.files.db), false, 'the daemon wrote a SQLite store too');
    const keyId = keyIdOf(parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8')));
    const kinds = (await schema.admin.query<{ kind: string }>("SELECT body::jsonb->>'kind' AS kind FROM audit_log WHERE log_id = $1 ORDER BY seq", [keyId])).rows.map((x) => x.kind);
    for (const k of ['daemon_started', 'totp_enrolled', 'preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']) assert.ok(kinds.includes(k), `${k} missing from ${kinds.join(', ')}`);
    const tx = await schema.admin.query<{ state: string }>("SELECT state FROM transactions WHERE log_id = $1 AND action_name = 'CreateGroup'", [keyId]);
    assert.deepEqual(tx.rows.map((x) => x.state), ['Succeeded']);
    const v = await airlock(['audit', 'verify', '--db', schema.url, '--pubkey', w.d.files.publicKey, '--checkpoints', w.d.files.checkpoints, '--json']);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const report = JSON.parse(v.stdout);
    assert.equal(report.hosts[0].report.entries, kinds.length);
    assert.ok(report.hosts[0].report.checkpoint, 'the host\'s checkpoint file was compared');
  } finally {
    await w.close();
    await schema.drop();
  }
});

test('a daemon connecting as its own host role (row-level security) runs the lifecycle and binds the role to its log', async () => {
  const schema = await testSchema();
  const role = `airlock_host_${randomBytes(4).toString('hex')}`;
  await provisionFleet(schema.url, { host: { role, logId: null } });
  const w = await startWorld(['--store', roleUrl(schema, role), '--checkpoint-interval', '0']);
  try {
    const agent = await w.as('agent', ['airlock-admin']);
    const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
    const { r } = await w.lifecycle(agent, human, 'CreateGroup', { group: 'pgrole' });
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    const keyId = keyIdOf(parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8')));
    const bound = await schema.admin.query<{ log_id: string }>('SELECT log_id FROM fleet_roles WHERE role_name = $1', [role]);
    assert.deepEqual(bound.rows.map((x) => x.log_id), [keyId]);
    const macs = await schema.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions WHERE log_id = $1 AND mac IS NULL', [keyId]);
    assert.equal(macs.rows[0]!.n, 0, 'a transaction row without its MAC');
  } finally {
    await w.close();
    await schema.drop();
    await dropRoles([role]);
  }
});

test('--store takes a PostgreSQL URL and nothing else: exit 2 before anything starts', async () => {
  const r = await airlock(['--store', 'mysql://root@127.0.0.1/test', '--state-dir', '/nonexistent/airlock-state'], { entry: DAEMON, timeoutMs: 20_000 });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--store takes a PostgreSQL URL/);
});

// A host that kept its log in SQLite, moved to the database with the same audit key, would sign a
// second history from entry 1 under the same origin: its own checkpoint file then shows two roots
// for one size, and every verifier rightly calls the host's log forked. The daemon refuses to start so.
test('--store on a host whose log is in SQLite: exit 2, nothing started, and how to set the old log aside', async () => {
  const state = mkdtempSync(join(tmpdir(), 'airlock-state-'));
  try {
    writeFileSync(join(state, 'airlock.db'), '');
    const r = await airlock(['--store', 'postgres://postgres@127.0.0.1:5432/test', '--state-dir', state, '--socket', join(state, 'airlock.sock')], { entry: DAEMON, timeoutMs: 20_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /airlock\.db holds this host's log/);
    assert.match(r.stderr, /fork/);
    assert.match(r.stderr, /mv .*airlock\.db\* .*audit\.key .*audit\.pub .*audit-keys\.pub .*log-id /);
    assert.equal(existsSync(join(state, 'airlock.sock')), false, 'nothing listened');
    assert.equal(existsSync(join(state, 'audit.key')), false, 'no key was made');
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});

// The other way: a host whose log is in the database, started without --store (its drop-in lost),
// would open a log in SQLite from entry 1 with the same key.
test('no --store where an audit key signed a log (log-id) but no SQLite log is here: exit 2, nothing started, no database made', async () => {
  const state = mkdtempSync(join(tmpdir(), 'airlock-state-'));
  try {
    writeFileSync(join(state, 'audit.key'), randomBytes(32), { mode: 0o600 });
    writeFileSync(join(state, 'log-id'), '0123456789abcdef\n');
    const r = await airlock(['--state-dir', state, '--log-dir', state, '--socket', join(state, 'airlock.sock'), '--no-syslog'], { entry: DAEMON, timeoutMs: 20_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /audit\.key is this host's audit key and it signed a log \(log-id\), but .*airlock\.db holds none/);
    assert.match(r.stderr, /--store it ran with/);
    assert.equal(existsSync(join(state, 'airlock.db')), false, 'no log was begun');
    assert.equal(existsSync(join(state, 'airlock.sock')), false, 'nothing listened');
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
