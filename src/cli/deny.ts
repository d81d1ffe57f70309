/**
 * `airlock deny ID [--reason TEXT]`: a person who may approve a transaction refuses it. No
 * terminal and no code are needed (refusing is the safe direction: the worst it does is stop
 * a request); the daemon decides who may (the same people as for `approve`), cancels the
 * transaction, signs a `denied` entry with who and why, and tells a requester waiting for it.
 */
import type { Command } from 'commander';
import { escapeText } from '../protocol/escape-text.js';
import { askAndShow } from './connect.js';
import { c } from './ui.js';

export async function deny(id: string, opts: { reason?: string; json?: boolean }, cmd: Command): Promise<void> {
  await askAndShow(
    cmd,
    opts.json,
    (cl) => cl.call('deny', { transaction_id: id, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) }),
    (t) =>
      `${c.red('denied')} ${escapeText(t.transaction_id)} (${escapeText(t.action_name)}: ${escapeText(t.summary)}); it is ${escapeText(t.state)}\n` +
      `  the requester, ${escapeText(t.requested_by)}, is told${t.deny_reason ? `: ${escapeText(t.deny_reason)}` : ' (no reason given)'}\n`,
  );
}
