/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * Object keys sorted by UTF-16 code units, no whitespace, numbers in the
 * ECMAScript shortest round-trip form (which is exactly what JCS specifies),
 * strings escaped as JSON.stringify does. Values JSON cannot carry (undefined,
 * functions, NaN, Infinity, bigint) are refused rather than silently dropped:
 * a hash must never cover something other than what the caller sent.
 */
export class CanonicalizationError extends Error {}

export const MAX_JSON_DEPTH = 64;

export function canonicalize(value: unknown): string {
  return encode(value, 0);
}

function encode(value: unknown, depth: number): string {
  if (depth > MAX_JSON_DEPTH) throw new CanonicalizationError(`nesting deeper than ${MAX_JSON_DEPTH}`);
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalizationError('non-finite number');
      return JSON.stringify(value); // -0 becomes "0", as JCS requires
    case 'string':
      if (!isWellFormed(value)) throw new CanonicalizationError('string with a lone surrogate');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => encode(v, depth + 1)).join(',')}]`;
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new CanonicalizationError('not a plain object');
      const keys = Object.keys(value).sort(compareUtf16);
      const parts: string[] = [];
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) throw new CanonicalizationError(`undefined value at key ${JSON.stringify(k)}`);
        if (!isWellFormed(k)) throw new CanonicalizationError('key with a lone surrogate');
        parts.push(`${JSON.stringify(k)}:${encode(v, depth + 1)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new CanonicalizationError(`cannot canonicalize a ${typeof value}`);
  }
}

/**
 * Whether `text` is exactly the JCS form of `parsed` (JSON.parse of that text): what
 * `canonicalize(parsed) === text` says, and false where canonicalize refuses. The verifier asks
 * this of every log entry, so it avoids re-encoding where it can: JSON.stringify already writes
 * JCS when every object's keys enumerate in UTF-16 order, no string holds a lone surrogate (only
 * a `\u` escape or a malformed text can bring one) and nothing nests past the limit. Any other
 * text is decided by canonicalize itself.
 */
export function isCanonicalForm(text: string, parsed: unknown): boolean {
  if (!text.includes('\\u') && isWellFormed(text) && keysInOrder(parsed, 0)) return JSON.stringify(parsed) === text;
  try {
    return canonicalize(parsed) === text;
  } catch {
    return false;
  }
}

/** Every object's keys enumerate in UTF-16 order, and no value sits deeper than encode allows. */
function keysInOrder(value: unknown, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const v of value) if (!keysInOrder(v, depth + 1)) return false;
    return true;
  }
  let previous: string | null = null;
  for (const k in value) {
    if (previous !== null && !(previous < k)) return false;
    if (!keysInOrder((value as Record<string, unknown>)[k], depth + 1)) return false;
    previous = k;
  }
  return true;
}

function compareUtf16(a: string, b: string): number {
  // Default sort compares UTF-16 code units, which is what RFC 8785 3.2.3 asks for.
  return a < b ? -1 : a > b ? 1 : 0;
}

/** No lone surrogate (Node 20's String.prototype.isWellFormed; the typings target ES2022). */
export function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Depth of a parsed JSON value, computed without recursion (a hostile frame may be 10,000 deep). */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}
