/**
 * Adds, replaces or removes one server in a client's JSON configuration by editing the text
 * in place: the rest of the file keeps its bytes. Every edit is checked by parsing the result
 * and comparing it with the intended document, so a wrong edit is refused, never written.
 */
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject, JsonSyntaxError, parseJson, type JsonMember, type JsonNode } from './json-parse.js';

/** The new text (null: delete the file), or why the file is left alone. */
export type Edit = { ok: true; text: string | null; note?: string } | { ok: false; reason: string };

export interface JsonServer {
  /** Where servers live: "mcpServers" (Claude Code, Cursor) or "servers" (VS Code). */
  container: string;
  name: string;
  entry: Record<string, unknown>;
  jsonc: boolean;
  /** Whether an entry of that name is one setup wrote (so it may replace or remove it). */
  isOurs: (v: unknown) => boolean;
}

type ObjectNode = Extract<JsonNode, { kind: 'object' }>;
const splice = (t: string, from: number, to: number, insert: string) => t.slice(0, from) + insert + t.slice(to);
const lineStart = (t: string, at: number) => t.lastIndexOf('\n', at - 1) + 1;
/** The whitespace before `at` on its line, or null when something else precedes it there. */
function ownLineIndent(t: string, at: number): string | null {
  const lead = t.slice(lineStart(t, at), at);
  return /^[ \t]*$/.test(lead) ? lead : null;
}
const lineIndent = (t: string, at: number) => /^[ \t]*/.exec(t.slice(lineStart(t, at)))![0];

/** Past whitespace and, in JSONC, comments. */
function skipTrivia(t: string, i: number, jsonc: boolean): number {
  for (;;) {
    if (/[ \t\r\n]/.test(t[i] ?? '')) i++;
    else if (jsonc && t.startsWith('//', i)) i = t.includes('\n', i) ? t.indexOf('\n', i) + 1 : t.length;
    else if (jsonc && t.startsWith('/*', i)) i = t.indexOf('*/', i + 2) + 2;
    else return i;
  }
}

/** The document's indentation unit: its first member's, '' for a document written on one line. */
function unitOf(t: string, root: ObjectNode): string {
  const first = root.members[0];
  if (!first) return '  ';
  return ownLineIndent(t, first.keyStart) ?? '';
}

function render(value: unknown, unit: string, base: string): string {
  return unit === '' ? JSON.stringify(value) : JSON.stringify(value, null, unit).replace(/\n/g, `\n${base}`);
}

function only(obj: ObjectNode, key: string): JsonMember | null | 'twice' {
  const found = obj.members.filter((m) => m.key === key);
  return found.length > 1 ? 'twice' : (found[0] ?? null);
}

/** `obj` with `key` set to `value`: the value replaced where it is, or a member added after the last. */
function setMember(t: string, obj: ObjectNode, key: string, value: unknown, unit: string): string {
  const existing = obj.members.find((m) => m.key === key);
  if (existing) return splice(t, existing.value.start, existing.value.end, render(value, unit, lineIndent(t, existing.keyStart)));
  const last = obj.members[obj.members.length - 1];
  if (last) {
    const indent = ownLineIndent(t, last.keyStart);
    const gap = t.slice(last.keyEnd, last.value.start);
    const colon = /^\s*:\s*$/.test(gap) ? gap : ': ';
    const sep = indent !== null ? `\n${indent}` : unit === '' ? '' : ' ';
    return splice(t, last.value.end, last.value.end, `,${sep}${JSON.stringify(key)}${colon}${render(value, unit, indent ?? lineIndent(t, last.keyStart))}`);
  }
  const inner = t.slice(obj.start + 1, obj.end - 1);
  if (unit === '') return splice(t, obj.start + 1, obj.start + 1, `${JSON.stringify(key)}:${render(value, unit, '')}`);
  const parent = lineIndent(t, obj.start);
  const child = parent + unit;
  const member = `\n${child}${JSON.stringify(key)}: ${render(value, unit, child)}`;
  // An empty object becomes a multi-line one; one holding only comments keeps them after the member.
  return inner.trim() === '' ? splice(t, obj.start + 1, obj.end - 1, `${member}\n${parent}`) : splice(t, obj.start + 1, obj.start + 1, member);
}

