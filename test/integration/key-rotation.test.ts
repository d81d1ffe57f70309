/**
 * Key rotation with the real daemon: an admin person rotates the audit key (through the real
 * CLI), then the approval key, then the audit key again, with real preview/approve/execute
 * between. An observer who is not root verifies the log through the daemon with the exported
 * key history (or the first key alone) and is told which key signed which entries; a file
 * holding only the current key cannot verify and says to export the history. A receipt signed
 * before the approval rotation is refused as key_rotated. Tampering with the kept log: an entry
 * after a rotation re-signed with the retired key, and a rotation whose new-key signature is
 * missing or wrong, are broken and named. A restarted daemon keeps the rotated keys and the log id.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { airlockAs, CLI, DAEMON } from '../support/cli.js';
import { removeTree, tempDir } from '../support/fs.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import { entryMessage, entryHash } from '../../src/audit/entry.js';
import { ed25519Sign, parsePublicKeys, signingKeyFromSeed, type SigningKey } from '../../src/audit/keys.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import type { ApprovalGrant, KeyRotated, PreviewEnvelope } from '../../src/protocol/messages.js';

let w: World;
let agent: Principal;
let alice: Principal;
let olga: Principal;
let dir: string;
/** The first audit key's seed, copied before it was rotated out (so the tests can play its thief). */
let firstSeed: Buffer;
const rotations: KeyRotated[] = [];
let stale: { p: PreviewEnvelope; g: ApprovalGrant };

before(async () => {
  w = await startWorld(['--checkpoint-interval', '0']);
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
  dir = tempDir('airlock-rotation-');
  chmodSync(dir, 0o1777); // olga writes her key files here (sticky, as /tmp: the CLI refuses a folder anyone can swap names in)
  await w.lifecycle(agent, alice, 'ListUsers', {});
  firstSeed = readFileSync(w.d.files.auditKey);
});
let closed = false;
after(async () => {
  if (!closed) await w?.close();
  if (dir) removeTree(dir);
});

function cliAs(who: UnixIdentity, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const node = [process.execPath, '--import', import.meta.resolve('tsx'), CLI, ...args];
  const argv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', ...node];
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', AIRLOCK_SOCKET: w.d.socket } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}
const entries = () => [...readSqliteLog(w.d.files.db)].map((r) => JSON.parse(r.body) as { seq: number; kind: string; key_id: string; details: Record<string, unknown> });

describe('rotating keys on a running daemon', () => {
  test('only an admin person rotates: not an observer, not root with nobody behind it', async () => {
    await rejectsWith(olga.call('keys.rotate', { key: 'audit' }), 'authorization', 'not_an_admin');
    await rejectsWith((await w.root()).call('keys.rotate', { key: 'audit' }), 'authorization', 'no_person');
    await rejectsWith(alice.call('keys.rotate', { key: 'totp' as 'audit' }), 'validation', 'bad_key_name');
    const r = await airlockAs(alice.identity, w.d.socket, ['keys', 'rotate', 'audit']);
    assert.equal(r.code, 2, 'no terminal and no --yes: not confirmed');
    assert.match(r.stderr, /no terminal to ask: nothing was changed/);
  });

  test('audit, then approval, then audit again, with real transactions between; an old receipt is refused', async () => {
    const before = readFileSync(w.d.files.publicKey, 'utf8');
    // An approval granted before the approval key rotates, executed after.
    const p = await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'rot-stale' } });
    stale = { p, g: await w.approve(alice, p) };

    const cli = await airlockAs(alice.identity, w.d.socket, ['keys', 'rotate', 'audit', '--yes', '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    rotations.push(JSON.parse(cli.stdout) as KeyRotated);
    assert.notEqual(readFileSync(w.d.files.publicKey, 'utf8'), before, 'audit.pub names the new key');
    await w.lifecycle(agent, alice, 'CreateGroup', { group: 'rot-one' });

    rotations.push(await alice.call('keys.rotate', { key: 'approval' }));
    const refused = await rejectsWith(agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: stale.g.receipt }), 'stale_approval', 'key_rotated');
    assert.match(refused.message, /the approval key was rotated after this approval/);
    await w.lifecycle(agent, alice, 'ListGroups', {});

    rotations.push(await alice.call('keys.rotate', { key: 'audit' }));
    const { r } = await w.lifecycle(agent, alice, 'CreateGroup', { group: 'rot-two' });
    assert.equal(r.state, 'Succeeded');

    const [a1, ap, a2] = rotations as [KeyRotated, KeyRotated, KeyRotated];
    assert.deepEqual([a1.key, ap.key, a2.key], ['audit', 'approval', 'audit']);
    assert.equal(a2.old_key_id, a1.new_key_id);
    const log = entries();
    for (const rot of rotations) {
      const e = log.find((x) => x.seq === rot.seq)!;
      assert.equal(e.kind, 'key_rotated');
      assert.equal(e.details.new_key_id, rot.new_key_id);
    }
    // The rotation entry is sealed by the key before it; the next entry by the new key.
    assert.equal(log.find((x) => x.seq === a1.seq)!.key_id, a1.old_key_id);
    assert.equal(log.find((x) => x.seq === a1.seq + 1)!.key_id, a1.new_key_id);
    assert.equal(log.find((x) => x.seq === ap.seq)!.key_id, a1.new_key_id, 'an approval rotation is sealed by the audit key in force');
    assert.equal(log.at(-1)!.key_id, a2.new_key_id);
  });

  test('the state directory keeps the log id, every public key, and no retired seed', () => {
    const state = w.d.stateDir;
    const [a1, ap, a2] = rotations as [KeyRotated, KeyRotated, KeyRotated];
    assert.equal(readFileSync(join(state, 'log-id'), 'utf8').trim(), a1.old_key_id);
    const history = readFileSync(join(state, 'audit-keys.pub'), 'utf8').trim().split('\n');
    assert.equal(history.length, 3);
    assert.match(history[0]!, new RegExp(`^ed25519:[0-9a-f]{64}  ${a1.old_key_id}  from seq 1$`));
    assert.match(history[1]!, new RegExp(`  ${a1.new_key_id}  from seq ${a1.seq + 1}$`));
    assert.match(history[2]!, new RegExp(`  ${a2.new_key_id}  from seq ${a2.seq + 1}$`));
    assert.equal(readFileSync(join(state, 'approval-keys.pub'), 'utf8').trim().split('\n').length, 2);
    assert.match(readFileSync(join(state, 'approval-keys.pub'), 'utf8'), new RegExp(`  ${ap.new_key_id}  from seq ${ap.seq + 1}\\n$`));
    assert.equal(signingKeyFromSeed(readFileSync(w.d.files.auditKey)).keyId, a2.new_key_id);
    assert.equal(statSync(w.d.files.auditKey).mode & 0o777, 0o600);
    for (const f of ['audit.key.new', 'audit.key.old', 'approval.key.new', 'approval.key.old']) assert.ok(!existsSync(join(state, f)), `${f} is gone`);
  });
});

