/**
 * Proofs as anyone: an auditor who is not root (olga, airlock-observer, a real Unix user running the
 * real CLI) asks the real daemon for a signed tree head, an inclusion proof of a transaction's
 * entries and a consistency proof between two sizes; each is checked with her own key file, written
 * to a file and checked again offline with no daemon. A proof file changed in any byte that matters,
 * or checked with another key, is invalid (exit 1). The log's vkey is what a witness's config takes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import { removeTree, tempDir } from '../support/fs.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import { formatPublicKey, signingKeyFromSeed } from '../../src/audit/keys.js';
import { parseVkey } from '../../src/audit/note.js';
import { readSqliteLog } from '../../src/audit/log-file.js';

let w: World;
let olga: Principal;
let dir: string;
let txId: string;

before(async () => {
  w = await startWorld(['--checkpoint-interval', '0']);
  const agent = await w.as('agent', ['airlock-admin']);
  const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
  await w.lifecycle(agent, human, 'ListUsers', {});
  const created = await w.lifecycle(agent, human, 'CreateGroup', { group: 'provers' });
  txId = created.p.transaction_id;
  await w.lifecycle(agent, human, 'ListUsers', {});
  dir = tempDir('airlock-proofs-');
  chmodSync(dir, 0o1777); // sticky, as /tmp: the CLI refuses a folder anyone can swap names in
  writeFileSync(join(dir, 'audit.pub'), readFileSync(w.d.files.publicKey, 'utf8'), { mode: 0o644 });
  writeFileSync(join(dir, 'other.pub'), formatPublicKey(signingKeyFromSeed(Buffer.alloc(32, 3)).publicRaw), { mode: 0o644 });
});
after(async () => {
  await w?.close();
  if (dir) removeTree(dir);
});

function asOlga(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const who: UnixIdentity = olga.identity;
  const argv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, ...args];
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', AIRLOCK_SOCKET: w.d.socket, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}
const NO_DAEMON = { AIRLOCK_SOCKET: '/nonexistent/airlock.sock' };
const pub = () => join(dir, 'audit.pub');

describe('tree heads and proofs', () => {
  test('a tree head is a C2SP checkpoint note of the whole log, signed under the log origin', async () => {
    const r = await asOlga(['audit', 'tree-head', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const head = JSON.parse(r.stdout) as { size: number; root: string; note: string };
    const lines = head.note.split('\n');
    assert.match(lines[0]!, /^[a-z0-9.-]+\/airlock\/[0-9a-f]{16}$/);
    assert.equal(lines[1], String(head.size));
    assert.equal(Buffer.from(lines[2]!, 'base64').toString('hex'), head.root);
    assert.match(lines[3]!, /^time \d{4}-\d\d-\d\dT/);
    assert.equal(lines[4], '');
    assert.match(lines[5]!, new RegExp(`^— ${lines[0]!.replace(/[.]/g, '\\.')} [A-Za-z0-9+/=]+$`));
    assert.ok(head.size >= [...readSqliteLog(w.d.files.db)].length - 2);
    // The vkey a witness's config takes: the origin, the key hash and the key, as the note's signature line uses.
    const v = await asOlga(['audit', 'pubkey', '--vkey']);
    assert.equal(v.code, 0, v.stderr);
    const vkey = parseVkey(v.stdout.trim());
    assert.equal(vkey.name, lines[0]);
    assert.equal(Buffer.from(lines[5]!.split(' ')[2]!, 'base64').subarray(0, 4).toString('hex'), vkey.keyHash.toString('hex'));
  });

  test("prove: every entry of a transaction, checked here with the auditor's key, and again offline from the file", async () => {
    const out = join(dir, 'tx.proof');
    const r = await asOlga(['audit', 'prove', txId, '--pubkey', pub(), '--out', out]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`^valid {2}\\d+ entries of ${txId} \\(seq [\\d, ]+\\) are in the log .* of size \\d+`));
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(doc.entries.map((e: { body: string }) => JSON.parse(e.body).kind), ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']);
    const offline = await asOlga(['audit', 'verify', '--proof', out, '--pubkey', pub(), '--json'], NO_DAEMON);
    assert.equal(offline.code, 0, offline.stdout + offline.stderr);
    assert.equal(JSON.parse(offline.stdout).status, 'valid');
    // Another key: the head does not verify.
    const other = await asOlga(['audit', 'verify', '--proof', out, '--pubkey', join(dir, 'other.pub')], NO_DAEMON);
    assert.equal(other.code, 1);
    assert.match(other.stdout, /^INVALID {2}the tree head does not verify/);
    // An entry changed in the file (its outcome said otherwise): its signature fails.
    const edited = join(dir, 'edited.proof');
    doc.entries[4].body = doc.entries[4].body.replace('"Succeeded"', '"Failed"');
    writeFileSync(edited, JSON.stringify(doc), { mode: 0o644 });
    const bad = await asOlga(['audit', 'verify', '--proof', edited, '--pubkey', pub()], NO_DAEMON);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /signature does not verify/);
    // The same file again without --force: refused, the proof kept.
    const again = await asOlga(['audit', 'prove', txId, '--pubkey', pub(), '--out', out]);
    assert.equal(again.code, 6);
    assert.match(again.stderr, /exists/);
  });

  test('consistency: the log now extends its first entries; the proof checks offline, and a swapped one does not', async () => {
    const out = join(dir, 'c.proof');
    const r = await asOlga(['audit', 'consistency', '3', '--pubkey', pub(), '--out', out]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^valid {2}the log .* of size \d+ .* extends its tree of size 3/);
    const offline = await asOlga(['audit', 'verify', '--proof', out, '--pubkey', pub()], NO_DAEMON);
    assert.equal(offline.code, 0, offline.stdout);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const swapped = join(dir, 'swapped.proof');
    writeFileSync(swapped, JSON.stringify({ ...doc, proof: [...doc.proof].reverse() }), { mode: 0o644 });
    const bad = await asOlga(['audit', 'verify', '--proof', swapped, '--pubkey', pub()], NO_DAEMON);
    if (doc.proof.length > 1) {
      assert.equal(bad.code, 1, bad.stdout);
      assert.match(bad.stdout, /does not extend the tree of size 3/);
    }
    const past = await asOlga(['audit', 'consistency', '3', '999999', '--pubkey', pub()]);
    assert.equal(past.code, 5, 'validation');
    assert.match(past.stderr, /past the end of the log/);
    const unknown = await asOlga(['audit', 'prove', 'tx_' + '0'.repeat(24), '--pubkey', pub()]);
    assert.equal(unknown.code, 5, 'validation');
    assert.match(unknown.stderr, /holds no entry/);
  });
});
