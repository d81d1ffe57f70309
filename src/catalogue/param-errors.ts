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
 */
import type { z } from 'zod';
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

/** What the value at `path` accepts; across the shapes of a union, what any of them accepts. */
function acceptsAt(root: Schema, path: readonly PropertyKey[]): string {
  const d = defOf(unwrap(root));
  if (d.type === 'union' && d.options) {
    const each = d.options.map((o) => schemaAt(o, path)).filter((s): s is Schema => s !== null);
    const literals = each.map((s) => defOf(unwrap(s))).filter((x) => x.type === 'literal');
    if (literals.length > 0 && literals.length === each.length) return `one of ${literals.flatMap((x) => x.values ?? []).join(', ')}`;
    const phrases = [...new Set(each.map((s) => accepts(s)))];
    if (phrases.length > 0) return phrases.join(', or ');
  }
  const at = schemaAt(root, path);
  return at ? accepts(at) : SCHEMA_FORM;
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
  // Parameters of several shapes (a union of objects): explain against the shape the request came closest to.
  const d = defOf(unwrap(schema));
  const only = issues.length === 1 ? issues[0]! : null;
  if (d.type === 'union' && only?.code === 'invalid_union' && only.path.length === 0 && only.errors.length === d.options?.length) {
    let best = 0;
    only.errors.forEach((e, i) => (e.length < only.errors[best]!.length ? (best = i) : 0));
    return paramErrorSentences(d.options[best]!, raw, only.errors[best]!, show);
  }
  const known = Object.keys(defOf(unwrap(schema)).shape ?? {});
  const out: string[] = [];
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
    out.push(`parameter \`${name}\` got ${show(String(issue.path[0]), value)}: ${reason}`);
  }
  if (out.length > MAX_SENTENCES) return [...out.slice(0, MAX_SENTENCES), `and ${out.length - MAX_SENTENCES} more`];
  return out;
}
