/**
 * The one function that makes host or agent text safe to reach a terminal or a client.
 *
 * A terminal obeys control characters: C0 (ESC starts a sequence that can repaint the
 * screen, CR returns over what was printed), DEL, and C1 (U+0080..U+009F: some terminals
 * read U+009B as CSI, the same as ESC [). Bidirectional controls reorder what a person
 * reads without changing the bytes (U+202E makes "txt.exe" read as "exe.txt"), and the
 * Unicode line and paragraph separators start a new line in some renderers. Each of these
 * is replaced by a visible escape: `\x1b`, `\x9b` for code points up to U+00FF, `\u202e`
 * above. A lone surrogate is no character at all: U+DC80..U+DCFF is a file's byte that is not
 * UTF-8 (file-text.ts) and shows as that byte, `\xe9`; any other shows as `\ud800`.
 * Everything else, backslashes included, is left as it is, so escaping twice changes nothing more than escaping once: the daemon escapes, and a client may escape
 * again before it prints (defence in depth) without doubling anything.
 *
 * Two modes:
 * - 'line' (one-line texts: summaries, warnings, side effects, error messages and hints)
 *   escapes every C0 character, tab and newline included, so no text can forge a line of
 *   its own in what the approver reads;
 * - 'block' (multi-line data: preview state and change values, output lines) keeps tab and
 *   newline, which are layout only: neither can move the cursor back over printed text.
 *   Output is split into lines before it is escaped, so an output line keeps its tabs.
 */
export type EscapeMode = 'line' | 'block';

/** Bidirectional formatting characters: LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM, ALM. */
export const BIDI_CONTROLS = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c] as const;
/** LINE SEPARATOR and PARAGRAPH SEPARATOR: line breaks in some renderers. */
export const LINE_SEPARATORS = [0x2028, 0x2029] as const;

/**
 * Invisible characters that make text look like other text: SOFT HYPHEN, the zero-width
 * space, joiners and word joiner, the invisible operators, the byte-order mark, and the
 * tag characters (U+E0000..E007F, astral: a surrogate pair).
 */
export const INVISIBLES = [0x00ad, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff] as const;

/** A surrogate that is not half of a pair (no 'u' flag: the regex sees UTF-16 code units). */
const LONE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]|\\udb40[\\udc00-\\udc7f]|${LONE}`, 'g');
const BLOCK = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]|\\udb40[\\udc00-\\udc7f]|${LONE}`, 'g');

const LINE_ANY = new RegExp(LINE.source);
const BLOCK_ANY = new RegExp(BLOCK.source);

const visible = (ch: string): string => {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0xdc80 && cp <= 0xdcff && ch.length === 1) return `\\x${(cp - 0xdc00).toString(16)}`;
  if (cp > 0xffff) return `\\u{${cp.toString(16)}}`;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
};

/** `text` with every control and bidirectional character replaced by a visible escape. Pure. */
export function escapeText(text: string, mode: EscapeMode = 'line'): string {
  return text.replace(mode === 'line' ? LINE : BLOCK, visible);
}

/** True when `text` holds a character escapeText would replace in this mode. */
export function hasUnsafeText(text: string, mode: EscapeMode = 'line'): boolean {
  return (mode === 'line' ? LINE_ANY : BLOCK_ANY).test(text);
}

/** A JSON value with escapeText applied to every string in it, object keys included. Pure. */
export function escapeDeep<T>(value: T, mode: EscapeMode = 'block'): T {
  return walk(value, mode) as T;
}

function walk(v: unknown, mode: EscapeMode): unknown {
  if (typeof v === 'string') return escapeText(v, mode);
  if (Array.isArray(v)) return v.map((x) => walk(x, mode));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [escapeText(k, mode), walk(x, mode)]));
  }
  return v;
}

/** True when some string in a JSON value (keys included) holds a character escapeText would replace. */
export function hasUnsafeTextDeep(value: unknown, mode: EscapeMode = 'block'): boolean {
  if (typeof value === 'string') return hasUnsafeText(value, mode);
  if (Array.isArray(value)) return value.some((x) => hasUnsafeTextDeep(x, mode));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).some(([k, x]) => hasUnsafeText(k, mode) || hasUnsafeTextDeep(x, mode));
  }
  return false;
}
