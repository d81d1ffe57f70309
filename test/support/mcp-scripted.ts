/**
 * `airlock mcp-server` with a scripted planner behind airlock_plan: the server's own entry
 * (serveMcp) with the planner the test wrote (as JSON in $PLANNER_SCRIPT), started by
 * test/support/mcp.ts like the real one: as the agent's Unix user, over stdio.
 */
import { serveMcp } from '../../src/mcp/serve.js';
import { scriptedPlanner, scriptFromEnv } from './scripted-planner.js';

const script = scriptFromEnv();
await serveMcp({ planner: () => scriptedPlanner(script) });
