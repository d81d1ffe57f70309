/** `airlock execute TRANSACTION --receipt R | --wait`: the requester runs its approved transaction. */
import type { Command } from 'commander';
import { withClient } from './connect.js';
import { renderResult } from './render.js';
import { c, EXIT, printJson } from './ui.js';

export async function execute(id: string, opts: { receipt?: string; json?: boolean; wait?: unknown }, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => {
    // --wait: the daemon hands the requester its receipt once a person approves (src/cli/wait-flow.ts).
    if (opts.wait !== undefined) return (await import('./wait-flow.js')).executeWhenApproved(cl, id, { ...opts, wait: opts.wait }, cmd);
    if (!opts.receipt) cmd.error('error: give the receipt (--receipt RECEIPT), or --wait to wait for a person to approve it');
    const t = await cl.transaction(id);
    if (process.stderr.isTTY && !opts.json) process.stderr.write(c.dim(`executing ${t.action_name} (${t.summary})...\n`));
    const r = await cl.execute(id, t.action_name, t.preview.params, opts.receipt);
    if (opts.json) printJson(r);
    else process.stdout.write(renderResult(r));
    return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
  });
}
