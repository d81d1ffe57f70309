/**
 * `airlock plan` / `airlock do` with a scripted planner: the commands' own flows
 * (planFlow, doFlow in src/cli/plan.ts, the code `airlock plan` and `airlock do` run once
 * they have chosen a planner) in a process of their own, run as a real Unix user.
 *   node --import tsx door-cli.ts SOCKET plan|do INTENT [--yes] [--json]   (the script in $PLANNER_SCRIPT)
 */
import { AirlockClient } from '../../src/client/client.js';
import { doFlow, planFlow } from '../../src/cli/plan.js';
import { reportError } from '../../src/cli/ui.js';
import { scriptedPlanner, scriptFromEnv } from './scripted-planner.js';

const [socket, verb, intent, ...flags] = process.argv.slice(2);
const o = { json: flags.includes('--json'), yes: flags.includes('--yes') };
const cl = await AirlockClient.connect(socket!, { client: 'airlock-cli/0.1' });
try {
  process.exitCode = await (verb === 'do' ? doFlow : planFlow)(cl, scriptedPlanner(scriptFromEnv()), intent!, o);
} catch (e) {
  process.exitCode = reportError(e, o.json);
} finally {
  cl.close();
}
