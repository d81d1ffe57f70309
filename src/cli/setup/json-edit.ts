/**
 * Adds, replaces or removes one server in a client's JSON configuration by editing the text in
 * place with jsonc-parser's `modify`: the rest of the file keeps its bytes. Every edit is checked
 * by parsing the result and comparing it with the intended document (comments included), so a
 * wrong edit is refused, never written.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, format, modify, type FormattingOptions, type JSONPath } from 'jsonc-parser';
import { isPlainObject, JsonSyntaxError, parseJson, type JsonNode, type ParsedJson } from './json-parse.js';

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

type Doc = ParsedJson & { value: Record<string, unknown> };

/** The member `key` of an object node; jsonc-parser keeps duplicate keys without a word, so they are looked for here. */
function only(obj: JsonNode, key: string): JsonNode | null | 'twice' {
  const found = (obj.children ?? []).filter((p) => p.children![0]!.value === key);
  return found.length > 1 ? 'twice' : (found[0] ?? null);
}

/** The file's own indentation, read from its first member; null for a document on one line (edited compactly). */
function layout(text: string, root: JsonNode): FormattingOptions | null {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const first = root.children?.[0];
  if (!first) return { insertSpaces: true, tabSize: 2, eol };
  const lead = text.slice(text.lastIndexOf('\n', first.offset - 1) + 1, first.offset);
  if (lead === '' || !/^[ \t]*$/.test(lead)) return null;
  return lead.includes('\t') ? { insertSpaces: false, tabSize: 4, eol } : { insertSpaces: true, tabSize: lead.length, eol };
}

/**
 * `text` with the member at `path` set to `value`, our new text alone formatted in the file's
 * indentation (modify's own formatting would re-format the whole lines it touches, the person's
 * member before ours among them).
 */
function put(text: string, path: JSONPath, value: unknown, fmt: FormattingOptions | null, into: JsonNode): string {
  const [e] = modify(text, path, value, {});
  if (!e) return text;
  const out = applyEdits(text, [e]);
  if (!fmt) return out;
  // From the character before an insertion, so the line break before the member is made too;
  // into an empty object, to the character after, so its closing brace gets its own line.
  const from = e.length === 0 ? e.offset - 1 : e.offset;
  const to = e.offset + e.content.length + (e.length === 0 && !into.children?.length ? 1 : 0);
  return applyEdits(out, format(out, { offset: from, length: to - from }, fmt));
}

/**
 * `text` without `member` of `obj` and the comma that separated it. modify takes from the member
 * before it, or from the opening brace; a comment there (or after a first member) is the
 * person's, so then only the member and its comma go.
 */
function remove(text: string, path: JSONPath, obj: JsonNode, member: JsonNode): string {
  const [e] = modify(text, path, undefined, {});
  if (!e) return text;
  const end = member.offset + member.length;
  const i = obj.children!.indexOf(member);
  const [prev, next] = [obj.children![i - 1], obj.children![i + 1]];
  const plain = (from: number, to: number) => /^\s*,?\s*$/.test(text.slice(from, to));
  /** Just past the comma that follows `from` across whitespace, if one does. */
  const comma = (from: number) => {
    const m = /^\s*,/.exec(text.slice(from));
    return m ? from + m[0].length : null;
  };
  const cut = (from: number, to: number) => ({ offset: from, length: to - from, content: '' });
  if (prev) {
    const after = comma(prev.offset + prev.length);
    return applyEdits(text, plain(prev.offset + prev.length, member.offset) || after === null ? [e] : [cut(after - 1, after), cut(member.offset, end)]);
  }
  // A first member goes from its own key, so the indentation before the next one stays.
  if (next) return applyEdits(text, [cut(member.offset, plain(end, next.offset) ? next.offset : (comma(end) ?? end))]);
  // An only member: with a trailing comma (JSONC), and with what is before it only if that is blank.
  return applyEdits(text, [cut(plain(e.offset, member.offset) ? e.offset : member.offset, comma(end) ?? end)]);
}

function read(text: string, s: JsonServer): { ok: true; doc: Doc } | { ok: false; reason: string } {
  let doc;
  try {
    doc = parseJson(text, s.jsonc);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    return { ok: false, reason: `it is not valid ${s.jsonc ? 'JSON (comments allowed)' : 'JSON'}: ${e.message}` };
  }
  if (doc.root.type !== 'object' || !isPlainObject(doc.value)) return { ok: false, reason: 'it is JSON, but not an object at the top' };
  return { ok: true, doc: doc as Doc };
}