/** `obj` without `key`, with the comma that separated it, and nothing else around it. */
function removeMember(t: string, obj: ObjectNode, key: string, jsonc: boolean): string {
  const idx = obj.members.findIndex((m) => m.key === key);
  const m = obj.members[idx]!;
  const blank = (from: number, to: number) => t.slice(from, to).trim() === '';
  if (obj.members.length === 1) {
    const comma = skipTrivia(t, m.value.end, jsonc);
    const end = t[comma] === ',' ? comma + 1 : m.value.end;
    if (blank(obj.start + 1, m.keyStart) && blank(end, obj.end - 1)) return splice(t, obj.start + 1, obj.end - 1, '');
    // Comments stay: only the member's own lines go.
    const nl = t.indexOf('\n', end);
    const wholeLines = ownLineIndent(t, m.keyStart) !== null && nl >= 0 && blank(end, nl);
    return wholeLines ? splice(t, lineStart(t, m.keyStart), nl + 1, '') : splice(t, m.keyStart, end, '');
  }
  if (idx > 0) {
    const prev = obj.members[idx - 1]!;
    const comma = skipTrivia(t, prev.value.end, jsonc);
    if (blank(prev.value.end, comma) && blank(comma + 1, m.keyStart)) return splice(t, prev.value.end, m.value.end, '');
    return splice(splice(t, m.keyStart, m.value.end, ''), comma, comma + 1, '');
  }
  const next = obj.members[1]!;
  const comma = skipTrivia(t, m.value.end, jsonc);
  return blank(comma + 1, next.keyStart) ? splice(t, m.keyStart, next.keyStart, '') : splice(t, m.keyStart, comma + 1, '');
}

function read(text: string, s: JsonServer): { ok: true; root: ObjectNode; value: Record<string, unknown> } | { ok: false; reason: string } {
  let parsed;
  try {
    parsed = parseJson(text, s.jsonc);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    return { ok: false, reason: `it is not valid ${s.jsonc ? 'JSON (comments allowed)' : 'JSON'}: ${e.message}` };
  }
  if (parsed.root.kind !== 'object' || !isPlainObject(parsed.value)) return { ok: false, reason: 'it is JSON, but not an object at the top' };
  return { ok: true, root: parsed.root, value: parsed.value };
}

/** The edit is kept only if the result parses to exactly the intended document. */
function verified(text: string, expected: unknown, s: JsonServer): Edit {
  const after = read(text, s);
  if (after.ok && isDeepStrictEqual(after.value, expected)) return { ok: true, text };
  return { ok: false, reason: 'setup could not change it without changing something else (please report this); nothing was written' };
}

export function putJsonServer(before: string | null, s: JsonServer): Edit {
  const fresh = { [s.container]: { [s.name]: s.entry } };
  if (before === null || before.trim() === '') return verified(JSON.stringify(fresh, null, 2) + '\n', fresh, s);
  const doc = read(before, s);
  if (!doc.ok) return doc;
  const unit = unitOf(before, doc.root);
  const holder = only(doc.root, s.container);
  if (holder === 'twice') return { ok: false, reason: `it has the key "${s.container}" twice` };
  const expected = structuredClone(doc.value);
  if (holder === null) {
    expected[s.container] = { [s.name]: s.entry };
    return verified(setMember(before, doc.root, s.container, { [s.name]: s.entry }, unit), expected, s);
  }
  const servers = doc.value[s.container];
  if (!isPlainObject(servers) || holder.value.kind !== 'object') return { ok: false, reason: `its "${s.container}" is not an object` };
  if (only(holder.value, s.name) === 'twice') return { ok: false, reason: `its "${s.container}" has "${s.name}" twice` };
  if (servers[s.name] !== undefined && !s.isOurs(servers[s.name])) {
    return { ok: false, reason: `it already has a server named "${s.name}" that airlock setup did not write: rename or remove it, then run setup again` };
  }
  (expected[s.container] as Record<string, unknown>)[s.name] = s.entry;
  return verified(setMember(before, holder.value, s.name, s.entry, unit), expected, s);
}

/**
 * Removes setup's server. A container left empty goes too (an empty list of servers means
 * nothing to any client), and a file left as `{}` is deleted.
 */
export function dropJsonServer(before: string | null, s: JsonServer): Edit {
  if (before === null) return { ok: true, text: null };
  if (before.trim() === '') return { ok: true, text: before };
  const doc = read(before, s);
  if (!doc.ok) return doc;
  const holder = only(doc.root, s.container);
  const servers = doc.value[s.container];
  if (holder === 'twice') return { ok: false, reason: `it has the key "${s.container}" twice` };
  if (!holder || holder.value.kind !== 'object' || !isPlainObject(servers) || servers[s.name] === undefined) return { ok: true, text: before };
  if (only(holder.value, s.name) === 'twice') return { ok: false, reason: `its "${s.container}" has "${s.name}" twice` };
  if (!s.isOurs(servers[s.name])) return { ok: true, text: before, note: `its "${s.name}" server was not written by airlock setup; left alone` };
  const expected = structuredClone(doc.value);
  const left = expected[s.container] as Record<string, unknown>;
  delete left[s.name];
  let text = removeMember(before, holder.value, s.name, s.jsonc);
  const again = read(text, s);
  const emptied = again.ok ? again.root.members.find((m) => m.key === s.container)?.value : undefined;
  // An emptied container goes too, unless the person left comments in it.
  if (again.ok && emptied?.kind === 'object' && emptied.members.length === 0 && text.slice(emptied.start + 1, emptied.end - 1).trim() === '') {
    delete expected[s.container];
    text = removeMember(text, again.root, s.container, s.jsonc);
  }
  const result = verified(text, expected, s);
  if (result.ok && Object.keys(expected).length === 0 && text.replace(/^\ufeff/, '').trim() === '{}') return { ok: true, text: null };
  return result;
}
