/**
 * The MCP server's wait for a person (src/client/wait-rounds.ts), in short rounds: a
 * progress notification after each round that ended still pending keeps an MCP client that
 * resets its request timeout on progress from giving up on a person who is still reading
 * the preview; each round is one cheap request.
 */
import { waitRounds, type Waiter } from '../client/wait-rounds.js';
import type { WaitOutcome } from './wait-methods.js';

export type { Waiter };

/** One round's length: the longest silence the agent's client sees while a person reads. */
export const ROUND_MS = 5_000;
/** The longest the agent may ask to wait in one airlock_execute: a preview's default lifetime. */
export const MAX_WAIT_SECONDS = 900;

/** Waits until `deadline` (epoch ms) at most, in rounds of ROUND_MS. */
export function waitForDecision(w: Waiter, transactionId: string, deadline: number): Promise<WaitOutcome> {
  return waitRounds(w, ROUND_MS, transactionId, deadline);
}
