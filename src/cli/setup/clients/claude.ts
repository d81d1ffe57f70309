/**
 * Claude Code. What `claude mcp add` writes: the project scope is .mcp.json at the project's
 * root (`mcpServers`; Claude Code asks once before it starts a project's servers), the user
 * scope the top-level `mcpServers` of ~/.claude.json. It reads CLAUDE.md in the project, and
 * ~/.claude/CLAUDE.md for the account.
 */
import { join } from 'node:path';
import { presence } from '../detect.js';
import { jsonEntry } from '../server.js';
import { jsonServerTarget, markdownTarget } from '../targets.js';
import type { Client } from './types.js';

export const claude: Client = {
  id: 'claude',
  name: 'Claude Code',
  detect: (p) => presence(p, ['claude'], [join(p.home, '.claude.json'), join(p.home, '.claude')]),
  plan(p, scope, server) {
    const secret = 'AIRLOCK_TOKEN' in server.env;
    const entry = jsonEntry(server, true);
    if (scope === 'user') {
      return {
        targets: [jsonServerTarget(join(p.home, '.claude.json'), p.home, { container: 'mcpServers', entry, jsonc: false, secret }), markdownTarget(join(p.home, '.claude', 'CLAUDE.md'), p.home)],
        notes: ['Claude Code rewrites ~/.claude.json while it runs: quit it before setup, or run setup again if the server is missing'],
      };
    }
    return {
      targets: [jsonServerTarget(join(p.project, '.mcp.json'), p.project, { container: 'mcpServers', entry, jsonc: false, secret }), markdownTarget(join(p.project, 'CLAUDE.md'), p.project)],
      notes: ['Claude Code asks once whether to use the servers in the project\'s .mcp.json: say yes to "airlock"'],
    };
  },
  next: 'start Claude Code in the project (or /mcp in a running one) and check that "airlock" is connected',
};
