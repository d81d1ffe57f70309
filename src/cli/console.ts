/**
 * `airlock console`: the web console's server (src/console/), run as its own unprivileged
 * account (airlock-console): the daemon lets that uid relay sign-ins, approvals and denials
 * and decides every one itself. Root is refused: a process that serves a browser never runs
 * with the host's keys in reach.
 */
import type { Command } from 'commander';
import { socketPath } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { DEFAULT_LISTEN, parseListen, parseOrigin } from '../console/listen-address.js';
import { policyConsoleOrigin } from '../console/policy-origin.js';
import { DEFAULT_POLICY_PATH } from '../protocol/defaults.js';

export async function runConsole(o: { listen?: string; origin?: string }, cmd: Command): Promise<number> {
  if (process.getuid?.() === 0) {
    throw new AirlockError('authorization', 'console_as_root', 'the console does not run as root: it serves a browser, and the daemon answers it only as the console\'s account', 'run it as airlock-console: `sudo systemctl start airlock-console` (airlock install writes the unit), or `sudo -u airlock-console airlock console`');
  }
  // Colour is for terminals: the rendered previews go to a page (render-preview.ts reads this at import).
  process.env.NO_COLOR = '1';
  const { host, port } = parseListen(o.listen ?? DEFAULT_LISTEN);
  // The policy's [console] url names the address once for the notifications, the passkeys and here.
  const origin = parseOrigin(o.origin ?? policyConsoleOrigin(DEFAULT_POLICY_PATH) ?? `http://localhost:${port}`);
  const socket = socketPath(cmd.optsWithGlobals().socket);
  const { consoleServer } = await import('../console/server.js');
  const server = consoleServer({ host, port, origin, socket });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new AirlockError('transient', 'console_listen', `cannot listen on ${host}:${port} (${e.code ?? e.message})`, e.code === 'EADDRINUSE' ? `another process holds that port: unless it is a console you started, find it (\`sudo ss -ltnp 'sport = :${port}'\`) before anyone signs anything there, since a page at the console's origin can ask for passkey signatures (docs/console.md)` : 'give --listen ADDRESS:PORT')),
    );
    server.listen(port, host, resolve);
  });
  process.stderr.write(`airlock console: listening on ${host}:${port}, served at ${origin}, daemon ${socket}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}
