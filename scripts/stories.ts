/**
 * `npm run stories`: the story suite's pass rate for the offline planner, then one row per
 * recorded provider cassette (test/cassettes/) replayed through the LLM planner. Exits 1 when
 * the offline planner passes fewer than 80% of the stories. `--verbose` lists each failure.
 */
import { offlinePlanner } from '../src/planner/offline/index.js';
import { storyHost } from '../test/stories/host.js';
import { HELD_OUT_DIR, loadStories, passRate, runStories, type StoryResult } from '../test/stories/run.js';
import type { Planner } from '../src/planner/contract.js';
import { replayingPlanner } from '../src/planner/llm/recorded.js';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const OFFLINE_THRESHOLD = 0.8;

/** Where `scripts/record-stories.ts` writes a provider's session over the whole suite. */
const CASSETTES = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'cassettes');

/**
 * The LLM planner in replay mode, one per recorded cassette in test/cassettes/ (the provider
 * and model it recorded, replayed strictly: a request it has no answer for fails its story).
 */
export async function providerRows(): Promise<{ label: string; planner: Planner; close(): Promise<void> }[]> {
  const files = existsSync(CASSETTES) ? readdirSync(CASSETTES).filter((f) => f.endsWith('.json')).sort() : [];
  return Promise.all(
    files.map(async (f) => {
      const rec = await replayingPlanner(join(CASSETTES, f));
      return { label: `${rec.planner.kind} ${rec.model} (recorded)`, planner: rec.planner, close: rec.close };
    }),
  );
}

function row(label: string, results: StoryResult[]): string {
  const passed = results.filter((r) => r.passed).length;
  const hard = results.filter((r) => r.story.hard === true);
  return `${label.padEnd(28)} ${String(passed).padStart(4)}/${results.length}  ${(passRate(results) * 100).toFixed(1).padStart(5)}%   (hard ones: ${hard.filter((r) => r.passed).length}/${hard.length})`;
}

/**
 * Multi-step requests (several dependent steps in one sentence): how many give a complete
 * usable plan (every step, in dependency order, and no part missing), and how many of those
 * a planner cannot fill say so rather than returning a shorter plan.
 */
function multiStepRow(label: string, results: StoryResult[]): string {
  const whole = results.filter((r) => r.story.incomplete !== true);
  const partial = results.filter((r) => r.story.incomplete === true);
  const usable = whole.filter((r) => r.passed && r.complete).length;
  return `${label.padEnd(28)} ${String(usable).padStart(4)}/${whole.length} complete usable plans` + (partial.length > 0 ? `; ${partial.filter((r) => r.passed).length}/${partial.length} unfillable ones reported incomplete` : '');
}

const verbose = process.argv.includes('--verbose');
const host = storyHost();
const offline = await runStories(offlinePlanner, host);
const families = new Set(offline.map((r) => r.story.family));
console.log(`Story suite: ${offline.length} intents across ${families.size} families, planned for ${host.distribution.pretty_name}\n`);
console.log(row('offline', offline));
const providers = await providerRows();
for (const p of providers) {
  try {
    console.log(row(p.label, await runStories(p.planner, host)));
  } finally {
    await p.close();
  }
}
const multi = offline.filter((r) => r.story.family === 'multistep');
const heldOut = await runStories(offlinePlanner, host, { stories: loadStories(HELD_OUT_DIR) });
console.log('\nMulti-step requests, offline planner:');
console.log(multiStepRow('  suite (multistep.json)', multi));
console.log(multiStepRow('  held-out (written first)  ', heldOut));
if (providers.length === 0) console.log(`(no recorded provider session in test/cassettes/: \`node --import tsx scripts/record-stories.ts\` records one with the LLM you configure)`);
if (verbose) {
  console.log('\nFailed (offline):');
  for (const r of [...offline, ...heldOut.map((x) => ({ ...x, story: { ...x.story, family: `held-out ${x.story.family}` } }))].filter((x) => !x.passed)) console.log(`  ${r.story.hard === true ? '[hard] ' : ''}${r.story.family}: ${JSON.stringify(r.story.intent)}\n      ${r.problems.join('\n      ')}`);
}
const rate = passRate(offline);
if (rate < OFFLINE_THRESHOLD) {
  console.error(`\nThe offline planner passes ${(rate * 100).toFixed(1)}%, under the ${OFFLINE_THRESHOLD * 100}% it must reach.`);
  process.exit(1);
}
