/**
 * Runs as another Unix user (started through setpriv by principal.ts): reads one
 * JSON command per line on stdin, performs it over the daemon socket, answers one
 * JSON line on stdout. The kernel's peer credentials of this process are what the
 * daemon sees.
 */
import { createInterface } from 'node:readline';
import { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { Method } from '../protocol/messages.js';

const socket = process.argv[2]!;
let shared: AirlockClient | null = null;

type Command = { id: number; op: 'call'; method: Method; params: Record<string, unknown>; fresh?: boolean } | { id: number; op: 'parallel'; method: Method; params: Record<string, unknown>; count: number };

const settle = (p: Promise<unknown>) =>
  p.then(
    (result) => ({ ok: true, result }),
    (e) => ({ ok: false, error: e instanceof AirlockError ? e.toWire() : { category: 'transient', code: 'client', message: String((e as Error).message) } }),
  );

async function handle(cmd: Command): Promise<unknown> {
  if (cmd.op === 'call') {
    if (cmd.fresh) {
      return settle(
        AirlockClient.connect(socket).then(async (cl) => {
          try {
            return await cl.call(cmd.method, cmd.params);
          } finally {
            cl.close();
          }
        }),
      );
    }
    return settle((async () => (shared ??= await AirlockClient.connect(socket)).call(cmd.method, cmd.params))());
  }
  // parallel: `count` separate connections fire the same call at once.
  const clients = await Promise.all(Array.from({ length: cmd.count }, () => AirlockClient.connect(socket)));
  const results = await Promise.all(clients.map((cl) => settle(cl.call(cmd.method, cmd.params))));
  clients.forEach((cl) => cl.close());
  return { ok: true, result: results };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = JSON.parse(line) as Command;
  void handle(cmd).then((r) => process.stdout.write(JSON.stringify({ id: cmd.id, ...(r as object) }) + '\n'));
});
process.stdin.on('end', () => {
  shared?.close();
  process.exit(0);
});
