/**
 * src/protocol/catalogue-metadata.json is what clients with no daemon know of the
 * catalogue: it must say what the declarations say, and what the daemon's
 * `actions.describe` says before the host's support and policy are added.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { FAMILIES } from '../../src/catalogue/action.js';
import { actionMetadata } from '../../src/catalogue/metadata.js';
import { catalogueMetadata, describeActionMetadata, listActionMetadata } from '../../src/protocol/catalogue-metadata.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { CATALOGUE_METADATA_PATH, renderCatalogueMetadata } from '../../scripts/gen-catalogue-metadata.js';

test('src/protocol/catalogue-metadata.json matches the catalogue', () => {
  const expected = renderCatalogueMetadata();
  let actual: string | null = null;
  try {
    actual = readFileSync(CATALOGUE_METADATA_PATH, 'utf8');
  } catch {
    // reported below
  }
  if (actual === expected) return;
  if (actual === null) assert.fail('src/protocol/catalogue-metadata.json is missing: run `npm run docs` to generate it from src/catalogue');
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = 0;
  while (i < Math.max(a.length, e.length) && a[i] === e[i]) i++;
  assert.fail(
    `src/protocol/catalogue-metadata.json is out of date with src/catalogue: run \`npm run docs\` and commit the result.\n` +
      `first difference at line ${i + 1}:\n  file:     ${JSON.stringify(a[i] ?? '<end of file>')}\n  expected: ${JSON.stringify(e[i] ?? '<end of file>')}`,
  );
});

test('the reader gives every action once, as the declaration describes it, in catalogue order', () => {
  const m = catalogueMetadata();
  assert.deepEqual(m.families, [...FAMILIES]);
  assert.deepEqual(m.actions.map((a) => a.name), [...CATALOGUE.keys()]);
  for (const a of CATALOGUE.values()) {
    // Through JSON, as the file holds it: the schema and example survive the round trip unchanged.
    assert.deepEqual(describeActionMetadata(a.name), JSON.parse(JSON.stringify(actionMetadata(a))), a.name);
  }
  assert.ok(!('supported_here' in m.actions[0]!), 'the host is unknown without the daemon');
});

test('the reader filters by family and refuses an unknown name as the daemon does', () => {
  const users = listActionMetadata('users');
  assert.ok(users.length > 0 && users.every((a) => a.family === 'users'));
  assert.deepEqual(listActionMetadata('no-such-family'), []);
  assert.equal(listActionMetadata().length, CATALOGUE.size);
  assert.throws(() => describeActionMetadata('NoSuchThing'), (e: unknown) => e instanceof AirlockError && e.category === 'validation' && e.code === 'unknown_action');
});
