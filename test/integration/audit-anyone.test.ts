/**
 * Verify as anyone: an auditor who is not root (olga, airlock-observer, a real Unix user
 * running the real CLI through setpriv) writes the public key file, verifies the log through
 * the daemon, exports it to one bundle file and verifies that with no daemon; a tampered or
 * cut bundle is caught, and so is a daemon (a client-side source) that leaves out its tail.
 * A database she cannot read says permission denied; a copy of a live database without its
 * -wal file is not taken for the whole log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import { removeTree, tempDir } from '../support/fs.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import { AirlockClient } from '../../src/client/client.js';
import { daemonSource } from '../../src/client/audit-source.js';
import { verifySource, type AuditSource } from '../../src/audit/source.js';
import { formatPublicKey, parsePublicKey, signingKeyFromSeed } from '../../src/audit/keys.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { LogRow } from '../../src/audit/verify.js';

let w: World;
let olga: Principal;
let dir: string;
let pubText: string;

before(async () => {
  // A checkpoint after every entry, so the checkpoint file always covers the whole log.
  w = await startWorld(['--checkpoint-interval', '0']);
  const agent = await w.as('agent', ['airlock-admin']);
  const human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
  for (let i = 0; i < 2; i++) await w.lifecycle(agent, human, 'ListUsers', {});
  await w.lifecycle(agent, human, 'CreateGroup', { group: 'auditors' });
  pubText = readFileSync(w.d.files.publicKey, 'utf8');
  dir = tempDir('airlock-anyone-');
  chmodSync(dir, 0o1777); // olga writes her files here (sticky, as /tmp: the CLI refuses a folder anyone can swap names in)
});
after(async () => {
  await w?.close();
  if (dir) removeTree(dir);
});

/** `airlock ARGS` as this Unix user (null: root), no terminal; `env` adds to a minimal environment. */
function cliAs(who: UnixIdentity | null, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const node = [process.execPath, '--import', import.meta.resolve('tsx'), CLI, ...args];
  const argv = who ? ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', ...node] : node;
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', AIRLOCK_SOCKET: w.d.socket, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}
const asOlga = (args: string[], env?: Record<string, string>) => cliAs(olga.identity, args, env);
const logNow = () => [...readSqliteLog(w.d.files.db)];
/** A copy of the daemon's checkpoint file that olga can read (she is given it, as from syslog). */
function checkpointCopy(name: string): string {
  const p = join(dir, name);
  copyFileSync(w.d.files.checkpoints, p);
  chmodSync(p, 0o644);
  return p;
}
const NO_DAEMON = { AIRLOCK_SOCKET: '/nonexistent/airlock.sock' };

describe('the public key file', () => {
  test('audit pubkey --out writes the key file and its key id; the same key again is fine, another is refused without --force', async () => {
    const out = join(dir, 'audit.pub');
    const r = await asOlga(['audit', 'pubkey', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), pubText, 'the daemon key, in the format verify reads');
    const keyId = JSON.parse(logNow()[0]!.body).key_id as string;
    assert.match(r.stdout, new RegExp(`wrote ${out}: the audit public key of key id ${keyId}`));
    assert.match(r.stdout, /compare the key id/);
    const again = await asOlga(['audit', 'pubkey', '--out', out]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already holds/);

    const other = join(dir, 'other.pub');
    writeFileSync(other, formatPublicKey(signingKeyFromSeed(Buffer.alloc(32, 7)).publicRaw));
    chownSync(other, olga.identity.uid, olga.identity.gid); // her own older file (the folder is sticky: only she may replace it)
    const refused = await asOlga(['audit', 'pubkey', '--out', other]);
    assert.equal(refused.code, 6, 'conflict');
    assert.match(refused.stderr, /holds another key \(key id [0-9a-f]{16}\), not this log's/);
    assert.notEqual(readFileSync(other, 'utf8'), pubText, 'left as it was');
    const forced = await asOlga(['audit', 'pubkey', '--out', other, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(other, 'utf8'), pubText);
  });
});

describe('verify through the daemon', () => {
  test('as an observer, with no --db: intact, every entry, against an independent checkpoint copy', async () => {
    const cps = checkpointCopy('cps-daemon.log');
    const r = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--checkpoints', cps, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'intact');
    assert.equal(rep.entries, logNow().length);
    assert.ok(rep.entries > 10);
    assert.equal(rep.source, `the daemon at ${w.d.socket}`);
    assert.ok(rep.checkpoint && rep.checkpoint.size <= rep.entries);
    const human = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--checkpoints', cps]);
    assert.equal(human.code, 0, human.stdout + human.stderr);
    assert.match(human.stdout, /^intact {2}\d+ entries from the daemon at .*consistent with the checkpoint of/);
    // This sandbox's daemon keeps its file elsewhere (--log-dir), not at the default path: with no --checkpoints
    // the host's record is that file, the daemon's own, read by this process, never a default path that is missing.
    const own = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--json']);
    assert.equal(own.code, 0, own.stdout + own.stderr);
    const ownRep = JSON.parse(own.stdout) as { status: string; warnings: string[] };
    assert.equal(ownRep.status, 'intact');
    assert.ok(!ownRep.warnings.some((x) => /came from the daemon at .* alone/.test(x)), ownRep.warnings.join('\n'));
    // A file named that is gone leaves only the daemon's word: cannot verify, never intact with a warning.
    const alone = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--checkpoints', join(dir, 'gone.log')]);
    assert.equal(alone.code, 2, alone.stdout + alone.stderr);
    assert.match(alone.stdout, /^CANNOT VERIFY {2}the checkpoint file .*gone\.log does not exist/);
    assert.match(alone.stdout, /the checkpoints came from the daemon at .* alone/);
  });

  // The source is the client side of the socket: a daemon that lies is a source that lies.
  const honest = async (): Promise<{ cl: AirlockClient; src: AuditSource; rows: LogRow[]; cps: string }> => {
    const cl = await AirlockClient.connect(w.d.socket);
    const src = daemonSource(cl, w.d.socket);
    const rows: LogRow[] = [];
    for await (const r of src.entries()) rows.push(r);
    const [cp] = await src.checkpoints();
    return { cl, src, rows, cps: cp!.text };
  };
  const sizeOf = (line: string) => Number(line.split(' ')[2]);

  test('a daemon that leaves out its last entries is broken: its own checkpoints cover them', async () => {
    const { cl, rows, cps } = await honest();
    try {
      const pub = parsePublicKey(pubText);
      const dropTail: AuditSource = { name: 'a daemon that drops its tail', checkpoints: async () => [{ from: 'its checkpoints', text: cps }], entries: () => rows.slice(0, -2) };
      const r = await verifySource(dropTail, pub, { workers: 1 });
      assert.equal(r.status, 'broken');
      assert.equal(r.first_broken!.seq, rows.length - 1);
      assert.match(r.first_broken!.reason, /tail was cut/);
      // The same rows, all of them: intact (so what broke it above was the drop).
      assert.equal((await verifySource({ ...dropTail, entries: () => rows }, pub, { workers: 1 })).status, 'intact');
    } finally {
      cl.close();
    }
  });

  test('a daemon that leaves out its tail and the checkpoints that cover it is caught by an independent checkpoint file, and said to be unchecked without one', async () => {
    const { cl, rows, cps } = await honest();
    try {
      const pub = parsePublicKey(pubText);
      const kept = rows.length - 2;
      const lines = cps.split('\n').filter((l) => l.startsWith('airlock-checkpoint '));
      const covering = lines.filter((l) => sizeOf(l) <= kept);
      assert.ok(covering.length < lines.length, 'some checkpoints are dropped');
      const liar: AuditSource = { name: 'a daemon that drops its tail and checkpoints', checkpoints: async () => [{ from: 'its checkpoints', text: covering.join('\n') }], entries: () => rows.slice(0, kept) };
      const alone = await verifySource(liar, pub, { workers: 1 });
      assert.equal(alone.status, 'intact', 'consistent with what it chose to show');
      assert.ok(alone.warnings.some((x) => /alone: a source that cut the log's tail could leave out the checkpoints/.test(x)), alone.warnings.join('\n'));
      const withFile = await verifySource(liar, pub, { workers: 1, checkpointFiles: [{ path: w.d.files.checkpoints, named: true }] });
      assert.equal(withFile.status, 'broken');
      assert.equal(withFile.first_broken!.seq, kept + 1);
      assert.match(withFile.first_broken!.reason, /tail was cut/);
    } finally {
      cl.close();
    }
  });
});

describe('export to one file', () => {
  let bundle: string;
  let total: number;
  before(async () => {
    bundle = join(dir, 'airlock-audit.jsonl');
    // Heads are published a moment after the entries they cover: wait for one that covers the whole log.
    const latestHead = () => {
      const heads = readFileSync(w.d.files.checkpoints, 'utf8').split('\n').filter((l) => l.startsWith('airlock-tree-head '));
      return heads.length ? Number(Buffer.from(heads.at(-1)!.slice('airlock-tree-head '.length), 'base64').toString('utf8').split('\n')[1]) : 0;
    };
    for (let i = 0; i < 100 && latestHead() < logNow().length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(latestHead(), logNow().length, 'a tree head covers the whole log');
    const r = await asOlga(['audit', 'export', '--out', bundle]);
    assert.equal(r.code, 0, r.stderr);
    total = readFileSync(bundle, 'utf8').split('\n').filter((l) => l.includes('"type":"entry"')).length;
    assert.match(r.stdout, new RegExp(`wrote ${bundle}: ${total} entries, \\d+ signed tree heads( and \\d+ older checkpoints)? from the daemon at`));
  });
  const lines = () => readFileSync(bundle, 'utf8').trimEnd().split('\n');
  const variant = (name: string, edit: (ls: string[]) => string[]) => {
    const p = join(dir, name);
    writeFileSync(p, edit(lines()).join('\n') + '\n', { mode: 0o644 });
    return p;
  };
  const verifyBundle = (p: string, json = true) => asOlga(['audit', 'verify', '--bundle', p, '--pubkey', join(dir, 'audit.pub'), ...(json ? ['--json'] : [])], NO_DAEMON);

  test('the export is one file of the signed entries and checkpoints, refused over an existing file', async () => {
    const ls = lines().map((l) => JSON.parse(l));
    assert.equal(ls[0].type, 'airlock-audit-bundle');
    assert.equal(ls[0].version, 3);
    assert.equal(ls[0].public_key, pubText.trim());
    const count = (type: string) => ls.filter((x) => x.type === type).length;
    assert.ok(count('tree_head') > 0, 'the signed tree heads are in it');
    assert.deepEqual(ls.filter((x) => x.type === 'public_key').map((x) => x.key), [pubText.trim()]);
    assert.deepEqual(ls.at(-1), { type: 'end', checkpoints: count('checkpoint'), tree_heads: count('tree_head'), public_keys: 1, entries: total });
    const stored = logNow().slice(0, total);
    assert.deepEqual(ls.filter((x) => x.type === 'entry').map(({ seq, body, sig }) => ({ seq, body, sig })), stored, 'byte for byte what the store holds');
    const again = await asOlga(['audit', 'export', '--out', bundle]);
    assert.equal(again.code, 6);
    assert.match(again.stderr, /exists/);
  });

  test('verified on its own, with no daemon to ask: intact', async () => {
    const r = await verifyBundle(bundle);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'intact');
    assert.equal(rep.entries, total);
    assert.equal(rep.checkpoint.kind, 'tree_head');
    assert.equal(rep.checkpoint.size, total, 'its tree heads cover the whole export');
    assert.equal(rep.source, `bundle ${bundle}`);
  });

  test('root exports from the database itself (--db, with the checkpoint file); the bundle verifies the same', async () => {
    const fromDb = join(dir, 'from-db.jsonl');
    const r = await cliAs(null, ['audit', 'export', '--db', w.d.files.db, '--checkpoints', w.d.files.checkpoints, '--out', fromDb, '--json'], NO_DAEMON);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const wrote = JSON.parse(r.stdout);
    assert.equal(wrote.source, `database ${w.d.files.db}`);
    assert.equal(wrote.entries, logNow().length);
    chmodSync(fromDb, 0o644);
    const v = await verifyBundle(fromDb);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.deepEqual([JSON.parse(v.stdout).status, JSON.parse(v.stdout).entries], ['intact', wrote.entries]);
    assert.equal(JSON.parse(readFileSync(fromDb, 'utf8').split('\n')[0]!).public_key, pubText.trim(), 'the key beside the database, for people');
  });

  test('a tampered entry is broken, and the entry is named', async () => {
    let seq = 0;
    const p = variant('tampered.jsonl', (ls) =>
      ls.map((l) => {
        const r = JSON.parse(l);
        if (seq === 0 && r.type === 'entry' && r.body.includes('"kind":"outcome"')) {
          seq = r.seq;
          return JSON.stringify({ ...r, body: r.body.replace('"state":"Succeeded"', '"state":"Failed"') });
        }
        return l;
      }),
    );
    assert.ok(seq > 0);
    const r = await verifyBundle(p);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(JSON.parse(r.stdout).first_broken.seq, seq);
    assert.match(JSON.parse(r.stdout).first_broken.reason, /signature does not verify/);
    const human = await verifyBundle(p, false);
    assert.equal(human.code, 1);
    assert.match(human.stdout, new RegExp(`^BROKEN {2}first broken entry: #${seq}: signature does not verify`));
  });

  test('a bundle whose last entries were removed (end record adjusted) is broken by its checkpoints; one cut short cannot be verified', async () => {
    const cut = variant('cut.jsonl', (ls) => {
      const kept = ls.slice(0, -3); // the end record and the last two entries
      const n = (type: string) => kept.filter((l) => l.includes(`"type":"${type}"`)).length;
      return [...kept, JSON.stringify({ type: 'end', checkpoints: n('checkpoint'), tree_heads: n('tree_head'), public_keys: n('public_key'), entries: total - 2 })];
    });
    const r = await verifyBundle(cut);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(JSON.parse(r.stdout).first_broken.seq, total - 1);
    assert.match(JSON.parse(r.stdout).first_broken.reason, /tail was cut/);
    const short = await verifyBundle(variant('short.jsonl', (ls) => ls.slice(0, -1)));
    assert.equal(short.code, 2, short.stdout);
    assert.match(short.stdout, /bad_bundle.*ends before its end record: the file is incomplete/s);
  });
});

describe('a database on the command line', () => {
  test('a database this account cannot read says permission denied, and how to verify instead', async () => {
    const pub = join(dir, 'audit.pub');
    const r = await asOlga(['audit', 'verify', '--pubkey', pub, '--db', w.d.files.db]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(`permission denied: ${w.d.files.db} (only root can read it; run \`airlock audit verify --pubkey ${pub}\` to verify through the daemon, or sudo)`), r.stderr);
    assert.doesNotMatch(r.stderr, /no database/);
  });

  test('a copy of the live database without its -wal file is not the whole log: broken, and the missing -wal is named', async () => {
    const copy = join(dir, 'copy.db');
    copyFileSync(w.d.files.db, copy);
    chmodSync(copy, 0o644);
    const cps = checkpointCopy('cps-wal.log');
    const inCopy = [...readSqliteLog(copy)].length;
    assert.ok(inCopy < logNow().length, `the live log's latest entries are in its -wal file (${inCopy} in the copy)`);
    const r = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--db', copy, '--checkpoints', cps, '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.status, 'broken');
    assert.equal(rep.entries, inCopy);
    assert.match(rep.first_broken.reason, /tail was cut, or copy\.db may be a copy made without its copy\.db-wal \((there is none beside it|the one beside it is empty)\).*copy both files, or write one file with `airlock audit export --out FILE`/);
    // With no checkpoint to compare with, nothing can say the log is short: cannot verify, and the likely cause is named.
    const blind = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--db', copy, '--checkpoints', join(dir, 'none.log'), '--json']);
    assert.equal(blind.code, 2, blind.stdout + blind.stderr);
    assert.equal(JSON.parse(blind.stdout).status, 'cannot_verify');
    assert.match(JSON.parse(blind.stdout).reason, /copy\.db may be a copy made without its copy\.db-wal/, blind.stdout);
  });

  test('with its -wal file the copy is intact; a -wal file this account cannot read is permission denied', async () => {
    const copy = join(dir, 'both.db');
    copyFileSync(w.d.files.db, copy);
    copyFileSync(`${w.d.files.db}-wal`, `${copy}-wal`);
    chmodSync(copy, 0o644);
    chmodSync(`${copy}-wal`, 0o644);
    const cps = checkpointCopy('cps-both.log');
    const ok = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--db', copy, '--checkpoints', cps, '--json']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(JSON.parse(ok.stdout).status, 'intact');
    chmodSync(`${copy}-wal`, 0o600);
    const denied = await asOlga(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--db', copy, '--checkpoints', cps]);
    assert.equal(denied.code, 2, denied.stdout + denied.stderr);
    assert.match(denied.stderr, new RegExp(`permission denied: ${copy}-wal, which holds the latest entries of ${copy}`));
  });
});
