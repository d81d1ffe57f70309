/**
 * A JSON parser that keeps where each value lies in the text, so that setup can change one
 * member of a client's configuration and leave every other byte as the person wrote it
 * (their formatting, their order, and in VS Code's JSONC their comments and trailing commas).
 * `jsonc` allows // and /* *\/ comments and trailing commas, as VS Code's mcp.json does;
 * Claude Code's and Cursor's files are parsed as strict JSON, the way those clients read them.
 */

export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number };

export interface JsonMember {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: JsonNode;
}

export interface ParsedJson {
  root: JsonNode;
  value: unknown;
}

/** Deeper than any client configuration; bounded so a hostile file cannot exhaust the stack. */
const MAX_DEPTH = 256;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
  }
}

/** Sets an own property even for "__proto__", as JSON.parse does. */
function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function parseJson(text: string, jsonc: boolean): ParsedJson {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const fail = (what: string): never => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    throw new JsonSyntaxError(what, line, i - before.lastIndexOf('\n'));
  };

  const skip = (): void => {
    for (;;) {
      const ch = text[i];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') i++;
      else if (jsonc && text.startsWith('//', i)) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl + 1;
      } else if (jsonc && text.startsWith('/*', i)) {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) fail('unterminated comment');
        i = close + 2;
      } else return;
    }
  };

  const token = (re: RegExp): string | null => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return null;
    i += m[0].length;
    return m[0];
  };

  const value = (depth: number): { node: JsonNode; value: unknown } => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    skip();
    const start = i;
    const ch = text[i];
    if (ch === '{') {
      i++;
      const members: JsonMember[] = [];
      const out: Record<string, unknown> = {};
      skip();
      if (text[i] === '}') return { node: { kind: 'object', start, end: ++i, members }, value: out };
      for (;;) {
        skip();
        if (jsonc && text[i] === '}' && members.length > 0) break;
        const keyStart = i;
        const raw = token(STRING) ?? fail('expected a string key');
        const keyEnd = i;
        skip();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        const v = value(depth + 1);
        const key = JSON.parse(raw) as string;
        members.push({ key, keyStart, keyEnd, value: v.node });
        define(out, key, v.value);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') break;
        fail('expected "," or "}"');
      }
      return { node: { kind: 'object', start, end: ++i, members }, value: out };
    }
    if (ch === '[') {
      i++;
      const items: JsonNode[] = [];
      const out: unknown[] = [];
      skip();
      if (text[i] === ']') return { node: { kind: 'array', start, end: ++i, items }, value: out };
      for (;;) {
        skip();
        if (jsonc && text[i] === ']' && items.length > 0) break;
        const v = value(depth + 1);
        items.push(v.node);
        out.push(v.value);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') break;
        fail('expected "," or "]"');
      }
      return { node: { kind: 'array', start, end: ++i, items }, value: out };
    }
    const raw = token(STRING) ?? token(NUMBER) ?? token(LITERAL) ?? fail('expected a value');
    return { node: { kind: 'scalar', start, end: i }, value: JSON.parse(raw) };
  };

  const top = value(0);
  skip();
  if (i < text.length) fail('unexpected text after the document');
  return { root: top.node, value: top.value };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
