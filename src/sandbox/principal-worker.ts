/**
 * Runs as another Unix user (started through setpriv by principal.ts): reads one
 * JSON command per line on stdin, performs it over the daemon socket, answers one
 * JSON line on stdout. The kernel's peer credentials of this process are what the
 * daemon sees.
 */
import net from 'node:net';
import { chmodSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';

const socket = process.argv[2]!;
let shared: AirlockClient | null = null;

type Command =
  // Relayed as given: principal.ts types what tests send (or deliberately does not, to test refusals).
  | { id: number; op: 'call'; method: string; params: unknown; fresh?: boolean }
  | { id: number; op: 'parallel'; method: string; params: unknown; count: number }
  | { id: number; op: 'serveApprovals'; path: string }
  | { id: number; op: 'lifecycles'; action: string; params: Record<string, unknown>; count: number; concurrency: number; approver: string; timeLimitMs: number }
  | { id: number; op: 'agentLoop'; action: string; params: Record<string, unknown>; count: number; concurrency: number; timeLimitMs: number };

const settle = (p: Promise<unknown>) =>
  p.then(
    (result) => ({ ok: true, result }),
    (e) => ({ ok: false, error: e instanceof AirlockError ? e.toWire() : { category: 'transient', code: 'client', message: String((e as Error).message) } }),
  );

async function handle(cmd: Command): Promise<unknown> {
  if (cmd.op === 'serveApprovals') return settle(serveApprovals(cmd.path));
  if (cmd.op === 'lifecycles') return settle(lifecycles(cmd));
  if (cmd.op === 'agentLoop') return settle(agentLoop(cmd));
  if (cmd.op === 'call') {
    if (cmd.fresh) {
      return settle(
        AirlockClient.connect(socket).then(async (cl) => {
          try {
            return await cl.callUnchecked(cmd.method, cmd.params);
          } finally {
            cl.close();
          }
        }),
      );
    }
    // The daemon drops a connection idle for two minutes: reconnect, as any long-lived client must.
    if (shared?.closed) shared = null;
    return settle((async () => (shared ??= await AirlockClient.connect(socket)).callUnchecked(cmd.method, cmd.params))());
  }
  // parallel: `count` separate connections fire the same call at once.
  // Connect all first, then fire together, so the calls really race inside the daemon.
  const clients = await Promise.all(Array.from({ length: cmd.count }, () => AirlockClient.connect(socket).catch((e: Error) => e)));
  const results = await Promise.all(clients.map((cl) => (cl instanceof Error ? settle(Promise.reject(cl)) : settle(cl.callUnchecked(cmd.method, cmd.params)))));
  clients.forEach((cl) => cl instanceof AirlockClient && cl.close());
  return { ok: true, result: results };
}

// --- benchmark ops (bench/bench.ts) -------------------------------------------
// An approver principal serves approvals on a local socket, so that an agent
// principal (another uid) can run whole preview -> approve -> execute lifecycles
// in-process and time them here, without the harness's stdin/stdout IPC in the way.
// Line protocol: {"n":1,"transaction_id":..,"preview_digest":..} -> {"n":1,"ok":true,"receipt":..,"ms":..}.

let approvalServer: net.Server | null = null;

async function serveApprovals(path: string): Promise<{ path: string }> {
  approvalServer = net.createServer((conn) => {
    // One daemon connection per approval connection: lanes stay independent.
    const client = AirlockClient.connect(socket);
    conn.once('close', () => void client.then((c) => c.close(), () => {}));
    conn.on('error', () => conn.destroy());
    createInterface({ input: conn }).on('line', (line) => {
      const req = JSON.parse(line) as { n: number; transaction_id: string; preview_digest: string };
      const t0 = performance.now();
      client
        .then((c) => c.approve(req.transaction_id, req.preview_digest))
        .then(
          (g) => ({ n: req.n, ok: true, receipt: 'receipt' in g ? g.receipt : null, ms: performance.now() - t0 }),
          (e) => ({ n: req.n, ok: false, error: e instanceof AirlockError ? e.toWire() : { category: 'transient', code: 'client', message: String((e as Error).message) } }),
        )
        .then((r) => conn.write(JSON.stringify(r) + '\n'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    approvalServer!.once('error', reject);
    approvalServer!.listen(path, () => resolve());
  });
  chmodSync(path, 0o666); // the agent principal runs as another uid
  return { path };
}

/** A line-oriented client of serveApprovals, pipelined by request number. */
async function approvalChannel(path: string) {
  const conn = net.createConnection(path);
  await new Promise<void>((resolve, reject) => (conn.once('connect', resolve), conn.once('error', reject)));
  const waiting = new Map<number, (r: { ok: boolean; receipt?: string; ms?: number; error?: unknown }) => void>();
  createInterface({ input: conn }).on('line', (line) => {
    const r = JSON.parse(line);
    waiting.get(r.n)?.(r);
    waiting.delete(r.n);
  });
  let n = 0;
  return {
    approve: (transaction_id: string, preview_digest: string) =>
      new Promise<{ ok: boolean; receipt?: string; ms?: number; error?: unknown }>((resolve) => {
        const k = ++n;
        waiting.set(k, resolve);
        conn.write(JSON.stringify({ n: k, transaction_id, preview_digest }) + '\n');
      }),
    close: () => conn.end(),
  };
}

/**
 * Runs `count` lifecycles of one action on `concurrency` lanes, each lane with its
 * own daemon connection and approval channel, stopping early at timeLimitMs.
 * Times (ms, measured here): [total, preview, approve (round trip via the approver), approve (approver's daemon call), execute].
 */
async function lifecycles(cmd: Extract<Command, { op: 'lifecycles' }>) {
  const lanes = await Promise.all(
    Array.from({ length: cmd.concurrency }, async () => ({ client: await AirlockClient.connect(socket), approver: await approvalChannel(cmd.approver) })),
  );
  const timings: number[][] = [];
  const errors: string[] = [];
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + cmd.timeLimitMs;
  await Promise.all(
    lanes.map(async ({ client, approver }) => {
      while (started < cmd.count && performance.now() < deadline) {
        started++;
        try {
          const a = performance.now();
          const p = await client.call('preview', { action_name: cmd.action, params: cmd.params });
          const b = performance.now();
          const g = await approver.approve(p.transaction_id, p.preview_digest);
          if (!g.ok) throw new Error(`approve refused: ${JSON.stringify(g.error)}`);
          const c = performance.now();
          const r = await client.call('execute', { transaction_id: p.transaction_id, action_name: cmd.action, params: p.params, receipt: g.receipt! });
          const d = performance.now();
          if (r.state !== 'Succeeded') throw new Error(`execute ended ${r.state}: ${r.summary}`);
          timings.push([d - a, b - a, c - b, g.ms!, d - c]);
        } catch (e) {
          errors.push(e instanceof AirlockError ? `${e.category}/${e.code}: ${e.message}` : String((e as Error).message ?? e));
          if (errors.length > 20) break;
        }
      }
    }),
  );
  const wallMs = performance.now() - t0;
  for (const l of lanes) (l.client.close(), l.approver.close());
  return { timings, errors, wallMs };
}

/**
 * An agent's loop over a read the policy approves by itself: preview, then execute with the
 * receipt the preview carried, on `concurrency` connections, until `count` lifecycles or
 * timeLimitMs. Refusals are counted by their typed code (a store under disk pressure refuses
 * previews, and the loop carries on, as an agent would).
 */
async function agentLoop(cmd: Extract<Command, { op: 'agentLoop' }>) {
  const lanes = await Promise.all(Array.from({ length: cmd.concurrency }, () => AirlockClient.connect(socket)));
  let done = 0;
  let started = 0;
  const refused: Record<string, number> = {};
  const t0 = performance.now();
  const deadline = t0 + cmd.timeLimitMs;
  await Promise.all(
    lanes.map(async (client) => {
      while (started < cmd.count && performance.now() < deadline) {
        started++;
        try {
          const p = await client.call('preview', { action_name: cmd.action, params: cmd.params });
          if (!p.auto_approval) throw new Error(`${cmd.action} was not approved by the policy`);
          const r = await client.call('execute', { transaction_id: p.transaction_id, action_name: cmd.action, params: p.params, receipt: p.auto_approval.receipt });
          if (r.state !== 'Succeeded') throw new Error(`execute ended ${r.state}: ${r.summary}`);
          done++;
        } catch (e) {
          // The daemon's typed refusals are counted and the loop goes on; anything else ends this lane.
          const code = e instanceof AirlockError ? `${e.category}/${e.code}` : `client: ${String((e as Error).message ?? e).slice(0, 120)}`;
          refused[code] = (refused[code] ?? 0) + 1;
          if (!(e instanceof AirlockError)) break;
        }
      }
    }),
  );
  for (const l of lanes) l.close();
  return { done, refused, wallMs: performance.now() - t0 };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = JSON.parse(line) as Command;
  void handle(cmd).then((r) => process.stdout.write(JSON.stringify({ id: cmd.id, ...(r as object) }) + '\n'));
});
process.stdin.on('end', () => {
  shared?.close();
  approvalServer?.close();
  process.exit(0);
});
