/** `airlock cancel TRANSACTION`: a transaction that has not run is canceled (by its requester or an admin approver). */
import type { Command } from 'commander';
import { askAndShow } from './connect.js';

export async function cancel(id: string, opts: { json?: boolean }, cmd: Command): Promise<void> {
  await askAndShow(cmd, opts.json, (cl) => cl.call('cancel', { transaction_id: id }), (t) => `${t.transaction_id} is ${t.state}\n`);
}
