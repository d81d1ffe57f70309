/**
 * Why the policy did not approve a preview, when a rule was close: the sentences of a
 * preview's `policy_notes` ("policy: rule `restart-web` does not approve this: cooldown,
 * last approved 2 min ago, next at 10:42 UTC"). A person reading the preview learns which
 * rule did not apply and why, instead of guessing at their policy file. Nothing here
 * decides anything: autoApprove (verbs/preview.ts) and the store decide; these explain.
 */
import type { ActionNature } from '../catalogue/action.js';
import { READS_RULE, ruleMismatch, type Policy, type Rule } from '../policy/policy.js';
import type { Risk } from '../protocol/risk.js';
import type { RuleUsage } from '../store/store.js';
import type { Caller } from './authz.js';

/** Notes at most: a policy with many rules for one action names the first few. */
export const MAX_POLICY_NOTES = 5;
const DAY_MS = 24 * 60 * 60_000;

const note = (ruleId: string, why: string) => `policy: rule \`${ruleId}\` does not approve this: ${why}`;

/** "2 min ago", "3 h 5 min ago": how long since `ms`. */
function ago(ms: number): string {
  const min = Math.max(0, Math.floor(ms / 60_000));
  if (min < 1) return 'less than a minute ago';
  return min < 60 ? `${min} min ago` : `${Math.floor(min / 60)} h ${min % 60} min ago`;
}
/** "10:42 UTC", with the date when it is not today. */
function at(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}

/**
 * The notes for a request the policy's lanes did not take (`lane` as autoApprovalLane
 * answered, `matched` the rule that covers it exactly, if any): the reads rule for a read
 * it leaves to a person, each rule of this action that does not cover the request, and
 * every rule of this action for an unattended principal.
 */
export function laneNotes(policy: Policy, who: Caller, a: ActionNature & { name: string }, risk: Risk, lane: 'reads' | 'rules' | null, params: Record<string, unknown>, show: (name: string, value: unknown) => string): string[] {
  const notes: string[] = [];
  if (policy.reads === 'auto' && risk === 'low' && a.readOnly && lane !== 'reads') {
    if (a.sensitive) notes.push(note(READS_RULE, `${a.name} is a sensitive read (it can show secrets), which a person approves`));
    else if (a.reachesNetwork && who.via === 'token') notes.push(note(READS_RULE, `${a.name} reaches the network, and a token principal asks`));
  }
  const rules: Rule[] = policy.rules.filter((r) => r.action === a.name);
  for (const r of rules) {
    if (who.unattended) notes.push(note(r.id, `${who.user} is unattended: it proposes, and a person decides`));
    else {
      const why = ruleMismatch(r, params, show);
      if (why) notes.push(note(r.id, why));
    }
  }
  return notes.slice(0, MAX_POLICY_NOTES);
}

/** The note for a rule that covers the request but is at its daily cap or inside its cooldown. */
export function exhaustedNote(rule: Rule, usage: RuleUsage, now: number): string {
  if (usage.lastDay >= rule.dailyCap) {
    const freed = usage.firstInDay !== null ? `, next at ${at(usage.firstInDay + DAY_MS, now)}` : '';
    return note(rule.id, `daily cap, ${usage.lastDay} of ${rule.dailyCap} approvals in the last 24 hours${freed}`);
  }
  if (usage.last !== null && now - usage.last < rule.cooldownMs) {
    return note(rule.id, `cooldown, last approved ${ago(now - usage.last)}, next at ${at(usage.last + rule.cooldownMs, now)}`);
  }
  // The store refused it, and by now the limit has passed (a race with the clock): say so plainly.
  return note(rule.id, 'its cooldown or daily cap was reached at the time of the preview');
}
