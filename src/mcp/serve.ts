/**
 * `airlock mcp-server`: the MCP server on stdio. Stdout carries MCP frames and nothing
 * else (a stray line there would corrupt the stream), so everything this process has to
 * say goes to stderr. It exits when the client closes stdin.
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { socketPath } from '../client/client.js';
import { DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { buildServer } from './server.js';
import type { Planner } from '../planner/contract.js';

export interface ServeOptions {
  /** --socket; else $AIRLOCK_SOCKET, else the default socket (the CLI's rule). */
  socket?: string;
  pubkey?: string;
  checkpoints?: string;
  /** airlock_plan's planner; absent: the configured one, chosen per call (src/planner/choose.ts). */
  planner?: () => Planner;
}

const defaults = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);

export async function serveMcp(o: ServeOptions): Promise<void> {
  const log = (m: string) => process.stderr.write(`airlock-mcp: ${m}\n`);
  const deps = {
    target: { socket: socketPath(o.socket) },
    audit: { publicKeyPath: o.pubkey ?? defaults.publicKey, checkpointsPath: o.checkpoints ?? null },
    ...(o.planner ? { planner: o.planner } : {}),
  };
  const server = buildServer(deps);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  log(`serving on stdio; daemon at ${deps.target.socket}`);
  // The SDK owns the transport's callbacks once connected: ours runs after its own. A wait
  // still in progress would keep the process alive for a round; the client has gone, so go.
  const sdkClose = transport.onclose;
  transport.onclose = () => {
    sdkClose?.();
    log('the client closed stdin; exiting');
    process.exit(0);
  };
}
