/**
 * The approval count (scripts/approval-count.ts): every multi-step request of the stories
 * goes from one approval per change to one, the rule sends a read with one change step by
 * step (the policy approves the read), and the figures the README gives are the script's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { count, counts } from '../../scripts/approval-count.js';

test('each multi-step story needs one approval instead of one per change; a single change still one, reads none', async () => {
  const { rows } = await counts();
  const stories = rows.filter((r) => r.source.startsWith('stories'));
  assert.ok(stories.length >= 18, `${stories.length} stories`);
  for (const r of stories) assert.deepEqual([r.before >= 2, r.after], [true, 1], r.name);
  assert.deepEqual(count({ source: 't', name: 'one change and a read', steps: [{ action_name: 'GetHostname', params: {} }, { action_name: 'CreateGroup', params: { group: 'x' } }] }), { source: 't', name: 'one change and a read', steps: [{ action_name: 'GetHostname', params: {} }, { action_name: 'CreateGroup', params: { group: 'x' } }], before: 1, after: 1 });
  assert.equal(count({ source: 't', name: 'reads', steps: [{ action_name: 'GetHostname', params: {} }, { action_name: 'ListUsers', params: {} }] }).after, 0);
  const nginx = rows.find((r) => r.source === 'README' && r.name === '"install nginx and start it"');
  assert.deepEqual([nginx?.before, nginx?.after], [2, 1], "the newcomer's request: one plan, one approval");
});

test('the README gives the figures the script counts', async () => {
  const { rows, total } = await counts();
  const multi = rows.filter((r) => r.before >= 2);
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const said = `${total.before} approvals before plans, ${total.after} with them (the ${multi.length} requests of two or more changes: ${multi.reduce((n, r) => n + r.before, 0)} → ${multi.length})`;
  assert.ok(readme.includes(said), `README.md should say: ${said}`);
});
