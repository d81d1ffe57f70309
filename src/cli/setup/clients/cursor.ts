/**
 * Cursor: `mcpServers` in .cursor/mcp.json in the project, or ~/.cursor/mcp.json for every
 * project. Its rules are .mdc files in .cursor/rules/ (frontmatter, then Markdown); its user
 * rules live in its settings, not in a file, so the user scope writes no guidance.
 */
import { join } from 'node:path';
import { presence } from '../detect.js';
import { jsonEntry } from '../server.js';
import { cursorRuleTarget, jsonServerTarget } from '../targets.js';
import type { Client } from './types.js';

export const cursor: Client = {
  id: 'cursor',
  name: 'Cursor',
  detect: (p) => presence(p, ['cursor', 'cursor-agent'], [join(p.home, '.cursor')]),
  plan(p, scope, server) {
    const secret = 'AIRLOCK_TOKEN' in server.env;
    const entry = jsonEntry(server, false);
    if (scope === 'user') {
      return {
        targets: [jsonServerTarget(join(p.home, '.cursor', 'mcp.json'), p.home, { container: 'mcpServers', entry, jsonc: false, secret })],
        notes: ['Cursor keeps user rules in its settings, not in a file: the guidance is written only in project scope (.cursor/rules/airlock.mdc); the tools\' own descriptions state the same workflow'],
      };
    }
    return {
      targets: [jsonServerTarget(join(p.project, '.cursor', 'mcp.json'), p.project, { container: 'mcpServers', entry, jsonc: false, secret }), cursorRuleTarget(join(p.project, '.cursor', 'rules', 'airlock.mdc'), p.project)],
      notes: [],
    };
  },
  next: 'in Cursor, open Settings → MCP (Tools & MCP) and switch "airlock" on',
};
