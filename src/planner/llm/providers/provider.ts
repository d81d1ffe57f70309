/**
 * One interface for every provider: the loop speaks this neutral conversation, and each
 * provider translates it (and the tool schemas) to its own wire format through its
 * official SDK. A provider makes one call per complete(); retries are the loop's
 * (retry.ts), so each SDK is built with its own retries off.
 */
import type { ApiKey } from '../api-key.js';

/** A tool as the loop declares it: a name, what it is for, the JSON Schema of its input object. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** A tool call as the model made it. `input` is its raw argument text (JSON, maybe malformed) or the object its wire format carried. */
export interface ToolCall {
  id: string;
  name: string;
  input: string | unknown;
}

export interface ToolResult {
  id: string;
  name: string;
  content: string;
  is_error: boolean;
}

export type Turn = { role: 'user'; text: string } | { role: 'assistant'; text: string; calls: ToolCall[] } | { role: 'tool'; results: ToolResult[] };

export interface CompletionRequest {
  system: string;
  turns: Turn[];
  tools: ToolSpec[];
  maxOutputTokens: number;
  signal: AbortSignal;
}

export interface Completion {
  text: string;
  calls: ToolCall[];
  usage: { input_tokens: number; output_tokens: number };
}

export interface Provider {
  readonly kind: 'openai' | 'anthropic';
  readonly model: string;
  complete(req: CompletionRequest): Promise<Completion>;
}

/** What every provider is built from (PlannerConfig less the parts only config.ts needs). */
export interface ProviderOptions {
  model: string;
  /** Where requests go; null: the provider's own endpoint. */
  baseURL: string | null;
  apiKey: ApiKey | null;
  /** OpenAI's own models take max_completion_tokens; compatible servers know max_tokens. */
  tokenField: 'max_completion_tokens' | 'max_tokens';
}
