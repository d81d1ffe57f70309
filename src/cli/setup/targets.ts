/**
 * A file setup writes for a client, and how: what it puts there and how it takes it out again.
 * Each kind of file has one maker here; the clients (clients/*.ts) only say which files.
 */
import { dropJsonServer, putJsonServer, type Edit } from './json-edit.js';
import { dropBlock, MARKDOWN, putBlock, block } from './markers.js';
import { isOurEntry, SERVER_NAME } from './server.js';
import { dropTomlServer, putTomlServer } from './toml-edit.js';
import { CURSOR_RULE_FRONTMATTER, GUIDANCE } from './guidance.js';

export interface Target {
  /** Absolute path. */
  path: string;
  kind: 'mcp' | 'guidance';
  /** It holds a token, so it is written with mode 0600. */
  secret: boolean;
  /** The home or project folder: setup creates directories below it and removes them only below it. */
  base: string;
  put(before: string | null): Edit;
  drop(before: string | null): Edit;
}

export function jsonServerTarget(path: string, base: string, o: { container: string; entry: Record<string, unknown>; jsonc: boolean; secret: boolean }): Target {
  const s = { container: o.container, name: SERVER_NAME, entry: o.entry, jsonc: o.jsonc, isOurs: isOurEntry };
  return { path, base, kind: 'mcp', secret: o.secret, put: (b) => putJsonServer(b, s), drop: (b) => dropJsonServer(b, s) };
}

export function tomlServerTarget(path: string, base: string, server: Record<string, unknown>, secret: boolean): Target {
  return { path, base, kind: 'mcp', secret, put: (b) => putTomlServer(b, SERVER_NAME, server), drop: (b) => dropTomlServer(b, SERVER_NAME, isOurEntry) };
}

/** A Markdown file the agent reads (CLAUDE.md, AGENTS.md, copilot-instructions.md): setup's block among the person's text. */
export function markdownTarget(path: string, base: string): Target {
  return {
    path,
    base,
    kind: 'guidance',
    secret: false,
    put: (b) => putBlock(b, GUIDANCE, MARKDOWN),
    drop: (b) => {
      const e = dropBlock(b, MARKDOWN);
      return e.ok && e.text !== null && e.text.trim() === '' ? { ok: true, text: null } : e;
    },
  };
}

/** A Cursor rule file of setup's own: its frontmatter, then the marked block. */
export function cursorRuleTarget(path: string, base: string): Target {
  return {
    path,
    base,
    kind: 'guidance',
    secret: false,
    put: (b) => (b === null || b.trim() === '' ? { ok: true, text: `${CURSOR_RULE_FRONTMATTER}\n${block(GUIDANCE, MARKDOWN)}\n` } : putBlock(b, GUIDANCE, MARKDOWN)),
    drop: (b) => {
      const e = dropBlock(b, MARKDOWN);
      if (!e.ok || e.text === null || e.text === b) return e;
      const left = e.text.trim();
      return left === '' || left === CURSOR_RULE_FRONTMATTER.trim() ? { ok: true, text: null } : e;
    },
  };
}
