/**
 * The daemon methods the MCP server uses that came with the agent's door:
 * transaction.wait (the requester waits for a decision on its own transaction) and
 * audit.entries (the signed log, page by page). Typed by the method table like every
 * other call; here so each tool asks them the same way.
 */
import type { AirlockClient } from '../client/client.js';
import type { AuditEntriesPage, WaitOutcome } from '../protocol/messages.js';

export type { AuditEntriesPage, WaitOutcome };

/** One wait of at most timeoutMs (0: a poll): the daemon answers at once when the transaction is decided already. */
export function waitOnce(cl: AirlockClient, transactionId: string, timeoutMs: number): Promise<WaitOutcome> {
  return cl.call('transaction.wait', { transaction_id: transactionId, timeout_ms: Math.round(timeoutMs) });
}

/** A page may hold fewer rows than `limit` (the daemon keeps it under a frame): follow next_after_seq until null. */
export function auditPage(cl: AirlockClient, afterSeq: number, limit: number): Promise<AuditEntriesPage> {
  return cl.call('audit.entries', { after_seq: afterSeq, limit });
}
