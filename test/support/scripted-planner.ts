/**
 * A Planner a test writes: it runs the reads it is told to through the QueryRunner it is
 * given (recording what each returned), then returns the verdict it is told to. With
 * `refuseToBeCalled`, calling it at all throws: for tests that a door refuses an intent
 * before any planner sees it. The same script runs in the test's own process or, as JSON
 * in $PLANNER_SCRIPT, in a child (test/support/door-cli.ts, test/support/mcp-scripted.ts).
 */
import type { HostContext, Planner, PlannerReport, PlanVerdict, QueryRunner } from '../../src/planner/contract.js';

export interface PlannerScript {
  verdict: PlanVerdict;
  queries?: Array<{ action_name: string; params: Record<string, unknown> }>;
  notes?: string[];
  refuseToBeCalled?: boolean;
}

export interface ScriptedPlanner extends Planner {
  /** What each call saw and got: the intent, the host context, each query's answer. */
  calls: Array<{ intent: string; host: HostContext; answers: Array<Awaited<ReturnType<QueryRunner>>> }>;
}

export function scriptedPlanner(script: PlannerScript): ScriptedPlanner {
  const calls: ScriptedPlanner['calls'] = [];
  return {
    kind: 'offline',
    calls,
    async plan(intent, host, query): Promise<PlannerReport> {
      if (script.refuseToBeCalled) throw new Error('the planner was called, and this test says it must not be');
      const answers: Array<Awaited<ReturnType<QueryRunner>>> = [];
      calls.push({ intent, host, answers });
      for (const q of script.queries ?? []) answers.push(await query(q.action_name, q.params));
      return {
        verdict: script.verdict,
        planner: { kind: 'offline', model: null },
        notes: script.notes ?? [],
        usage: { turns: 1, input_tokens: 0, output_tokens: 0, elapsed_ms: 1 },
        queries: (script.queries ?? []).map((q, i) => ({ ...q, transaction_id: answers[i]!.transaction_id, ok: answers[i]!.ok })),
      };
    },
  };
}

/** The script a child process was given. */
export const scriptFromEnv = (): PlannerScript => JSON.parse(process.env.PLANNER_SCRIPT ?? 'null') ?? (() => { throw new Error('PLANNER_SCRIPT is not set'); })();
