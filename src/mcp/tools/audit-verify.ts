/** airlock_audit_verify: the signed log checked in this process (src/client/daemon-audit.ts), not taken on the daemon's word. */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { verifyThroughDaemon, type AuditReport } from '../../client/daemon-audit.js';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
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

/** One paragraph for the model and the person. */
export function auditText(r: AuditReport): string {
  const key = r.key.source === 'file' ? `the key in ${r.key.path} (${r.key.key_id})` : r.key.source === 'daemon' ? `the key the daemon reported (${r.key.key_id})` : 'no key';
  const head =
    r.status === 'intact'
      ? `intact: ${r.entries} entries verified with ${key}${r.checkpoint ? `, consistent with the checkpoint of ${r.checkpoint.ts} (size ${r.checkpoint.size})` : ''}`
      : r.status === 'broken'
        ? `BROKEN: ${r.first_broken?.seq !== null && r.first_broken?.seq !== undefined ? `first broken entry #${r.first_broken.seq}: ` : ''}${r.first_broken?.reason}; ${r.entries} entries verified before it, with ${key}`
        : `cannot verify: ${r.reason}`;
  return [head, ...r.warnings.map((w) => `warning: ${w}`)].join('\n');
}

export function registerAuditVerify(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_audit_verify',
    {
      title: 'Verify the Airlock audit log',
      description:
        "Check the daemon's signed log here, in this process: every entry's Ed25519 signature, the hash chain, and the latest signed tree head (a cut tail or a rewritten history), with the host's public key file where this account can read it (else the key the daemon states, and the report says so). " +
        'Returns intact, broken (with the first offending entry and why) or cannot_verify. Nothing changes.',
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
