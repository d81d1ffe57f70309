/**
 * The tool-use loop: the model answers with tool calls until one of them is a valid
 * propose_plan or refuse. A query runs through the QueryRunner (the daemon's one door)
 * and its output goes back wrapped as untrusted data; anything invalid (malformed
 * arguments, an unknown tool or action, parameters that fail the action's schema, no tool
 * call at all) goes back as a tool error for the model to correct. Every limit of
 * A valid plan that leaves a part of the intent out (parts.ts: no step for it, not named
 * as missing) goes back once to be completed; a second time, the parts it left out are
 * added to its missing, so the plan is incomplete, never silently shorter. Every limit of
 * PlannerLimits ends the session with its PlannerError: turns and tokens are checked
 * before each provider call (a verdict in the turn that crossed the token limit is kept:
 * those tokens are spent), the wall clock aborts whatever is in flight.
 */
import type { HostContext, PlannerLimits, PlannerReport, PlanVerdict, QueryRecord, QueryRunner } from '../contract.js';
import { uncoveredParts } from '../parts.js';
import type { ApiKey } from './api-key.js';
import { PlannerError } from './errors.js';
import { intentMessage, systemPrompt } from './prompt.js';
import type { Provider, ToolCall, ToolResult, Turn } from './providers/provider.js';
import { wallClock, withRetry } from './retry.js';
import { PROPOSE, QUERY, REFUSE, toolbox, type Toolbox } from './tools.js';
import { wrapUntrusted } from './untrusted.js';
import { checkAction, checkParams, checkPlan, checkRefusal, parseInput, quoted } from './validate.js';

/** Queries one session may run, and one turn: each is a daemon request and a log entry. */
export const MAX_QUERIES = 16;
export const MAX_QUERIES_PER_TURN = 4;
/** Tool calls of one turn looked at; the rest are answered as errors. */
const MAX_CALLS_PER_TURN = 8;
const NO_TOOL_CALL = `You answered without calling a tool. Finish only by calling ${PROPOSE} or ${REFUSE} (or call ${QUERY} to look at the host first).`;

export interface SessionOptions {
  apiKey: ApiKey | null;
  backoffBaseMs: number;
  onRetry?: (attempt: number, waitMs: number, status: number | null) => void;
}

export async function runSession(provider: Provider, intent: string, host: HostContext, query: QueryRunner, limits: PlannerLimits, o: SessionOptions): Promise<PlannerReport> {
  if (intent.length > limits.maxIntentChars) throw new PlannerError('intent_too_long', `the intent is ${intent.length} characters; the planner takes at most ${limits.maxIntentChars}`, 'say it in fewer words, or split it into several intents');
  const started = Date.now();
  const deadline = started + limits.wallClockMs;
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(), limits.wallClockMs);
  const s: Session = { intent, tools: toolbox(host), query, limits, signal: clock.signal, queries: [], corrections: 0, lastProblem: null, askedToComplete: false };
  const system = systemPrompt(host, s.tools);
  const turns: Turn[] = [{ role: 'user', text: intentMessage(intent) }];
  const usage = { turns: 0, input_tokens: 0, output_tokens: 0, elapsed_ms: 0 };
  try {
    for (;;) {
      if (usage.turns >= limits.maxTurns) throw new PlannerError('turn_limit', `the model did not finish with a valid plan or refusal in ${limits.maxTurns} turns${s.lastProblem ? ` (its last problem: ${s.lastProblem})` : ''}`, 'try again, or say the intent more precisely');
      const total = usage.input_tokens + usage.output_tokens;
      if (total > limits.maxTotalTokens) throw new PlannerError('token_limit', `the session used ${total} tokens, past its limit of ${limits.maxTotalTokens}, before a valid plan`, 'try again, or say the intent more precisely');
      const c = await withRetry((signal) => provider.complete({ system, turns, tools: s.tools.specs, maxOutputTokens: limits.maxOutputTokens, signal }), {
        maxRetries: limits.maxRetries,
        backoffBaseMs: o.backoffBaseMs,
        signal: clock.signal,
        deadline,
        apiKey: o.apiKey,
        onRetry: o.onRetry,
      });
      usage.turns++;
      usage.input_tokens += tokenCount(c.usage.input_tokens);
      usage.output_tokens += tokenCount(c.usage.output_tokens);
      turns.push({ role: 'assistant', text: c.text, calls: c.calls });
      if (c.calls.length === 0) {
        s.corrections++;
        s.lastProblem = 'no tool call';
        turns.push({ role: 'user', text: NO_TOOL_CALL });
        continue;
      }
      const results: ToolResult[] = [];
      let verdict: PlanVerdict | null = null;
      let queriesThisTurn = 0;
      for (const [i, call] of c.calls.entries()) {
        if (i >= MAX_CALLS_PER_TURN) {
          results.push(error(call, `not looked at: at most ${MAX_CALLS_PER_TURN} tool calls a turn`));
          continue;
        }
        if (call.name === QUERY && ++queriesThisTurn > MAX_QUERIES_PER_TURN) {
          results.push(error(call, `not run: at most ${MAX_QUERIES_PER_TURN} queries a turn`));
          continue;
        }
        const r = await answer(call, s);
        if ('verdict' in r) {
          verdict = r.verdict;
          break;
        }
        results.push(r.result);
      }
      if (verdict) {
        usage.elapsed_ms = Date.now() - started;
        const notes = s.corrections > 0 ? [`the model corrected ${s.corrections} invalid ${s.corrections === 1 ? 'answer' : 'answers'} before this one`] : [];
        return { verdict, planner: { kind: provider.kind, model: provider.model }, notes, usage, queries: s.queries };
      }
      turns.push({ role: 'tool', results });
    }
  } finally {
    clearTimeout(timer);
  }
}

