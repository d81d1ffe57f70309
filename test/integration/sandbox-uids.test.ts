/**
 * Two throwaway hosts at once share this machine's pid namespace. Their users must not
 * share uids: a process of one sandbox's user would otherwise count as a running process
 * of the other's (DeleteUser refused it as user_busy when the suite ran files in parallel).
 * Each sandbox takes its own block of uids and gids, free of any process on this machine.
 * And a command entered in a sandbox runs in its root from the first moment.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld } from '../support/world.js';
import { existsSync, rmSync } from 'node:fs';
import { canSandbox, startSandbox } from '../../src/sandbox/overlay.js';
import { runningUids } from '../../src/sandbox/uid-block.js';

const skip = canSandbox() ?? false;

test('two sandboxes give their users disjoint uids, and one deletes a user while the other runs its own', { skip }, async () => {
  const [a, b] = await Promise.all([startWorld(), startWorld()]);
  try {
    const aAgent = await a.as('agent', ['airlock-admin']);
    const aAlice = await a.as('alice', ['airlock-admin', 'airlock-approvers']);
    const bAgent = await b.as('agent', ['airlock-admin']);
    const bAlice = await b.as('alice', ['airlock-admin', 'airlock-approvers']);
    const aUids = [aAgent.identity.uid, aAlice.identity.uid];
    const bUids = [bAgent.identity.uid, bAlice.identity.uid];
    assert.deepEqual(aUids.filter((u) => bUids.includes(u)), [], `uids shared by the two sandboxes: a ${aUids}, b ${bUids}`);

    // B creates carol; then A creates users whose principal processes stay alive, as many as
    // it takes to pass carol's uid if the two sandboxes counted from the same start.
    const { r: created } = await b.lifecycle(bAgent, bAlice, 'CreateUser', { user: 'carol' });
    assert.equal(created.state, 'Succeeded', JSON.stringify(created));
    const carol = Number((await b.d.box.run('/usr/bin/id', ['-u', 'carol'])).stdout.trim());
    assert.ok(carol > 0, 'carol has a uid');
    const extra = [];
    for (let k = 0; k < 3; k++) extra.push((await a.as(`dave${k}`, ['airlock-observer'])).identity.uid);
    assert.ok(!extra.includes(carol), `sandbox a gave carol's uid ${carol} to one of its own users (${extra})`);

    const { r: deleted } = await b.lifecycle(bAgent, bAlice, 'DeleteUser', { user: 'carol', removeHome: true });
    assert.equal(deleted.state, 'Succeeded', JSON.stringify(deleted));
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("a sandbox's users take uids no process on this machine runs as", { skip }, async () => {
  const w = await startWorld();
  try {
    const busy = new Set(runningUids());
    const agent = await w.as('agent', ['airlock-dev']);
    assert.ok(!busy.has(agent.identity.uid), `uid ${agent.identity.uid} already had a process here`);
    assert.ok(agent.identity.uid >= 1000 && agent.identity.uid < 60000, `a regular account's uid, not ${agent.identity.uid}`);
  } finally {
    await w.close();
  }
});

// A command entered the moment the sandbox starts (a test's first useradd) used to land on this
// machine's own root when the sandbox's pid was published before chroot(2): files appeared in
// this machine's /var/lib/airlock and /run. The pid is published once the command is chrooted.
test("a command run the moment a sandbox starts runs inside it, never in this machine's root", { skip }, async () => {
  // Eight at once, so that some start while the machine is busy starting the others.
  await Promise.all(
    Array.from({ length: 8 }, async (_, n) => {
      const probe = `/var/tmp/airlock-chroot-probe-${process.pid}-${n}`;
      const box = await startSandbox({ command: () => ['/usr/bin/sleep', '60'] });
      try {
        const r = await box.run('/usr/bin/touch', [probe]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(existsSync(probe), false, `sandbox ${n}: the probe landed in this machine's root`);
        assert.equal(await box.readFile(probe), '', 'the probe is inside the sandbox');
      } finally {
        rmSync(probe, { force: true });
        await box.stop();
      }
    }),
  );
});
