/**
 * Fuzz of the policy parser (src/policy/policy.ts): policy-shaped TOML with values near
 * and far from valid ones, the same text cut or with characters changed, and any text.
 * Every refusal is a PolicyError; a policy it accepts never approves above RULE_MAX_RISK,
 * and explaining it (what `airlock policy check` prints) does not throw; no case holds
 * the thread longer than MAX_CASE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { explainPolicy, parsePolicy, PolicyError, RULE_MAX_RISK } from '../../src/policy/policy.js';
import { riskRank } from '../../src/protocol/risk.js';
import { policyText } from '../support/fuzz/arbitraries.js';
import { CaseClock, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'policy';

function property(text: string): void {
  let policy;
  try {
    policy = parsePolicy(text);
  } catch (e) {
    assert.ok(e instanceof PolicyError, `not a PolicyError: ${(e as Error)?.stack ?? String(e)}`);
    assert.ok(e.message.length > 0);
    return;
  }
  for (const r of policy.rules) {
    const risk = policy.riskOverrides.get(r.action) ?? CATALOGUE.get(r.action)!.risk;
    assert.ok(riskRank(risk) <= riskRank(RULE_MAX_RISK), `rule ${r.id} approves ${r.action} at ${risk}`);
  }
  explainPolicy(policy);
}

test('generated policy files: PolicyError for every refusal, no rule above Medium, no case over the loop bound', (t) => {
  const clock = new CaseClock(TARGET);
  fc.assert(fc.property(policyText, (text) => clock.time(text, () => property(text))), params(runs(3_000)));
  clock.report((l) => t.diagnostic(l));
});

test('kept policy cases still pass', () => {
  for (const r of regressions(TARGET)) property(r.input as string);
});
