/**
 * The daemon methods the MCP server uses that came with the agent's door:
 * transaction.wait (the requester waits for its own transaction) and audit.entries (the
 * signed log, page by page). Typed by the method table like every other call.
 */
import type { AirlockClient } from '../client/client.js';
import type { TxState } from '../protocol/risk.js';

// Until the method table carries them (branch h-wait), the contract of docs/notes/issue10.md.
export type WaitOutcome =
  | { transaction_id: string; outcome: 'approved'; receipt: string; approved_by: string; expires_at: string }
  | { transaction_id: string; outcome: 'denied'; denied_by: string; reason: string | null }
  | { transaction_id: string; outcome: 'expired' }
  | { transaction_id: string; outcome: 'canceled' }
  | { transaction_id: string; outcome: 'pending'; expires_at: string }
  | { transaction_id: string; outcome: 'finished'; state: TxState };
export interface AuditEntriesPage {
  rows: Array<{ seq: number; body: string; sig: string }>;
  next_after_seq: number | null;
}

/** One wait of at most timeoutMs: the daemon answers at once when the transaction is decided already. */
export function waitOnce(cl: AirlockClient, transactionId: string, timeoutMs: number): Promise<WaitOutcome> {
  return cl.callUnchecked('transaction.wait', { transaction_id: transactionId, timeout_ms: timeoutMs }) as Promise<WaitOutcome>;
}

export function auditPage(cl: AirlockClient, afterSeq: number, limit: number): Promise<AuditEntriesPage> {
  return cl.callUnchecked('audit.entries', { after_seq: afterSeq, limit }) as Promise<AuditEntriesPage>;
}
