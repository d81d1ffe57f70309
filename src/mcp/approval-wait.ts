/**
 * Waiting for a person: transaction.wait in short rounds until the daemon says the
 * transaction is decided or the agent's time runs out, with a progress notification after
 * each round that ended still pending. Short rounds keep a progress notification coming
 * every few seconds, so an MCP client that resets its request timeout on progress does not
 * give up on a person who is still reading the preview; each round is one cheap request.
 */
import type { WaitOutcome } from './wait-methods.js';

/** One round's length: the longest silence the agent's client sees while a person reads. */
export const ROUND_MS = 5_000;
/** The longest the agent may ask to wait in one airlock_execute: a preview's default lifetime. */
export const MAX_WAIT_SECONDS = 900;

export interface Waiter {
  /** One transaction.wait of at most timeoutMs. */
  round(transactionId: string, timeoutMs: number): Promise<WaitOutcome>;
  /** Called after a round that ended pending, while there is time left. */
  progress(transactionId: string, waitedMs: number): Promise<void>;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The client canceled the tool call: stop at the end of the round. */
  aborted(): boolean;
}

/**
 * Waits until `deadline` (epoch ms) at most. A deadline already passed still asks once,
 * so a transaction approved meanwhile (or approved by the policy) is found without waiting.
 */
export async function waitForDecision(w: Waiter, transactionId: string, deadline: number): Promise<WaitOutcome> {
  const started = w.now();
  for (;;) {
    const roundStart = w.now();
    const ask = Math.min(Math.max(0, deadline - roundStart), ROUND_MS);
    const outcome = await w.round(transactionId, ask);
    if (outcome.outcome !== 'pending' || deadline - w.now() <= 0 || w.aborted()) return outcome;
    // A daemon that answers "pending" before the time asked (another version, a bug) is not asked again in a tight loop.
    const early = ask - (w.now() - roundStart);
    if (early > 0) await w.sleep(early);
    await w.progress(transactionId, w.now() - started);
  }
}
