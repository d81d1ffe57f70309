/**
 * `airlock witness serve` as a real process on a real port (and over real TLS), fed by a log
 * simulated here: tree heads signed with a test key, consistency proofs from merkle.ts over an
 * in-memory node map. The witness cosigns a log that grows, and refuses, without cosigning,
 * every head that does not extend the last one it cosigned, across restarts too.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { cosignatureValid, formatVkey, parseVkey, signTreeHead, SIG_COSIGNATURE_V1 } from '../../src/audit/note.js';
import { consistencyProof, leafHash, MerkleFrontier, rootAt, type NodeReader } from '../../src/audit/merkle.js';
import { submitToWitness, type WitnessResult } from '../../src/witness/client.js';
import { airlock, CLI } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-witness-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const origin = 'host-a.example/airlock/0123456789abcdef';
const logKey = signingKeyFromSeed(Buffer.alloc(32, 11));
const rogueKey = signingKeyFromSeed(Buffer.alloc(32, 12));
const witnessName = 'witness.example/w1';
const keyFile = join(dir, 'witness.key');
const configFile = join(dir, 'witness.toml');
const stateFile = join(dir, 'state.json');
writeFileSync(configFile, `name = "${witnessName}"\n[[log]]\norigin = "${origin}"\nkey = "${formatVkey(origin, logKey.publicRaw)}"\n`);

/** A log kept in memory: its leaves' complete-subtree nodes, as a store keeps them. */
class SimLog {
  private readonly nodes = new Map<string, Buffer>();
  private readonly frontier = MerkleFrontier.empty();
  constructor(private readonly tag: string) {}
  readonly read: NodeReader = async (ids) =>
    ids.map(({ level, index }) => {
      const h = this.nodes.get(`${level}/${index}`);
      if (!h) throw new Error(`node ${level}/${index} missing`);
      return h;
    });
  grow(to: number): void {
    while (this.frontier.size < to) for (const n of this.frontier.append(leafHash(`${this.tag} entry ${this.frontier.size}`))) this.nodes.set(`${n.level}/${n.index}`, n.hash);
  }
  async head(size: number, key = logKey): Promise<string> {
    return signTreeHead(key, origin, size, await rootAt(size, this.read), new Date());
  }
  proof(from: number, to: number): Promise<Buffer[]> {
    return consistencyProof(from, to, this.read);
  }
}

const log = new SimLog('real');
log.grow(40);
const fork = new SimLog('fork'); // same origin, same key, another history: the attack a witness exists for
fork.grow(40);

let child: ChildProcess | null = null;
let url = '';

async function startWitness(extra: string[] = []): Promise<void> {
  const p = spawn(process.execPath, ['--import', 'tsx', CLI, 'witness', 'serve', '--config', configFile, '--key', keyFile, '--state', stateFile, '--listen', '127.0.0.1:0', '--json', ...extra], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = p;
  let out = '';
  let err = '';
  p.stderr!.on('data', (d) => (err += d));
  url = await new Promise<string>((resolve, reject) => {
    p.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve((JSON.parse(out.slice(0, nl)) as { listening: string }).listening);
    });
    p.on('exit', (code) => reject(new Error(`witness exited ${code}: ${err}`)));
  });
}

async function stopWitness(): Promise<void> {
  const p = child!;
  child = null;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}
after(async () => {
  if (child) await stopWitness();
});

const submit = (note: string, old: number, proof: Buffer[] = [], ca?: string): Promise<WitnessResult> => submitToWitness(url, note, old, proof, { timeoutMs: 5000, ...(ca ? { ca } : {}) });

let witnessVkey = '';
function cosignedBy(note: string, r: WitnessResult): boolean {
  assert.ok('cosignatureLines' in r, `not cosigned: ${JSON.stringify(r)}`);
  const vk = parseVkey(witnessVkey, [SIG_COSIGNATURE_V1]);
  return cosignatureValid(note + r.cosignatureLines.join(''), vk.name, vk.publicRaw) !== null;
}

/** A raw POST, for what the client would never send. */
function rawPost(body: Buffer | string, headers: Record<string, string | number> = {}, chunked = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('add-checkpoint', url), { method: 'POST', headers }, (res) => {
      let b = '';
      res.on('data', (d) => (b += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    if (chunked) {
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      let sent = 0;
      const more = () => {
        while (sent < 40) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', more);
        }
        req.end();
      };
      more();
    } else req.end(body);
  });
}

