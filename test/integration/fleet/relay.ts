/**
 * Many hosts through the relay, for real, on the fleet of fleet.test.ts: three booted Debian
 * test-bed hosts on a private network, each with sshd and Airlock's Debian package; the relay on
 * a workstation under its own account,
 * holding the only key; the agent under its own account, in airlock-fleet. The agent reaches
 * each host by name, each host's daemon sees the relay's account there (by the kernel) with
 * the role of its groups; the agent can read neither the key nor the host list and cannot
 * reach a host but through the relay; a host whose key changed is refused; a host that is down
 * is that host's answer alone.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Fleet } from '../../support/fleet.js';
import { startMcp } from '../../support/mcp.js';

/** The rule each host's policy holds for these tests: the relay's account creates groups named fleet-* unattended. */
export const FLEET_GROUPS_RULE = `[[rule]]
id = "fleet-groups"
action = "CreateGroup"
params = { group = "fleet-*" }
cooldown_minutes = 0
daily_cap = 100
`;

let fleet: Fleet;

/**
 * The relay's tests on `f()`, whose hosts' policy holds FLEET_GROUPS_RULE, so a change runs
 * without a person (approvals by a person are the ceremony's). They end with one host's key
 * changed and another's daemon stopped: they run last.
 */
export function relayTests(f: () => Fleet): void {
  describe('many hosts through the relay', () => {
    before(() => {
      fleet = f();
    });

    const agent = async (args: string[]) => {
      const r = await fleet.ws.airlock('agent', args);
      if (r.code !== 0) lastRelayLines = await fleet.ws.relayLog();
      return r;
    };
    /** What the relay said lately: why a session failed, when one does. */
    let lastRelayLines: string[] = [];
    const relaySaid = () => `\nrelay: ${lastRelayLines.join('\nrelay: ')}`;
    const json = <T>(r: { code: number; stdout: string; stderr: string }): T => {
      assert.equal(r.code, 0, (r.stderr || r.stdout) + relaySaid());
      return JSON.parse(r.stdout) as T;
    };

    test('the agent lists the hosts through the relay, with the fingerprints a person confirmed', async () => {
      const hosts = json<Array<{ name: string; fingerprints: string[] }>>(await agent(['hosts', '--json']));
      assert.deepEqual(hosts.map((h) => h.name), ['fleet-1', 'fleet-2', 'fleet-3']);
      for (const h of fleet.hosts) assert.deepEqual(hosts.find((x) => x.name === h.name)!.fingerprints, [await h.fingerprint()]);
    });

    test("each host's daemon answers by name, sees the relay's account there (a dev), and runs the change approved there", async () => {
      const ids = new Set<string>();
      for (const h of fleet.hosts) {
        const r = await agent(['--host', h.name, 'preview', 'CreateGroup', '--param', 'group=fleet-web', '--wait', '--json']);
        const { preview, result } = json<{ preview: { transaction_id: string; requested_by: string; min_role: string }; result: { state: string } }>(r);
        assert.match(r.stderr, new RegExp(`${h.name} \\(${h.name}\\), through the relay`), 'the answer says which host it comes from');
        assert.match(preview.requested_by, /^airlock-relay\(uid \d+\)$/, 'the kernel names the relay\'s account on that host');
        assert.equal(preview.min_role, 'dev', 'a dev may ask for it: the account is in airlock-dev there');
        assert.equal(result.state, 'Succeeded');
        ids.add(preview.transaction_id);
        assert.equal((await h.box.run('/usr/bin/getent', ['group', 'fleet-web'])).code, 0, `the group exists on ${h.name}`);
      }
      assert.equal(ids.size, 3, 'each host its own transaction');
    });

    test("the agent can read neither the relay's key nor its host list, nor reach a host but through the relay", async () => {
      for (const file of ['/etc/airlock/relay/id_ed25519', '/etc/airlock/relay/hosts.toml']) {
        const r = await fleet.ws.runAs('agent', '/usr/bin/cat', [file]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /Permission denied/);
      }
      const h = fleet.hosts[0]!;
      const ssh = await fleet.ws.runAs('agent', '/usr/bin/ssh', ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-i', '/etc/airlock/relay/id_ed25519', `airlock-relay@${h.address}`, 'airlock', 'proxy']);
      assert.notEqual(ssh.code, 0);
      assert.match(ssh.stderr, /Permission denied/);
      // An account outside airlock-fleet cannot even reach the relay's socket.
      const stranger = await fleet.ws.airlock('stranger', ['--host', h.name, 'history']);
      assert.equal(stranger.code, 7, stranger.stderr);
      assert.match(stranger.stderr, /airlock-fleet/);
    });

    test('a host whose key changed is refused, and is that host\'s answer alone', async () => {
      const h = fleet.hosts[1]!;
      await h.box.run('/usr/bin/find', ['/etc/ssh', '-maxdepth', '1', '-name', 'ssh_host_*', '-delete']);
      await h.box.run('/usr/bin/ssh-keygen', ['-A']);
      await h.box.run('/usr/bin/systemctl', ['restart', 'ssh.service']);
      const r = await agent(['--host', h.name, 'history']);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /another host key than the one a person confirmed/);
      const others = await agent(['--host', fleet.hosts[0]!.name, 'history', '--json']);
      assert.equal(others.code, 0, others.stderr);
      // A person checks the new key and trusts it again.
      const added = await fleet.ws.airlock('root', ['hosts', 'add', h.name, h.address, '--replace', '--fingerprint', await h.fingerprint()]);
      assert.equal(added.code, 0, added.stderr);
      assert.equal((await agent(['--host', h.name, 'history', '--json'])).code, 0);
    });

    test("a host whose daemon is down says so, as that host's answer", async () => {
      const h = fleet.hosts[2]!;
      await h.box.run('/usr/bin/systemctl', ['stop', 'airlock.service']);
      const r = await agent(['--host', h.name, 'history']);
      assert.equal(r.code, 7, r.stderr);
      assert.match(r.stderr, new RegExp(`${h.name}: the Airlock daemon does not answer`));
    });

    test('MCP: one proposal for three hosts, each previewing its own step; a host that is down is its answer alone; each host runs its own', async () => {
      const mcp = await startMcp({ identity: await fleet.ws.identity('agent'), insidePid: fleet.ws.box.pid, env: {} });
      try {
        const steps = fleet.hosts.map((h) => ({ action_name: 'CreateGroup', params: { group: 'fleet-mcp' }, host: h.name }));
        const proposed = (await mcp.client.callTool({ name: 'airlock_propose', arguments: { steps } })).structuredContent as { steps: Array<{ ok: boolean; host: string; transaction_id?: string; approval?: { state: string }; error?: { code: string } }> };
        assert.deepEqual(proposed.steps.map((s) => s.host), ['fleet-1', 'fleet-2', 'fleet-3']);
        const [a, b, down] = proposed.steps;
        for (const s of [a!, b!]) assert.equal(s.approval?.state, 'approved_by_policy', JSON.stringify(s) + relaySaid());
        assert.notEqual(a!.transaction_id, b!.transaction_id);
        // fleet-3's daemon was stopped by the test before: its step alone is refused.
        assert.equal(down!.ok, false);
        assert.equal(down!.error?.code, 'daemon_unreachable');
        const ran = (await mcp.client.callTool({ name: 'airlock_execute', arguments: { steps: [a!, b!].map((s) => ({ transaction_id: s.transaction_id, host: s.host })) } })).structuredContent as { ok: boolean; steps: Array<{ host: string; state: string }> };
        assert.equal(ran.ok, true, JSON.stringify(ran));
        assert.deepEqual(ran.steps.map((s) => [s.host, s.state]), [['fleet-1', 'Succeeded'], ['fleet-2', 'Succeeded']]);
        for (const h of fleet.hosts.slice(0, 2)) assert.equal((await h.box.run('/usr/bin/getent', ['group', 'fleet-mcp'])).code, 0, `the group exists on ${h.name}`);
        // The other tools take a host too: each transaction is known on its own host only.
        const status = await mcp.client.callTool({ name: 'airlock_status', arguments: { transaction_id: b!.transaction_id, host: 'fleet-2' } });
        assert.equal((status.structuredContent as { state: string }).state, 'Succeeded');
        assert.match((status.content as Array<{ text: string }>)[0]!.text, /^on fleet-2: /);
        const elsewhere = await mcp.client.callTool({ name: 'airlock_status', arguments: { transaction_id: b!.transaction_id, host: 'fleet-1' } });
        assert.equal(elsewhere.isError, true, 'fleet-1 has no such transaction');
        const history = (await mcp.client.callTool({ name: 'airlock_history', arguments: { host: 'fleet-1', action: 'CreateGroup' } })).structuredContent as { transactions: Array<{ transaction_id: string }> };
        assert.ok(history.transactions.some((t) => t.transaction_id === a!.transaction_id));
        assert.ok(!history.transactions.some((t) => t.transaction_id === b!.transaction_id));
      } finally {
        await mcp.close();
      }
    });

    test('the planner plans once and each host previews the same steps; the host that is down answers alone', async () => {
      const r = await agent(['plan', 'create the group fleet-planned', '--provider', 'offline', '--hosts', 'fleet-1,fleet-2,fleet-3', '--json']);
      assert.equal(r.code, 1, r.stderr + r.stdout.slice(0, 2000) + relaySaid());
      const out = JSON.parse(r.stdout) as { plan: { host: string; steps: Array<{ ok: boolean; preview?: { transaction_id: string } }> }; hosts: Array<{ host: string; ok: boolean; proposal?: { kind: string; results: Array<{ ok: boolean; preview?: { transaction_id: string; action_name: string } }> }; error?: { code: string } }> };
      assert.equal(out.plan.host, 'fleet-1');
      assert.ok(out.plan.steps.every((s) => s.ok), JSON.stringify(out.plan.steps));
      const [two, three] = out.hosts;
      assert.equal(two!.host, 'fleet-2');
      assert.equal(two!.proposal!.results[0]!.preview!.action_name, 'CreateGroup');
      assert.notEqual(two!.proposal!.results[0]!.preview!.transaction_id, out.plan.steps[0]!.preview!.transaction_id);
      assert.equal(three!.host, 'fleet-3');
      assert.equal(three!.ok, false);
      assert.equal(three!.error!.code, 'daemon_unreachable');
    });

    test("connections the relay refused, held open by a client that never reads, take no one else's place", async () => {
      // 150 connections (more than the relay's 128), each sending a frame the relay refuses, then never reading nor closing.
      const hold = `const net = require('node:net');
        for (let i = 0; i < 150; i++) {
          const s = net.createConnection('/run/airlock-relay/relay.sock');
          s.on('error', () => {});
          s.on('connect', () => { const b = Buffer.from('{"type":"nope"}'); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); s.write(Buffer.concat([h, b])); s.pause(); });
        }
        setTimeout(() => process.exit(0), 8000);`;
      const holding = fleet.ws.runAs('agent', process.execPath, ['-e', hold]);
      await new Promise((r) => setTimeout(r, 3000));
      const r = await fleet.ws.airlock('agent', ['hosts', '--json']);
      assert.equal(r.code, 0, r.stderr + relaySaid());
      assert.equal((JSON.parse(r.stdout) as unknown[]).length, 3);
      await holding;
    });

    test('an unknown host name is refused by the relay before any ssh', async () => {
      const r = await agent(['--host', 'nowhere', 'history']);
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /knows no host "nowhere"/);
    });
  });
}
