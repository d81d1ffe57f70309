/**
 * The story suite: intents as a sysadmin says them (test/stories/<family>.json), each with
 * the catalogue actions (and their catalogue risks) a sound plan must contain, the actions
 * it must not contain, or that it must be refused. `runStories(planner, host)` plans every
 * story with the given planner and checks it; `npm run stories` prints the pass rates
 * (scripts/stories.ts), and test/unit/planner-offline.test.ts holds the offline planner to 80%.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS, type HostContext, type Planner, type PlannerLimits, type PlannerReport, type PlanStep, type QueryRunner } from '../../src/planner/contract.js';
import type { Risk } from '../../src/protocol/risk.js';

export interface StoryStep {
  /** The action, or the actions any one of which will do. */
  action: string | string[];
  /** The catalogue's risk of the action (one per alternative when they differ). */
  risk: Risk | Risk[];
  /** Parameters the step must carry (a subset: other parameters may be there too). */
  params?: Record<string, unknown>;
}

export interface Story {
  intent: string;
  /** The file's name when absent (refusals.json names each story's family). */
  family: string;
  must?: StoryStep[];
  must_not?: string[];
  refuse?: boolean;
  /** A hard one: the offline planner may fail it. */
  hard?: boolean;
  /** The `must` steps come in this order (each depends on the ones before it). */
  ordered?: boolean;
  /** A part of it maps to no action: the plan must say it is incomplete (never a shorter plan that looks whole). */
  incomplete?: boolean;
}

export interface StoryResult {
  story: Story;
  passed: boolean;
  /** A plan that names no missing part (a refusal is never complete). */
  complete: boolean;
  /** What went wrong, in words (empty when passed). */
  problems: string[];
  report: PlannerReport | null;
}

export const STORIES_DIR = dirname(fileURLToPath(import.meta.url));
/**
 * Multi-step requests written before the planner's rules for them, and kept out of its tests:
 * a measure of whether the rules generalise, though not a blind one (their author saw them
 * while writing the rules). scripts/stories.ts prints it; no test holds it.
 */
export const HELD_OUT_DIR = join(STORIES_DIR, 'held-out');

/** Every story of every file, in file then story order. */
export function loadStories(dir = STORIES_DIR): Story[] {
  const stories: Story[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const family = basename(file, '.json');
    for (const s of JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<Story, 'family'>[] & { family?: string }[]) stories.push({ ...s, family: s.family ?? family } as Story);
  }
  return stories;
}

/** The story suite runs no daemon: a planner that asks to read the host is told so, and must plan anyway. */
export const noQueries: QueryRunner = async () => ({ ok: false, error: 'the story suite has no daemon to read the host from', transaction_id: null });

function subset(want: Record<string, unknown>, got: Record<string, unknown>): boolean {
  return Object.entries(want).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
}

/** Mistakes of the story itself (an action that does not exist, a risk the catalogue does not give it). */
export function storyErrors(story: Story, host: HostContext): string[] {
  const errors: string[] = [];
  const byName = new Map(host.actions.map((a) => [a.name, a]));
  for (const m of story.must ?? []) {
    const names = Array.isArray(m.action) ? m.action : [m.action];
    const risks = Array.isArray(m.risk) ? m.risk : names.map(() => m.risk as Risk);
    names.forEach((n, i) => {
      const a = byName.get(n);
      if (a === undefined) errors.push(`story names ${n}, which this host does not offer`);
      else if (a.risk !== risks[i]) errors.push(`story says ${n} is ${risks[i]}, the catalogue says ${a.risk}`);
    });
  }
  for (const n of story.must_not ?? []) if (!byName.has(n)) errors.push(`story forbids ${n}, which does not exist`);
  if (story.refuse !== true && (story.must ?? []).length === 0) errors.push('story expects neither a refusal nor any action');
  if (story.refuse === true && story.incomplete === true) errors.push('story expects both a refusal and an incomplete plan');
  return errors;
}

/** Check one planner report against its story. */
export function checkStory(story: Story, report: PlannerReport, host: HostContext): string[] {
  const problems = storyErrors(story, host);
  const v = report.verdict;
  if (story.refuse === true) {
    if (v.kind !== 'refusal') problems.push(`expected a refusal, got a plan: ${v.steps.map((s) => s.action_name).join(', ')}`);
    return problems;
  }
  if (v.kind === 'refusal') return [...problems, `refused: ${v.reason}`];
  const known = new Set(host.actions.map((a) => a.name));
  for (const s of v.steps) if (!known.has(s.action_name)) problems.push(`step ${s.action_name} is not an action of this host`);
  let after = -1;
  for (const m of story.must ?? []) {
    const names = Array.isArray(m.action) ? m.action : [m.action];
    const matches = (s: PlanStep) => names.includes(s.action_name) && subset(m.params ?? {}, s.params);
    // In order: the first match after the previous must-step's (a dependent step before what it needs fails).
    const at = story.ordered === true ? v.steps.findIndex((s, i) => i > after && matches(s)) : v.steps.findIndex(matches);
    if (at >= 0) {
      after = at;
      continue;
    }
    const near = v.steps.filter((s) => names.includes(s.action_name));
    if (story.ordered === true && v.steps.some(matches)) problems.push(`${names.join('|')} ${JSON.stringify(m.params ?? {})} comes before a step it depends on (plan: ${v.steps.map((s) => s.action_name).join(', ')})`);
    else problems.push(near.length > 0 ? `${names.join('|')} with ${JSON.stringify(m.params)}: got ${near.map((s) => JSON.stringify(s.params)).join(', ')}` : `missing ${names.join('|')} (plan: ${v.steps.map((s) => s.action_name).join(', ') || 'empty'})`);
  }
  const missing = missingOf(report);
  if (story.incomplete === true && missing.length === 0) problems.push('the plan should say a part is missing, and says it is complete');
  if (story.incomplete !== true && missing.length > 0) problems.push(`incomplete: ${missing.join('; ')}`);
  for (const n of story.must_not ?? []) if (v.steps.some((s) => s.action_name === n)) problems.push(`contains ${n}, which it must not`);
  return problems;
}

/** The parts of the request the plan says it could not fill ("start nginx: no action matched"). */
export function missingOf(report: PlannerReport): string[] {
  return report.verdict.kind === 'plan' ? (report.verdict.missing ?? []).map((m) => `${m.part}: ${m.why}`) : [];
}

/** Plan every story with `planner` on `host` and check each; a planner that throws fails its story. */
export async function runStories(planner: Planner, host: HostContext, opts: { stories?: Story[]; limits?: PlannerLimits; query?: QueryRunner } = {}): Promise<StoryResult[]> {
  const results: StoryResult[] = [];
  for (const story of opts.stories ?? loadStories()) {
    try {
      const report = await planner.plan(story.intent, host, opts.query ?? noQueries, opts.limits ?? DEFAULT_LIMITS);
      const problems = checkStory(story, report, host);
      results.push({ story, passed: problems.length === 0, complete: report.verdict.kind === 'plan' && missingOf(report).length === 0, problems, report });
    } catch (e) {
      results.push({ story, passed: false, complete: false, problems: [`the planner threw: ${(e as Error).message}`], report: null });
    }
  }
  return results;
}

/** The share of stories passed, 0 to 1. */
export function passRate(results: readonly StoryResult[]): number {
  return results.length === 0 ? 0 : results.filter((r) => r.passed).length / results.length;
}
