/**
 * Planners over a cassette (cassette.ts), for the story suite and CI:
 * - replayingPlanner(file): the provider and model the cassette was recorded with (read
 *   from its first request), answered strictly from the file, with no network and no key;
 * - recordingPlanner(file, config): the configured provider, every exchange written to
 *   the file as it happens.
 * Each returns its Planner and a close() for the local server.
 */
import type { PlannerConfig } from '../config.js';
import type { Planner } from '../contract.js';
import { ApiKey } from './api-key.js';
import { readCassette, recordCassette, replayCassette } from './cassette.js';
import { llmPlanner, type LlmPlannerOptions } from './index.js';

export interface RecordedPlanner {
  planner: Planner;
  /** The cassette's model, as recorded. */
  model: string;
  /** Keys of requests the cassette had no answer for (replay only). */
  misses: string[];
  close(): Promise<void>;
}

const DEFAULT_BASE: Record<PlannerConfig['provider'], string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' };

export async function replayingPlanner(file: string, options: LlmPlannerOptions = {}): Promise<RecordedPlanner> {
  const first = readCassette(file).interactions[0];
  if (!first) throw new Error(`${file} holds no recorded exchange`);
  const provider = first.request.path.endsWith('/chat/completions') ? 'openai' : 'anthropic';
  const model = String((first.request.body as { model?: unknown } | null)?.model ?? '');
  const basePath = provider === 'openai' ? first.request.path.slice(0, -'/chat/completions'.length) : '';
  const server = await replayCassette(file, basePath);
  // Recorded from the provider's own endpoint (OpenAI's own takes max_completion_tokens), or from a compatible server at a base URL.
  const ownEndpoint = provider === 'anthropic' || (first.request.body as Record<string, unknown> | null)?.max_completion_tokens !== undefined;
  const config: PlannerConfig = { provider, model, baseURL: ownEndpoint ? null : server.baseURL, apiKey: new ApiKey('replay') }; // replay needs no key; the SDK insists on one
  const planner = llmPlanner(config, { backoffBaseMs: 0, ...options, via: server.baseURL });
  return { planner, model, misses: server.misses, close: server.close };
}

export async function recordingPlanner(file: string, config: PlannerConfig, options: LlmPlannerOptions = {}): Promise<RecordedPlanner> {
  const server = await recordCassette(file, config.baseURL ?? DEFAULT_BASE[config.provider]);
  return { planner: llmPlanner(config, { ...options, via: server.baseURL }), model: config.model, misses: server.misses, close: server.close };
}
