/**
 * Codex CLI: `[mcp_servers.airlock]` in $CODEX_HOME/config.toml (default ~/.codex), the file
 * `codex mcp add` writes; a project's .codex/config.toml counts only in a trusted project, so
 * the server always goes to the account's file. Codex gives a tool call 60 s by default, less
 * than an approval may take: airlock_execute waits up to 5 minutes for the person, so the
 * table raises tool_timeout_sec. Guidance: AGENTS.md in the project, or $CODEX_HOME/AGENTS.md.
 */
import { join } from 'node:path';
import { presence } from '../detect.js';
import { markdownTarget, tomlServerTarget } from '../targets.js';
import type { Client } from './types.js';

/**
 * airlock_execute's longest approval wait (MAX_WAIT_SECONDS in src/mcp/approval-wait.ts: 900 s)
 * plus the time the steps themselves may take (an apt-get install runs up to 10 minutes).
 */
const TOOL_TIMEOUT_SEC = 1800;

export const codex: Client = {
  id: 'codex',
  name: 'Codex CLI',
  detect: (p) => presence(p, ['codex'], [p.codexHome]),
  plan(p, scope, server) {
    const table = { command: server.command, args: server.args, tool_timeout_sec: TOOL_TIMEOUT_SEC, ...(Object.keys(server.env).length ? { env: server.env } : {}) };
    const config = tomlServerTarget(join(p.codexHome, 'config.toml'), p.home, table, 'AIRLOCK_TOKEN' in server.env);
    const agents = scope === 'user' ? markdownTarget(join(p.codexHome, 'AGENTS.md'), p.home) : markdownTarget(join(p.project, 'AGENTS.md'), p.project);
    return { targets: [config, agents], notes: scope === 'project' ? ['Codex has one server list per account: the server goes to config.toml in your Codex home in either scope'] : [] };
  },
  next: 'start codex and type /mcp: "airlock" is listed with its tools',
};
