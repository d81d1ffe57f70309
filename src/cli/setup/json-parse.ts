/**
 * Reads a client's JSON configuration with jsonc-parser (VS Code's own), keeping the syntax
 * tree so that setup can edit one member in place. `jsonc` allows comments and trailing commas,
 * as VS Code's mcp.json does; Claude Code's and Cursor's files are read as strict JSON, the way
 * those clients read them (JSON.parse must accept them too).
 */
import { createScanner, parseTree, printParseErrorCode, SyntaxKind, type Node, type ParseError } from 'jsonc-parser';

export type { Node as JsonNode } from 'jsonc-parser';

export interface ParsedJson {
  /** The tree of `text` (a leading byte order mark read as a space, so offsets still match). */
  root: Node;
  value: unknown;
  /** The document's comments, in order: an edit must keep every one. */
  comments: string[];
}

/** Deeper than any client configuration; the parser recurses, so a hostile file must not reach it. */
const MAX_DEPTH = 256;

export class JsonSyntaxError extends Error {}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** jsonc-parser's code ("CloseBraceExpected") as words ("close brace expected"). */
const describe = (e: ParseError) => printParseErrorCode(e.error).replace(/(?<=[a-z])(?=[A-Z])/g, ' ').toLowerCase();

function where(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `at line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
}

/** The comments, and the deepest nesting, found by the scanner alone (it does not recurse). */
function scan(text: string): { comments: string[]; depth: number } {
  const s = createScanner(text, false);
  const comments: string[] = [];
  let depth = 0;
  let deepest = 0;
  for (let t = s.scan(); t !== SyntaxKind.EOF; t = s.scan()) {
    if (t === SyntaxKind.OpenBraceToken || t === SyntaxKind.OpenBracketToken) deepest = Math.max(deepest, ++depth);
    else if (t === SyntaxKind.CloseBraceToken || t === SyntaxKind.CloseBracketToken) depth--;
    else if (t === SyntaxKind.LineCommentTrivia || t === SyntaxKind.BlockCommentTrivia) comments.push(s.getTokenValue());
  }
  return { comments, depth: deepest };
}

/** The node's value as JSON.parse gives it: plain objects, "__proto__" an own property. */
function valueOf(node: Node): unknown {
  if (node.type === 'array') return node.children!.map(valueOf);
  if (node.type !== 'object') return node.value;
  const out: Record<string, unknown> = {};
  for (const [key, value] of node.children!.map((p) => p.children!)) {
    Object.defineProperty(out, key!.value as string, { value: valueOf(value!), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Throws JsonSyntaxError, with the line and column, for a document the client would not read. */
export function parseJson(text: string, jsonc: boolean): ParsedJson {
  const body = text.startsWith('\ufeff') ? ` ${text.slice(1)}` : text;
  const { comments, depth } = scan(body);
  if (depth > MAX_DEPTH) throw new JsonSyntaxError(`nesting deeper than ${MAX_DEPTH}`);
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { disallowComments: !jsonc, allowTrailingComma: jsonc, allowEmptyContent: false });
  const e = errors[0];
  if (e) throw new JsonSyntaxError(`${describe(e)} ${where(body, e.offset)}`);
  if (!jsonc) {
    try {
      JSON.parse(body);
    } catch (err) {
      throw new JsonSyntaxError((err as Error).message);
    }
  }
  return { root: root!, value: valueOf(root!), comments };
}
