/**
 * Which LLM the planner talks to, from the environment over ~/.config/airlock/config.toml:
 *
 *   AIRLOCK_LLM_PROVIDER=openai|anthropic   [planner] provider
 *   AIRLOCK_LLM_MODEL                       [planner] model
 *   AIRLOCK_LLM_BASE_URL                    [planner] base_url   (Ollama, vLLM, llama.cpp, Groq, ...)
 *   AIRLOCK_LLM_API_KEY, then OPENAI_API_KEY or ANTHROPIC_API_KEY
 *                                           [planner] api_key_env (the name of a variable), api_key
 *
 * Nothing is configured until a provider is named: a key in the environment for some other
 * program does not send this host's catalogue to a provider (null: the door then uses the
 * offline planner). A configuration that names a provider but cannot work fails here,
 * saying what to set. An api_key written in the file is refused unless only its owner can
 * read it. The key is an ApiKey: it prints as `***` everywhere.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ApiKey } from './llm/api-key.js';
import { PlannerError } from './llm/errors.js';

export const PROVIDERS = ['openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface PlannerConfig {
  provider: ProviderName;
  model: string;
  /** null: the provider's own endpoint. */
  baseURL: string | null;
  /** null only for an OpenAI-compatible server at a base URL that needs none (a local Ollama). */
  apiKey: ApiKey | null;
}

const FILE_KEYS = ['provider', 'model', 'base_url', 'api_key_env', 'api_key'] as const;
type FileSettings = Partial<Record<(typeof FILE_KEYS)[number], string>>;
const PROVIDER_KEY_ENV: Record<ProviderName, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };
const MAX_SETTING_CHARS = 500;

export const configPath = (home: string): string => join(home, '.config', 'airlock', 'config.toml');

const bad = (message: string, hint: string): never => {
  throw new PlannerError('planner_config', message, hint);
};

export function loadPlannerConfig(env: Record<string, string | undefined>, home: string): PlannerConfig | null {
  const path = configPath(home);
  const file = readFileSettings(path);
  const setting = (envName: string, fileKey: keyof FileSettings): string | undefined => nonEmpty(env[envName]) ?? file[fileKey];

  const provider = setting('AIRLOCK_LLM_PROVIDER', 'provider');
  if (provider === undefined) return null;
  if (!(PROVIDERS as readonly string[]).includes(provider)) bad(`unknown planner provider '${provider}'`, `set AIRLOCK_LLM_PROVIDER (or [planner] provider in ${path}) to one of: ${PROVIDERS.join(', ')}`);
  const name = provider as ProviderName;

  const model = setting('AIRLOCK_LLM_MODEL', 'model');
  if (model === undefined) bad(`the ${name} planner has no model`, `set AIRLOCK_LLM_MODEL (or [planner] model in ${path})`);
  const baseURL = setting('AIRLOCK_LLM_BASE_URL', 'base_url') ?? null;
  if (baseURL !== null) checkBaseURL(baseURL);

  const inFile = fileKey(path, file); // checked even when the environment has a key: others can read it all the same
  const keyText = nonEmpty(env.AIRLOCK_LLM_API_KEY) ?? nonEmpty(env[PROVIDER_KEY_ENV[name]]) ?? (file.api_key_env !== undefined ? nonEmpty(env[file.api_key_env]) : undefined) ?? inFile;
  if (keyText === undefined && (name === 'anthropic' || baseURL === null)) {
    bad(`the ${name} planner has no API key`, `set AIRLOCK_LLM_API_KEY or ${PROVIDER_KEY_ENV[name]} (or [planner] api_key_env in ${path})`);
  }
  const apiKey = keyText === undefined ? null : new ApiKey(keyText);
  if (apiKey && baseURL !== null && !sendsKeySafely(baseURL)) bad(`the planner would send its API key in the clear to ${new URL(baseURL).host}`, 'use an https:// base URL (plain http is for a server on this machine)');
  return { provider: name, model: model!, baseURL, apiKey };
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

function readFileSettings(path: string): FileSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return bad(`cannot read ${path}: ${(e as Error).message}`, 'fix its permissions or remove it');
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    // The parser's message quotes the line: it may be the api_key line, so only where it is.
    const line = /line (\d+)/i.exec((e as Error).message)?.[1];
    return bad(`${path} is not valid TOML${line ? ` (line ${line})` : ''}`, 'fix the file, or remove its [planner] table');
  }
  const table = doc.planner;
  if (table === undefined) return {};
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return bad(`[planner] in ${path} is not a table`, 'write it as a [planner] table');
  const out: FileSettings = {};
  for (const [k, v] of Object.entries(table)) {
    if (!(FILE_KEYS as readonly string[]).includes(k)) bad(`unknown setting '${k}' in [planner] of ${path}`, `the settings are: ${FILE_KEYS.join(', ')}`);
    if (typeof v !== 'string' || v.length > MAX_SETTING_CHARS) bad(`[planner] ${k} in ${path} must be a string of at most ${MAX_SETTING_CHARS} characters`, `write it as ${k} = "..."`);
    const s = nonEmpty(v as string);
    if (s !== undefined) out[k as keyof FileSettings] = s;
  }
  return out;
}

/** The file's api_key, only when no one but its owner can read or change the file. */
function fileKey(path: string, file: FileSettings): string | undefined {
  if (file.api_key === undefined) return undefined;
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) bad(`${path} holds an api_key but its mode is ${mode.toString(8).padStart(4, '0')}: others can read or change it`, `chmod 600 ${path}, or move the key to an environment variable named by [planner] api_key_env`);
  return file.api_key;
}

function checkBaseURL(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad(`the planner base URL '${text}' is not a URL`, 'write it as https://host/v1 (or http://127.0.0.1:11434/v1 for a local server)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') bad(`the planner base URL must be http or https, not ${url.protocol}`, 'write it as https://host/v1');
  if (url.username || url.password) bad('the planner base URL holds a user name or password', 'put the key in AIRLOCK_LLM_API_KEY instead');
}

/** https, or plain http to this machine only. */
function sendsKeySafely(text: string): boolean {
  const url = new URL(text);
  return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}