describe('verifying a rotated log as an observer', () => {
  test('with the exported history: intact, and the key spans are named', async () => {
    const file = join(dir, 'history.pub');
    const out = await cliAs(olga.identity, ['audit', 'pubkey', '--history', '--out', file]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(parsePublicKeys(readFileSync(file, 'utf8')).length, 3);
    const v = await cliAs(olga.identity, ['audit', 'verify', '--pubkey', file, '--checkpoints', w.d.files.checkpoints]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const [a1, , a2] = rotations as [KeyRotated, KeyRotated, KeyRotated];
    const total = entries().length;
    assert.match(v.stdout, /^intact/);
    assert.match(v.stdout, new RegExp(`signed by: ${a1.old_key_id} entries 1-${a1.seq}, ${a1.new_key_id} entries ${a1.seq + 1}-${a2.seq}, ${a2.new_key_id} entries ${a2.seq + 1}-\\d+`));
    const j = await cliAs(olga.identity, ['audit', 'verify', '--pubkey', file, '--checkpoints', w.d.files.checkpoints, '--json']);
    const rep = JSON.parse(j.stdout);
    assert.equal(rep.status, 'intact');
    assert.ok(rep.entries >= total);
    assert.deepEqual(
      rep.keys.map((k: { introduced_by: string }) => k.introduced_by),
      ['your key file', `rotation at seq ${a1.seq}`, `rotation at seq ${a2.seq}`],
    );
    assert.ok(rep.checkpoint && rep.checkpoint.size > a2.seq, 'the checkpoints signed by the new key count');
    assert.match(rep.checkpoint.origin, new RegExp(`/airlock/${a1.old_key_id}$`), 'checkpoints name the log id, the first key');
  });

  test('with the first key alone (the file the auditor always had): intact', async () => {
    const file = join(dir, 'first.pub');
    writeFileSync(file, readFileSync(join(w.d.stateDir, 'audit-keys.pub'), 'utf8').split('\n')[0]!.split(' ')[0] + '\n', { mode: 0o644 });
    // The host's checkpoint file is where this sandbox keeps it (the default path would be missing: cannot verify).
    const v = await cliAs(olga.identity, ['audit', 'verify', '--pubkey', file, '--checkpoints', w.d.files.checkpoints]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /signed by: .*, .*, /);
  });

  test('with only the current key: cannot verify (exit 2), and told to export the history', async () => {
    const file = join(dir, 'current.pub');
    const out = await cliAs(olga.identity, ['audit', 'pubkey', '--out', file]);
    assert.equal(out.code, 0, out.stderr);
    // The host's checkpoint file is where this sandbox keeps it (the default path would be missing: cannot verify).
    const v = await cliAs(olga.identity, ['audit', 'verify', '--pubkey', file, '--checkpoints', w.d.files.checkpoints]);
    assert.equal(v.code, 2, v.stdout + v.stderr);
    assert.match(v.stdout, /entry 1 is signed by key [0-9a-f]{16}, which your key file does not hold/);
    assert.match(v.stdout, /airlock audit pubkey --history --out FILE/);
  });
});

describe('tampering with a rotated log', () => {
  /** A copy of the database with the rows `edit` changed (it may re-sign with the thief's key), checked with the history. */
  async function verifyTampered(name: string, edit: (rows: Map<number, { body: string; sig: string }>, thief: SigningKey) => void) {
    const copy = join(dir, `${name}.db`);
    const live = new Database(w.d.files.db, { readonly: true });
    await live.backup(copy);
    live.close();
    const db = new Database(copy);
    const rows = new Map<number, { body: string; sig: string }>();
    // The signed bodies, decoded from the store's encoding; an edited one is written back as plain text, which the store reads as it is.
    for (const r of readSqliteLog(copy)) rows.set(r.seq, { body: r.body, sig: r.sig });
    const before = new Map([...rows].map(([k, v]) => [k, { ...v }]));
    edit(rows, signingKeyFromSeed(firstSeed));
    const update = db.prepare('UPDATE audit_log SET body = ?, sig = ?, hash = ? WHERE seq = ?');
    for (const [seq, r] of rows) if (before.get(seq)!.body !== r.body || before.get(seq)!.sig !== r.sig) update.run(r.body, r.sig, entryHash(r.body), seq);
    db.close();
    chmodSync(copy, 0o644);
    const history = join(dir, 'history.pub');
    const v = await cliAs(olga.identity, ['audit', 'verify', '--pubkey', history, '--db', copy, '--checkpoints', join(dir, 'none.log'), '--json']);
    return { code: v.code, rep: JSON.parse(v.stdout || '{}'), stderr: v.stderr };
  }
  const resign = (thief: SigningKey, entry: Record<string, unknown>) => {
    const body = canonicalize(entry);
    return { body, sig: ed25519Sign(thief, entryMessage(body)).toString('hex') };
  };

  test('an entry after the rotation re-signed with the old key is broken, and names the current key', async () => {
    const [a1] = rotations as [KeyRotated];
    const seq = a1.seq + 2;
    const { code, rep } = await verifyTampered('old-key', (rows, thief) => {
      const e = JSON.parse(rows.get(seq)!.body);
      rows.set(seq, resign(thief, { ...e, key_id: thief.keyId }));
    });
    assert.equal(code, 1);
    assert.equal(rep.status, 'broken');
    assert.equal(rep.first_broken.seq, seq);
    assert.equal(rep.first_broken.reason, `entry ${seq} is signed by key ${a1.old_key_id}; the current key from seq ${a1.seq + 1} is ${a1.new_key_id} (the key it names was replaced before this entry)`);
  });

  test('a forged rotation: the new key signature missing, or of another statement, is broken at the rotation', async () => {
    const [a1] = rotations as [KeyRotated];
    for (const [name, sig] of [
      ['missing', ''],
      ['wrong', 'ab'.repeat(64)],
    ] as const) {
      const { code, rep } = await verifyTampered(`forged-${name}`, (rows, thief) => {
        const e = JSON.parse(rows.get(a1.seq)!.body);
        rows.set(a1.seq, resign(thief, { ...e, details: { ...e.details, new_key_signature: sig } }));
      });
      assert.equal(code, 1, name);
      assert.equal(rep.first_broken.seq, a1.seq, name);
      assert.match(rep.first_broken.reason, /the new audit key's signature of this rotation does not verify: a forged rotation/, name);
    }
  });
});

describe('a restart after rotations', () => {
  test('the daemon starts on the rotated keys, keeps the log id, and discards a pending key no entry names', async () => {
    const keep = tempDir('airlock-rotation-restart-');
    try {
      closed = true;
      await w.close({ keepSharedAs: join(keep, 'shared') });
      const state = join(keep, 'shared', 'state');
      const logDir = join(keep, 'shared', 'log');
      // A rotation interrupted before its entry: a pending seed on disk.
      writeFileSync(join(state, 'audit.key.new'), Buffer.alloc(32, 5), { mode: 0o600 });
      const daemon = spawn(process.execPath, ['--import', 'tsx', DAEMON, 'daemon', '--socket', join(keep, 's.sock'), '--state-dir', state, '--log-dir', logDir, '--no-syslog', '--checkpoint-interval', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      daemon.stderr!.on('data', (d) => (err += d));
      while (!/listening/.test(err)) {
        assert.ok(daemon.exitCode === null, err);
        await new Promise((r) => setTimeout(r, 50));
      }
      const [a1, , a2] = rotations as [KeyRotated, KeyRotated, KeyRotated];
      assert.match(err, /discarded a pending audit key that no log entry names/);
      assert.match(err, new RegExp(`audit key ${a2.new_key_id}, checkpoints of .*/airlock/${a1.old_key_id}\\)`));
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
      assert.ok(!existsSync(join(state, 'audit.key.new')));
      const last = [...readSqliteLog(join(state, 'airlock.db'))].map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'daemon_started').at(-1);
      assert.equal(last.key_id, a2.new_key_id);
      assert.equal(last.details.log_id, a1.old_key_id);
      copyFileSync(join(state, 'audit-keys.pub'), join(dir, 'kept-history.pub'));
    } finally {
      removeTree(keep);
    }
  });
});
