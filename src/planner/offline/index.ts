/**
 * The offline planner: the embedded default when no LLM is configured. Deterministic word
 * rules (rules/, one file per catalogue family) map an intent to catalogue actions and fill
 * their parameters from its words; no model, no network, no key. It says plainly what it is
 * and which words it did not understand, refuses what it cannot map and what is unsafe, and
 * checks every step against the action's own parameter schema before proposing it. Its one
 * read through the daemon (reads.ts) can only drop a needless step. Like any planner it only
 * proposes: the daemon previews each step and a person decides.
 */
import type { HostContext, MissingPart, Planner, PlannerLimits, PlannerReport, PlanStep, PlanVerdict, QueryRecord, QueryRunner } from '../contract.js';
import { saidText } from '../parts.js';
import { sharpenWithReads } from './reads.js';
import { bestRule, takeTriggers, takeUnderstood } from './match.js';
import type { Context } from './rule.js';
import { KEYWORDS, RULES, VERBS } from './rules/index.js';
import { unsafeReason } from './unsafe.js';
import { paramsProblem } from './validate.js';
import { Clause, splitClauses, STOPWORDS, tokenize, type Token } from './words.js';

/** At most this many steps in one plan, and this many words reported as not understood. */
export const MAX_STEPS = 20;
const MAX_UNKNOWN_WORDS = 20;
/** Missing parts kept. */
const MAX_MISSING = 20;
const MAX_WORD_CHARS = 40;

export const OFFLINE_NOTE = 'Offline planner: deterministic word rules, no model and no network. It proposes only; check each step\'s preview (the daemon\'s risk) before you approve.';

const RHEL_LIKE = new Set(['fedora', 'rhel', 'centos', 'rocky', 'almalinux', 'ol']);

function summarize(steps: PlanStep[]): string {
  return steps.length === 1 ? steps[0]!.reason : `${steps.length} steps: ${steps.map((s) => s.action_name).join(', ')}`;
}

function quoteWord(w: string): string {
  return JSON.stringify(w.length > MAX_WORD_CHARS ? `${w.slice(0, MAX_WORD_CHARS)}…` : w);
}

/** One request of an intent: its words, and the parts said after a joiner that no rule read on their own. */
interface Request {
  words: Token[];
  /** Parts folded into this request ("... and resize the filesystem"): each must be read by its rule, or it is missing. */
  folded: Token[][];
}

/**
 * The requests of an intent: split at "and"/"then" before a verb, then a part no rule reads
 * on its own goes back to the request before it ("grow vg0/data by 10G and resize the
 * filesystem" is one request; "restart nginx and show its logs" is two).
 */
function requestsOf(tokens: Token[]): Request[] {
  const merged: Request[] = [];
  for (const words of splitClauses(tokens, VERBS)) {
    const prev = merged[merged.length - 1];
    if (prev !== undefined && bestRule(new Clause(words, KEYWORDS), RULES) === null) {
      prev.words.push(...words);
      prev.folded.push(words);
    } else merged.push({ words, folded: [] });
  }
  return merged;
}

/** The part's first meaningful word (its verb: the split was before it) was read by no rule: the part was dropped. */
function unread(part: readonly Token[]): boolean {
  const lead = part.find((t) => !t.literal && !STOPWORDS.has(t.low) && !/^[^\p{L}\p{N}]+$/u.test(t.low));
  return lead !== undefined && !lead.used;
}

/**
 * Names left unread right after "and", "with" or a comma in a request that a rule did read:
 * the end of a list the rule cut short, or a second object it does not carry out
 * ("restart nginx and flurbish"). Each is a missing part, never a silent leftover.
 */
function droppedObjects(words: readonly Token[]): Token[][] {
  const out: Token[][] = [];
  for (let i = 1; i < words.length; i++) {
    const prev = words[i - 1]!;
    const t = words[i]!;
    const joined = (!prev.literal && (prev.low === 'and' || prev.low === 'with')) || prev.comma;
    if (!joined || t.used || t.literal || STOPWORDS.has(t.low) || !/[\p{L}\p{N}]/u.test(t.low)) continue;
    const part = [t];
    for (let k = i + 1; k < words.length && !words[k]!.used && !(words[k - 1]!.comma); k++) part.push(words[k]!);
    out.push(part);
  }
  return out;
}

