/**
 * Codex's ~/.codex/config.toml: setup's `[mcp_servers.airlock]` table is a marked block
 * appended at the end of the file (the only place a table can go without capturing the
 * keys that follow it), so the person's comments and layout stay as they are. The result
 * must parse (smol-toml) to the original document plus exactly that server, or nothing is
 * written: a file whose `mcp_servers` is an inline table, for instance, is refused.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';
import type { Edit } from './json-edit.js';
import { dropBlock, findBlock, putBlock, TOML_COMMENT } from './markers.js';

type Table = Record<string, unknown>;

/** smol-toml's tables have no prototype and its dates are objects: compare what they hold. */
const same = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

function read(text: string): { ok: true; doc: Table } | { ok: false; reason: string } {
  try {
    return { ok: true, doc: parse(text) as Table };
  } catch (e) {
    return { ok: false, reason: `it is not valid TOML: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** The document without `mcp_servers.<name>` (and without `mcp_servers` if that empties it). */
function without(doc: Table, name: string): Table {
  const copy = structuredClone(doc);
  const servers = copy.mcp_servers as Table | undefined;
  if (servers && typeof servers === 'object') {
    delete servers[name];
    if (Object.keys(servers).length === 0) delete copy.mcp_servers;
  }
  return copy;
}

export function putTomlServer(before: string | null, name: string, server: Table): Edit {
  const original = before === null || before.trim() === '' ? { ok: true as const, doc: {} } : read(before);
  if (!original.ok) return original;
  const found = before === null ? { kind: 'none' as const } : findBlock(before, TOML_COMMENT);
  if (found.kind === 'broken') return { ok: false, reason: found.why };
  const servers = original.doc.mcp_servers as Table | undefined;
  if (found.kind === 'none' && servers?.[name] !== undefined) {
    return { ok: false, reason: `it already has an [mcp_servers.${name}] table that airlock setup did not write: rename or remove it, then run setup again` };
  }
  const body = stringify({ mcp_servers: { [name]: server } });
  const edit = putBlock(before, body, TOML_COMMENT);
  if (!edit.ok || edit.text === null) return edit;
  const after = read(edit.text);
  if (!after.ok) return { ok: false, reason: `setup's [mcp_servers.${name}] table cannot be added to it (${after.reason.replace(/^it is not valid TOML: /, '')}); is its mcp_servers an inline table? Write it as [mcp_servers.NAME] tables` };
  const rest = found.kind === 'one' ? without(original.doc, name) : original.doc;
  const added = (after.doc.mcp_servers as Table | undefined)?.[name];
  if (!same(added, server) || !same(without(after.doc, name), without(rest, name))) {
    return { ok: false, reason: 'setup could not add its table without changing something else (please report this); nothing was written' };
  }
  return edit;
}

/** Removes the block; a file left with nothing but blank lines is deleted. */
export function dropTomlServer(before: string | null, name: string, isOurs: (v: unknown) => boolean): Edit {
  if (before === null) return { ok: true, text: null };
  const found = findBlock(before, TOML_COMMENT);
  if (found.kind === 'broken') return { ok: false, reason: found.why };
  if (found.kind === 'none') {
    const doc = read(before);
    const theirs = doc.ok && (doc.doc.mcp_servers as Table | undefined)?.[name] !== undefined;
    return { ok: true, text: before, ...(theirs ? { note: `its [mcp_servers.${name}] table was not written by airlock setup; left alone` } : {}) };
  }
  const inside = read(before.slice(found.start, found.end));
  if (!inside.ok || !isOurs((inside.doc.mcp_servers as Table | undefined)?.[name])) {
    return { ok: false, reason: 'its airlock block was edited and no longer holds only the server setup wrote: remove the block by hand' };
  }
  const edit = dropBlock(before, TOML_COMMENT);
  if (!edit.ok || edit.text === null) return edit;
  if (edit.text.trim() === '') return { ok: true, text: null };
  const after = read(edit.text);
  if (!after.ok) return { ok: false, reason: `without setup's block it would not parse (${after.reason}); remove the block by hand` };
  return edit;
}
