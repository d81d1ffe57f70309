/** `airlock cancel TRANSACTION`: a transaction that has not run is canceled (by its requester or an admin approver). */
import type { Command } from 'commander';
import { withClient } from './connect.js';
import { printJson } from './ui.js';

export async function cancel(id: string, opts: { json?: boolean }, cmd: Command): Promise<void> {
  await withClient(cmd, async (cl) => {
    const t = await cl.call('cancel', { transaction_id: id });
    if (opts.json) return printJson(t);
    process.stdout.write(`${t.transaction_id} is ${t.state}\n`);
  });
}
