/**
 * What the model sent, checked here before anything is believed: its argument text parsed,
 * each step's action one this host offers, its parameters valid against that action's own
 * JSON Schema (the daemon's, converted once per action with zod's fromJSONSchema; the
 * daemon validates again at preview). Every problem is listed, in words the model can act
 * on, so it can correct the plan within the turn limit.
 */
import { z } from 'zod';
import { maskText } from '../../mask/mask.js';
import { escapeText } from '../../protocol/escape-text.js';
import type { ActionDescription } from '../../protocol/messages.js';
import type { MissingPart, PlanStep, PlanVerdict } from '../contract.js';
import { MAX_MISSING, MAX_PART_CHARS, MAX_PLAN_STEPS, MAX_REASON_CHARS, MAX_SUMMARY_CHARS, type Toolbox } from './tools.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** The schema of each action, converted on first use (at most one per catalogue action). */
const validators = new WeakMap<ActionDescription, z.ZodType>();
const MAX_ERRORS = 10;
const MAX_NAME_CHARS = 80;

/** A tool call's input as an object: the JSON text OpenAI-compatible servers send, or the object Anthropic's does. */
export function parseInput(input: unknown): Checked<Record<string, unknown>> {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      return { ok: false, errors: [`the arguments are not valid JSON (${(e as Error).message}): send one JSON object`] };
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, errors: ['the arguments must be one JSON object'] };
  return { ok: true, value: v as Record<string, unknown> };
}

/** One action's parameters, for a step or a query. */
export function checkParams(a: ActionDescription, params: unknown): string[] {
  let schema = validators.get(a);
  if (!schema) validators.set(a, (schema = z.fromJSONSchema(a.params_schema as Parameters<typeof z.fromJSONSchema>[0])));
  const r = schema.safeParse(params);
  return r.success ? [] : r.error.issues.slice(0, MAX_ERRORS).map((i) => `params${i.path.map((p) => `.${String(p)}`).join('')}: ${i.message}`);
}

/** An action name as the model wrote it, quoted safely in an error. */
export const quoted = (name: unknown): string => escapeText(JSON.stringify(String(name).slice(0, MAX_NAME_CHARS)));

export function checkAction(name: unknown, among: Map<string, ActionDescription>, what: string): Checked<ActionDescription> {
  const a = typeof name === 'string' ? among.get(name) : undefined;
  return a ? { ok: true, value: a } : { ok: false, errors: [`${quoted(name)} is not ${what} on this host`] };
}

export function checkPlan(input: unknown, tools: Toolbox): Checked<PlanVerdict> {
  const parsed = parseInput(input);
  if (!parsed.ok) return parsed;
  const { summary, steps, missing, ...rest } = parsed.value;
  const errors: string[] = Object.keys(rest).map((k) => `unknown field ${quoted(k)}: a plan has only summary, steps and missing`);
  if (typeof summary !== 'string' || summary.trim() === '') errors.push('summary: a sentence saying what the plan does');
  if (!Array.isArray(steps) || steps.length === 0) errors.push('steps: at least one step');
  else if (steps.length > MAX_PLAN_STEPS) errors.push(`steps: at most ${MAX_PLAN_STEPS}`);
  const out: PlanStep[] = [];
  if (Array.isArray(steps)) {
    steps.slice(0, MAX_PLAN_STEPS).forEach((s: unknown, i) => {
      const at = `steps[${i}]`;
      if (s === null || typeof s !== 'object' || Array.isArray(s)) return errors.push(`${at}: an object with action_name, params and reason`);
      const { action_name, params, reason, part } = s as Record<string, unknown>;
      const a = checkAction(action_name, tools.plannable, 'a catalogue action');
      if (!a.ok) return errors.push(`${at}: ${a.errors[0]}; use one of the actions in the ${'steps'} schema`);
      for (const e of checkParams(a.value, params)) errors.push(`${at} (${a.value.name}) ${e}`);
      if (typeof reason !== 'string') errors.push(`${at}: reason: why this step, in one sentence`);
      if (part !== undefined && typeof part !== 'string') errors.push(`${at}: part: the words of the intent this step carries out, as a string`);
      out.push({ action_name: a.value.name, params: params as Record<string, unknown>, reason: words(reason, MAX_REASON_CHARS), ...(typeof part === 'string' ? { part: words(part, MAX_PART_CHARS) } : {}) });
    });
  }
  const parts = checkMissing(missing, errors);
  if (errors.length > 0) return { ok: false, errors: errors.slice(0, MAX_ERRORS) };
  return { ok: true, value: { kind: 'plan', summary: words(summary, MAX_SUMMARY_CHARS), steps: out, missing: parts } };
}

/** The parts the model says it could not fill: each kept, in its words (a part reported is never dropped here). */
function checkMissing(missing: unknown, errors: string[]): MissingPart[] {
  if (missing === undefined) return [];
  if (!Array.isArray(missing)) {
    errors.push('missing: a list of {part, why}, or leave it out when every part has a step');
    return [];
  }
  if (missing.length > MAX_MISSING) errors.push(`missing: at most ${MAX_MISSING}; if that much is missing, refuse instead`);
  const out: MissingPart[] = [];
  missing.slice(0, MAX_MISSING).forEach((m: unknown, i) => {
    const { part, why } = (m ?? {}) as Record<string, unknown>;
    if (typeof part !== 'string' || part.trim() === '' || typeof why !== 'string') return errors.push(`missing[${i}]: {part: the intent's words, why: in a few words}`);
    out.push({ part: words(part, MAX_PART_CHARS), why: words(why, MAX_REASON_CHARS) });
  });
  return out;
}

export function checkRefusal(input: unknown): Checked<PlanVerdict> {
  const parsed = parseInput(input);
  if (!parsed.ok) return parsed;
  const reason = parsed.value.reason;
  if (typeof reason !== 'string' || reason.trim() === '') return { ok: false, errors: ['reason: say why you refuse, in a sentence'] };
  return { ok: true, value: { kind: 'refusal', reason: words(reason, MAX_REASON_CHARS) } };
}

/** The model's own words, as a person will read them: one line, masked, escaped, capped. */
function words(v: unknown, max: number): string {
  const s = escapeText(maskText(typeof v === 'string' ? v.trim() : '').text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
