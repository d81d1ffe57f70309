/**
 * The MCP server's way to the daemon: one socket connection per tool call, opened the
 * way the CLI opens it (src/cli/connect.ts): the socket from --socket, else
 * $AIRLOCK_SOCKET, else the default; on TCP and the token socket the token from
 * $AIRLOCK_TOKEN. The daemon decides everything; this only carries requests. An error
 * that says the daemon cannot be reached, or will not talk to this account, is given a
 * hint written for the person who configured the agent.
 */
import { userInfo } from 'node:os';
import { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { ROLE_GROUPS } from '../protocol/risk.js';

/**
 * How long one request may take: an execute of a long action (apt-get install may run 10
 * minutes) and a wait of the longest allowed (5 minutes) fit; a daemon that never answers
 * does not hold a tool call forever.
 */
export const CALL_TIMEOUT_MS = 15 * 60_000;

export interface DaemonTarget {
  /** A Unix socket path, or tcp:HOST:PORT. */
  socket: string;
}

/** The account this process runs as, for the commands a fix names. */
export function accountName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/** The connect error, with a hint that says how to start or reach the daemon from an agent's configuration. */
export function reachError(e: unknown, target: DaemonTarget): AirlockError {
  if (!(e instanceof AirlockError)) return new AirlockError('execution', 'client_error', (e as Error)?.message ?? String(e));
  if (e.code === 'daemon_unreachable') {
    return new AirlockError(
      e.category,
      e.code,
      `${e.message}. Nothing was proposed or run.`,
      e.message.includes('EACCES')
        ? `this account (${accountName()}) may not open ${target.socket}: the daemon's socket directory must be reachable by it`
        : `start the daemon: \`sudo systemctl start airlock\` (or \`sudo airlock daemon\`); if it listens elsewhere, set AIRLOCK_SOCKET (and AIRLOCK_TOKEN for a TCP or token socket) in this MCP server's entry of the agent's MCP configuration (\`airlock setup\` writes it)`,
    );
  }
  if (e.code === 'no_role') {
    const name = accountName();
    return new AirlockError(e.category, e.code, `the daemon refuses this account (${name}): it is in no airlock group`, `an administrator runs \`sudo usermod -aG ${ROLE_GROUPS.dev} ${name}\` (or ${ROLE_GROUPS.observer} for reads only, ${ROLE_GROUPS.admin} for high-risk actions), then the agent is started again from a new login`);
  }
  return e;
}

/**
 * Runs fn on a fresh connection, always closed; connect errors come back through reachError.
 * With `host`, the connection is to that host's daemon through the relay (src/protocol/relay.ts);
 * its refusals (an unknown host, a changed host key) are the relay's, already worded for a person.
 */
export async function withDaemon<T>(target: DaemonTarget, fn: (cl: AirlockClient) => Promise<T>, host?: string | null): Promise<T> {
  let cl: AirlockClient;
  try {
    cl = host ? await AirlockClient.connect(undefined, { client: 'airlock-mcp/0.1', timeoutMs: CALL_TIMEOUT_MS, host }) : await AirlockClient.connect(target.socket, { client: 'airlock-mcp/0.1', timeoutMs: CALL_TIMEOUT_MS });
  } catch (e) {
    if (host) throw e;
    throw reachError(e, target);
  }
  try {
    return await fn(cl);
  } finally {
    cl.close();
  }
}
