/**
 * A parameter whose name says secret ('strong' in src/mask/names.ts, the same function
 * the detectors use; a name such as `key` only hints, and the catalogue's `key`
 * parameters are public keys) is declared in the action's `secretParams`, over the whole
 * catalogue, so that previews, history and the log show it masked
 * (src/daemon/secret-params.ts). Declared names must be parameters. The check is shown to
 * catch an undeclared one first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { AnyAction } from '../../src/catalogue/action.js';
import { secretName } from '../../src/mask/names.js';

/** A number or a flag carries no secret (fstab's `pass` is the fsck order, sudo's `nopasswd` a tag). */
function carriesNoText(sub: unknown): boolean {
  const s = (sub ?? {}) as { type?: string; const?: unknown; enum?: unknown[]; anyOf?: unknown[] };
  if (['integer', 'number', 'boolean'].includes(s.type ?? '')) return true;
  if ('const' in s) return typeof s.const !== 'string';
  if (s.enum) return s.enum.every((v) => typeof v !== 'string');
  return s.anyOf !== undefined && s.anyOf.every(carriesNoText);
}

/** Every property name in a JSON Schema that can hold text, nested objects and array items included. */
function propertyNames(schema: unknown, out: string[] = []): string[] {
  if (schema === null || typeof schema !== 'object') return out;
  const s = schema as { properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    if (!carriesNoText(sub)) out.push(name);
    propertyNames(sub, out);
  }
  for (const sub of [s.items, ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) propertyNames(sub, out);
  return out;
}

function secretParamProblems(a: Pick<AnyAction, 'name' | 'params' | 'secretParams'>): string[] {
  const names = propertyNames(z.toJSONSchema(a.params));
  const declared = new Set(a.secretParams ?? []);
  const problems = names.filter((n) => secretName(n) === 'strong' && !declared.has(n)).map((n) => `${a.name}.${n} says secret and is not in secretParams`);
  const top = Object.keys((z.toJSONSchema(a.params) as { properties?: object }).properties ?? {});
  for (const d of declared) if (!top.includes(d)) problems.push(`${a.name} declares secretParams ${d}, which is not one of its parameters`);
  return problems;
}

test('the check catches an undeclared secret parameter and a declaration of nothing', () => {
  const params = z.strictObject({ user: z.string(), password: z.string(), options: z.strictObject({ api_token: z.string() }) });
  assert.deepEqual(secretParamProblems({ name: 'Fixture', params }), ['Fixture.password says secret and is not in secretParams', 'Fixture.api_token says secret and is not in secretParams']);
  assert.deepEqual(secretParamProblems({ name: 'Fixture', params, secretParams: ['password', 'options', 'pin'] }), [
    'Fixture.api_token says secret and is not in secretParams',
    'Fixture declares secretParams pin, which is not one of its parameters',
  ]);
});

test('every catalogue parameter whose name says secret is declared secret', () => {
  const actions = [...CATALOGUE.values()];
  assert.ok(actions.length >= 200);
  const names = actions.flatMap((a) => propertyNames(z.toJSONSchema(a.params)));
  assert.ok(names.length > 200, `only ${names.length} parameter names read: the schema walk is broken`);
  assert.deepEqual(actions.flatMap(secretParamProblems), []);
});
