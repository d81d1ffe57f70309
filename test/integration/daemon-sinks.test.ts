/**
 * The real daemon with an [audit] section naming every remote sink: a TCP syslog
 * collector, a witness (in this process, on a real port) and a PostgreSQL schema. The
 * head it signs at start reaches each of them, the same signed note everywhere; the
 * witness's cosignature lands in the checkpoint file; and the log verifies after a stop.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { checkpointOrigin } from '../../src/audit/checkpoint.js';
import { cosignatureValid, formatVkey, formatWitnessVkey, parseTreeHead, readTreeHeadLines } from '../../src/audit/note.js';
import { parseWitnessConfig } from '../../src/witness/config.js';
import { WitnessState } from '../../src/witness/state.js';
import { OriginLocks } from '../../src/witness/add-checkpoint.js';
import { createWitnessServer } from '../../src/witness/server.js';
import { Collector } from '../support/syslog-collector.js';
import { airlock, DAEMON } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-dsinks-'));
const PG = 'postgres://root@127.0.0.1:5432/test';
const schema = `airlock_dsinks_${process.pid}`;
after(() => {
  // The daemon made its checkpoint file append-only (chattr +a) where the filesystem allows it.
  spawnSync('/usr/bin/chattr', ['-a', '--', join(dir, 'log', 'checkpoints.log')]);
  rmSync(dir, { recursive: true, force: true });
});

test('the daemon sends its tree heads to the file, syslog, a witness and PostgreSQL; the log verifies', async () => {
  const state = join(dir, 'state');
  const logDir = join(dir, 'log');
  mkdirSync(state, { mode: 0o700 });
  // The audit key made here, so the witness can be told the log's origin and key beforehand.
  const seed = Buffer.alloc(32, 5);
  writeFileSync(join(state, 'audit.key'), seed, { mode: 0o600 });
  const key = signingKeyFromSeed(seed);
  const origin = checkpointOrigin(hostname(), key.keyId);

  const collector = new Collector();
  await collector.start();
  const witnessKey = signingKeyFromSeed(Buffer.alloc(32, 6));
  const witness = createWitnessServer({
    config: parseWitnessConfig(`name = "witness.test"\n[[log]]\norigin = "${origin}"\nkey = "${formatVkey(origin, key.publicRaw)}"\n`),
    key: witnessKey,
    state: WitnessState.load(join(dir, 'witness-state.json')),
    locks: new OriginLocks(),
  });
  await new Promise<void>((r) => witness.listen(0, '127.0.0.1', () => r()));
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const policy = join(dir, 'policy.toml');
  writeFileSync(
    policy,
    `[audit]\ncheckpoint_interval_seconds = 1\nsyslog = "tcp://127.0.0.1:${collector.port}"\n` +
      `witnesses = [{ url = "http://127.0.0.1:${(witness.address() as AddressInfo).port}/", key = "${formatWitnessVkey('witness.test', witnessKey.publicRaw)}" }]\n` +
      `postgres = "${PG}?options=-c%20search_path%3D${schema}"\n`,
  );
  chmodSync(policy, 0o644);

  const start = () => {
    const p = spawn(process.execPath, ['--import', 'tsx', DAEMON, 'daemon', '--socket', join(dir, 's.sock'), '--state-dir', state, '--log-dir', logDir, '--no-syslog', '--policy', policy, '--tokens', join(dir, 'none.toml'), '--checkpoint-interval', '50'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const out = { p, err: '' };
    p.stderr!.on('data', (d) => (out.err += d));
    return out;
  };
  const stop = async (d: ReturnType<typeof start>) => {
    d.p.kill('SIGTERM');
    await new Promise((r) => (d.p.exitCode !== null ? r(null) : d.p.once('exit', r)));
    assert.equal(d.p.exitCode, 0, d.err);
  };
  let d = start();
  const file = join(logDir, 'checkpoints.log');
  const notes = () => readTreeHeadLines(readFileSync(file, 'utf8')).flatMap((l) => ('note' in l ? [l.note] : []));
  const cosignedNotes = () => notes().filter((n) => cosignatureValid(n, 'witness.test', witnessKey.publicRaw));
  const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
    const end = Date.now() + 30_000;
    while (!(await ok())) {
      assert.ok(d.p.exitCode === null, `the daemon exited: ${d.err}`);
      assert.ok(Date.now() < end, `timed out waiting for ${what}: ${d.err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await until('the daemon to listen', () => /listening/.test(d.err));
    // The start entry is urgent: its head goes out within the coalescing window.
    const [frame] = await collector.waitFrames(1, 30_000);
    const m = /^<37>1 \S+ \S+ airlock \d+ tree-head - airlock-tree-head (\S+)$/.exec(frame!);
    assert.ok(m, frame);
    const note = Buffer.from(m[1]!, 'base64').toString('utf8');
    const head = parseTreeHead(note, [key.publicRaw], origin);
    assert.ok(typeof head !== 'string', String(head));
    assert.ok(head.size >= 1);

    // The sink creates the table with its first head: until then there is nothing to read.
    const rows = async () => ((await admin.query(`SELECT to_regclass('${schema}.airlock_tree_heads') AS t`)).rows[0].t ? (await admin.query(`SELECT origin, size::int AS size, root, note FROM ${schema}.airlock_tree_heads ORDER BY size`)).rows : []);
    await until('the row in PostgreSQL', async () => (await rows()).length > 0);
    assert.deepEqual((await rows())[0], { origin, size: head.size, root: head.root.toString('hex'), note });

    await until('the cosigned head in the checkpoint file', () => notes().some((n) => n !== note && n.startsWith(note)));
    const cosigned = notes().find((n) => n.startsWith(note) && n !== note)!;
    assert.ok(cosignatureValid(cosigned, 'witness.test', witnessKey.publicRaw), 'the witness cosignature verifies');
    assert.match(readFileSync(file, 'utf8'), /^airlock-checkpoint /m, 'the chain checkpoint line is still written');

    // A restart: the daemon no longer knows what the witness cosigned; the witness's 409 says
    // size 1, and the head of the longer log is cosigned with a proof from the store's nodes.
    await stop(d);
    d = start();
    await until('a cosigned head of the longer log', () => cosignedNotes().some((n) => (parseTreeHead(n, [key.publicRaw], origin) as { size: number }).size > head.size));
    await stop(d);
  } finally {
    d.p.kill('SIGKILL');
    await collector.stop();
    await new Promise((r) => witness.close(r));
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  const v = await airlock(['audit', 'verify', '--pubkey', join(state, 'audit.pub'), '--db', join(state, 'airlock.db'), '--checkpoints', join(logDir, 'checkpoints.log'), '--witness', formatWitnessVkey('witness.test', witnessKey.publicRaw), '--json']);
  assert.equal(v.code, 0, v.stdout + v.stderr);
  // The cosigned head the daemon appended to its file is the witness's evidence for `audit verify`.
  const rep = JSON.parse(v.stdout) as { status: string; witnessed: { size: number; witnesses: string[] } | null };
  assert.equal(rep.status, 'intact');
  assert.ok(rep.witnessed && rep.witnessed.size >= 2 && rep.witnessed.witnesses.includes('witness.test'), v.stdout);
});

test('a syslog CA file the daemon cannot read stops the start (fail closed), saying which', async () => {
  const d = join(dir, 'ca-missing');
  mkdirSync(d, { mode: 0o700 });
  const policy = join(d, 'policy.toml');
  writeFileSync(policy, `[audit]\nsyslog = "tls://127.0.0.1:6514"\nsyslog_ca = "${join(d, 'no-such-ca.pem')}"\n`);
  chmodSync(policy, 0o644);
  const r = await airlock(['--socket', join(d, 's.sock'), '--state-dir', join(d, 'state'), '--log-dir', join(d, 'log'), '--no-syslog', '--policy', policy, '--tokens', join(d, 'none.toml')], { entry: DAEMON, timeoutMs: 20_000 });
  assert.equal(r.code, 9, r.stderr);
  assert.match(r.stderr, /cannot read \[audit\] syslog_ca .*no-such-ca\.pem.*ENOENT/);
  spawnSync('/usr/bin/chattr', ['-a', '--', join(d, 'log', 'checkpoints.log')]);
});
