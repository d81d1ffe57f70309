/**
 * A result shows the state the change left, on the booted Debian test bed (systemd as PID 1):
 * RestartService's result names the unit's new main PID, read after the restart, not the
 * one its preview showed; and its preview reads `unit NAME: before -> restarted` (issue 12,
 * "Output people can review").
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';

let w: World;
let agent: Principal, human: Principal;
before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

const mainPid = async (unit: string) => Number((await w.d.box.run('/usr/bin/systemctl', ['show', '-p', 'MainPID', '--value', '--', unit])).stdout.trim());

describe('a result shows the state after the change', () => {
  test("RestartService: the result names the unit's new main PID, not the preview's", async () => {
    const before = await mainPid('cron.service');
    assert.ok(before > 0, 'cron runs in the test bed');
    const { p, r } = await w.lifecycle(agent, human, 'RestartService', { unit: 'cron.service' });
    assert.match(p.summary, new RegExp(`PID ${before}\\b`), 'the preview shows the PID before');
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    const now = await mainPid('cron.service');
    assert.notEqual(now, before, 'the restart replaced the process');
    assert.match(r.summary, new RegExp(`^Restarted cron\\.service: now active, running, PID ${now}\\b`), r.summary);
    assert.doesNotMatch(r.summary, new RegExp(`PID ${before}\\b`), 'not the old PID');
    const shown = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.match(JSON.stringify(shown.result), new RegExp(`PID ${now}\\b`), 'the stored result says it too');
  });

  test('the preview of a restart reads unit NAME: before -> restarted', async () => {
    const pid = await mainPid('cron.service');
    const id = agent.identity;
    const r = spawnSync('/usr/bin/setpriv', [`--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${id.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, 'preview', 'RestartService', '--param', 'unit=cron.service'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^ {4}unit cron\\.service: active, running, PID ${pid}, since .+ -> restarted \\(active, with a new main process\\)$`, 'm'), r.stdout);
  });
});
