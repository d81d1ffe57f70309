/**
 * The log is evidence: after real activity, `airlock audit verify` (public key
 * only, no daemon) says intact; every kind of tampering on a copy (edit, delete,
 * reorder, cut tail, forged checkpoint, wrong key) exits 1 naming the entry;
 * unusable inputs exit 2. Also: start-up refusals and crash reconciliation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { startWorld, type World } from '../support/world.js';
import { airlock, DAEMON } from '../support/cli.js';
import { removeTree, tempDir } from '../support/fs.js';
import { formatPublicKey, signingKeyFromSeed } from '../../src/audit/keys.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { LogEntry } from '../../src/audit/entry.js';
import { ENTRY_DETAILS } from '../../src/audit/entry-details.js';

let dir: string;
let db: string, pub: string, cps: string;
let total = 0;

before(async () => {
  dir = tempDir();
  const w: World = await startWorld(['--checkpoint-interval', '0']);
  const agent = await w.as('agent', ['airlock-admin']);
  const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  for (let i = 0; i < 3; i++) await w.lifecycle(agent, human, 'ListUsers', {});
  await w.lifecycle(agent, human, 'CreateGroup', { group: 'auditors' });
  await w.lifecycle(agent, human, 'ListGroups', {});
  await agent.call('preview', { action_name: 'UserInfo', params: { user: 'root' } });
  const files = w.d.files;
  const shared = w.d.box.shared;
  // Keep the store, key and checkpoints: the daemon flushes its last checkpoint as it stops.
  await w.close({ keepSharedAs: join(dir, 'shared') });
  const kept = (p: string) => p.replace(shared, join(dir, 'shared'));
  db = kept(files.db);
  pub = kept(files.publicKey);
  cps = kept(files.checkpoints);
  total = [...readSqliteLog(db)].length;
});
after(() => dir && removeTree(dir));

/**
 * A tampered copy of the database: runs SQL on it, returns its path. `plain`: the bodies are
 * first rewritten as their signed text (which the store reads as it is), for SQL that edits text;
 * otherwise they stay as the store encodes them (src/audit/entry-encoding.ts).
 */
function tampered(name: string, sql: string[], opts: { plain?: boolean; edit?: (t: Database.Database) => void } = {}): string {
  const copy = join(dir, `${name}.db`);
  const src = new Database(db, { readonly: true });
  src.pragma('wal_checkpoint(TRUNCATE)');
  src.close();
  copyFileSync(db, copy);
  const bodies = opts.plain ? [...readSqliteLog(copy)] : [];
  const t = new Database(copy);
  const plain = t.prepare('UPDATE audit_log SET body = ? WHERE seq = ?');
  for (const r of bodies) plain.run(r.body, r.seq);
  for (const s of sql) t.exec(s);
  opts.edit?.(t);
  t.close();
  return copy;
}

const verify = (dbPath: string, extra: string[] = []) => airlock(['audit', 'verify', '--pubkey', pub, '--db', dbPath, '--checkpoints', cps, '--json', ...extra]);

