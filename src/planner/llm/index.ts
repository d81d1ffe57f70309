/**
 * The LLM planner: a Planner (src/planner/contract.ts) over one configured provider
 * (OpenAI-compatible Chat Completions or Anthropic Messages, src/planner/config.ts). It
 * runs in the client, unprivileged; its key goes to the provider and nowhere else.
 */
import type { PlannerConfig } from '../config.js';
import type { HostContext, Planner, PlannerLimits, PlannerReport, QueryRunner } from '../contract.js';
import { runSession } from './loop.js';
import type { Provider } from './providers/provider.js';

export interface LlmPlannerOptions {
  /** The first retry's backoff (retry.ts); tests shorten it. */
  backoffBaseMs?: number;
  onRetry?: (attempt: number, waitMs: number, status: number | null) => void;
  /** Send the requests here (a cassette, recorded.ts) instead, everything else as configured. */
  via?: string;
}

export const DEFAULT_BACKOFF_BASE_MS = 1000;

export function llmPlanner(config: PlannerConfig, options: LlmPlannerOptions = {}): Planner {
  return {
    kind: config.provider,
    async plan(intent: string, host: HostContext, query: QueryRunner, limits: PlannerLimits): Promise<PlannerReport> {
      const provider = await providerFor(config, options.via ?? null);
      return runSession(provider, intent, host, query, limits, { apiKey: config.apiKey, backoffBaseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS, onRetry: options.onRetry });
    },
  };
}

async function providerFor(c: PlannerConfig, via: string | null): Promise<Provider> {
  const o = { model: c.model, baseURL: via ?? c.baseURL, apiKey: c.apiKey, tokenField: c.baseURL === null ? ('max_completion_tokens' as const) : ('max_tokens' as const) };
  if (c.provider === 'anthropic') return (await import('./providers/anthropic.js')).anthropicProvider(o);
  return (await import('./providers/openai.js')).openaiProvider(o);
}
