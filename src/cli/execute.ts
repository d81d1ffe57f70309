/** `airlock execute TRANSACTION --receipt R | --wait`: the requester runs its approved transaction. */
import type { Command } from 'commander';
import { withClient } from './connect.js';
import { executeShown, exitFor } from './executing.js';
import { printJson } from './ui.js';
import { livePreview } from '../protocol/compacted.js';

export async function execute(id: string, opts: { receipt?: string; json?: boolean; wait?: unknown }, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => {
    // --wait: the daemon hands the requester its receipt once a person approves (src/cli/wait-flow.ts).
    if (opts.wait !== undefined) return (await import('./wait-flow.js')).executeWhenApproved(cl, id, { ...opts, wait: opts.wait }, cmd);
    if (!opts.receipt) cmd.error('error: give the receipt (--receipt RECEIPT), or --wait to wait for a person to approve it');
    const t = await cl.transaction(id);
    const r = await executeShown(cl, { transaction_id: id, action_name: t.action_name, params: livePreview(t).params }, opts.receipt, Boolean(opts.json));
    if (opts.json) printJson(r);
    return exitFor(r);
  });
}
