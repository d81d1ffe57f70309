/**
 * Record and replay (src/planner/llm/cassette.ts): a session recorded through the cassette
 * from the scripted provider (a retry included) replays strictly with the provider gone;
 * a changed request fails naming its key; the key is in no recorded file, error or report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS, type QueryRunner } from '../../src/planner/contract.js';
import { llmPlanner } from '../../src/planner/llm/index.js';
import { ApiKey } from '../../src/planner/llm/api-key.js';
import { PlannerError } from '../../src/planner/llm/errors.js';
import { readCassette, recordCassette, replayCassette, requestKey } from '../../src/planner/llm/cassette.js';
import { recordingPlanner, replayingPlanner } from '../../src/planner/llm/recorded.js';
import { DEBIAN, TEST_KEY as KEY, errorReply, modelReply, startLlmServer, type Wire } from '../support/llm-server.js';

const query: QueryRunner = async () => ({ ok: true, output: ['up 3 days'], transaction_id: 'tx_1' });
const limits = { ...DEFAULT_LIMITS };
const restart = { name: 'propose_plan', input: { summary: 'Restart nginx', steps: [{ action_name: 'RestartService', params: { unit: 'nginx.service' }, reason: 'asked' }] } };

const planner = (wire: Wire, baseURL: string) => llmPlanner({ provider: wire, model: 'recorded-model', baseURL, apiKey: new ApiKey(KEY) }, { backoffBaseMs: 10 });

for (const wire of ['openai', 'anthropic'] as Wire[]) {
  test(`${wire}: a recorded session replays strictly; a changed request fails naming its key; no key in the file`, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'airlock-cassette-')), `${wire}.json`);
    const upstream = await startLlmServer([
      modelReply(wire, [{ name: 'query', input: { action_name: 'Uptime', params: {} } }]),
      errorReply(wire, 429, 'slow down', { 'retry-after': '0' }),
      modelReply(wire, [restart]),
    ]);
    const rec = await recordCassette(file, upstream.baseURL(wire));
    const recorded = await planner(wire, rec.baseURL).plan('restart nginx', DEBIAN, query, limits);
    await rec.close();
    await upstream.close();
    assert.equal(upstream.received.length, 3);
    assert.ok(String(upstream.received[0]!.headers.authorization ?? upstream.received[0]!.headers['x-api-key']).includes(KEY), 'recording forwards the key');

    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(KEY) && !text.includes(KEY.slice(12)), 'the key is not in the cassette');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const c = readCassette(file);
    assert.deepEqual(c.interactions.map((x) => x.response.status), [200, 429, 200]);
    assert.equal(c.interactions[1]!.key, c.interactions[2]!.key, 'the retry is the same request');
    assert.equal(c.interactions[0]!.key, requestKey('POST', wire === 'openai' ? '/v1/chat/completions' : '/v1/messages', c.interactions[0]!.request.body));

    // Replay: the upstream is closed; every answer comes from the file, in order.
    const play = await replayCassette(file, wire === 'openai' ? '/v1' : '');
    try {
      const replayed = await planner(wire, play.baseURL).plan('restart nginx', DEBIAN, query, limits);
      assert.deepEqual(replayed.verdict, recorded.verdict);
      assert.deepEqual(replayed.queries, recorded.queries);
      assert.deepEqual(play.misses, []);
    } finally {
      await play.close();
    }

    const strict = await replayCassette(file, wire === 'openai' ? '/v1' : '');
    try {
      await assert.rejects(planner(wire, strict.baseURL).plan('restart apache', DEBIAN, query, limits), (e: unknown) => {
        assert.ok(e instanceof PlannerError && e.code === 'provider_error', String(e));
        assert.equal(strict.misses.length, 1);
        assert.match(strict.misses[0]!, /^POST \/v1\/(chat\/completions|messages) #[0-9a-f]{16}$/);
        assert.ok(e.message.includes(strict.misses[0]!.split('#')[1]!), `the error names the key: ${e.message}`);
        assert.ok(!`${e.message} ${e.hint}`.includes(KEY));
        return true;
      });
    } finally {
      await strict.close();
    }
  });
}

test('a recorded multi-step session (dependent steps, a missing part) replays to the same plan, in order, with its missing part', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'airlock-cassette-')), 'multi.json');
  const steps = [
    { action_name: 'InstallPackage', params: { package: 'nginx' }, reason: 'the package first', part: 'install nginx' },
    { action_name: 'StartService', params: { unit: 'nginx.service' }, reason: 'then its service', part: 'start it' },
  ];
  const call = { name: 'propose_plan', input: { summary: 'Install nginx and start it', steps, missing: [{ part: 'frobnicate it', why: 'no catalogue action does this' }] } };
  const intent = 'install nginx, start it and frobnicate it';
  const upstream = await startLlmServer([modelReply('openai', [call])]);
  const rec = await recordingPlanner(file, { provider: 'openai', model: 'multi-model', baseURL: upstream.baseURL('openai'), apiKey: new ApiKey(KEY) });
  const recorded = await rec.planner.plan(intent, DEBIAN, query, limits);
  await rec.close();
  await upstream.close();
  const play = await replayingPlanner(file);
  try {
    const replayed = await play.planner.plan(intent, DEBIAN, query, limits);
    assert.deepEqual(play.misses, []);
    assert.deepEqual(replayed.verdict, recorded.verdict);
    assert.ok(replayed.verdict.kind === 'plan');
    assert.deepEqual(replayed.verdict.steps.map((s) => s.action_name), ['InstallPackage', 'StartService']);
    assert.deepEqual(replayed.verdict.missing, [{ part: 'frobnicate it', why: 'no catalogue action does this' }]);
  } finally {
    await play.close();
  }
});

test('the key ignores volatile fields and nothing else', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
  const k = requestKey('POST', '/v1/chat/completions', body);
  assert.equal(requestKey('post', '/v1/chat/completions', { messages: body.messages, model: 'm', user: 'someone', metadata: { run: 7 } }), k, 'key order and volatile fields do not count');
  assert.notEqual(requestKey('POST', '/v1/chat/completions', { ...body, model: 'n' }), k);
  assert.notEqual(requestKey('POST', '/v1/messages', body), k);
});

test('a provider that echoes the key in its answer: recording cuts it out of the file', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'airlock-cassette-')), 'echo.json');
  const upstream = await startLlmServer([(r) => errorReply('openai', 401, `Incorrect API key provided: ${String(r.headers.authorization).replace(/^Bearer /, '')}`)]);
  const rec = await recordCassette(file, upstream.baseURL('openai'));
  await assert.rejects(planner('openai', rec.baseURL).plan('restart nginx', DEBIAN, query, limits), (e: unknown) => e instanceof PlannerError && e.code === 'provider_auth' && !e.message.includes(KEY));
  await rec.close();
  await upstream.close();
  const text = readFileSync(file, 'utf8');
  assert.match(text, /Incorrect API key provided: \*\*\*/);
  assert.ok(!text.includes(KEY));
});

