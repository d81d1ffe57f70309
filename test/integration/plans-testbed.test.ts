/**
 * A newcomer's "install nginx and start it" as one plan on the booted Debian test bed (systemd
 * as PID 1): StartService is computed after InstallPackage (its unit exists only once the
 * package is installed), the plan is approved once, and nginx runs after it (issue 25).
 * The test bed's network is private: the .deb files apt would fetch are fetched here first and
 * put in its cache (apt still checks each against the SHA-256 its signed lists give).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';

let w: World;
let agent: Principal, alice: Principal;
before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  // The test bed ships nginx for the grants' tests (config-grants.test.ts): a newcomer's host has none.
  const purged = await w.d.box.run('/usr/bin/apt-get', ['purge', '-y', '-q', '--', 'nginx', 'nginx-light', 'nginx-common', 'libnginx-mod-http-echo']);
  assert.equal(purged.code, 0, purged.stderr);
  await cacheDebs('nginx');
});

/** Fetches the .deb files `apt-get install PACKAGE` needs in the test bed into its apt cache. */
async function cacheDebs(pkg: string): Promise<void> {
  const r = await w.d.box.run('/usr/bin/apt-get', ['install', '--print-uris', '-y', '--no-install-recommends', '--', pkg]);
  assert.equal(r.code, 0, r.stderr);
  const debs = [...r.stdout.matchAll(/^'(http[^']+\.deb)' (\S+\.deb) \d+ \S+$/gm)];
  // None to fetch: the test bed's apt cache holds them already (the nginx it ships was installed from them).
  assert.ok(debs.length > 0 || /NEW packages will be installed/.test(r.stdout), r.stdout);
  for (const [, uri, file] of debs) {
    const res = await fetch(uri!);
    assert.equal(res.status, 200, uri);
    writeFileSync(join(w.d.box.shared, file!), Buffer.from(await res.arrayBuffer()));
    assert.equal((await w.d.box.run('/usr/bin/cp', ['--', join(w.d.box.shared, file!), `/var/cache/apt/archives/${file}`])).code, 0);
  }
}
after(() => w?.close());

test('install nginx and start it: one plan, one approval, one result, nginx running after', async () => {
  const p = await agent.call('plan.preview', {
    steps: [
      { action_name: 'InstallPackage', params: { package: 'nginx' } },
      { action_name: 'StartService', params: { unit: 'nginx.service' } },
    ],
  });
  const [install, start] = p.plan!.steps;
  assert.match(install!.summary, /^Install nginx /);
  assert.notEqual(install!.proposed_change, null, 'the install is previewed and bound now');
  assert.equal(start!.computed_after, 1, 'the unit exists only once the package is installed');
  assert.equal(p.risk, 'medium');
  const g = await w.approve(alice, p);
  const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'Plan', params: p.params, receipt: g.receipt });
  assert.equal(r.state, 'Succeeded', r.summary);
  assert.equal(r.plan_steps![0]!.state, 'succeeded');
  // Debian's maintainer script may have started it already: then starting it is no change.
  assert.ok(['succeeded', 'no_change'].includes(r.plan_steps![1]!.state), r.summary);
  const active = await w.d.box.run('/usr/bin/systemctl', ['is-active', '--', 'nginx.service']);
  assert.equal(active.stdout.trim(), 'active');
});
