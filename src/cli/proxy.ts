/**
 * `airlock proxy`: the forced command of the relay's key on a host (`airlock proxy authorize`
 * writes it). It joins its stdin and stdout, which are the relay's SSH session, to this host's
 * daemon socket and adds nothing: the daemon sees this account (the relay's login account here)
 * through the kernel and gives it the role of its groups, as for any local caller. Its one word
 * of its own comes first, `{type: 'proxied', host}` once the daemon's socket is reached (or an
 * error frame when it is not), so the relay knows the session is the proxy's.
 */
import net from 'node:net';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { socketPath } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { encodeFrame } from '../protocol/framing.js';
import type { ProxiedMessage } from '../protocol/relay.js';

export async function proxy(_o: unknown, cmd: Command): Promise<void> {
  const path = socketPath(cmd.optsWithGlobals().socket);
  const daemon = net.createConnection(path);
  const reached = await new Promise<boolean>((resolve) => {
    daemon.once('connect', () => resolve(true));
    daemon.once('error', (e: NodeJS.ErrnoException) => {
      const err = new AirlockError('transient', 'daemon_unreachable', `the Airlock daemon does not answer at ${path} (${e.code ?? e.message})`, 'on that host: `sudo systemctl start airlock`');
      process.stdout.write(encodeFrame({ ok: false, id: null, error: err.toWire() }));
      resolve(false);
    });
  });
  if (!reached) {
    process.exitCode = 7;
    return;
  }
  const hello: ProxiedMessage = { type: 'proxied', host: hostname() };
  process.stdout.write(encodeFrame(hello));
  process.stdin.pipe(daemon);
  daemon.pipe(process.stdout);
  await new Promise<void>((resolve) => {
    daemon.once('close', resolve);
    process.stdin.once('end', () => daemon.end());
  });
}
