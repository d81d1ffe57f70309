/**
 * Fuzz of every catalogue action's parameter schema, through the daemon's one check of a
 * request's parameters (src/daemon/request-params.ts): generated objects with the action's
 * own parameter names and values near and far from valid ones. Every refusal is a typed
 * validation error whose message quotes no control text; what is accepted can be hashed
 * and holds no control text; no case holds the thread longer than MAX_CASE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AnyAction } from '../../src/catalogue/action.js';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { parseActionParams } from '../../src/daemon/request-params.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { hasUnsafeText, hasUnsafeTextDeep } from '../../src/protocol/escape-text.js';
import { actionCall } from '../support/fuzz/arbitraries.js';
import { CaseClock, params, regressions, runs } from '../support/fuzz/harness.js';

const TARGET = 'action-params';

function property(action: AnyAction, raw: unknown): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseActionParams(action, raw);
  } catch (e) {
    assert.ok(e instanceof AirlockError, `${action.name}: not a typed error: ${(e as Error)?.stack ?? String(e)}`);
    assert.equal(e.category, 'validation');
    assert.equal(e.code, 'bad_params');
    // The message quotes the agent's values: the wire escapes it (toWire), and it must survive that whole.
    const wire = e.toWire();
    assert.ok(!hasUnsafeText(wire.message), `${action.name}: the refusal's message carries control text: ${JSON.stringify(wire.message)}`);
    return;
  }
  assert.equal(typeof canonicalize(parsed), 'string');
  assert.ok(!hasUnsafeTextDeep(parsed), `${action.name}: accepted control text`);
}

test('generated parameters of every action: typed refusals, accepted values hashable and plain, no case over the loop bound', (t) => {
  const clock = new CaseClock(TARGET);
  fc.assert(fc.property(actionCall, ({ action, params: raw }) => clock.time({ action: action.name, params: raw }, () => property(action, raw))), params(runs(6_000)));
  clock.report((l) => t.diagnostic(l));
});

test('kept action-parameter cases still pass', () => {
  for (const r of regressions(TARGET)) {
    const { action, params: raw } = r.input as { action: string; params: unknown };
    property(CATALOGUE.get(action)!, raw);
  }
});
