/** PLACEHOLDER (planner-doors): the planner-llm helper owns this file; the lead takes theirs at merge. */
import type { PlannerConfig } from '../config.js';
import type { Planner } from '../contract.js';

export function llmPlanner(config: PlannerConfig): Planner {
  return {
    kind: config.provider,
    plan: async () => {
      throw new Error('this build has no LLM planner yet: use --provider offline');
    },
  };
}
