/** `airlock history`: transactions, newest first, filtered by state, action and age. */
import type { Command } from 'commander';
import { AirlockError } from '../protocol/errors.js';
import type { TxState } from '../protocol/risk.js';
import { askAndShow } from './connect.js';
import { renderHistory } from './render.js';

// --status goes to the daemon as given: it refuses a word that is no state (validation/bad_history_query).
export async function history(opts: { status?: TxState; action?: string; since?: string; limit?: number; json?: boolean }, cmd: Command): Promise<void> {
  const query = {
    ...(opts.status ? { state: opts.status } : {}),
    ...(opts.action ? { action: opts.action } : {}),
    ...(opts.since ? { since: parseSince(opts.since) } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
  };
  await askAndShow(cmd, opts.json, (cl) => cl.call('history', query), renderHistory);
}

function parseSince(s: string): string {
  const m = /^(\d+)([mhd])$/.exec(s);
  if (m) return new Date(Date.now() - Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd']).toISOString();
  if (Number.isNaN(Date.parse(s))) throw new AirlockError('validation', 'bad_since', `--since ${s} is neither an ISO time nor a duration like 30m, 12h, 7d`);
  return new Date(s).toISOString();
}
