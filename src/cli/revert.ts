/**
 * `airlock revert TX`: a new transaction that undoes a finished change (or a whole plan, its
 * steps in reverse order) from the pre-state it kept: the action RevertTransaction, previewed,
 * approved at the risk of the change it reverts, and executed like any change. Refused when the
 * host has drifted from what that change left, with what changed since.
 */
import type { Command } from 'commander';
import { preview } from './preview.js';

export function revert(transaction: string, opts: { json?: boolean; wait?: unknown; verbose?: boolean }, cmd: Command): Promise<number | void> {
  if (!/^tx_[0-9a-f]{24}$/.test(transaction)) cmd.error(`error: ${JSON.stringify(transaction.slice(0, 40))} is not a transaction id (tx_ and 24 hex digits: airlock history lists them)`);
  return preview('RevertTransaction', { ...opts, param: [`transaction_id=${transaction}`] }, cmd);
}
