/**
 * The pure parts of the planner's doors: the intent check (secrets, length, control
 * characters), the distribution read strictly from os-release text, the --provider and
 * --model overrides, and the plan as `airlock plan` prints it (the daemon's risk, refusals,
 * the planner's words escaped and masked, the match code of a step waiting for a person).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlannerConfig } from '../../src/planner/config.js';
import { checkIntent, distributionOf, type PlanView } from '../../src/planner/door.js';
import { DEFAULT_LIMITS } from '../../src/planner/contract.js';
import { configWithOverrides } from '../../src/planner/choose.js';
import { renderPlan } from '../../src/cli/plan.js';
import { matchCode } from '../../src/protocol/match-code.js';
import type { PreviewResult } from '../../src/protocol/messages.js';

const refused = (intent: string) => {
  try {
    checkIntent(intent, DEFAULT_LIMITS);
    return null;
  } catch (e) {
    return (e as { code: string }).code;
  }
};

test('an intent is refused for a secret, its length, control characters or nothing at all; ordinary words pass', () => {
  assert.equal(refused('restart nginx and show its last errors'), null);
  assert.equal(refused('free some disk space on /var, keep 7 days of journal'), null);
  assert.equal(refused('connect with postgres://app:S3cretPassw0rd@db.internal/app'), 'secret_in_intent');
  assert.equal(refused('export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'), 'secret_in_intent');
  assert.equal(refused('x'.repeat(DEFAULT_LIMITS.maxIntentChars + 1)), 'intent_too_long');
  assert.equal(refused('restart nginx\u202e'), 'intent_control_characters');
  assert.equal(refused('   '), 'empty_intent');
});

test('the distribution is read strictly: one plain ID, a sane VERSION_ID, else unknown; the pretty name escaped and capped', () => {
  assert.deepEqual(distributionOf('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n'), { id: 'debian', version_id: '12', pretty_name: 'Debian GNU/Linux 12 (bookworm)' });
  assert.equal(distributionOf('ID=debian\nID=ubuntu\n').id, 'unknown', 'ambiguous');
  assert.equal(distributionOf('ID="$(reboot)"\n').id, 'unknown', 'never evaluated');
  assert.equal(distributionOf('ID=Debian Linux\n').id, 'unknown');
  assert.equal(distributionOf(null).id, 'unknown');
  assert.equal(distributionOf('ID=fedora\nVERSION_ID="40; rm"\n').version_id, '');
  const odd = distributionOf(`ID=debian\nPRETTY_NAME='Evil\u001b]0;x\u0007${'A'.repeat(200)}'\n`);
  assert.doesNotMatch(odd.pretty_name, /\u001b|\u0007/);
  assert.ok(odd.pretty_name.length <= 80);
});

test('--provider and --model override the configuration; offline forces the offline planner; a key never goes to another provider', () => {
  const cfg: PlannerConfig = { provider: 'anthropic', model: 'claude-x', baseURL: null, apiKey: null };
  assert.equal(configWithOverrides(cfg, { provider: 'offline' }), null);
  assert.deepEqual(configWithOverrides(cfg, { model: 'claude-y' }), { ...cfg, model: 'claude-y' });
  assert.deepEqual(configWithOverrides(cfg, { provider: 'anthropic' }), cfg);
  assert.throws(() => configWithOverrides(cfg, { provider: 'openai' }), /configured planner is anthropic, not openai/);
  assert.equal(configWithOverrides(null, {}), null);
  assert.throws(() => configWithOverrides(null, { model: 'x' }), /no LLM is configured/);
  assert.throws(() => configWithOverrides(cfg, { provider: 'gemini' }), /unknown provider/);
});

test("the plan as a person reads it: the daemon's risk and approve command, a refusal with its error, the planner's words escaped and masked", () => {
  const view: PlanView = {
    intent: 'make a group',
    planner: { kind: 'openai', model: 'gpt-4o-mini' },
    verdict: 'plan',
    summary: 'one group\u001b[31m',
    notes: ['the key is password=hunter2hunter2'],
    usage: { turns: 2, input_tokens: 1200, output_tokens: 80, elapsed_ms: 1500 },
    queries: [{ action_name: 'ListGroups', params: {}, transaction_id: 'tx_' + 'a'.repeat(24), ok: true }],
    steps: [
      { step: { action_name: 'CreateGroup', params: { group: 'web' }, reason: 'asked' }, ok: true, preview: { transaction_id: 'tx_' + 'b'.repeat(24), summary: 'Create group web', risk: 'medium', min_role: 'dev', expires_at: '', warnings: [], reboot_required: false, auto_approval: null, unattended: false } },
      { step: { action_name: 'Nope', params: {}, reason: '' }, ok: false, error: { category: 'validation', code: 'unknown_action', message: 'there is no action named "Nope"' } },
    ],
    plan: null,
    proposal: [{ action_name: 'CreateGroup', params: { group: 'web' } }, { action_name: 'Nope', params: {} }],
    complete: false,
    missing: [{ part: 'and give it\u001b[2J to bob', why: 'the planner proposed no step for it' }],
  };
  const text = renderPlan(view);
  assert.match(text, /planned by openai, model gpt-4o-mini/);
  assert.match(text, /1\. CreateGroup {2}medium {2}Create group web\n {5}tx_b{24}\n {5}approval: waiting for a person \(role dev or above\): airlock approve tx_b{24}/);
  assert.match(text, /2\. Nope {2}REFUSED by the daemon/);
  assert.match(text, /one group\\x1b\[31m/);
  assert.doesNotMatch(text, /hunter2/);
  assert.match(text, /ListGroups tx_a{24}/);
  assert.match(text, /planning: 2 turns, 1200 tokens in, 80 out, 1\.5 s/);
  assert.match(text, /INCOMPLETE: 1 part of the request has no step[\s\S]*missing: and give it\\x1b\[2J to bob: the planner proposed no step for it/, 'named, escaped');
  assert.doesNotMatch(text, /\u001b\[2J/);
  // With the daemon's previews, a step waiting for a person shows the code its approver's prompt shows.
  const digest = 'd'.repeat(64);
  const withCode = renderPlan(view, new Map([['tx_' + 'b'.repeat(24), { preview_digest: digest } as PreviewResult]]));
  assert.ok(withCode.includes(`approval: waiting for a person (role dev or above): airlock approve tx_${'b'.repeat(24)}, match code ${matchCode(digest)}\n`), withCode);
});
