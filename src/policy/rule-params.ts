/**
 * What a policy rule can constrain, decided from each action's own parameter schema
 * (zod), so that a rule the daemon could never apply is refused when the policy is
 * checked or loaded instead of being explained and then never matching. A rule compares
 * one request value with one literal or glob: it can match a parameter whose values are
 * strings, numbers or booleans (enums included), never a list or an object. And since a
 * rule covers a request only with exactly its parameter names, it must name every
 * parameter a request always carries, and each literal must be a value the parameter
 * accepts as it is. An action whose parameters come in several forms (a union of
 * objects) takes a rule that fits one of them.
 */
import { z } from 'zod';
import type { AnyAction } from '../catalogue/action.js';

export type Scalar = 'string' | 'number' | 'boolean';

export interface RuleParam {
  /** The kinds of value a rule may compare this parameter with; empty: none. */
  types: Scalar[];
  /** Why a rule cannot compare it ("a list"), when `types` is empty. */
  why: string;
  /** Every request of this form sets it (required, or given a default). */
  always: boolean;
  schema: z.ZodType;
}

export interface ParamForm {
  params: Map<string, RuleParam>;
}

/** A string constraint with * or ? is a glob; any other is a literal. */
export const isGlob = (s: string): boolean => /[*?]/.test(s);

/** The forms an action's parameters take, and what a rule may say about each parameter of each. */
export function ruleParameters(a: AnyAction): ParamForm[] {
  return shapesOf(a.params as z.ZodType).map((shape) => ({
    params: new Map(Object.entries(shape).map(([key, schema]) => [key, describe(schema)])),
  }));
}

/**
 * Why a rule with these constraints could never match a request for `a`, or null when it can.
 * The message names the parameter, says why, and what to write instead.
 */
export function ruleProblem(a: AnyAction, constraints: Record<string, string | number | boolean>): string | null {
  const forms = ruleParameters(a);
  if (forms.length === 0) return `${a.name} takes parameters a rule cannot describe: approve its requests by hand`;
  const checked = forms.map((f) => formProblem(a, f, constraints));
  if (checked.some((c) => c.problem === null)) return null;
  // Report against the form the rule comes nearest to: the most constraints it meets.
  const best = checked.reduce((b, c) => (c.met > b.met ? c : b));
  return (forms.length > 1 ? `no form of ${a.name}'s parameters fits the rule; nearest: ` : '') + best.problem;
}

/** The first reason this form cannot take the rule (null: it can), and how many of the rule's constraints it meets. */
function formProblem(a: AnyAction, form: ParamForm, constraints: Record<string, string | number | boolean>): { problem: string | null; met: number } {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(constraints)) {
    const why = valueProblem(a, form, key, value);
    if (why) problems.push(why);
  }
  for (const [key, p] of form.params) {
    if (p.always && !(key in constraints) && !(a.ruleScope?.free.includes(key) ?? false)) problems.push(`every ${a.name} request sets ${key}, so a rule that does not name it never matches: add it to params`);
  }
  return { problem: problems[0] ?? null, met: Object.keys(constraints).length - problems.length };
}

function valueProblem(a: AnyAction, form: ParamForm, key: string, value: string | number | boolean): string | null {
  const p = form.params.get(key);
  if (!p) return `${a.name} has no parameter ${key} (it has ${[...form.params.keys()].join(', ') || 'none'})`;
  if (p.types.length === 0) {
    const instead = p.always ? `every ${a.name} request sets it, so no rule can cover ${a.name}: a person approves these requests` : `leave ${key} out: the rule then covers the requests that do not set it, and a person approves the others`;
    return `params.${key}: ${a.name}'s ${key} is ${p.why}, and a rule compares a single value (only strings, numbers and booleans) with its literal or glob, so it would never match: ${instead}`;
  }
  const kind = typeof value as Scalar;
  if (!p.types.includes(kind)) return `params.${key}: ${a.name}'s ${key} is ${kinds(p.types)}, not a ${kind}, so the rule would never match: write it as ${kinds(p.types)}`;
  if (typeof value === 'string' && isGlob(value)) return null;
  const r = p.schema.safeParse(value);
  if (r.success && r.data === value) return null;
  const why = r.success ? `${a.name} turns it into ${JSON.stringify(r.data)}` : (r.error.issues[0]?.message ?? 'invalid');
  return `params.${key}: ${JSON.stringify(value)} is not a value ${a.name} accepts for ${key} (${why}), so the rule would never match: see \`airlock describe ${a.name}\``;
}

const kinds = (types: Scalar[]) => types.map((t) => `a ${t}`).join(' or ');

/** The object shapes a parameter schema admits: an object, each branch of a union, the input of a pipe. */
function shapesOf(schema: z.ZodType): Array<Record<string, z.ZodType>> {
  const def = (schema as unknown as { _zod: { def: { type: string; options?: z.ZodType[]; in?: z.ZodType } } })._zod.def;
  if (def.type === 'object') return [(schema as unknown as z.ZodObject).shape as Record<string, z.ZodType>];
  if (def.type === 'union' && def.options) return def.options.flatMap(shapesOf);
  if (def.type === 'pipe' && def.in) return shapesOf(def.in);
  return [];
}

function describe(schema: z.ZodType): RuleParam {
  const found = new Set<string>();
  collectTypes(z.toJSONSchema(schema, { unrepresentable: 'any' }), found);
  const types = (['string', 'number', 'boolean'] as const).filter((t) => found.has(t));
  const why = found.has('array') ? 'a list' : found.has('object') ? 'an object' : 'of a type a rule cannot compare';
  const absent = schema.safeParse(undefined);
  return { types, why: types.length ? '' : why, always: !absent.success || absent.data !== undefined, schema };
}

/** The JSON types a JSON Schema node admits (integer counts as number). */
function collectTypes(node: unknown, into: Set<string>): void {
  if (typeof node !== 'object' || node === null) return;
  const n = node as { type?: string | string[]; enum?: unknown[]; const?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };
  for (const t of Array.isArray(n.type) ? n.type : n.type ? [n.type] : []) into.add(t === 'integer' ? 'number' : t);
  for (const v of n.enum ?? []) into.add(typeof v);
  if ('const' in n) into.add(typeof n.const);
  for (const sub of [...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.allOf ?? [])]) collectTypes(sub, into);
}
