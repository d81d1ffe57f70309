/**
 * Where `airlock setup` has put an Airlock MCP server entry for this account (its own
 * files, and the project folder's): the account an agent runs under. Read with setup's own
 * targets, so doctor recognises exactly the entries setup writes and removes.
 */
import { readFileSync } from 'node:fs';
import { CLIENTS } from './clients/index.js';
import { place, shown } from './detect.js';
import { serverSpec } from './server.js';

export function agentEntries(project?: string): string[] {
  const p = place(project);
  const found: string[] = [];
  for (const client of CLIENTS) {
    for (const scope of ['user', 'project'] as const) {
      for (const t of client.plan(p, scope, serverSpec({})).targets.filter((x) => x.kind === 'mcp')) {
        let before: string;
        try {
          before = readFileSync(t.path, 'utf8');
        } catch {
          continue;
        }
        const e = t.drop(before);
        if (e.ok && e.text !== before && !found.includes(shown(t.path, p))) found.push(shown(t.path, p));
      }
    }
  }
  return found;
}