describe('audit verify', () => {
  test('the untouched log is intact and matches its latest checkpoint (exit 0)', async () => {
    const r = await verify(db);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'intact');
    assert.equal(rep.entries, total);
    assert.equal(rep.checkpoint.size, total, 'the daemon checkpointed its last entry when it stopped');
    const kinds = [...readSqliteLog(db)].map((e) => JSON.parse(e.body).kind);
    for (const k of ['daemon_started', 'preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']) assert.ok(kinds.includes(k), k);
  });

  test('entries carry authorization facts and never output', () => {
    const entries = [...readSqliteLog(db)].map((e) => JSON.parse(e.body));
    const outcome = entries.find((e) => e.kind === 'outcome');
    assert.equal(outcome.details.state, 'Succeeded');
    assert.ok(outcome.principal.uid > 0 && outcome.principal.role === 'admin');
    const all = entries.map((e) => JSON.stringify(e)).join('\n');
    assert.ok(!all.includes('root:x:0:0'), 'no /etc/passwd or /etc/group content in the log');
    assert.ok(!/alr1\./.test(all), 'no receipt in the log, only its commitment');
  });

  test("every entry's details are exactly those its kind's schema names (src/audit/entry-details.ts)", () => {
    const entries = [...readSqliteLog(db)].map((r) => JSON.parse(r.body) as LogEntry);
    const kinds = new Set<string>(entries.map((e) => e.kind));
    for (const k of ['daemon_started', 'totp_enrolled', 'preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']) assert.ok(kinds.has(k), `the log has a ${k} entry`);
    const wrong = entries.flatMap((e) => {
      const r = ENTRY_DETAILS[e.kind].safeParse(e.details);
      return r.success ? [] : [`seq ${e.seq} ${e.kind}: ${r.error.message}`];
    });
    assert.deepEqual(wrong, []);
  });

  test('an edited entry is found (exit 1, names the entry)', async () => {
    const r = await verify(tampered('edit', ["UPDATE audit_log SET body = replace(body, '\"kind\":\"outcome\"', '\"kind\":\"canceled\"') WHERE seq = (SELECT min(seq) FROM audit_log WHERE body LIKE '%\"kind\":\"outcome\"%')"], { plain: true }));
    assert.equal(r.code, 1);
    const rep = JSON.parse(r.stdout);
    const seq = [...readSqliteLog(db)].find((e) => JSON.parse(e.body).kind === 'outcome')!.seq;
    assert.equal(rep.first_broken.seq, seq);
    assert.match(rep.first_broken.reason, /signature/);
  });

  test('a non-canonical rewrite (same meaning, other bytes) is found', async () => {
    const r = await verify(tampered('spaces', ["UPDATE audit_log SET body = replace(body, '{\"', '{ \"') WHERE seq = 3"], { plain: true }));
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).first_broken.seq, 3);
  });

  test('the store keeps entries encoded, and a byte changed in an encoded body is found: in its packed digests, or where it does not decode', async () => {
    const copy = tampered('encoded', []);
    const t = new Database(copy);
    const kinds = t.prepare("SELECT typeof(body) AS type, count(*) AS n FROM audit_log GROUP BY typeof(body)").all() as { type: string; n: number }[];
    t.close();
    assert.deepEqual(kinds, [{ type: 'blob', n: total }], 'every entry the daemon wrote is encoded');
    const editBody = (seq: number, change: (b: Buffer) => Buffer) => (t: Database.Database) => {
      const body = t.prepare('SELECT body FROM audit_log WHERE seq = ?').pluck().get(seq) as Buffer;
      assert.equal(t.prepare('UPDATE audit_log SET body = ? WHERE seq = ?').run(change(Buffer.from(body)), seq).changes, 1);
    };
    // Byte 2 + k (k: the count in byte 1) is the first byte of the first packed hex run: the body still decodes, to other bytes.
    const digest = await verify(tampered('encoded-digest', [], { edit: editBody(5, (b) => (b.writeUInt8(b[2 + b[1]!]! ^ 0xff, 2 + b[1]!), b)) }));
    assert.equal(digest.code, 1, digest.stdout + digest.stderr);
    assert.equal(JSON.parse(digest.stdout).first_broken.seq, 5);
    // Cut, the body cannot be decoded (its skeleton's length is stored), and verify fails closed, naming the entry.
    const cut = await verify(tampered('encoded-cut', [], { edit: editBody(6, (b) => b.subarray(0, b.length - 4)) }));
    assert.notEqual(cut.code, 0);
    assert.match(cut.stdout + cut.stderr, /entry 6 of the log/);
  });

  test('a deleted entry is found', async () => {
    const r = await verify(tampered('delete', ['DELETE FROM audit_log WHERE seq = 4']));
    assert.equal(r.code, 1);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.first_broken.seq, 5);
    assert.match(rep.first_broken.reason, /entry 4 is missing/);
  });

  test('reordered entries are found', async () => {
    const r = await verify(
      tampered('reorder', [
        'UPDATE audit_log SET seq = -1 WHERE seq = 6',
        'UPDATE audit_log SET seq = 6 WHERE seq = 7',
        'UPDATE audit_log SET seq = 7 WHERE seq = -1',
      ]),
    );
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).first_broken.seq, 6);
  });

  test('a cut tail is found through the checkpoint', async () => {
    const r = await verify(tampered('truncate', [`DELETE FROM audit_log WHERE seq > ${total - 3}`]));
    assert.equal(r.code, 1);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.first_broken.seq, total - 2);
    assert.match(rep.first_broken.reason, /tail was cut/);
  });

  test('a rewritten history with a consistent chain is still caught by the checkpoint', async () => {
    // Dropping the last entry and re-appending nothing leaves an internally valid chain: only the checkpoint knows.
    const r = await verify(tampered('drop-one', [`DELETE FROM audit_log WHERE seq = ${total}`]));
    assert.equal(r.code, 1);
    assert.match(JSON.parse(r.stdout).first_broken.reason, /tail was cut/);
  });

  test('without its checkpoint file, verify fails closed: cannot verify (exit 2), never intact with a warning', async () => {
    const r = await airlock(['audit', 'verify', '--pubkey', pub, '--db', db, '--checkpoints', join(dir, 'none.log'), '--json']);
    assert.equal(r.code, 2, r.stdout);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'cannot_verify');
    assert.match(rep.reason, /does not exist.*cut tail cannot be ruled out/);
    const text = await airlock(['audit', 'verify', '--pubkey', pub, '--db', db, '--checkpoints', join(dir, 'none.log')]);
    assert.equal(text.code, 2);
    assert.match(text.stdout, /^CANNOT VERIFY {2}.*not proof the log is whole/s);
  });

  test('a forged checkpoint line is ignored with a warning: only signed checkpoints count', async () => {
    const forgedCps = join(dir, 'forged.log');
    copyFileSync(cps, forgedCps);
    appendFileSync(forgedCps, `airlock-checkpoint forged.example/airlock/${'0'.repeat(16)} 999999 ${'ab'.repeat(32)} 2026-01-01T00:00:00.000Z ${'00'.repeat(64)}\n`);
    appendFileSync(forgedCps, 'Nov 29 10:00:00 host airlock: airlock-checkpoint {\n');
    const r = await airlock(['audit', 'verify', '--pubkey', pub, '--db', db, '--checkpoints', forgedCps, '--json']);
    assert.equal(r.code, 0, r.stdout);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.checkpoint.size, total, 'the forged size 999999 was not believed');
    assert.equal(rep.warnings.length, 2);
    assert.match(rep.warnings.join(' '), /signature does not verify/);
  });

  test('checkpoints name their log; with --origin only checkpoints of that log count', async () => {
    // The file also holds the tree heads (airlock-tree-head lines) beside the chain checkpoints.
    const lines = readFileSync(cps, 'utf8').trim().split('\n').filter((l) => l.startsWith('airlock-checkpoint '));
    const origin = lines.at(-1)!.split(' ')[1]!;
    assert.match(origin, /^[a-z0-9.-]+\/airlock\/[0-9a-f]{16}$/);
    assert.ok(lines.every((l) => l.split(' ')[1] === origin), 'one daemon, one origin');
    const same = await verify(db, ['--origin', origin]);
    assert.equal(same.code, 0, same.stdout);
    const cp = JSON.parse(same.stdout).checkpoint;
    assert.deepEqual([cp.size, cp.origin], [total, origin]);
    const other = origin.replace(/^[^/]+/, 'another-host.example');
    const r = await verify(db, ['--origin', other]);
    assert.equal(r.code, 2, r.stdout);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'cannot_verify', 'with no checkpoint of its own, the log is not proven whole');
    assert.equal(rep.checkpoint, null, 'no checkpoint of another log vouches for this one');
    assert.match(rep.warnings.join(' '), /names another log/);
    const shown = JSON.parse((await airlock(['audit', 'checkpoint', '--pubkey', pub, '--checkpoints', cps, '--origin', other, '--json'])).stdout);
    assert.deepEqual([shown.latest, shown.latest_tree_head, shown.valid], [null, null, 0]);
    assert.ok(shown.invalid >= lines.length, 'every line names another log than the one asked for');
  });

  test('another public key does not verify this log', async () => {
    const other = join(dir, 'other.pub');
    writeFileSync(other, formatPublicKey(signingKeyFromSeed(randomBytes(32)).publicRaw));
    const r = await airlock(['audit', 'verify', '--pubkey', other, '--db', db, '--checkpoints', join(dir, 'none.log'), '--json']);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).first_broken.seq, 1);
  });

  test('unusable inputs exit 2 (cannot verify)', async () => {
    const garbage = join(dir, 'garbage.pub');
    writeFileSync(garbage, 'not a key\n');
    assert.equal((await airlock(['audit', 'verify', '--pubkey', garbage, '--db', db])).code, 2);
    assert.equal((await airlock(['audit', 'verify', '--pubkey', pub, '--db', join(dir, 'missing.db')])).code, 2);
    const notDb = join(dir, 'not.db');
    writeFileSync(notDb, 'hello');
    assert.equal((await airlock(['audit', 'verify', '--pubkey', pub, '--db', notDb])).code, 2);
  });

  test('audit checkpoint shows the latest checkpoint', async () => {
    const r = await airlock(['audit', 'checkpoint', '--pubkey', pub, '--checkpoints', cps, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.latest.checkpoint.size, total);
    assert.equal(j.latest_tree_head.size, total, 'the tree head of the same size, beside it');
    assert.match(j.latest_tree_head.root, /^[0-9a-f]{64}$/);
    const human = await airlock(['audit', 'checkpoint', '--pubkey', pub, '--checkpoints', cps]);
    assert.match(human.stdout, new RegExp(`latest tree head of .*: size ${total}, root [0-9a-f]{16}…, signed .* by key [0-9a-f]{16}`));
  });
});

