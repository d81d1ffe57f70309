/**
 * What `airlock fleet approve` highlights between the hosts of a fleet plan
 * (src/client/fleet-diff.ts): each host's change read as lines from what the daemon binds
 * (bindMechanism over a fixture host), the most common change as the fleet's usual one, and
 * each host that differs with the lines it lacks and has more; nothing per host (transaction,
 * requester, deadline, digest) counts as a difference. And the HOST:TX words it takes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyAction } from '../../src/catalogue/action.js';
import type { Step } from '../../src/catalogue/mechanism.js';
import { bindMechanism } from '../../src/daemon/mechanism-binding.js';
import { changeOf, fleetDifferences } from '../../src/client/fleet-diff.js';
import { parseTargets } from '../../src/cli/fleet-approve.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { FixtureHost } from './catalogue-fixture-host.js';

let n = 0;
async function previewOf(group: string, gid: number | null, risk: 'medium' | 'high' = 'medium'): Promise<PreviewEnvelope> {
  const steps: Step[] = [{ kind: 'command', program: 'groupadd', args: [...(gid === null ? [] : ['--gid', String(gid)]), '--', group] }];
  const proposed = (await bindMechanism({ name: 'CreateGroup' } as unknown as AnyAction, { group: { from: null, to: group } }, steps, new FixtureHost({}))).proposed;
  const id = String(n++).padStart(24, '0');
  return {
    transaction_id: `tx_${id}`,
    action_name: 'CreateGroup',
    params: { group },
    request_hash: id.padEnd(64, 'a'),
    summary: `Create group ${group}`,
    risk,
    min_role: 'dev',
    current_state: null,
    proposed_change: proposed,
    side_effects: [],
    reboot_required: false,
    rollback_available: true,
    warnings: [],
    requested_by: `airlock-relay(uid ${1000 + n})`,
    created_at: '2030-01-01T00:00:00.000Z',
    expires_at: `2030-01-01T00:1${n % 10}:00.000Z`,
    preview_digest: id.padEnd(64, 'b'),
  };
}

test("the same change on every host: no host differs, whatever each host's transaction, requester, deadline and digest", async () => {
  const changes = await Promise.all(['web1', 'web2', 'web3'].map(async (host) => ({ host, lines: changeOf(await previewOf('fleet-once', null)) })));
  const d = fleetDifferences(changes);
  assert.deepEqual(d.same, ['web1', 'web2', 'web3']);
  assert.deepEqual(d.differ, []);
  assert.equal(d.usual[0], 'CreateGroup, medium risk');
  assert.ok(d.usual.some((l) => l.includes('groupadd') && l.includes('fleet-once')), d.usual.join('\n'));
  assert.ok(d.usual.every((l) => !/\x1b/.test(l)), 'no colour in what is compared');
});

test('the host whose change differs is named, with the lines it lacks and the lines it has more; the others are the usual change', async () => {
  const changes = [
    { host: 'web1', lines: changeOf(await previewOf('fleet-once', null)) },
    { host: 'web2', lines: changeOf(await previewOf('fleet-once', 4242)) },
    { host: 'web3', lines: changeOf(await previewOf('fleet-once', null)) },
  ];
  const d = fleetDifferences(changes);
  assert.deepEqual(d.same, ['web1', 'web3']);
  assert.equal(d.differ.length, 1);
  const [web2] = d.differ;
  assert.equal(web2!.host, 'web2');
  assert.equal(web2!.missing.length, 1);
  assert.match(web2!.missing[0]!, /groupadd -- fleet-once/);
  assert.equal(web2!.extra.length, 1);
  assert.match(web2!.extra[0]!, /groupadd --gid 4242 -- fleet-once/);
});

test('another risk or action is a difference too; the most common change wins, a tie goes to the first host named', async () => {
  const high = { host: 'db1', lines: changeOf(await previewOf('fleet-once', null, 'high')) };
  const usual = { host: 'web1', lines: changeOf(await previewOf('fleet-once', null)) };
  const d = fleetDifferences([high, usual, { ...usual, host: 'web2' }]);
  assert.deepEqual(d.same, ['web1', 'web2']);
  assert.deepEqual(d.differ.map((x) => [x.host, x.missing, x.extra]), [['db1', ['CreateGroup, medium risk'], ['CreateGroup, high risk']]]);
  const tie = fleetDifferences([high, usual]);
  assert.deepEqual(tie.same, ['db1']);
  assert.deepEqual(tie.differ.map((x) => x.host), ['web1']);
});

test('host text reaches the lines escaped: a control character of a group name is never printed raw', async () => {
  const lines = changeOf(await previewOf('evil\x1b]0;pwned\x07', null));
  assert.ok(lines.every((l) => !/[\x00-\x08\x0b-\x1f\x7f]/.test(l)), JSON.stringify(lines));
});

test('HOST:TX words: a host name and a transaction id each, each host once', () => {
  const tx = `tx_${'a'.repeat(24)}`;
  assert.deepEqual(parseTargets([`web1:${tx}`, `10.0.0.5:tx_${'b'.repeat(24)}`]), [{ host: 'web1', tx }, { host: '10.0.0.5', tx: `tx_${'b'.repeat(24)}` }]);
  for (const bad of [[tx], [`web1:${tx.slice(0, -1)}`], [`-x:${tx}`], [`web1:${tx}`, `web1:tx_${'b'.repeat(24)}`], []]) {
    assert.throws(() => parseTargets(bad), (e: Error & { code?: string }) => e.code === 'bad_fleet', JSON.stringify(bad));
  }
});

test("a host's action name and risk reach the person's terminal escaped, as any host text", async () => {
  const p = await previewOf('web', null);
  const forged = { ...p, action_name: 'CreateGroup\x1b[2J\x1b[1A\u202e', risk: 'medium\x9b31m' } as unknown as PreviewEnvelope;
  const head = changeOf(forged)[0]!;
  assert.ok(!/[\x00-\x1f\x7f-\x9f\u202e]/.test(head), JSON.stringify(head));
  assert.match(head, /CreateGroup\\x1b\[2J\\x1b\[1A\\u202e, medium\\x9b31m risk/);
});
