/**
 * Every catalogue action executed for real: each family's scenarios run through
 * the daemon (preview by an agent, approval by another Unix user, execute) in a
 * throwaway overlay host, and each effect is checked from outside the daemon.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { Scenario, SandboxView } from '../scenarios/types.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');
const families = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'types.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const loaded = new Map<string, Scenario[]>();
for (const f of families) loaded.set(f, ((await import(join(dir, `${f}.ts`))) as { scenarios: Scenario[] }).scenarios);

test('every catalogue action has at least one real execution scenario', () => {
  const covered = new Set([...loaded.values()].flat().map((s) => s.action));
  const missing = [...CATALOGUE.keys()].filter((a) => !covered.has(a));
  assert.deepEqual(missing, [], `actions without a scenario in test/scenarios: ${missing.join(', ')}`);
  const unknown = [...covered].filter((a) => !CATALOGUE.has(a));
  assert.deepEqual(unknown, [], 'scenarios name actions that do not exist');
});

for (const family of families) {
  describe(`${family} actions on a throwaway host`, () => {
    let w: World;
    let agent: Principal;
    let human: Principal;
    let view: SandboxView;
    before(async () => {
      w = await startWorld();
      agent = await w.as('agent', ['airlock-admin']);
      human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
      view = { run: (p, a) => w.d.box.run(p, a), readFile: (p) => w.d.box.readFile(p) };
    });
    after(() => w?.close());

    for (const sc of loaded.get(family)!) {
      test(`${sc.action}${sc.title ? `: ${sc.title}` : ''}`, async () => {
        await sc.setup?.(view);
        const { r } = await w.lifecycle(agent, human, sc.action, sc.params);
        assert.equal(r.state, sc.expect ?? 'Succeeded', `${r.summary} ${JSON.stringify(r.error ?? '')}`);
        await sc.check(view, r);
      });
    }
  });
}
