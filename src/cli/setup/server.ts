/**
 * The one server entry every client gets: `airlock mcp-server` over stdio.
 *
 * It runs as the Node executable running setup now, with this checkout's bin/airlock.js, both
 * by absolute path, rather than `airlock` looked up on PATH: editors started from a desktop
 * (Cursor, VS Code) and agents that start servers with a trimmed environment (Codex passes only
 * a few variables) often have another PATH than the shell setup runs in, or none with Node on
 * it, and the server then fails to start with nothing on screen. Absolute paths also pin the
 * Node whose version setup checked. The cost: after moving the checkout or changing Node, run
 * `airlock setup` again (it updates its own entries in place).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name of the server in every client's list, and so the prefix of its tools there. */
export const SERVER_NAME = 'airlock';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const ENTRY_SCRIPT = join(ROOT, 'bin', 'airlock.js');

export interface ServerSpec {
  command: string;
  args: string[];
  /** AIRLOCK_SOCKET when a socket was named, AIRLOCK_TOKEN when a token is configured. */
  env: Record<string, string>;
}

export function serverSpec(env: Record<string, string>): ServerSpec {
  if (!existsSync(ENTRY_SCRIPT)) throw new Error(`${ENTRY_SCRIPT} is missing: run setup from an Airlock checkout`);
  return { command: process.execPath, args: [ENTRY_SCRIPT, 'mcp-server'], env };
}

/** Claude Code's and VS Code's stdio entry (both write `type`); Cursor's has none. */
export function jsonEntry(s: ServerSpec, withType: boolean): Record<string, unknown> {
  return { ...(withType ? { type: 'stdio' } : {}), command: s.command, args: s.args, ...(Object.keys(s.env).length ? { env: s.env } : {}) };
}

/**
 * An entry setup wrote, from this checkout or another: it runs `.../bin/airlock.js mcp-server`
 * or `airlock mcp-server`. Anything else under the name "airlock" is the person's own.
 */
export function isOurEntry(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const { command, args } = v as { command?: unknown; args?: unknown };
  if (typeof command !== 'string' || !Array.isArray(args) || args[args.length - 1] !== 'mcp-server') return false;
  return basename(command) === 'airlock' || args.some((a) => typeof a === 'string' && /(^|\/)bin\/airlock\.js$/.test(a));
}

/** The entry as shown to the person: a token is never printed. */
export function redacted(s: ServerSpec): ServerSpec {
  return { ...s, env: Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, k === 'AIRLOCK_TOKEN' ? '(the token from $AIRLOCK_TOKEN)' : v])) };
}
