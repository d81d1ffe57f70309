/**
 * The documentation says what the code does, for claims a test can check across every document
 * (docs/*.md and the README), not only docs/protocol.md (protocol-doc.test.ts):
 * - no feature is called later work or promised for a future version: what exists is described,
 *   what does not is a limitation stated as such (section 18 of protocol.md, section 6 of security.md);
 * - every `category/code` named anywhere is one the sources construct;
 * - every `[store] key` named is a key the policy accepts, and every TOML block with a [store]
 *   section parses as a policy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATEGORIES } from '../../src/protocol/errors.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { StoreSchema } from '../../src/policy/store-settings.js';
import { ROOT, scanErrorCodes } from '../support/error-codes.js';

const DOCS = [...readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => join('docs', n)), 'README.md'];
const text = new Map(DOCS.map((d) => [d, readFileSync(join(ROOT, d), 'utf8')]));
/** Each match of `re` in every document, with where. */
function found(re: RegExp): Array<{ at: string; match: RegExpMatchArray }> {
  return [...text].flatMap(([d, t]) => [...t.matchAll(re)].map((m) => ({ at: `${d}:${t.slice(0, m.index).split('\n').length}`, match: m })));
}

test('no document calls a feature later work or promises it: each says what the code does now', () => {
  const promises = /\b(later work|future work|will be added|will go there|not (masked|witnessed|signed|verified) yet|is not yet (implemented|supported)|in a future version)\b/gi;
  const hits = found(promises).map((h) => `${h.at}: "${h.match[0]}"`);
  assert.deepEqual(hits, [], 'describe what exists (or state the limitation as one), never a plan');
});

test('every category/code any document names is one the sources construct', () => {
  const real = new Set(scanErrorCodes().pairs.map((p) => `${p.category}/${p.code}`));
  const categories = new Set<string>(ERROR_CATEGORIES);
  const named = found(/`([a-z_]+)\/([a-z][a-z0-9_]*)`/g).filter((h) => categories.has(h.match[1]!));
  assert.ok(named.length > 50, `the documents name codes (${named.length} found)`);
  const stale = named.filter((h) => !real.has(`${h.match[1]}/${h.match[2]}`)).map((h) => `${h.at}: ${h.match[1]}/${h.match[2]}`);
  assert.deepEqual(stale, [], 'codes nothing in src/ constructs');
});

test('every [store] key the documents name is one the policy accepts, and every [store] TOML block parses', () => {
  const keys = found(/`\[store\] ([a-z_]+)`|\[store\][^\n`]*`([a-z_]+)`/g).map((h) => ({ at: h.at, key: (h.match[1] ?? h.match[2])! }));
  assert.ok(keys.length >= 5, `the documents name [store] keys (${keys.length} found)`);
  const unknown = keys.filter((k) => !StoreSchema.safeParse({ [k.key]: undefined }).success).map((k) => `${k.at}: ${k.key}`);
  assert.deepEqual(unknown, [], 'keys the [store] section refuses');
  const blocks = found(/```toml\n([\s\S]*?)```/g).filter((h) => /^\[store\]$/m.test(h.match[1]!));
  assert.ok(blocks.length >= 1, 'a document shows the [store] section');
  for (const b of blocks) assert.doesNotThrow(() => parsePolicy(b.match[1]!), `${b.at}: the block parses as a policy`);
  // A duration is a string with a unit: the unquoted form a reader might guess is refused, so the docs must show quotes.
  assert.throws(() => parsePolicy('[store]\nkeep_details = 7\n'));
});