test('the witness key: created once, printed as a cosignature vkey (type 0x04)', async () => {
  const r = await airlock(['witness', 'key', '--key', keyFile, '--config', configFile, '--create-key', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { name: string; vkey: string };
  assert.equal(j.name, witnessName);
  assert.equal(parseVkey(j.vkey).type, SIG_COSIGNATURE_V1);
  witnessVkey = j.vkey;
  const again = await airlock(['witness', 'key', '--key', keyFile, '--name', witnessName]);
  assert.equal(again.stdout, `${witnessVkey}\n`, 'the same key the second time');
  const missing = await airlock(['witness', 'key', '--key', join(dir, 'nope'), '--name', witnessName]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /--create-key/);
});

test('a log that grows is cosigned at each step, with the consistency proof from the last cosigned size', async () => {
  await startWitness();
  const h3 = await log.head(3);
  const r3 = await submit(h3, 0);
  assert.ok(cosignedBy(h3, r3));
  const h10 = await log.head(10);
  const r10 = await submit(h10, 3, await log.proof(3, 10));
  assert.ok(cosignedBy(h10, r10));
  // The same head again is fine (same size, same root): cosigned anew.
  assert.ok(cosignedBy(h10, await submit(h10, 10)));
  // Monitors read the last cosigned head, with the witness's cosignature on it.
  const got = await new Promise<string>((resolve) => request(new URL(`${createHash('sha256').update(origin).digest('hex')}/checkpoint`, url), (res) => {
    let b = '';
    res.on('data', (d) => (b += d));
    res.on('end', () => resolve(b));
  }).end());
  assert.ok(got.startsWith(h10.split('\n\n')[0]!));
  const vk = parseVkey(witnessVkey);
  assert.ok(cosignatureValid(got, vk.name, vk.publicRaw));
});

test('a stale old size is 409 with the size the witness has; so is a head smaller than it', async () => {
  assert.deepEqual(await submit(await log.head(12), 3, await log.proof(3, 12)), { conflict: 10 });
  assert.deepEqual(await submit(await log.head(12), 0), { conflict: 10 });
  assert.deepEqual(await submit(await log.head(5), 5), { conflict: 10 });
  // old larger than the checkpoint's own size is malformed.
  const r = await submit(await log.head(5), 10);
  assert.equal((r as { refused: number }).refused, 400);
});

test('forks are refused and never cosigned: same size other root, a proof from another history, a tampered proof', async () => {
  const same = await submit(await fork.head(10), 10);
  assert.equal((same as { refused: number }).refused, 422, JSON.stringify(same));
  const forked = await submit(await fork.head(20), 10, await fork.proof(10, 20));
  assert.equal((forked as { refused: number }).refused, 422, JSON.stringify(forked));
  const proof = await log.proof(10, 20);
  proof[0] = Buffer.from(proof[0]!);
  proof[0][0]! ^= 1;
  assert.equal(((await submit(await log.head(20), 10, proof)) as { refused: number }).refused, 422);
  assert.equal(((await submit(await log.head(20), 10, (await log.proof(10, 20)).slice(1))) as { refused: number }).refused, 422);
  assert.equal(((await submit(await log.head(20), 10, [])) as { refused: number }).refused, 422);
  // After all that the witness still stands at 10, and the real log still advances.
  assert.deepEqual(await submit(await log.head(20), 0), { conflict: 10 });
});

test('unknown log 404, bad or missing log signature 403, malformed 400, oversized 413', async () => {
  const other = (await log.head(3)).replaceAll(origin, 'other.example/log');
  assert.equal(((await submit(other, 0)) as { refused: number }).refused, 404);
  assert.equal(((await submit(await log.head(20, rogueKey), 10, await log.proof(10, 20))) as { refused: number }).refused, 403);
  const h = await log.head(20);
  const tampered = h.replace(/\n20\n/, '\n21\n');
  assert.equal(((await submit(tampered, 10, await log.proof(10, 20))) as { refused: number }).refused, 403);
  assert.equal((await rawPost('old 10\n')).status, 400);
  assert.equal((await rawPost(`old 010\n\n${h}`)).status, 400);
  assert.equal((await rawPost(`old 10\nnot base64\n\n${h}`)).status, 400);
  assert.equal((await rawPost(`old 10\n${'AAAA\n'.repeat(64)}\n${h}`)).status, 400);
  assert.equal((await rawPost(Buffer.concat([Buffer.from('old 10\n\n'), Buffer.from([0xff]), Buffer.from(h)]))).status, 400);
  const big = await rawPost(Buffer.alloc(2 * 1024 * 1024, 0x41));
  assert.equal(big.status, 413);
  const streamed = await rawPost('', { 'transfer-encoding': 'chunked' }, true);
  assert.equal(streamed.status, 413);
  // None of it moved the witness.
  assert.deepEqual(await submit(h, 0), { conflict: 10 });
});

test('concurrent submissions from one size: exactly one is cosigned, the other is told the new size (no rollback race)', async () => {
  const [a, b] = await Promise.all([submit(await log.head(15), 10, await log.proof(10, 15)), submit(await log.head(17), 10, await log.proof(10, 17))]);
  const won = [a, b].filter((r) => 'cosignatureLines' in r);
  assert.equal(won.length, 1, JSON.stringify([a, b]));
  const lost = [a, b].find((r) => !('cosignatureLines' in r));
  assert.deepEqual(lost, { conflict: 'cosignatureLines' in a ? 15 : 17 });
});

test('connections are bounded: idle ones past the bound are dropped, and cut after the header deadline', async () => {
  const { port } = new URL(url);
  const idle = await Promise.all(
    Array.from({ length: 270 }, () => new Promise<Socket>((resolve) => {
      const s = connect(Number(port), '127.0.0.1', () => resolve(s));
      s.on('error', () => undefined);
    })),
  );
  // And one that sends half a header, then a byte every second: cut by the header deadline too.
  const drip = connect(Number(port), '127.0.0.1', () => drip.write('POST /add-checkpoint HTTP/1.1\r\nHost: x\r\n'));
  drip.on('error', () => undefined);
  const dripper = setInterval(() => drip.writable && drip.write('X'), 1000);
  const dripClosed = new Promise<number>((r) => drip.once('close', () => r(Date.now())));
  const start = Date.now();
  await new Promise((r) => setTimeout(r, 300));
  const dropped = idle.filter((s) => s.destroyed || s.readableEnded).length;
  assert.ok(dropped >= 270 - 256, `over the bound of 256, new connections are dropped at once (${dropped} were)`);
  // Nobody sends a header: within the 5 s header deadline (checked each second) they are cut.
  const t0 = Date.now();
  await Promise.all(idle.map((s) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())))));
  assert.ok(Date.now() - t0 < 8000, 'cut within the header deadline');
  const dripAt = await dripClosed;
  clearInterval(dripper);
  assert.ok(dripAt - start < 8000, `a header sent a byte a second is cut (after ${dripAt - start} ms)`);
  const after = await submit(await log.head(17), 0);
  assert.ok('conflict' in after, `answered again once they are gone: ${JSON.stringify(after)}`);
});