/** The plan for an intent: pure, so the same intent on the same host gives the same verdict and notes. */
export function planOffline(intent: string, host: HostContext, limits: Pick<PlannerLimits, 'maxIntentChars'>): { verdict: PlanVerdict; notes: string[] } {
  const notes = [OFFLINE_NOTE];
  const text = intent.trim();
  if (text === '') return { verdict: { kind: 'refusal', reason: 'The intent is empty: say what you want done, e.g. "restart nginx".' }, notes };
  if (text.length > limits.maxIntentChars) return { verdict: { kind: 'refusal', reason: `The intent is ${text.length} characters, more than the ${limits.maxIntentChars} allowed: say it in fewer words.` }, notes };

  const tokens = tokenize(text);
  const unsafe = unsafeReason(text, tokens);
  if (unsafe !== null) return { verdict: { kind: 'refusal', reason: unsafe }, notes };

  const ctx: Context = { host, rhel: RHEL_LIKE.has(host.distribution.id), last: {}, assumed: [] };
  const actions = new Map(host.actions.map((a) => [a.name, a]));
  const planned: PlanStep[] = [];
  const missing: string[] = [];
  /** Every part of the request no step carries out: the plan is incomplete while there is one. */
  const parts: MissingPart[] = [];
  const lack = (words: readonly Token[], why: string) => parts.push({ part: saidText(words), why });
  const unsupported: string[] = [];
  const unknown: string[] = [];

  for (const request of requestsOf(tokens)) {
    const clause = new Clause(request.words, KEYWORDS);
    const rule = bestRule(clause, RULES);
    if (rule === null) {
      unknown.push(...clause.leftover());
      lack(request.words, 'no action matched');
      continue;
    }
    takeTriggers(clause, rule);
    const built = rule.build(clause, ctx);
    takeUnderstood(clause, rule);
    unknown.push(...clause.leftover());
    for (const part of request.folded) if (unread(part)) lack(part, 'no action matched');
    if (!('steps' in built)) {
      missing.push(built.missing);
      lack(request.words, `could not fill ${built.missing}`);
      continue;
    }
    for (const m of built.missing ?? []) {
      missing.push(m);
      lack(request.words, `could not fill ${m}`);
    }
    for (const part of droppedObjects(request.words)) lack(part, 'no action matched');
    const part = saidText(request.words);
    for (const s of built.steps) {
      const action = actions.get(s.action_name);
      if (action === undefined) {
        unsupported.push(s.action_name);
        lack(request.words, `this host does not offer ${s.action_name}`);
        continue;
      }
      const problem = paramsProblem(action, s.params);
      if (problem !== null) {
        missing.push(`${s.action_name}: the words did not give a valid value (${problem})`);
        lack(request.words, `${s.action_name}: the words did not give a valid value (${problem})`);
        continue;
      }
      const same = planned.findIndex((p) => p.action_name === s.action_name && JSON.stringify(p.params) === JSON.stringify(s.params));
      if (same >= 0) {
        // Asked twice ("list the disks and partitions"): one step, carrying both parts.
        const had = planned[same]!;
        if (had.part !== undefined && !had.part.split(' / ').includes(part)) planned[same] = { ...had, part: `${had.part} / ${part}` };
        continue;
      }
      if (planned.length < MAX_STEPS) planned.push({ ...s, part });
      else lack(request.words, `a plan holds at most ${MAX_STEPS} steps`);
    }
  }

  const uniqueUnknown = [...new Set(unknown)].slice(0, MAX_UNKNOWN_WORDS);
  for (const a of [...new Set(ctx.assumed)]) notes.push(`Assumed: ${a}.`);
  for (const m of [...new Set(missing)]) notes.push(`Could not fill: ${m}.`);
  const where = host.distribution.pretty_name || host.distribution.id;
  if (unsupported.length > 0) notes.push(`Not offered on this host (${where}): ${[...new Set(unsupported)].join(', ')}.`);
  if (uniqueUnknown.length > 0) notes.push(`Did not understand: ${uniqueUnknown.map(quoteWord).join(', ')}.`);

  if (planned.length === 0) {
    const why = unsupported.length > 0 ? `this host (${where}) does not offer ${[...new Set(unsupported)].join(', ')}` : missing.length > 0 ? `it needs ${[...new Set(missing)].join('; ')}` : uniqueUnknown.length > 0 ? `no catalogue action matches the words ${uniqueUnknown.map(quoteWord).join(', ')}` : 'no catalogue action matches these words';
    return {
      verdict: { kind: 'refusal', reason: `The offline planner could not map this intent to a plan: ${why}. Rephrase with the thing to act on (e.g. "restart nginx", "open port 443/tcp"), see \`airlock actions\`, or configure an LLM planner.` },
      notes,
    };
  }
  const missingParts = dedupe(parts).slice(0, MAX_MISSING);
  return { verdict: { kind: 'plan', summary: summarize(planned), steps: planned, missing: missingParts }, notes };
}

function dedupe(parts: MissingPart[]): MissingPart[] {
  const seen = new Set<string>();
  return parts.filter((p) => !seen.has(`${p.part}\n${p.why}`) && (seen.add(`${p.part}\n${p.why}`), true));
}

export const offlinePlanner: Planner = {
  kind: 'offline',
  async plan(intent: string, host: HostContext, query: QueryRunner, limits: PlannerLimits): Promise<PlannerReport> {
    const started = performance.now();
    let { verdict, notes } = planOffline(intent, host, limits);
    let queries: QueryRecord[] = [];
    if (verdict.kind === 'plan') {
      // The plan stands on the words; a read through the daemon may only drop a step it shows needless.
      const read = await sharpenWithReads(verdict.steps, host, query, limits.wallClockMs);
      queries = read.queries;
      notes = [...notes, ...read.notes];
      if (read.steps.length === 0) verdict = { kind: 'refusal', reason: read.notes.join(' ') || 'nothing left to do' };
      else if (read.steps !== verdict.steps) verdict = { kind: 'plan', summary: summarize(read.steps), steps: read.steps, missing: verdict.missing };
    }
    return {
      verdict,
      planner: { kind: 'offline', model: null },
      notes,
      usage: { turns: 0, input_tokens: 0, output_tokens: 0, elapsed_ms: Math.round(performance.now() - started) },
      queries,
    };
  },
};
