/**
 * The daemon method the MCP server uses that came with the agent's door:
 * transaction.wait (the requester waits for a decision on its own transaction). Typed by
 * the method table like every other call; here so each tool asks it the same way. (The
 * signed log's pages are read by src/client/audit-source.ts, as the CLI reads them.)
 */
import type { AirlockClient } from '../client/client.js';
import type { WaitOutcome } from '../protocol/messages.js';

export type { WaitOutcome };

/** One wait of at most timeoutMs (0: a poll): the daemon answers at once when the transaction is decided already. */
export function waitOnce(cl: AirlockClient, transactionId: string, timeoutMs: number): Promise<WaitOutcome> {
  return cl.call('transaction.wait', { transaction_id: transactionId, timeout_ms: Math.round(timeoutMs) });
}

