/**
 * Which planner a door uses: the LLM planner when one is configured (environment or
 * ~/.config/airlock/config.toml, src/planner/config.ts), else the offline one, which needs
 * no key and no network. `--provider` and `--model` override the configuration for one run.
 */
import { AirlockError } from '../protocol/errors.js';
import { loadPlannerConfig, type PlannerConfig } from './config.js';
import type { Planner } from './contract.js';
import { llmPlanner } from './llm/index.js';
import { offlinePlanner } from './offline/index.js';

export const PROVIDERS = ['offline', 'openai', 'anthropic'] as const;
export type ProviderChoice = (typeof PROVIDERS)[number];

export function choosePlanner(config: PlannerConfig | null): Planner {
  return config ? llmPlanner(config) : offlinePlanner;
}

export interface PlannerOverrides {
  provider?: string;
  model?: string;
}

/**
 * The configuration with the flags applied: `offline` forces the offline planner; `--model`
 * replaces the configured model. `--provider` names the configured provider or `offline`
 * and nothing else: a key configured for one provider is never sent to another.
 */
export function configWithOverrides(config: PlannerConfig | null, o: PlannerOverrides): PlannerConfig | null {
  if (o.provider !== undefined && !(PROVIDERS as readonly string[]).includes(o.provider)) {
    throw new AirlockError('validation', 'unknown_provider', `unknown provider "${o.provider}"`, `one of: ${PROVIDERS.join(', ')} (an OpenAI-compatible server such as Ollama or vLLM is "openai" with its base URL in the configuration)`);
  }
  if (o.provider === 'offline') return null;
  const provider = o.provider as PlannerConfig['provider'] | undefined;
  if (!config) {
    if (provider || o.model) throw new AirlockError('validation', 'no_llm_configured', `no LLM is configured, so there is no ${provider ?? 'provider'} to use`, 'configure one in ~/.config/airlock/config.toml or the environment (docs/cli.md, "airlock plan"), or leave out --provider and --model to use the offline planner');
    return null;
  }
  if (provider && provider !== config.provider) {
    throw new AirlockError('validation', 'provider_not_configured', `the configured planner is ${config.provider}, not ${provider}, and its key is not sent to another provider`, `configure ${provider} for this run (AIRLOCK_LLM_PROVIDER=${provider} with its own key variable), or use --provider offline`);
  }
  return o.model ? { ...config, model: o.model } : config;
}

/** The planner for this process: its configuration (environment, then the config file in `home`), the flags on top. */
export function plannerFor(o: PlannerOverrides, env: Record<string, string | undefined> = process.env, home = env.HOME ?? ''): Planner {
  return choosePlanner(configWithOverrides(loadPlannerConfig(env, home), o));
}
