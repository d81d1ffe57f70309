/**
 * `npm run stories`: the story suite's pass rate for the offline planner, then one row per
 * recorded provider cassette (test/cassettes/) replayed through the LLM planner. Exits 1 when
 * the offline planner passes fewer than 80% of the stories. `--verbose` lists each failure.
 */
import { offlinePlanner } from '../src/planner/offline/index.js';
import { storyHost } from '../test/stories/host.js';
import { passRate, runStories, type StoryResult } from '../test/stories/run.js';
import type { Planner } from '../src/planner/contract.js';

export const OFFLINE_THRESHOLD = 0.8;

/**
 * The LLM planner in replay mode, one per recorded cassette in test/cassettes/: empty until
 * the cassettes are wired in (each row: the provider and model the cassette recorded, and a
 * Planner that replays it strictly).
 */
export function providerRows(): { label: string; planner: Planner }[] {
  return [];
}

function row(label: string, results: StoryResult[]): string {
  const passed = results.filter((r) => r.passed).length;
  const hard = results.filter((r) => r.story.hard === true);
  return `${label.padEnd(28)} ${String(passed).padStart(4)}/${results.length}  ${(passRate(results) * 100).toFixed(1).padStart(5)}%   (hard ones: ${hard.filter((r) => r.passed).length}/${hard.length})`;
}

const verbose = process.argv.includes('--verbose');
const host = storyHost();
const offline = await runStories(offlinePlanner, host);
const families = new Set(offline.map((r) => r.story.family));
console.log(`Story suite: ${offline.length} intents across ${families.size} families, planned for ${host.distribution.pretty_name}\n`);
console.log(row('offline', offline));
for (const p of providerRows()) console.log(row(p.label, await runStories(p.planner, host)));
if (verbose) {
  console.log('\nFailed (offline):');
  for (const r of offline.filter((x) => !x.passed)) console.log(`  ${r.story.hard === true ? '[hard] ' : ''}${r.story.family}: ${JSON.stringify(r.story.intent)}\n      ${r.problems.join('\n      ')}`);
}
const rate = passRate(offline);
if (rate < OFFLINE_THRESHOLD) {
  console.error(`\nThe offline planner passes ${(rate * 100).toFixed(1)}%, under the ${OFFLINE_THRESHOLD * 100}% it must reach.`);
  process.exit(1);
}
