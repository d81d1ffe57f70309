/**
 * Every catalogue action executed for real: each family's scenarios run through
 * the daemon (preview by an agent, approval by another Unix user, execute) in a
 * throwaway overlay host or the booted test bed, and each effect is checked from
 * outside the daemon. The families are split into shards (test/integration/
 * catalogue-N.test.ts) so that no one test file runs for more than a few minutes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { rejectsWith, startWorld, type World } from './world.js';
import { argvOnly } from '../unit/catalogue-fixture-host.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { Scenario, SandboxView } from '../scenarios/types.js';
import type { ResultEnvelope } from '../../src/protocol/messages.js';
import { undeclaredPaths, type DescribedStep } from './named-paths.js';
import { NETWORK_PROGRAMS, shellViolation, type ProgramName } from '../../src/catalogue/programs.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');
export const SHARDS = 3;
/** AIRLOCK_SCENARIOS=users,ssh runs only those scenario files (for working on a family; the coverage check is skipped). */
const only = process.env.AIRLOCK_SCENARIOS?.split(',').filter(Boolean);
const families = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'types.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((f) => !only || only.includes(f))
  .sort();
/** Each scenario file may say where it runs: `export const host = 'testbed'` for families that need systemd. */
const loaded = new Map<string, { scenarios: Scenario[]; host: 'overlay' | 'testbed' }>();
for (const f of families) {
  const mod = (await import(join(dir, `${f}.ts`))) as { scenarios: Scenario[]; host?: 'overlay' | 'testbed' };
  loaded.set(f, { scenarios: mod.scenarios, host: mod.host ?? 'overlay' });
}

/** Families in shards of about equal work: a booted test bed costs about as much as eight scenarios. */
function shardOf(): Map<string, number> {
  const load = Array<number>(SHARDS).fill(0);
  const out = new Map<string, number>();
  const cost = (f: string) => loaded.get(f)!.scenarios.length + (loaded.get(f)!.host === 'testbed' ? 8 : 2);
  for (const f of [...families].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
    const i = load.indexOf(Math.min(...load));
    out.set(f, i);
    load[i]! += cost(f);
  }
  return out;
}

/** Registers the tests of one shard (0-based); shard 0 also checks that every action has a scenario. */
export function registerShard(shard: number): void {
  const assigned = shardOf();
  if (shard === 0) registerCoverage();
  for (const family of families.filter((f) => assigned.get(f) === shard)) registerFamily(family);
}

function registerCoverage(): void {
  test('every catalogue action has at least one real execution scenario', { skip: only ? 'AIRLOCK_SCENARIOS is set' : false }, () => {
    const covered = new Set([...loaded.values()].flatMap((f) => f.scenarios).map((s) => s.action));
    // Actions for Fedora and RHEL only cannot run on the Debian test bed: catalogue-rhel.test.ts checks their argv.
    const missing = [...CATALOGUE.values()].filter((a) => !covered.has(a.name) && !argvOnly(a)).map((a) => a.name);
    assert.deepEqual(missing, [], `actions without a scenario in test/scenarios: ${missing.join(', ')}`);
    const unknown = [...covered].filter((a) => !CATALOGUE.has(a));
    assert.deepEqual(unknown, [], 'scenarios name actions that do not exist');
  });
}

function registerFamily(family: string): void {
  const { scenarios, host } = loaded.get(family)!;
  describe(`${family} actions on ${host === 'testbed' ? 'the booted Debian test bed' : 'a throwaway overlay of this host'}`, () => {
    let w: World;
    let agent: Principal;
    let human: Principal;
    let view: SandboxView;
    before(async () => {
      w = await startWorld([], host);
      agent = await w.as('agent', ['airlock-admin']);
      human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
      view = {
        run: (p, a) => w.d.box.run(p, a),
        readFile: (p) => w.d.box.readFile(p),
        writeFile: (p, content) => writeFile(`/proc/${w.d.box.pid}/root${p}`, content, { mode: 0o644 }),
      };
    });
    after(() => w?.close());

    for (const sc of scenarios) {
      test(`${sc.action}${sc.title ? `: ${sc.title}` : ''}`, async () => {
        await sc.setup?.(view);
        if (sc.refused) {
          await rejectsWith(agent.call('preview', { action_name: sc.action, params: sc.params }), 'unsupported_platform', sc.refused);
          return sc.check(view, null as unknown as ResultEnvelope);
        }
        const { p, r } = await w.lifecycle(agent, human, sc.action, sc.params);
        // The no-shell invariant at the level of the argv the daemon really built and ran.
        const { mechanism } = p.proposed_change as { mechanism: DescribedStep[] };
        for (const s of mechanism) if (s.kind === 'command') assert.equal(shellViolation(s.program!, s.args!), null, `${sc.action}: ${s.program} ${s.args!.join(' ')}`);
        // A path the agent named and a program gets by name is declared, so the trusted-path rule checks it.
        for (const s of mechanism) assert.deepEqual(undeclaredPaths(sc.action, sc.params, s), [], `${sc.action}: ${s.program} gets these paths by name without declaring them (CommandStep.paths)`);
        // What the reads rule relies on, at the level of the real mechanism: a network program only in a read that declares it.
        const declared = CATALOGUE.get(sc.action)!;
        for (const s of mechanism) if (s.kind === 'command' && NETWORK_PROGRAMS.includes(s.program as ProgramName)) assert.ok(declared.readOnly && declared.reachesNetwork, `${sc.action} runs ${s.program} but does not declare reachesNetwork`);
        assert.equal(r.state, sc.expect ?? 'Succeeded', `${r.summary} ${JSON.stringify(r.error ?? '')}`);
        await sc.check(view, r);
      });
    }
  });
}
