/**
 * An action's parameters as a request sends them, checked the one way the daemon checks
 * them (preview, and execute when the values differ from the stored ones): the action's
 * schema, a request hash that can cover them, and no control text. Every refusal is a
 * typed validation error; test/integration/fuzz-action-params.test.ts drives generated values through it.
 */
import type { AnyAction } from '../catalogue/action.js';
import { paramRefusal, wrongTypeHint } from '../catalogue/param-errors.js';
import { canonicalize } from '../protocol/canonical.js';
import { AirlockError, fail } from '../protocol/errors.js';
import { hasUnsafeTextDeep } from '../protocol/escape-text.js';
import { shownValue } from './secret-params.js';

export function parseActionParams(a: AnyAction, raw: unknown): Record<string, unknown> {
  const r = a.params.safeParse(raw ?? {});
  if (!r.success) {
    const { sentences, wrongTypes } = paramRefusal(a.params, raw ?? {}, r.error.issues, (name, v) => shownValue(a, name, v));
    const describe = `see \`airlock describe ${a.name}\``;
    // A wrong type is listed on the error too, for each client to say how it sends that type (the CLI's --param k:=JSON).
    throw new AirlockError('validation', 'bad_params', `invalid parameters for ${a.name}: ${sentences.join('; ')}`, wrongTypes.length ? `${wrongTypeHint(wrongTypes)}; ${describe}` : describe, {
      wrongTypes,
      next: { method: 'actions.describe', params: { action_name: a.name } },
    });
  }
  try {
    canonicalize(r.data); // the request hash must cover exactly these values (no lone surrogates)
  } catch (e) {
    fail('validation', 'bad_params', `invalid parameters for ${a.name}: ${(e as Error).message}`);
  }
  // Parameters reach every client unescaped (the request hash covers them as sent): none may
  // carry a control character other than newline and tab, or a bidirectional control.
  if (hasUnsafeTextDeep(r.data)) {
    fail('validation', 'bad_params', `invalid parameters for ${a.name}: a value holds a control character or a bidirectional control`, 'send plain text: newline and tab are the only control characters allowed');
  }
  return r.data as Record<string, unknown>;
}
