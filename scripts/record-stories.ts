/**
 * `node --import tsx scripts/record-stories.ts`: plans every story once through the LLM
 * planner this account has configured (loadPlannerConfig: the environment over
 * ~/.config/airlock/config.toml), recording every exchange to
 * test/cassettes/<provider>-<model>.json (recorded.ts: no request header and no key in the
 * file). `npm run stories` can then replay it strictly, with no network and no key
 * (replayingPlanner). Prints the recorded run's pass rate.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlannerConfig } from '../src/planner/config.js';
import { recordingPlanner } from '../src/planner/llm/recorded.js';
import { storyHost } from '../test/stories/host.js';
import { passRate, runStories } from '../test/stories/run.js';

export const CASSETTES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'cassettes');

const config = loadPlannerConfig(process.env, homedir());
if (config === null) {
  console.error('No LLM planner is configured: set AIRLOCK_LLM_PROVIDER, AIRLOCK_LLM_MODEL and a key (docs/planner-llm.md).');
  process.exit(2);
}
mkdirSync(CASSETTES_DIR, { recursive: true });
const file = join(CASSETTES_DIR, `${config.provider}-${config.model.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`);
const rec = await recordingPlanner(file, config);
try {
  const results = await runStories(rec.planner, storyHost());
  console.log(`${config.provider} ${config.model}: ${results.filter((r) => r.passed).length}/${results.length} (${(passRate(results) * 100).toFixed(1)}%), recorded to ${file}`);
} finally {
  await rec.close();
}
