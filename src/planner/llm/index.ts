/** PLACEHOLDER (planner-doors): the planner-llm helper owns this file; the lead takes theirs at merge. */
import { AirlockError } from '../../protocol/errors.js';
import type { PlannerConfig } from '../config.js';
import type { Planner } from '../contract.js';

export function llmPlanner(config: PlannerConfig): Planner {
  return {
    kind: config.provider,
    plan: async () => {
      throw new AirlockError('unsupported_platform', 'no_llm_planner', 'this build has no LLM planner yet', 'use the offline planner: --provider offline');
    },
  };
}
