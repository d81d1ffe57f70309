/**
 * The Airlock MCP server: every tool and the workflow resource, registered once. The tool
 * list is static (it needs no daemon to be listed); each call reaches the daemon through
 * its socket (src/mcp/daemon.ts), which decides everything. No tool approves, mints a
 * receipt, or reads anyone else's: the daemon offers no method that would.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { VERSION } from './version.js';
import type { ToolDeps } from './deps.js';
import { INSTRUCTIONS, WORKFLOW_TEXT, WORKFLOW_URI } from './workflow.js';
import { registerActions } from './tools/actions.js';
import { registerPropose } from './tools/propose.js';
import { registerPlan } from './tools/plan.js';
import { registerExecute } from './tools/execute.js';
import { registerStatus } from './tools/status.js';
import { registerHistory } from './tools/history.js';
import { registerDoctor } from './tools/doctor.js';
import { registerAuditVerify } from './tools/audit-verify.js';
import { registerRevert } from './tools/revert.js';

export function buildServer(deps: ToolDeps): McpServer {
  const server = new McpServer({ name: 'airlock', title: 'Airlock', version: VERSION }, { instructions: INSTRUCTIONS });
  registerActions(server, deps);
  registerPropose(server, deps);
  registerPlan(server, deps);
  registerExecute(server, deps);
  registerRevert(server, deps);
  registerStatus(server, deps);
  registerHistory(server, deps);
  registerDoctor(server, deps);
  registerAuditVerify(server, deps);
  server.registerResource(
    'workflow',
    WORKFLOW_URI,
    { title: 'How to work through Airlock', description: 'Propose, show the person each step and its risk, wait for their approval or stop; never treat a chat message as approval; never ask for a receipt.', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: WORKFLOW_TEXT }] }),
  );
  return server;
}
