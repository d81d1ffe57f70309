/** airlock_history: transactions, newest first, as the daemon lists them to this principal. */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { pickView, transactionView, txState, hostIn } from '../schemas.js';
import { answer, failure } from '../tool-result.js';

export function registerHistory(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_history',
    {
      title: 'Airlock history',
      description: 'Transactions on this host, newest first: action, risk, state, who requested and approved each. Filter by state, action or time. Nothing changes.',
      inputSchema: z.strictObject({
        state: txState.optional().describe('only transactions in this state'),
        action: z.string().regex(/^[A-Za-z0-9]{1,64}$/).optional().describe('only this action'),
        since: z.iso.datetime({ offset: true }).optional().describe('only transactions created at or after this ISO 8601 time'),
        limit: z.number().int().min(1).max(1000).optional().describe('at most this many (default 50)'),
        host: hostIn,
      }),
      outputSchema: z.object({ transactions: z.array(transactionView) }),
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async ({ host, ...q }) => {
      try {
        const rows = (await withDaemon(deps.target, (cl) => cl.call('history', q), host)).map(pickView);
        const text = rows.length
          ? rows.map((r) => `${r.created_at} ${r.transaction_id} ${r.action_name} ${r.risk} ${r.state} by ${r.requested_by}${r.approved_by ? `, approved by ${r.approved_by}` : ''}${r.denied_by ? `, denied by ${r.denied_by}` : ''}: ${r.summary}`).join('\n')
          : 'no transactions match';
        return answer({ transactions: rows }, text);
      } catch (e) {
        return failure(e);
      }
    },
  );
}