describe('start-up refusals (fail closed)', () => {
  const start = (state: string, extra: string[] = []) =>
    airlock(['--socket', join(state, 's.sock'), '--state-dir', join(state, 'state'), '--log-dir', join(state, 'log'), '--no-syslog', ...extra], { entry: DAEMON, timeoutMs: 20_000 });

  test('a group- or world-readable key file stops the daemon', async () => {
    const d = tempDir();
    try {
      mkdirSync(join(d, 'state'), { recursive: true });
      writeFileSync(join(d, 'state', 'airlock.db'), ''); // an existing store: keys are not created
      writeFileSync(join(d, 'state', 'audit.key'), randomBytes(32), { mode: 0o644 });
      chmodSync(join(d, 'state', 'audit.key'), 0o644);
      writeFileSync(join(d, 'state', 'approval.key'), randomBytes(32), { mode: 0o600 });
      const r = await start(d);
      assert.equal(r.code, 9, r.stderr);
      assert.match(r.stderr, /audit\.key has mode 644/);
      assert.match(r.stderr, /chmod 600/);
      assert.ok(!existsSync(join(d, 's.sock')), 'it never listened');
    } finally {
      removeTree(d);
    }
  });

  test('an existing store whose keys are missing does not get fresh keys', async () => {
    const d = tempDir();
    try {
      mkdirSync(join(d, 'state'), { recursive: true });
      writeFileSync(join(d, 'state', 'airlock.db'), '');
      const r = await start(d);
      assert.equal(r.code, 9);
      assert.match(r.stderr, /cannot open key file/);
    } finally {
      removeTree(d);
    }
  });

  test('a risk override in the policy that raises a risk is applied', async () => {
    const d = tempDir();
    const w = await startWorld([], 'overlay', { policy: '[risk]\nListUsers = "medium"\n' });
    try {
      const observer = await w.as('olga', ['airlock-observer']);
      const desc = await observer.call('actions.describe', { action_name: 'ListUsers' });
      assert.deepEqual([desc.risk, desc.min_role], ['medium', 'dev']);
      await assert.rejects(observer.call('preview', { action_name: 'ListUsers', params: {} }), (e: any) => e.code === 'role_too_low');
    } finally {
      await w.close();
      removeTree(d);
    }
  });

  test('a policy that lowers a risk, names an unknown action, is not TOML or is writable by others is a start-up error', async () => {
    const d = tempDir();
    try {
      const policy = join(d, 'policy.toml');
      writeFileSync(policy, '[risk]\nCreateUser = "low"\n', { mode: 0o644 });
      const r = await start(d, ['--policy', policy]);
      assert.equal(r.code, 9);
      assert.match(r.stderr, /never lower/);
      writeFileSync(policy, '[risk]\nNope = "high"\n');
      assert.match((await start(d, ['--policy', policy])).stderr, /no action named Nope/);
      writeFileSync(policy, 'reads = \n');
      assert.match((await start(d, ['--policy', policy])).stderr, /not valid TOML/);
      writeFileSync(policy, 'reads = "ask"\n');
      chmodSync(policy, 0o666);
      assert.match((await start(d, ['--policy', policy])).stderr, /must be owned by root and writable by root only/);
    } finally {
      removeTree(d);
    }
  });
});

