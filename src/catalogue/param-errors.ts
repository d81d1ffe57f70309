/**
 * Why a request's parameters were refused, in sentences a person can act on:
 *   parameter `port` got 70000: a whole number from 1 to 65535
 *   missing parameter `user`: a user name (...)
 *   unknown parameter `usr` (did you mean `user`?)
 * One sentence per parameter, from the first thing wrong with it. What a parameter
 * accepts comes from the sentence its validator declares (zod's .describe(), set once on
 * the shared validators in params.ts), else from the shape of its schema; a refinement's
 * own message ("a template unit needs an instance ...") is the reason when there is one.
 * Never zod's text or a regular expression. The value is shown through `show`, which the
 * daemon makes mask secrets and escape control characters.
 * A value of the wrong JSON type says so (`parameter \`port\` got the string "443": ...`),
 * and is listed for the client (WrongType, src/protocol/errors.ts) with the JSON that would
 * have been right, so that each client says how to send it in its own terms.
 */
import type { z } from 'zod';
import type { JsonType, WrongType } from '../protocol/errors.js';
import { didYouMean } from '../protocol/nearest.js';

/** How a refused value is quoted in the sentence (the caller masks, escapes and bounds it). */
export type ShowValue = (param: string, value: unknown) => string;

/** Sentences at most: a request with a hundred bad keys gets the first few, and a count. */
export const MAX_SENTENCES = 8;

type Schema = z.ZodType;
// zod's definition object, read structurally: its type name and the parts each type has.
type Def = { type: string; innerType?: Schema; in?: Schema; element?: Schema; options?: Schema[]; shape?: Record<string, Schema>; entries?: Record<string, string | number>; values?: unknown[] };
const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'default', 'nullable', 'readonly', 'catch', 'prefault', 'nonoptional']);

