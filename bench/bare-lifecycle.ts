/**
 * The bare lifecycle: what the best daemon could reach on this machine with the bench's own
 * shape (an agent process timing preview -> approve -> execute, an approver process it asks
 * over a socket, three round trips over Unix sockets in the protocol's frames) when the daemon
 * does the limit's work and nothing else: 6 Ed25519 signs, 1 verify, 4 one-row SQLite write
 * transactions (WAL, synchronous=FULL, on its one thread, no group commit), 11 SHA-256, and the
 * two /proc reads of the Uptime action. No validation, policy, masking, preview, Merkle tree or
 * log encoding: a stand-in, never the product.
 *
 * Printed beside the lifecycle, so its targets can be read against what the shape itself costs:
 * the lifecycle's ratios are the limit's work over the daemon's time; the bare lifecycle's are
 * that work over the time of the work plus the transport, the processes' wake-ups and the disk.
 *
 * Run as `node --import tsx bench/bare-lifecycle.ts daemon|approver DIR` by bareLifecycleBench itself (one
 * process for each role); nothing else starts it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { encodeFrame, FrameReader } from '../src/protocol/framing.js';
import { C1_COUNT, C16_COUNT, CONCURRENCY, WARMUP_COUNT } from './lifecycle.js';
import { pct, progress } from './measure.js';

export interface BareLifecycle {
  c1P50: number;
  c1P99: number;
  c16Throughput: number;
}

type Message = { id: number; method?: string; [k: string]: unknown };
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Frames read from `sock`, each handed to `on`; returns the function that writes one. */
function framed(sock: net.Socket, on: (m: Message) => void): (m: Message) => void {
  const reader = new FrameReader();
  sock.on('data', (chunk) => {
    reader.append(chunk);
    while (reader.state() === 'ready') on(JSON.parse(reader.next()!.toString('utf8')) as Message);
  });
  return (m) => void sock.write(encodeFrame(m));
}

