/**
 * How an LLM planning session ends when it ends without a verdict: one typed error per
 * limit or provider failure, so the door can say what happened and what to do next.
 * An AirlockError like every other failure a person sees (category drives the CLI's exit
 * code): 'transient' where trying again later may succeed, 'validation' where the request
 * or the configuration has to change first.
 */
import { AirlockError, type ErrorCategory } from '../../protocol/errors.js';

export const PLANNER_ERROR_CODES = {
  /** The intent is longer than PlannerLimits.maxIntentChars: no provider was called. */
  intent_too_long: 'validation',
  /** PlannerLimits.maxTurns provider calls without a valid plan or refusal. */
  turn_limit: 'transient',
  /** The session's tokens passed PlannerLimits.maxTotalTokens. */
  token_limit: 'transient',
  /** PlannerLimits.wallClockMs ran out. */
  wall_clock: 'transient',
  /** The provider refused the key (401/403): never retried. */
  provider_auth: 'validation',
  /** Still rate limited (429) after PlannerLimits.maxRetries retries. */
  provider_rate_limited: 'transient',
  /** 5xx or no connection after PlannerLimits.maxRetries retries. */
  provider_unavailable: 'transient',
  /** Any other refusal by the provider (400 for an unknown model, ...): not retried. */
  provider_error: 'validation',
  /** The planner configuration (environment, ~/.config/airlock/config.toml) is unusable. */
  planner_config: 'validation',
} as const satisfies Record<string, ErrorCategory>;

export type PlannerErrorCode = keyof typeof PLANNER_ERROR_CODES;

export class PlannerError extends AirlockError {
  constructor(
    override readonly code: PlannerErrorCode,
    message: string,
    hint?: string,
  ) {
    super(PLANNER_ERROR_CODES[code], code, message, hint);
    this.name = 'PlannerError';
  }
}
