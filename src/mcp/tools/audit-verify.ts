/** airlock_audit_verify: the signed log checked in this process (src/mcp/audit-check.ts), not taken on the daemon's word. */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { auditText, verifyThroughDaemon } from '../audit-check.js';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { REMINDER } from '../workflow.js';
import { answer, failure } from '../tool-result.js';

export const auditReport = z.object({
  status: z.enum(['intact', 'broken', 'cannot_verify']),
  entries: z.number().int(),
  head_hash: z.string().nullable(),
  first_broken: z.object({ seq: z.number().int().nullable(), reason: z.string() }).nullable(),
  // The latest signed tree head (with its Merkle root and the trusted witnesses that cosigned it) or older checkpoint line.
  checkpoint: z
    .object({ size: z.number().int(), ts: z.string(), origin: z.string(), kind: z.enum(['tree_head', 'checkpoint']), root: z.string().optional(), witnesses: z.array(z.string()).optional() })
    .nullable(),
  key: z.object({ source: z.enum(['file', 'daemon', 'none']), path: z.string().nullable(), key_id: z.string().nullable() }),
  reason: z.string().nullable(),
  warnings: z.array(z.string()),
});

export function registerAuditVerify(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_audit_verify',
    {
      title: 'Verify the Airlock audit log',
      description:
        "Check the daemon's signed log here, in this process: every entry's Ed25519 signature, the hash chain, and the latest signed tree head (a cut tail or a rewritten history), with the host's public key file where this account can read it (else the key the daemon states, and the report says so). " +
        'Returns intact, broken (with the first offending entry and why) or cannot_verify. Nothing changes. ' + REMINDER,
      inputSchema: z.strictObject({}),
      outputSchema: auditReport,
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async () => {
      try {
        const r = await withDaemon(deps.target, (cl) => verifyThroughDaemon(cl, deps.audit));
        return answer(r, auditText(r), r.status === 'broken');
      } catch (e) {
        return failure(e);
      }
    },
  );
}