/** The schema inside optional, default, pipe and the like: the one that says what is accepted. */
function unwrap(s: Schema): Schema {
  for (let i = 0; i < 16; i++) {
    if (s.description) return s;
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
  return s;
}

/** The schema inside every wrapper, described or not. */
function bare(s: Schema): Schema {
  for (let i = 0; i < 16; i++) {
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
  return s;
}

/** The schema of the value at `path` under `root`, or null when the path leaves the schema. */
function schemaAt(root: Schema, path: readonly PropertyKey[]): Schema | null {
  let s: Schema | null = root;
  for (const key of path) {
    if (!s) return null;
    const d = defOf(unwrap(s));
    if (d.type === 'object') s = d.shape?.[String(key)] ?? null;
    else if (d.type === 'array') s = d.element ?? null;
    else if (d.type === 'record') s = (d as unknown as { valueType?: Schema }).valueType ?? null;
    else return null;
  }
  return s;
}

const SAFE = Number.MAX_SAFE_INTEGER;
/** Where no shorter phrase says it: for every client (an agent reads its schema from a tool, a person from `airlock describe`). */
const SCHEMA_FORM = "a value of the form the action's parameter schema shows";
function numberRange(s: Schema): string {
  const n = s as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
  const kind = n.isInt ? 'a whole number' : 'a number';
  const lo = n.minValue !== null && Math.abs(n.minValue) < SAFE ? n.minValue : null;
  const hi = n.maxValue !== null && Math.abs(n.maxValue) < SAFE ? n.maxValue : null;
  if (lo !== null && hi !== null) return `${kind} from ${lo} to ${hi}`;
  if (lo !== null) return `${kind}, at least ${lo}`;
  if (hi !== null) return `${kind}, at most ${hi}`;
  return kind;
}

/** What `schema` accepts, as a phrase: its declared sentence, or one read from its shape. */
export function accepts(schema: Schema, depth = 0): string {
  const s = unwrap(schema);
  if (s.description) {
    // A number's description may document the field, not its range: the range is said too.
    const base = bare(s);
    const t = defOf(base).type;
    const range = t === 'number' || t === 'int' ? numberRange(base) : null;
    return range && !s.description.includes(range) ? `${range} (${s.description})` : s.description;
  }
  if (depth > 4) return SCHEMA_FORM;
  const d = defOf(s);
  switch (d.type) {
    case 'string': {
      const max = (s as unknown as { maxLength: number | null }).maxLength;
      return max !== null ? `text of up to ${max} characters` : 'text';
    }
    case 'number':
    case 'int':
      return numberRange(s);
    case 'boolean':
      return 'true or false';
    case 'enum':
      return `one of ${Object.values(d.entries ?? {}).join(', ')}`;
    case 'literal':
      return `exactly ${(d.values ?? []).map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'array':
      return `a list of ${d.element ? accepts(d.element, depth + 1) : 'values'}`;
    case 'union':
      return (d.options ?? []).map((o) => accepts(o, depth + 1)).join(', or ');
    case 'object':
      return `an object with ${Object.keys(d.shape ?? {}).map((k) => `\`${k}\``).join(', ') || 'no fields'}`;
    case 'record':
      return 'an object of names to values';
    default:
      return SCHEMA_FORM;
  }
}

/** The schemas of the value at `path`: in each shape of a union that has it, else the one. */
function schemasAt(root: Schema, path: readonly PropertyKey[]): Schema[] {
  const d = defOf(unwrap(root));
  if (d.type === 'union' && d.options) return d.options.map((o) => schemaAt(o, path)).filter((s): s is Schema => s !== null);
  const at = schemaAt(root, path);
  return at ? [at] : [];
}

/** What the value at `path` accepts; across the shapes of a union, what any of them accepts. */
function acceptsAt(root: Schema, path: readonly PropertyKey[]): string {
  const each = schemasAt(root, path);
  if (defOf(unwrap(root)).type === 'union') {
    const literals = each.map((s) => defOf(unwrap(s))).filter((x) => x.type === 'literal');
    if (literals.length > 0 && literals.length === each.length) return `one of ${literals.flatMap((x) => x.values ?? []).join(', ')}`;
    const phrases = [...new Set(each.map((s) => accepts(s)))];
    if (phrases.length > 0) return phrases.join(', or ');
  }
  return each[0] ? accepts(each[0]) : SCHEMA_FORM;
}

/** A value's JSON type, or null for what JSON has no type for (undefined, a function...). */
function jsonTypeOf(v: unknown): JsonType | null {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'object' || t === 'string' || t === 'number' || t === 'boolean' ? t : null;
}

const PRIMITIVE: Record<string, JsonType> = { string: 'string', number: 'number', int: 'number', boolean: 'boolean', array: 'array', tuple: 'array', object: 'object', record: 'object', null: 'null' };

/** The JSON types a schema accepts, or null when it does not say (unknown, any, lazy, a transform...): then no value is called the wrong type. */
function jsonTypesOf(s: Schema, depth = 0): Set<JsonType> | null {
  if (depth > 8) return null;
  const d = defOf(s);
  if (d.type === 'nullable' && d.innerType) {
    const inner = jsonTypesOf(d.innerType, depth + 1);
    return inner && inner.add('null');
  }
  if (WRAPPERS.has(d.type) && d.innerType) return jsonTypesOf(d.innerType, depth + 1);
  if (d.type === 'pipe' && d.in) return jsonTypesOf(d.in, depth + 1);
  if (d.type === 'enum' || d.type === 'literal') {
    const types = (d.type === 'enum' ? Object.values(d.entries ?? {}) : (d.values ?? [])).map(jsonTypeOf);
    return types.includes(null) ? null : new Set(types as JsonType[]);
  }
  if (d.type === 'union') {
    const out = new Set<JsonType>();
    for (const o of d.options ?? []) {
      const t = jsonTypesOf(o, depth + 1);
      if (t === null) return null;
      t.forEach((x) => out.add(x));
    }
    return out;
  }
  const t = PRIMITIVE[d.type];
  return t ? new Set([t]) : null;
}

/** The longest text a string is read as JSON from, for the value that would have been right. */
const AS_JSON_MAX = 80;

/**
 * Whether `value` at `path` is of a JSON type no schema there accepts, and if so what was
 * wanted; `as_json` when the string read as JSON is a value the parameter accepts, and the
 * string was shown as it is (`show` masked nothing, cut nothing, escaped nothing), so the
 * JSON repeats nothing the message did not already say.
 */
function wrongType(root: Schema, path: readonly PropertyKey[], value: unknown, shown: string): WrongType | null {
  const got = jsonTypeOf(value);
  const schemas = schemasAt(root, path);
  const each = schemas.map((s) => jsonTypesOf(s));
  if (got === null || schemas.length === 0 || each.includes(null)) return null;
  const expected = new Set(each.flatMap((t) => [...t!]));
  if (expected.has(got)) return null;
  const w: WrongType = { param: pathName(path), expected: [...expected], got };
  if (typeof value === 'string' && value.length <= AS_JSON_MAX && shown === JSON.stringify(value)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return w;
    }
    if (schemas.some((s) => s.safeParse(parsed).success)) w.as_json = JSON.stringify(parsed);
  }
  return w;
}

const NOUN: Record<JsonType, string> = { string: 'text', number: 'a number', boolean: 'true or false', array: 'a list', object: 'an object', null: 'null' };

/** How to send the wrong-typed parameters right, in words no client owns: `send \`port\` as a number (443), not as text`. */
export function wrongTypeHint(wrong: readonly WrongType[]): string {
  return wrong.map((w) => `send \`${w.param}\` as ${w.expected.map((t) => NOUN[t]).join(' or ')}${w.as_json !== undefined ? ` (${w.as_json})` : ''}, not as ${NOUN[w.got]}`).join('; ');
}

// zod's own messages (it wrote them, not us): replaced by what the parameter accepts.
const ZOD_WORDING = /^(Invalid|Too (small|big)|Unrecognized|Expected|Required)\b/;

/** `rules[2].port` for the path ['rules', 2, 'port']. */
function pathName(path: readonly PropertyKey[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Every parameter name an action's schema knows, across the shapes of a union. */
export function paramNames(schema: Schema): string[] {
  const d = defOf(unwrap(schema));
  if (d.type === 'union') return [...new Set((d.options ?? []).flatMap(paramNames))];
  return Object.keys(d.shape ?? {});
}

/** The sentences for a failed parse of `raw` against an action's parameter schema. */
export function paramErrorSentences(schema: Schema, raw: unknown, issues: readonly z.core.$ZodIssue[], show: ShowValue): string[] {
  return paramRefusal(schema, raw, issues, show).sentences;
}

/** The sentences for a failed parse, and the parameters among them whose value had the wrong JSON type. */
export function paramRefusal(schema: Schema, raw: unknown, issues: readonly z.core.$ZodIssue[], show: ShowValue): { sentences: string[]; wrongTypes: WrongType[] } {
  // Parameters of several shapes (a union of objects): explain against the shape the request came closest to.
  const d = defOf(unwrap(schema));
  const only = issues.length === 1 ? issues[0]! : null;
  if (d.type === 'union' && only?.code === 'invalid_union' && only.path.length === 0 && only.errors.length === d.options?.length) {
    let best = 0;
    only.errors.forEach((e, i) => (e.length < only.errors[best]!.length ? (best = i) : 0));
    return paramRefusal(d.options[best]!, raw, only.errors[best]!, show);
  }
  const known = Object.keys(defOf(unwrap(schema)).shape ?? {});
  const out: string[] = [];
  const wrongTypes: WrongType[] = [];
  const named = new Set<string>();
  for (const issue of issues) {
    if (issue.path.length === 0 && issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        if (named.has(key)) continue;
        named.add(key);
        out.push(known.length === 0 ? `unknown parameter \`${key}\`: this action takes no parameters` : `unknown parameter \`${key}\`${didYouMean(key, known, (n) => `\`${n}\``)}`);
      }
      continue;
    }
    if (issue.path.length === 0) {
      out.push('the parameters must be a JSON object of names to values');
      continue;
    }
    const name = pathName(issue.path);
    if (named.has(name)) continue; // the first thing wrong with a parameter is enough to fix it
    named.add(name);
    const what = acceptsAt(schema, issue.path);
    const value = valueAt(raw, issue.path);
    if (value === undefined) {
      out.push(`missing parameter \`${name}\`: ${what}`);
      continue;
    }
    const reason = issue.code === 'custom' || !ZOD_WORDING.test(issue.message) ? issue.message : what;
    const shown = show(String(issue.path[0]), value);
    const wrong = wrongType(schema, issue.path, value, shown);
    if (wrong) wrongTypes.push(wrong);
    out.push(`parameter \`${name}\` got ${wrong && wrong.got !== 'null' ? `${wrong.got === 'array' ? 'the list' : `the ${wrong.got}`} ` : ''}${shown}: ${reason}`);
  }
  const sentences = out.length > MAX_SENTENCES ? [...out.slice(0, MAX_SENTENCES), `and ${out.length - MAX_SENTENCES} more`] : out;
  return { sentences, wrongTypes: wrongTypes.slice(0, MAX_SENTENCES) };
}
