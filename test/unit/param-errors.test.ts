/**
 * Validation errors are sentences: for every action of the catalogue and every one of its
 * parameters, a wrong value is refused with a sentence that names the parameter and says
 * what it accepts, with no regular expression and none of the schema library's wording.
 * A missing parameter, an unknown one (with the nearest name) and a secret value (never
 * echoed) each read as a person expects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { paramErrorSentences, paramNames, paramRefusal, wrongTypeHint } from '../../src/catalogue/param-errors.js';
import { commandLineFix } from '../../src/cli/params-arg.js';
import { errorText } from '../../src/mcp/tool-result.js';
import { shownValue } from '../../src/daemon/secret-params.js';
import type { AnyAction } from '../../src/catalogue/action.js';

/** What a regular expression's source looks like in text: anchors, classes, escapes, groups, counts. */
const REGEX_SOURCE = /\^|\$\/|\\[dswbDSW.]|\[\^?[A-Za-z0-9_]-[A-Za-z0-9]|\(\?[=!:<]|\{\d+,\d*\}/;
const ZOD_WORDING = /Invalid input|Invalid option|Too small|Too big|expected (string|number)|received|Unrecognized key/;
const WRONG: unknown[] = [{ wrong: [1] }, 12345.5, true, 'zz zz\u00e9', [], -1];

function sentences(a: AnyAction, raw: Record<string, unknown>): string[] {
  const r = a.params.safeParse(raw);
  assert.equal(r.success, false, `${a.name} accepted ${JSON.stringify(raw)}`);
  return paramErrorSentences(a.params, raw, (r as z.ZodSafeParseError<unknown>).error.issues, (n, v) => shownValue(a, n, v));
}
/** The schemas of `key` in every shape of an action's parameters. */
const schemaOf = (a: AnyAction, key: string): z.ZodType[] => {
  const d = (a.params as unknown as { _zod: { def: { options?: z.ZodType[] } } })._zod.def;
  return (d.options ?? [a.params]).map((o) => (o as unknown as { shape?: Record<string, z.ZodType> }).shape?.[key]).filter((s): s is z.ZodType => s !== undefined);
};
const shape = (a: AnyAction) => (a.params as unknown as { shape: Record<string, z.ZodType> }).shape;

test('every parameter of every action: a wrong value gets a sentence naming it, with no regex and no zod wording', () => {
  let checked = 0;
  for (const a of CATALOGUE.values()) {
    const union = !('shape' in a.params);
    for (const key of paramNames(a.params)) {
      // A wrong value for this parameter: the first candidate that no shape of the action accepts.
      const wrong = WRONG.find((v) => !a.params.safeParse({ [key]: v }).success && !schemaOf(a, key).some((s) => s.safeParse(v).success));
      if (wrong === undefined) continue;
      const all = sentences(a, { [key]: wrong });
      const said = all.find((s) => s.includes(`parameter \`${key}\``) || (union && /^missing parameter/.test(s)));
      assert.ok(said, `${a.name}.${key}: no sentence names it: ${all.join(' | ')}`);
      if (!union) assert.match(said!, new RegExp(`^parameter \`${key}\` got .+: .{3,}`), `${a.name}.${key}: ${said}`);
      for (const s of all) {
        assert.doesNotMatch(s, REGEX_SOURCE, `${a.name}.${key}: ${s}`);
        assert.doesNotMatch(s, ZOD_WORDING, `${a.name}.${key}: ${s}`);
      }
      checked++;
    }
  }
  assert.ok(checked > 200, `only ${checked} parameters checked`);
});

test('every parameter of every action: wrong strings and numbers are refused in sentences with no regex either', () => {
  const values: unknown[] = ['zz zz\u00e9', '-x', '', 'a'.repeat(5000), 'a/../b', 0, 99_999_999, 1.5];
  for (const a of CATALOGUE.values()) {
    for (const key of paramNames(a.params)) {
      for (const v of values) {
        const r = a.params.safeParse({ [key]: v });
        if (r.success) continue;
        for (const said of paramErrorSentences(a.params, { [key]: v }, r.error.issues, (n, x) => shownValue(a, n, x))) {
          assert.doesNotMatch(said, REGEX_SOURCE, `${a.name}.${key}=${JSON.stringify(v).slice(0, 20)}: ${said}`);
          assert.doesNotMatch(said, ZOD_WORDING, `${a.name}.${key}=${JSON.stringify(v).slice(0, 20)}: ${said}`);
        }
      }
    }
  }
});

test('the shared validators say what they accept, with an example', () => {
  const restart = CATALOGUE.get('RestartService')!;
  assert.deepEqual(sentences(restart, { unit: 'ngi nx' }), ['parameter `unit` got "ngi nx": a systemd unit name (letters, digits and : _ . @ -, up to 250 characters, ending in .service, .socket, .timer, .target, .path or .mount; a name with no dot means NAME.service, e.g. nginx)']);
  const create = CATALOGUE.get('CreateUser')!;
  assert.deepEqual(sentences(create, {}), ['missing parameter `user`: a user name (a lower-case letter or _, then lower-case letters, digits, _ and -, up to 32 characters, e.g. alice)']);
  assert.deepEqual(sentences(create, { user: 'bob', usr: 'bob' }), ['unknown parameter `usr` (did you mean `user`?)']);
  const withPort = [...CATALOGUE.values()].find((a) => 'port' in shape(a) && shape(a).port!.safeParse(22).success)!;
  const said = sentences(withPort, { port: 70000 });
  assert.ok(said.some((l) => l.startsWith('parameter `port` got 70000: a whole number from 1 to 65535')), said.join(' | '));
});

test('a declared secret is never echoed, and a secret-looking value is masked', () => {
  const withSecret = [...CATALOGUE.values()].find((a) => (a.secretParams?.length ?? 0) > 0 && shape(a)[a.secretParams![0]!]!.safeParse(12345.5).success === false);
  if (withSecret) {
    const key = withSecret.secretParams![0]!;
    const said = sentences(withSecret, { [key]: 12345.5 }).find((s) => s.includes(`\`${key}\``))!;
    assert.doesNotMatch(said, /12345/, said);
    assert.match(said, /⟦secret:/);
  }
  const restart = CATALOGUE.get('RestartService')!;
  const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const said = sentences(restart, { unit: `password=${token}` })[0]!;
  assert.ok(!said.includes(token), said);
  const evil = sentences(restart, { unit: 'a\u001b[2J\u202eb' })[0]!;
  assert.doesNotMatch(evil, /[\u001b\u202e]/);
});

test('every typed parameter of every action: its example value sent as a string says it got the string, and the JSON to send', () => {
  let checked = 0;
  for (const a of CATALOGUE.values()) {
    // Which JSON type each parameter takes, as the action's JSON Schema says (one type, never a string: else "443" may be a right type).
    const props = ((z.toJSONSchema(a.params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown }> }).properties ?? {});
    for (const [key, good] of Object.entries(a.example as Record<string, unknown>)) {
      const type = props[key]?.type;
      if (typeof type !== 'string' || type === 'string' || a.secretParams?.includes(key)) continue;
      const json = JSON.stringify(good);
      if (json.length > 80) continue; // a value this long is cut where the message quotes it: no JSON is offered
      const raw = { ...(a.example as Record<string, unknown>), [key]: json };
      const r = a.params.safeParse(raw);
      assert.equal(r.success, false, `${a.name}.${key} accepted the string ${json}`);
      const { sentences, wrongTypes } = paramRefusal(a.params, raw, r.error!.issues, (n, v) => shownValue(a, n, v));
      assert.ok(sentences.some((l) => l.startsWith(`parameter \`${key}\` got the string ${JSON.stringify(json)}: `)), `${a.name}.${key}: ${sentences.join(' | ')}`);
      const w = wrongTypes.find((x) => x.param === key);
      assert.ok(w, `${a.name}.${key}: not listed as a wrong type`);
      assert.equal(w.got, 'string');
      assert.ok(!w.expected.includes('string'), `${a.name}.${key}: ${w.expected.join(',')}`);
      // What it offers to send is accepted: the example, typed again.
      assert.equal(w.as_json, json, `${a.name}.${key}`);
      assert.equal(a.params.safeParse({ ...raw, [key]: JSON.parse(w.as_json!) }).success, true, `${a.name}.${key}`);
      checked++;
    }
  }
  assert.ok(checked > 30, `only ${checked} typed parameters checked`);
});

test('a wrong type: the value of the right type is never claimed wrong, a masked value offers no JSON, and each client words the fix', () => {
  const withPort = [...CATALOGUE.values()].find((a) => 'port' in shape(a) && shape(a).port!.safeParse(22).success)!;
  const refuse = (a: AnyAction, raw: Record<string, unknown>) => {
    const r = a.params.safeParse(raw);
    assert.equal(r.success, false);
    return paramRefusal(a.params, raw, r.error!.issues, (n, v) => shownValue(a, n, v));
  };
  assert.deepEqual(refuse(withPort, { port: 70000 }).wrongTypes, [], 'a number out of range is not a wrong type');
  assert.deepEqual(refuse(withPort, { port: 'http' }).wrongTypes, [{ param: 'port', expected: ['number'], got: 'string' }], 'text that is no number: the type alone');
  const [w] = refuse(withPort, { port: '443' }).wrongTypes;
  assert.deepEqual(w, { param: 'port', expected: ['number'], got: 'string', as_json: '443' });
  assert.equal(wrongTypeHint([w!]), 'send `port` as a number (443), not as text');
  assert.equal(commandLineFix(w!), 'on the command line: --param port:=443 (`:=` sends a JSON value, `=` sends text)');
  assert.match(errorText({ category: 'validation', code: 'bad_params', message: 'm', hint: 'h', wrong_types: [w!] }), /\nnext: h\nnext: in params: "port": 443 \(a JSON number, not a string\)$/);
  const create = CATALOGUE.get('CreateUser')!;
  const [user] = refuse(create, { user: 5 }).wrongTypes;
  assert.deepEqual(user, { param: 'user', expected: ['string'], got: 'number' });
  assert.equal(commandLineFix(user!), 'on the command line: --param user=TEXT sends text');
  // A list sent as its JSON text: quoted for the shell.
  const [groups] = refuse(create, { user: 'bob', groups: '["adm"]' }).wrongTypes;
  assert.equal(commandLineFix(groups!), `on the command line: --param groups:='["adm"]' (\`:=\` sends a JSON value, \`=\` sends text)`);
  // A string the masker changes is never offered back as JSON.
  const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const masked = refuse(create, { user: 'bob', groups: `["${token}"]` });
  assert.equal(masked.wrongTypes[0]!.as_json, undefined);
  assert.ok(!JSON.stringify(masked).includes(token));
});
