/**
 * `npm run approvals`: how many approvals a person makes for the README's flows and the
 * stories' multi-step requests (test/stories/multistep.json and its held-out set), before
 * plans (one per change step: each previewed, approved and executed alone; the default policy
 * approves reads itself) and after (by the rule every client follows, src/client/proposal.ts:
 * two or more changes are ONE plan, one approval). A story's steps are the ones it requires
 * (`must`); a README sentence's are the offline planner's plan for it. A request whose plan is
 * incomplete runs nothing and is left out. The figures are in README.md ("Plans"), held there
 * by test/unit/approval-count.test.ts.
 */
import { catalogueMetadata } from '../src/protocol/catalogue-metadata.js';
import { changeCount, goesAsPlan, type ProposalStep } from '../src/client/proposal.js';
import { DEFAULT_LIMITS } from '../src/planner/contract.js';
import { offlinePlanner } from '../src/planner/offline/index.js';
import { storyHost } from '../test/stories/host.js';
import { HELD_OUT_DIR, noQueries } from '../test/stories/run.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Flow {
  source: string;
  name: string;
  steps: ProposalStep[];
}
export interface Count extends Flow {
  before: number;
  after: number;
}

const KEY = 'ssh-ed25519 AAAA... laptop';
/** The README's command-line flows, step by step as they are written there. */
const README_COMMANDS: Flow[] = [
  { source: 'README', name: 'the agent gives deploy a key (Give the agent an account)', steps: [{ action_name: 'AddAuthorizedKey', params: { user: 'deploy', key: KEY } }] },
  { source: 'README', name: 'the agent under your own account creates a group', steps: [{ action_name: 'CreateGroup', params: { group: 'web' } }] },
  { source: 'README', name: 'the demo: a read, a user, its key', steps: [{ action_name: 'GetHostname', params: {} }, { action_name: 'CreateUser', params: { user: 'deploy' } }, { action_name: 'AddAuthorizedKey', params: { user: 'deploy', key: KEY } }] },
];
/** The README's sentences, planned by the offline planner. */
const README_SENTENCES = ['install nginx and start it', 'restart nginx and show its last errors', 'free some disk space on /var', 'add a group deployers and put alice and bob in it'];

const STORIES = fileURLToPath(new URL('../test/stories/', import.meta.url));
const multistep = (dir: string, source: string): Flow[] =>
  (JSON.parse(readFileSync(join(dir, 'multistep.json'), 'utf8')) as Array<{ intent: string; incomplete?: boolean; must: Array<{ action: string; params: Record<string, unknown> }> }>)
    .filter((s) => !s.incomplete)
    .map((s) => ({ source, name: s.intent.replace(/ssh-ed25519 \S+ /, 'ssh-ed25519 … '), steps: s.must.map((m) => ({ action_name: m.action, params: m.params })) }));

export async function flows(): Promise<Flow[]> {
  const host = storyHost();
  const planner = offlinePlanner;
  const planned: Flow[] = [];
  for (const intent of README_SENTENCES) {
    const r = await planner.plan(intent, host, noQueries, DEFAULT_LIMITS);
    if (r.verdict.kind !== 'plan' || (r.verdict.missing ?? []).length) continue;
    planned.push({ source: 'README', name: `"${intent}"`, steps: r.verdict.steps.map((s) => ({ action_name: s.action_name, params: s.params })) });
  }
  return [...README_COMMANDS, ...planned, ...multistep(STORIES, 'stories'), ...multistep(HELD_OUT_DIR, 'stories (held out)')];
}

export function count(f: Flow): Count {
  const actions = catalogueMetadata().actions;
  const changes = changeCount(f.steps, actions);
  return { ...f, before: changes, after: goesAsPlan(f.steps, actions) ? 1 : changes };
}

export async function counts(): Promise<{ rows: Count[]; total: { before: number; after: number } }> {
  const rows = (await flows()).map(count);
  return { rows, total: { before: rows.reduce((n, r) => n + r.before, 0), after: rows.reduce((n, r) => n + r.after, 0) } };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { rows, total } = await counts();
  for (const r of rows) process.stdout.write(`${String(r.before).padStart(2)} -> ${r.after}  ${r.source}: ${r.name}\n`);
  const multi = rows.filter((r) => r.before >= 2);
  process.stdout.write(`\napprovals a person makes: ${total.before} before plans, ${total.after} with plans (${rows.length} requests; the ${multi.length} with two or more changes: ${multi.reduce((n, r) => n + r.before, 0)} -> ${multi.length})\n`);
}
