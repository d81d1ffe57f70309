/**
 * loadPlannerConfig: the environment over ~/.config/airlock/config.toml, nothing
 * configured until a provider is named, a key in a file others can read refused, and the
 * key never printed (String, JSON, inspect, error messages).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { configPath, loadPlannerConfig } from '../../src/planner/config.js';
import { PlannerError } from '../../src/planner/llm/errors.js';

const KEY = 'sk-config-test-Wd4Jr8Tq2Zm6Xp0Lc3';

function home(toml?: string, mode = 0o600): string {
  const h = mkdtempSync(join(tmpdir(), 'airlock-planner-config-'));
  if (toml !== undefined) {
    mkdirSync(join(h, '.config', 'airlock'), { recursive: true });
    writeFileSync(configPath(h), toml);
    chmodSync(configPath(h), mode);
  }
  return h;
}

function refused(f: () => unknown, message: RegExp): PlannerError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof PlannerError, `expected a PlannerError, got ${String(caught)}`);
  assert.equal(caught.code, 'planner_config');
  assert.match(caught.message, message);
  assert.ok(!`${caught.message} ${caught.hint} ${caught.stack}`.includes(KEY), 'the key is in the error');
  return caught;
}

test('nothing configured is null, even with a provider key in the environment for some other program', () => {
  assert.equal(loadPlannerConfig({}, home()), null);
  assert.equal(loadPlannerConfig({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }, home()), null);
  assert.equal(loadPlannerConfig({}, home('[other]\nx = "y"\n')), null);
});

test('the environment alone; the key prints as *** everywhere', () => {
  const c = loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'anthropic', AIRLOCK_LLM_MODEL: 'claude-x', ANTHROPIC_API_KEY: KEY }, home())!;
  assert.deepEqual({ ...c, apiKey: c.apiKey?.reveal() }, { provider: 'anthropic', model: 'claude-x', baseURL: null, apiKey: KEY });
  for (const shown of [JSON.stringify(c), inspect(c, { depth: 5 }), String(c.apiKey), `${c.apiKey}`]) assert.ok(!shown.includes(KEY) && shown.includes('***'), shown);
  // AIRLOCK_LLM_API_KEY is the first choice.
  assert.equal(loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'openai', AIRLOCK_LLM_MODEL: 'm', AIRLOCK_LLM_API_KEY: 'first', OPENAI_API_KEY: 'second' }, home())!.apiKey!.reveal(), 'first');
});

test('the environment over the file; api_key_env names the variable; a local base URL needs no key', () => {
  const h = home('[planner]\nprovider = "openai"\nmodel = "file-model"\nbase_url = "http://127.0.0.1:11434/v1"\napi_key_env = "MY_LLM_KEY"\n', 0o644);
  const c = loadPlannerConfig({ AIRLOCK_LLM_MODEL: 'env-model', MY_LLM_KEY: KEY }, h)!;
  assert.equal(c.provider, 'openai');
  assert.equal(c.model, 'env-model');
  assert.equal(c.baseURL, 'http://127.0.0.1:11434/v1');
  assert.equal(c.apiKey!.reveal(), KEY);
  assert.equal(loadPlannerConfig({}, h)!.apiKey, null, 'Ollama on this machine: no key');
});

test('an api_key in the file: only from a file no one else can read', () => {
  const toml = `[planner]\nprovider = "anthropic"\nmodel = "m"\napi_key = "${KEY}"\n`;
  assert.equal(loadPlannerConfig({}, home(toml, 0o600))!.apiKey!.reveal(), KEY);
  const e = refused(() => loadPlannerConfig({}, home(toml, 0o644)), /holds an api_key but its mode is 0644/);
  assert.match(e.hint!, /chmod 600/);
  refused(() => loadPlannerConfig({}, home(toml, 0o640)), /mode is 0640/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_API_KEY: 'from-env' }, home(toml, 0o604)), /mode is 0604/);
});

test('a configuration that cannot work says what to set, and never quotes the key', () => {
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'gemini', AIRLOCK_LLM_MODEL: 'm' }, home()), /unknown planner provider 'gemini'/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'openai', OPENAI_API_KEY: KEY }, home()), /has no model/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'openai', AIRLOCK_LLM_MODEL: 'm' }, home()), /has no API key/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'anthropic', AIRLOCK_LLM_MODEL: 'm', AIRLOCK_LLM_BASE_URL: 'http://127.0.0.1:1' }, home()), /has no API key/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'openai', AIRLOCK_LLM_MODEL: 'm', AIRLOCK_LLM_BASE_URL: 'http://llm.example.org/v1', AIRLOCK_LLM_API_KEY: KEY }, home()), /in the clear to llm\.example\.org/);
  refused(() => loadPlannerConfig({ AIRLOCK_LLM_PROVIDER: 'openai', AIRLOCK_LLM_MODEL: 'm', AIRLOCK_LLM_BASE_URL: 'file:///etc/passwd' }, home()), /must be http or https/);
  refused(() => loadPlannerConfig({}, home('[planner]\nprovider = "openai"\nmodle = "typo"\n')), /unknown setting 'modle'/);
  refused(() => loadPlannerConfig({}, home(`[planner]\nprovider = "openai"\napi_key = "${KEY}\n`)), /is not valid TOML/);
});