test('recordingPlanner and replayingPlanner: the replay is the recorded provider, model and token field, from the file alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-cassette-'));
  // A compatible server at a base URL (max_tokens), and OpenAI's own endpoint (max_completion_tokens: routed via the cassette).
  for (const [name, own] of [['compatible', false], ['own', true]] as const) {
    const file = join(dir, `${name}.json`);
    const upstream = await startLlmServer([modelReply('openai', [restart])]);
    let recorded;
    if (own) {
      const rec = await recordCassette(file, upstream.baseURL('openai'));
      recorded = await llmPlanner({ provider: 'openai', model: 'gpt-own', baseURL: null, apiKey: new ApiKey(KEY) }, { via: rec.baseURL }).plan('restart nginx', DEBIAN, query, limits);
      await rec.close();
    } else {
      const rec = await recordingPlanner(file, { provider: 'openai', model: 'local-model', baseURL: upstream.baseURL('openai'), apiKey: new ApiKey(KEY) });
      recorded = await rec.planner.plan('restart nginx', DEBIAN, query, limits);
      await rec.close();
    }
    await upstream.close();
    const body = upstream.received[0]!.body;
    assert.equal(body.max_completion_tokens !== undefined, own, name);
    assert.equal(body.max_tokens !== undefined, !own, name);

    const play = await replayingPlanner(file);
    try {
      assert.equal(play.model, own ? 'gpt-own' : 'local-model');
      const replayed = await play.planner.plan('restart nginx', DEBIAN, query, limits);
      assert.deepEqual(replayed.verdict, recorded.verdict);
      assert.deepEqual(replayed.planner, recorded.planner);
      assert.deepEqual(play.misses, []);
    } finally {
      await play.close();
    }
    assert.ok(!readFileSync(file, 'utf8').includes(KEY));
  }
});

test('stories recorded through recordingPlanner replay strictly through replayingPlanner, story by story', async () => {
  const { loadStories, runStories } = await import('../stories/run.js');
  const { storyHost } = await import('../stories/host.js');
  const stories = loadStories().slice(0, 12);
  const host = storyHost();
  // The scripted model refuses every intent, quoting it: each session is one exchange of its own.
  const upstream = await startLlmServer(stories.map(() => (r: { body: any }) => modelReply('openai', [{ name: 'refuse', input: { reason: `not planned: ${JSON.stringify(r.body.messages[1].content).slice(0, 60)}` } }])));
  const file = join(mkdtempSync(join(tmpdir(), 'airlock-cassette-')), 'stories.json');
  const rec = await recordingPlanner(file, { provider: 'openai', model: 'story-model', baseURL: upstream.baseURL('openai'), apiKey: new ApiKey(KEY) });
  const recorded = await runStories(rec.planner, host, { stories });
  await rec.close();
  await upstream.close();
  assert.equal(upstream.received.length, stories.length);
  const play = await replayingPlanner(file);
  try {
    const replayed = await runStories(play.planner, host, { stories });
    assert.deepEqual(play.misses, []);
    assert.deepEqual(replayed.map((r) => r.report?.verdict), recorded.map((r) => r.report?.verdict));
    assert.ok(recorded.every((r) => r.report?.verdict.kind === 'refusal'));
  } finally {
    await play.close();
  }
});