interface Session {
  intent: string;
  /** The model was told once which parts its plan left out. */
  askedToComplete: boolean;
  tools: Toolbox;
  query: QueryRunner;
  limits: PlannerLimits;
  signal: AbortSignal;
  queries: QueryRecord[];
  corrections: number;
  lastProblem: string | null;
}

type Answer = { verdict: PlanVerdict } | { result: ToolResult };

async function answer(call: ToolCall, s: Session): Promise<Answer> {
  const wrong = (errors: string[]): Answer => {
    s.corrections++;
    s.lastProblem = errors[0] ?? null;
    return { result: error(call, errors.join('\n')) };
  };
  switch (call.name) {
    case PROPOSE: {
      const r = checkPlan(call.input, s.tools);
      if (!r.ok) return wrong(['the plan is not valid; correct it and call propose_plan again:', ...r.errors]);
      if (r.value.kind !== 'plan') return { verdict: r.value };
      const gaps = uncoveredParts(s.intent, r.value.steps, r.value.missing ?? []);
      if (gaps.length === 0) return { verdict: r.value };
      if (!s.askedToComplete) {
        s.askedToComplete = true;
        return wrong([`the plan leaves out part of the intent: ${gaps.map((g) => JSON.stringify(g.part)).join(', ')}. Add a step for each part (its part naming those words), or name the part in missing with why; then call ${PROPOSE} again.`]);
      }
      return { verdict: { ...r.value, missing: [...(r.value.missing ?? []), ...gaps] } };
    }
    case REFUSE: {
      const r = checkRefusal(call.input);
      return r.ok ? { verdict: r.value } : wrong(r.errors);
    }
    case QUERY: {
      const input = parseInput(call.input);
      if (!input.ok) return wrong(input.errors);
      const a = checkAction(input.value.action_name, s.tools.queries, 'a query (a Low, read-only, non-sensitive action)');
      if (!a.ok) return wrong(a.errors);
      const params = input.value.params ?? {};
      const bad = checkParams(a.value, params);
      if (bad.length > 0) return wrong(bad.map((e) => `${a.value.name} ${e}`));
      if (s.queries.length >= MAX_QUERIES) return wrong([`not run: this session has run its ${MAX_QUERIES} queries; plan from what you have`]);
      const p = params as Record<string, unknown>;
      const r = await untilDeadline(s.query(a.value.name, p), s.signal);
      s.queries.push({ action_name: a.value.name, params: p, transaction_id: r.transaction_id, ok: r.ok });
      const body = wrapUntrusted(a.value.name, r.ok ? r.output : [`the query failed: ${r.error}`], s.limits.maxToolOutputChars);
      return { result: { id: call.id, name: call.name, content: body, is_error: !r.ok } };
    }
    default:
      return wrong([`there is no tool ${quoted(call.name)}; the tools are ${s.tools.specs.map((t) => t.name).join(', ')}`]);
  }
}

const error = (call: ToolCall, content: string): ToolResult => ({ id: call.id, name: call.name, content: `error: ${content}`, is_error: true });

/** A query cannot hold the session past its wall clock. */
function untilDeadline<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(wallClock());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(wallClock());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A token count as the provider reported it, trusted only as a whole number from 0 up: a
 * hostile endpoint's string would reach the terminal and turn the budget check into NaN.
 */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}
