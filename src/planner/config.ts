/**
 * PLACEHOLDER (planner-doors): the planner-llm helper owns this file; the lead takes theirs
 * at merge. What the doors rely on: `loadPlannerConfig(env, home)` returns null when no LLM
 * is configured, and a PlannerConfig has `provider` and `model` (the --provider and --model
 * flags override them).
 */
export interface PlannerConfig {
  provider: 'openai' | 'anthropic';
  model: string;
}

export function loadPlannerConfig(_env: Record<string, string | undefined>, _home: string): PlannerConfig | null {
  return null;
}
