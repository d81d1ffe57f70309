/**
 * VS Code (Copilot's agent mode): `servers` in .vscode/mcp.json, each stdio server with
 * `type: "stdio"`; the user scope is mcp.json in the user profile folder. VS Code reads the
 * file as JSON with comments, and so does setup. Guidance: .github/copilot-instructions.md,
 * which VS Code adds to every chat request in the workspace (user-level instruction files
 * live in a profile VS Code manages, so the user scope writes no guidance).
 */
import { join } from 'node:path';
import { presence } from '../detect.js';
import { jsonEntry } from '../server.js';
import { jsonServerTarget, markdownTarget } from '../targets.js';
import type { Client } from './types.js';

export const vscode: Client = {
  id: 'vscode',
  name: 'VS Code',
  detect: (p) => presence(p, ['code'], [join(p.home, '.vscode'), join(p.vscodeUser, '..')]),
  plan(p, scope, server) {
    const secret = 'AIRLOCK_TOKEN' in server.env;
    const entry = jsonEntry(server, true);
    if (scope === 'user') {
      return {
        targets: [jsonServerTarget(join(p.vscodeUser, 'mcp.json'), p.home, { container: 'servers', entry, jsonc: true, secret })],
        notes: ['VS Code\'s user-level instructions live in its profile: the guidance is written only in project scope (.github/copilot-instructions.md); the tools\' own descriptions state the same workflow'],
      };
    }
    return {
      targets: [jsonServerTarget(join(p.project, '.vscode', 'mcp.json'), p.project, { container: 'servers', entry, jsonc: true, secret }), markdownTarget(join(p.project, '.github', 'copilot-instructions.md'), p.project)],
      notes: [],
    };
  },
  next: 'in VS Code, open .vscode/mcp.json (or run "MCP: List Servers") and start "airlock"; use it from Copilot Chat in Agent mode',
};