/** A connection whose calls are answered by id, pipelined. */
async function connect(path: string) {
  const sock = net.createConnection(path);
  await new Promise((resolve, reject) => (sock.once('connect', resolve), sock.once('error', reject)));
  const waiting = new Map<number, (m: Message) => void>();
  const send = framed(sock, (m) => {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  let n = 0;
  return {
    call: (method: string, params: Record<string, unknown>) =>
      new Promise<Message>((resolve) => {
        const id = ++n;
        waiting.set(id, resolve);
        send({ id, method, ...params });
      }),
    close: () => sock.destroy(),
  };
}

/** The stand-in daemon: the limit's work per verb, a reply per request. */
function standInDaemon(dir: string): void {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const db = new Database(join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE log (seq INTEGER PRIMARY KEY, body TEXT, sig TEXT, hash TEXT); CREATE TABLE tx (id TEXT PRIMARY KEY, state TEXT, preview TEXT)');
  const insertEntry = db.prepare('INSERT INTO log (body, sig, hash) VALUES (?, ?, ?)');
  const insertTx = db.prepare('INSERT INTO tx (id, state, preview) VALUES (?, ?, ?)');
  const setState = db.prepare('UPDATE tx SET state = ? WHERE id = ?');
  // An entry the size of the daemon's (about 750 bytes).
  const body = JSON.stringify({ kind: 'preview', pad: 'p'.repeat(700) });
  const entry = () => insertEntry.run(body, sign(null, Buffer.from(body), privateKey).toString('hex'), sha(body));
  net
    .createServer((sock) => {
      const send = framed(sock, (m) => {
        if (m.method === 'preview') {
          const id = randomBytes(12).toString('hex');
          const digest = sha(body);
          sha(JSON.stringify(m)); // the request hash
          db.transaction(() => (insertTx.run(id, 'Previewed', body), entry())).immediate();
          send({ id: m.id, transaction_id: id, preview_digest: digest });
        } else if (m.method === 'approve') {
          const receipt = sign(null, Buffer.from(`${m.transaction_id}${m.preview_digest}`), privateKey).toString('hex');
          sha(receipt); // its commitment
          db.transaction(() => (setState.run('Queued', m.transaction_id), entry())).immediate();
          send({ id: m.id, receipt });
        } else {
          const ok = verify(null, Buffer.from(`${m.transaction_id}${m.preview_digest}`), publicKey, Buffer.from(String(m.receipt), 'hex'));
          sha(String(m.receipt)); // the commitment it must match
          sha(JSON.stringify(m)); // the request hash
          db.transaction(() => (setState.run('Executing', m.transaction_id), entry(), entry())).immediate(); // consumed, started
          const output = readFileSync('/proc/uptime', 'utf8') + readFileSync('/proc/loadavg', 'utf8');
          db.transaction(() => (setState.run('Succeeded', m.transaction_id), entry())).immediate(); // outcome
          send({ id: m.id, state: ok ? 'Succeeded' : 'Failed', output: output.split('\n') });
        }
      });
    })
    .listen(join(dir, 'daemon.sock'), () => process.send!('listening'));
}

/** The stand-in approver: passes each approval it is asked for to the daemon, on a connection per asker. */
function standInApprover(dir: string): void {
  net
    .createServer(async (sock) => {
      const daemon = await connect(join(dir, 'daemon.sock'));
      sock.once('close', () => daemon.close());
      const send = framed(sock, (m) => void daemon.call('approve', { transaction_id: m.transaction_id, preview_digest: m.preview_digest }).then((r) => send({ ...r, id: m.id })));
    })
    .listen(join(dir, 'approver.sock'), () => process.send!('listening'));
}

/** Lifecycles on `lanes` lanes (a daemon and an approver connection each) until `count`; each one's time in ms. */
async function lifecycles(dir: string, count: number, lanes: number): Promise<{ times: number[]; wallMs: number }> {
  const times: number[] = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      const daemon = await connect(join(dir, 'daemon.sock'));
      const approver = await connect(join(dir, 'approver.sock'));
      try {
        while (started < count) {
          started++;
          const t = performance.now();
          const p = await daemon.call('preview', { action_name: 'Uptime', params: {} });
          const g = await approver.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest });
          const r = await daemon.call('execute', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, receipt: g.receipt });
          if (r.state !== 'Succeeded') throw new Error("the bare lifecycle's stand-in daemon refused its own receipt");
          times.push(performance.now() - t);
        }
      } finally {
        daemon.close();
        approver.close();
      }
    }),
  );
  return { times, wallMs: performance.now() - t0 };
}

/** The bare lifecycle at concurrency 1 (p50, p99) and 16 (throughput), with its own two processes. */
export async function bareLifecycleBench(): Promise<BareLifecycle> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-bare-'));
  const children: ChildProcess[] = [];
  try {
    for (const role of ['daemon', 'approver']) {
      const child = fork(fileURLToPath(import.meta.url), [role, dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      await new Promise((resolve, reject) => (child.once('message', resolve), child.once('exit', (code) => reject(new Error(`the bare lifecycle's stand-in ${role} exited (${code})`)))));
    }
    progress(`bare lifecycle: ${WARMUP_COUNT} warm-up lifecycles, then ${C1_COUNT} at concurrency 1 and ${C16_COUNT} at ${CONCURRENCY}, with only the limit's work...`);
    await lifecycles(dir, WARMUP_COUNT, 4);
    const c1 = (await lifecycles(dir, C1_COUNT, 1)).times.sort((a, b) => a - b);
    const c16 = await lifecycles(dir, C16_COUNT, CONCURRENCY);
    return { c1P50: pct(c1, 0.5), c1P99: pct(c1, 0.99), c16Throughput: c16.times.length / (c16.wallMs / 1000) };
  } finally {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [role, dir] = process.argv.slice(2);
if (process.argv[1] === fileURLToPath(import.meta.url) && dir) {
  if (role === 'daemon') standInDaemon(dir);
  else if (role === 'approver') standInApprover(dir);
}
