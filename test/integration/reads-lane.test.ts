/**
 * The default `reads` rule against a real daemon: it approves only reads the catalogue
 * declares non-sensitive, and never a read that reaches the network for a token
 * principal. UnitLogs (cron's command lines, mistyped passwords in sshd's log) and
 * ValidateSudoers (visudo quotes the policy on a syntax error) wait for a person;
 * ListUsers is still approved by the daemon; CheckTcpPort is approved for a Unix user
 * on the host, and waits for a person when a token principal asks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { AirlockClient } from '../../src/client/client.js';
import type { AutoApprovalGrant, PreviewEnvelope } from '../../src/protocol/messages.js';
import { newToken, tokenHash } from '../../src/protocol/token.js';

type Preview = PreviewEnvelope & { auto_approval?: AutoApprovalGrant };
const ci = newToken();
const TOKENS = `[[token]]\nname = "ci"\nrole = "dev"\nunattended = false\nsha256 = "${tokenHash(ci).toString('hex')}"\n`;

let w: World;
let agent: Principal;
let remote: AirlockClient;

before(async () => {
  // The default policy (no file): reads = "auto". The booted test bed, so UnitLogs finds a running systemd;
  // it has a network of its own, so the token principal comes through the token socket (what a vsock bridge feeds).
  w = await startWorld(['--token-socket', '/run/airlock-token.sock'], 'testbed', { tokens: TOKENS });
  agent = await w.as('agent', ['airlock-dev']);
  remote = await AirlockClient.connect(`/proc/${w.d.box.pid}/root/run/airlock-token.sock`, { token: ci });
});
after(async () => {
  remote?.close();
  await w?.close();
});

const preview = (who: Principal, action: string, params: Record<string, unknown>) => who.call('preview', { action_name: action, params });

describe('the default reads rule', () => {
  test('the policy in force is the default one, reads = "auto"', async () => {
    assert.equal((await agent.call('policy.show')).reads, 'auto');
  });

  test('a non-sensitive read (ListUsers) is still approved by the daemon', async () => {
    const p = await preview(agent, 'ListUsers', {});
    assert.equal(p.auto_approval?.rule, 'reads');
  });

  test('a sensitive read waits for a person: ValidateSudoers (visudo quotes the policy on an error)', async () => {
    const p = await preview(agent, 'ValidateSudoers', {});
    assert.equal(p.risk, 'low', 'still low risk: sensitivity, not risk, keeps it from the reads rule');
    assert.equal(p.auto_approval, undefined);
    const d = await agent.call('actions.describe', { action_name: 'ValidateSudoers' });
    assert.equal(d.sensitive, true, 'describe shows the declaration');
  });

  test('a sensitive read waits for a person: UnitLogs (journal lines)', async () => {
    const p = await preview(agent, 'UnitLogs', { unit: 'cron.service', lines: 20 });
    assert.equal(p.risk, 'low');
    assert.equal(p.auto_approval, undefined);
  });

  test('a read that reaches the network: approved for a Unix user on the host, waits for a person from a token principal', async () => {
    const d = await agent.call('actions.describe', { action_name: 'CheckTcpPort' });
    assert.deepEqual([d.reaches_network, d.sensitive], [true, false]);
    const local = await preview(agent, 'CheckTcpPort', { host: 'localhost', port: 9 });
    assert.equal(local.auto_approval?.rule, 'reads', 'from the host itself the agent could open this connection anyway');
    const fromToken = (await remote.preview('CheckTcpPort', { host: 'localhost', port: 9 })) as Preview;
    assert.equal(fromToken.requested_by, 'token:ci');
    assert.equal(fromToken.auto_approval, undefined, "a token principal does not get the host's network position without a person");
    const scan = (await remote.preview('ScanSshHostKeys', { host: 'localhost' })) as Preview;
    assert.equal(scan.auto_approval, undefined);
    // A non-sensitive read that stays on the host is still approved for the token principal.
    assert.equal(((await remote.preview('ListUsers', {})) as Preview).auto_approval?.rule, 'reads');
  });
});