/** The edit is kept only if the result parses to exactly the intended document, with every comment it had. */
function verified(text: string, expected: unknown, comments: string[], s: JsonServer): Edit {
  const after = read(text, s);
  if (after.ok && isDeepStrictEqual(after.doc.value, expected) && isDeepStrictEqual(after.doc.comments, comments)) return { ok: true, text };
  return { ok: false, reason: 'setup could not change it without changing something else (please report this); nothing was written' };
}

/** jsonc-parser does not read a byte order mark: the edits are made with a space in its place, then it is put back. */
const unmarked = (t: string) => (t.startsWith('\ufeff') ? { body: ` ${t.slice(1)}`, mark: (r: string) => `\ufeff${r.slice(1)}` } : { body: t, mark: (r: string) => r });

export function putJsonServer(before: string | null, s: JsonServer): Edit {
  const fresh = { [s.container]: { [s.name]: s.entry } };
  if (before === null || before.trim() === '') return verified(JSON.stringify(fresh, null, 2) + '\n', fresh, [], s);
  const { body, mark } = unmarked(before);
  const r = read(body, s);
  if (!r.ok) return r;
  const { root, value, comments } = r.doc;
  const holder = only(root, s.container);
  if (holder === 'twice') return { ok: false, reason: `it has the key "${s.container}" twice` };
  const expected = structuredClone(value);
  const fmt = layout(body, root);
  if (holder === null) {
    expected[s.container] = { [s.name]: s.entry };
    return verified(mark(put(body, [s.container], { [s.name]: s.entry }, fmt, root)), expected, comments, s);
  }
  const servers = value[s.container];
  const node = holder.children![1]!;
  if (!isPlainObject(servers) || node.type !== 'object') return { ok: false, reason: `its "${s.container}" is not an object` };
  if (only(node, s.name) === 'twice') return { ok: false, reason: `its "${s.container}" has "${s.name}" twice` };
  if (servers[s.name] !== undefined && !s.isOurs(servers[s.name])) {
    return { ok: false, reason: `it already has a server named "${s.name}" that airlock setup did not write: rename or remove it, then run setup again` };
  }
  (expected[s.container] as Record<string, unknown>)[s.name] = s.entry;
  return verified(mark(put(body, [s.container, s.name], s.entry, fmt, node)), expected, comments, s);
}

/**
 * Removes setup's server. A container left empty goes too (an empty list of servers means
 * nothing to any client), unless the person left comments in it; a file left as `{}` is deleted.
 */
export function dropJsonServer(before: string | null, s: JsonServer): Edit {
  if (before === null) return { ok: true, text: null };
  if (before.trim() === '') return { ok: true, text: before };
  const { body, mark } = unmarked(before);
  const r = read(body, s);
  if (!r.ok) return r;
  const { root, value, comments } = r.doc;
  const holder = only(root, s.container);
  const servers = value[s.container];
  if (holder === 'twice') return { ok: false, reason: `it has the key "${s.container}" twice` };
  const node = holder?.children![1];
  if (!node || node.type !== 'object' || !isPlainObject(servers) || servers[s.name] === undefined) return { ok: true, text: before };
  const member = only(node, s.name);
  if (member === 'twice') return { ok: false, reason: `its "${s.container}" has "${s.name}" twice` };
  if (!s.isOurs(servers[s.name])) return { ok: true, text: before, note: `its "${s.name}" server was not written by airlock setup; left alone` };
  const expected = structuredClone(value);
  delete (expected[s.container] as Record<string, unknown>)[s.name];
  let text = remove(body, [s.container, s.name], node, member!);
  const again = read(text, s);
  const emptied = again.ok ? only(again.doc.root, s.container) : null;
  const inner = emptied && emptied !== 'twice' ? emptied.children![1]! : null;
  if (again.ok && inner?.type === 'object' && !inner.children?.length && parseJson(text.slice(inner.offset, inner.offset + inner.length), true).comments.length === 0) {
    delete expected[s.container];
    text = remove(text, [s.container], again.doc.root, emptied as JsonNode);
  }
  const result = verified(mark(text), expected, comments, s);
  if (result.ok && Object.keys(expected).length === 0 && /^\ufeff?\s*\{\s*\}\s*$/.test(text)) return { ok: true, text: null };
  return result;
}
