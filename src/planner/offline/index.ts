/** PLACEHOLDER (planner-doors): the planner-offline helper owns this file; the lead takes theirs at merge. */
import type { Planner } from '../contract.js';

export const offlinePlanner: Planner = {
  kind: 'offline',
  plan: async () => ({
    verdict: { kind: 'refusal', reason: 'the offline planner is not built yet' },
    planner: { kind: 'offline', model: null },
    notes: ['this is a placeholder offline planner'],
    usage: { turns: 0, input_tokens: 0, output_tokens: 0, elapsed_ms: 0 },
    queries: [],
  }),
};
