/**
 * Picking the rule for one clause: every rule whose trigger groups all appear (and whose
 * `unless` words do not, and whose `needs` holds) scores the number of words its triggers
 * cover, the longest phrase of each group counting; the highest score wins, ties going to
 * the earlier rule in RULES. Deterministic: the same words always pick the same rule.
 */
import { STOPWORDS, type Clause } from './words.js';
import type { Rule } from './rule.js';

/** The longest phrase of a group present in the clause, or null. */
function longest(c: Clause, group: readonly string[]): string | null {
  let best: string | null = null;
  for (const p of group) if (c.has(p) && (best === null || p.split(' ').length > best.split(' ').length)) best = p;
  return best;
}

/** Where the request's verb is: the first word that is not a stopword. */
function verbIndex(c: Clause): number {
  return c.tokens.findIndex((t) => !t.used && !STOPWORDS.has(t.low));
}

function score(c: Clause, r: Rule): number {
  if (r.unless?.some((w) => c.has(w))) return 0;
  let total = 0;
  for (const [i, group] of r.when.entries()) {
    const p = longest(c, group);
    if (p === null) return 0;
    total += p.split(' ').length;
    // Between rules covering as many words, one led by the clause's first word ("install fail2ban") wins.
    if (i === 0 && c.find(p) === verbIndex(c)) total += 0.01;
  }
  if (r.needs && !r.needs(c)) return 0;
  return total;
}

/** The best rule for a clause, or null when none applies. */
export function bestRule(c: Clause, rules: readonly Rule[]): Rule | null {
  let best: Rule | null = null;
  let bestScore = 0;
  for (const r of rules) {
    const s = score(c, r);
    if (s > bestScore) {
      best = r;
      bestScore = s;
    }
  }
  return best;
}

/** Mark the rule's triggers used, before it fills its step from the other words. */
export function takeTriggers(c: Clause, r: Rule): void {
  for (const group of r.when) {
    const p = longest(c, group);
    if (p !== null) c.take(p);
  }
}

/** After the rule filled its step: the filler words it understands ("service", "the package") are understood too. */
export function takeUnderstood(c: Clause, r: Rule): void {
  for (const w of r.also ?? []) while (c.take(w));
}