describe('crash reconciliation', () => {
  test('a daemon killed while a job runs marks it Failed on restart, and says so in the log', async () => {
    const keep = tempDir();
    const w = await startWorld(['--checkpoint-interval', '0']);
    let daemon: ReturnType<typeof import('node:child_process').spawn> | null = null;
    try {
      const agent = await w.as('agent', ['airlock-admin']);
      const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
      // A job that runs for a while: refreshing package lists (in the throwaway host).
      const p = await agent.call('preview', { action_name: 'AptUpdate', params: {} });
      const g = await w.approve(human, p);
      void agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: {}, receipt: g.receipt }).catch(() => {});
      const until = Date.now() + 20_000;
      while ((await human.call('transaction.get', { transaction_id: p.transaction_id })).state !== 'Running') {
        assert.ok(Date.now() < until, 'the job never started');
        await new Promise((r) => setTimeout(r, 20));
      }
      process.kill(w.d.box.pid, 'SIGKILL');
      await w.d.stop({ keepSharedAs: join(keep, 'shared') });
      const state = join(keep, 'shared', 'state');
      const log = join(keep, 'shared', 'log');
      // Restart on the same store (outside the sandbox: it only reconciles and reads).
      const { spawn } = await import('node:child_process');
      daemon = spawn(process.execPath, ['--import', 'tsx', DAEMON, 'daemon', '--socket', join(keep, 's.sock'), '--state-dir', state, '--log-dir', log, '--no-syslog', '--checkpoint-interval', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      daemon.stderr!.on('data', (d) => (err += d));
      while (!/listening/.test(err)) {
        assert.ok(daemon.exitCode === null, err);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(err, new RegExp(`reconciled 1 job\\(s\\).*${p.transaction_id}`));
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon!.once('exit', r));
      const entries = [...readSqliteLog(join(state, 'airlock.db'))].map((e) => JSON.parse(e.body));
      const rec = entries.find((e) => e.kind === 'reconciled');
      assert.equal(rec?.transaction_id, p.transaction_id);
      const row = new Database(join(state, 'airlock.db'), { readonly: true }).prepare('SELECT state FROM transactions WHERE id = ?').get(p.transaction_id) as { state: string };
      assert.equal(row.state, 'Failed');
      const v = await airlock(['audit', 'verify', '--pubkey', join(state, 'audit.pub'), '--db', join(state, 'airlock.db'), '--checkpoints', join(log, 'checkpoints.log'), '--json']);
      assert.equal(v.code, 0, v.stdout);
    } finally {
      daemon?.kill('SIGKILL');
      await w.close().catch(() => {});
      removeTree(keep);
    }
  });
});
