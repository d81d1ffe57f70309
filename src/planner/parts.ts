/**
 * The completeness check every planner's plan goes through (src/planner/door.ts): the
 * request split into its parts as the offline planner splits it (at "and", "then" or a
 * comma before a request), and each part must be carried out by a step or named as missing
 * by the planner. A part neither covers is added as missing: a planner (an LLM above all)
 * cannot return a shorter plan that passes for the whole request.
 *
 * A part is covered when one of its own words (one no other part says) appears in what a
 * step says of itself (the part it names, its reason, its action's name) or in a missing
 * part. Words are compared on their first five letters ("starts" is "start"). It can only
 * add missing parts, never remove one: where it errs, it errs towards INCOMPLETE.
 */
import type { MissingPart, PlanStep } from './contract.js';
import { VERBS } from './offline/rules/index.js';
import { splitClauses, STOPWORDS, tokenize, type Token } from './offline/words.js';

/** Characters of a part's words kept. */
export const MAX_PART_CHARS = 120;

const JOINER_LEAD = /^(and|then|also|plus|next|finally|afterwards|after)\s+/i;

/** The words of a part as the person said them ("start it"), without the joiner that led to it. */
export function saidText(words: readonly Token[]): string {
  const text = words.map((t) => t.raw).join(' ').replace(JOINER_LEAD, '');
  return text.length > MAX_PART_CHARS ? `${text.slice(0, MAX_PART_CHARS)}…` : text;
}

/** The parts of a request, as said. */
export function requestParts(intent: string): string[] {
  return splitClauses(tokenize(intent), VERBS).map(saidText);
}

/** The words that carry meaning, lower case: "StartService" is "start" and "service". */
function meaningful(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOPWORDS.has(w));
}

const stem = (w: string) => w.slice(0, 5);

/** The parts of `intent` that no step and no missing part covers, each as a missing part. */
export function uncoveredParts(intent: string, steps: readonly PlanStep[], missing: readonly MissingPart[]): MissingPart[] {
  const parts = requestParts(intent);
  // One request and at least one step: the step is for it (whether it is the right one is the preview's and the person's to judge).
  if (parts.length <= 1 && steps.length > 0) return [];
  const said = new Set([...steps.flatMap((s) => meaningful(`${s.part ?? ''} ${s.reason} ${s.action_name}`)), ...missing.flatMap((m) => meaningful(m.part))].map(stem));
  const wordsOf = parts.map(meaningful);
  const out: MissingPart[] = [];
  parts.forEach((part, i) => {
    const others = new Set(wordsOf.filter((_, k) => k !== i).flat());
    const own = wordsOf[i]!.filter((w) => !others.has(w));
    const words = own.length > 0 ? own : wordsOf[i]!;
    if (words.length > 0 && !words.some((w) => said.has(stem(w)))) out.push({ part, why: 'the planner proposed no step for it' });
  });
  return out;
}
