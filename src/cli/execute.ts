/** `airlock execute TRANSACTION --receipt R`: the requester runs its approved transaction. */
import type { Command } from 'commander';
import { withClient } from './connect.js';
import { renderResult } from './render.js';
import { c, EXIT, printJson } from './ui.js';

export async function execute(id: string, opts: { receipt: string; json?: boolean }, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => {
    const t = await cl.transaction(id);
    if (process.stderr.isTTY && !opts.json) process.stderr.write(c.dim(`executing ${t.action_name} (${t.summary})...\n`));
    const r = await cl.execute(id, t.action_name, t.preview.params, opts.receipt);
    if (opts.json) printJson(r);
    else process.stdout.write(renderResult(r));
    return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
  });
}
