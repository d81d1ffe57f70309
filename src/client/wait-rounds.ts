/**
 * Waiting for a person, for every client (the CLI's --wait, the MCP server's
 * airlock_execute): `transaction.wait` in rounds until the daemon says the transaction is
 * decided or the caller's time runs out. Each client picks its round: the MCP server short
 * ones, so a progress notification reaches its client every few seconds; the CLI the
 * daemon's longest, since it draws its own progress line.
 */
import type { WaitOutcome } from '../protocol/messages.js';

type Pending = Extract<WaitOutcome, { outcome: 'pending' }>;

export interface Waiter {
  /** One transaction.wait of at most timeoutMs. */
  round(transactionId: string, timeoutMs: number): Promise<WaitOutcome>;
  /** Called after a round that ended pending, while there is time left. */
  progress(transactionId: string, waitedMs: number, pending: Pending): Promise<void> | void;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The caller gave up (a canceled tool call): stop at the end of the round. */
  aborted(): boolean;
}

/**
 * Waits until `deadline` (epoch ms; Infinity: until the daemon says it is decided or
 * expired), in rounds of at most roundMs. A deadline already passed still asks once, so a
 * transaction approved meanwhile is found without waiting. Returns the last outcome:
 * 'pending' only when the time ran out (or the caller gave up).
 */
export async function waitRounds(w: Waiter, roundMs: number, transactionId: string, deadline: number): Promise<WaitOutcome> {
  const started = w.now();
  for (;;) {
    const roundStart = w.now();
    const ask = Math.min(Math.max(0, deadline - roundStart), roundMs);
    const outcome = await w.round(transactionId, ask);
    if (outcome.outcome !== 'pending' || deadline - w.now() <= 0 || w.aborted()) return outcome;
    // A daemon that answers "pending" before the time asked (another version, a bug) is not asked again in a tight loop.
    const early = ask - (w.now() - roundStart);
    if (early > 0) await w.sleep(early);
    await w.progress(transactionId, w.now() - started, outcome);
  }
}
