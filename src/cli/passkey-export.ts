/**
 * `airlock passkey export ID`: the public part of one of your passkeys on this host (its
 * credential id, COSE public key, RP ID, name, transports), as JSON on standard output, to
 * register the same passkey on another host of a fleet (passkey.begin `existing` there; the
 * passkey must then sign that host's challenge, with your factor there). Nothing in it is secret.
 */
import type { Command } from 'commander';
import { withClient } from './connect.js';
import { printJson } from './ui.js';

export async function passkeyExport(id: string, _o: unknown, cmd: Command): Promise<void> {
  printJson(await withClient(cmd, (cl) => cl.call('passkey.export', { passkey_id: id })));
}
