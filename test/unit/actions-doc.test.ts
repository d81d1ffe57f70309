import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { ACTIONS_DOC_PATH, renderActionsDoc } from '../../scripts/gen-actions-doc.js';

test('docs/actions.md matches the catalogue', () => {
  const expected = renderActionsDoc();
  let actual: string | null = null;
  try {
    actual = readFileSync(ACTIONS_DOC_PATH, 'utf8');
  } catch {
    // reported below
  }
  if (actual === expected) return;
  if (actual === null) assert.fail('docs/actions.md is missing: run `npm run docs` to generate it from src/catalogue');
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = 0;
  while (i < Math.max(a.length, e.length) && a[i] === e[i]) i++;
  assert.fail(
    `docs/actions.md is out of date with src/catalogue: run \`npm run docs\` and commit the result.\n` +
      `first difference at line ${i + 1}:\n  file:     ${JSON.stringify(a[i] ?? '<end of file>')}\n  expected: ${JSON.stringify(e[i] ?? '<end of file>')}`,
  );
});

test('the rendering is deterministic and lists every action once', () => {
  const text = renderActionsDoc();
  assert.equal(renderActionsDoc(), text);
  for (const name of CATALOGUE.keys()) {
    assert.equal(text.split('\n').filter((l) => l === `### ${name}`).length, 1, `${name} has exactly one section`);
  }
});