test('a restart keeps the state: old size 0 is a conflict, a fork is still refused, the log goes on', async () => {
  const before = JSON.parse(readFileSync(stateFile, 'utf8')) as { logs: Record<string, { size: number }> };
  const size = before.logs[origin]!.size;
  await stopWitness();
  await startWitness();
  assert.deepEqual(await submit(await log.head(30), 0), { conflict: size });
  assert.equal(((await submit(await fork.head(size), size)) as { refused: number }).refused, 422);
  const h = await log.head(30);
  assert.ok(cosignedBy(h, await submit(h, size, await log.proof(size, 30))));
  await stopWitness();
});

test('a corrupt state file stops the witness from starting instead of forgetting', async () => {
  const saved = readFileSync(stateFile);
  writeFileSync(stateFile, '{"version":1,"logs":{"x":{"size":"nope"}}}');
  const r = await airlock(['witness', 'serve', '--config', configFile, '--key', keyFile, '--state', stateFile, '--listen', '127.0.0.1:0'], { timeoutMs: 20_000 });
  assert.equal(r.code, 9, r.stderr);
  assert.match(r.stderr, /corrupt/);
  writeFileSync(stateFile, saved);
});

test('over TLS, with a certificate made by openssl here, a client that trusts its CA gets the cosignature', async () => {
  const key = join(dir, 'tls.key');
  const cert = join(dir, 'tls.crt');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  assert.ok(existsSync(cert));
  await startWitness(['--cert', cert, '--tls-key', key]);
  assert.match(url, /^https:\/\//);
  const h = await log.head(33);
  assert.ok(cosignedBy(h, await submit(h, 30, await log.proof(30, 33), readFileSync(cert, 'utf8'))));
  // Without the CA the client refuses the connection: nothing is sent in clear or to an impostor.
  const untrusted = await submitToWitness(url, h, 33, [], { timeoutMs: 5000 });
  assert.equal((untrusted as { refused: number }).refused, 0);
  await stopWitness();
});
