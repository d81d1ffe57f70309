/**
 * A person approves a whole fleet plan with ONE passkey assertion, for real, on the fleet of
 * fleet.test.ts: three booted Debian test-bed hosts behind the relay (test/support/fleet.ts). On each host alice is an
 * approver who enrolled her own TOTP factor (the host's first, through sudo in her session);
 * her passkey (an ES256 key pair) is registered on host 1 by her own client there, exported,
 * and registered as the same credential on hosts 2 and 3 (it signs each host's fresh challenge,
 * with her code there). The agent proposes one Medium change on each host through the relay.
 * Alice, at the workstation in airlock-fleet, runs `airlock fleet approve` there; Chromium, with
 * a DevTools virtual authenticator holding the SAME private key, opens the page it prints and
 * makes the one assertion; every host approves, naming alice via the fleet in its signed log.
 * The page refuses a request without its token, from another origin or for another Host. Host
 * 3's group is then made from outside, so its execution alone fails while the others succeed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { passkeyId } from '../../../src/protocol/passkey.js';
import { Authenticator } from '../../../src/sandbox/authenticator.js';
import { Principal } from '../../../src/sandbox/principal.js';
import { holdCredential } from '../../support/console-browser.js';
import type { Fleet, FleetHost } from '../../support/fleet.js';
import { ask } from '../../support/loopback.js';
import { SoftAuthenticator } from '../../support/soft-authenticator.js';

export const CHROMIUM = '/usr/bin/chromium';
const SOCKET = '/run/airlock/airlock.sock';

type Entry = { kind: string; transaction_id: string | null; principal: { user: string; via?: string } | null; details: Record<string, unknown> };
/** Host `h`'s signed log, as its daemon exports it (`airlock audit export`, run as root there). */
let bundles = 0;
async function logOf(h: FleetHost): Promise<Entry[]> {
  const out = `/tmp/audit-${bundles++}.bundle`;
  const r = await h.airlock(['audit', 'export', '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  const records = (await h.box.readFile(out))!.trim().split('\n').map((l) => JSON.parse(l) as { type: string; body?: string });
  return records.filter((x) => x.type === 'entry').map((x) => JSON.parse(x.body!) as Entry);
}

let fleet: Fleet;
let port: number;
let key: SoftAuthenticator;
const clients: Principal[] = [];

/**
 * The ceremony on `f()`, whose hosts' policy names `http://localhost:PORT` as the passkey origin
 * (`pagePort()`: free on this machine, which the workstation's network is) and lets no rule approve
 * a group named team-*: each host waits for a person.
 */
export function ceremony(f: () => Fleet, pagePort: () => number): void {
  describe('one passkey assertion approves a plan on three hosts', () => {
    before(async () => {
      fleet = f();
      port = pagePort();
      key = new SoftAuthenticator(`http://localhost:${port}`);
      const ws = await fleet.ws.box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '-G', 'airlock-fleet', '--', 'alice']);
      assert.equal(ws.code, 0, ws.stderr);
    });
    after(() => {
      for (const c of clients) c.close();
    });

    let lastRelayLines: string[] = [];
    const relaySaid = () => `\nrelay: ${lastRelayLines.join('\nrelay: ')}`;
    const agent = async (args: string[]) => {
      const r = await fleet.ws.airlock('agent', args);
      if (r.code !== 0) lastRelayLines = await fleet.ws.relayLog();
      return r;
    };

    /** alice on host `h`: an approver and admin there, her first factor enrolled through sudo in her own session; her own client. */
    async function aliceOn(h: FleetHost, codes: Authenticator): Promise<Principal> {
      const made = await h.box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '-G', 'airlock-approvers,airlock-admin', '--', 'alice']);
      assert.equal(made.code, 0, made.stderr);
      const out = (await h.box.run('/usr/bin/id', ['--', 'alice'])).stdout;
      const id = { uid: Number(/uid=(\d+)/.exec(out)![1]), gid: Number(/gid=(\d+)/.exec(out)![1]), groups: [...out.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1])) };
      // Inside the booted host, where the daemon can read each peer's pidfd.
      const into = ['/usr/bin/nsenter', '-t', String(h.box.pid), '-a', '--'];
      const sudo = Principal.spawnRootInSessionOf(id.uid, SOCKET, into);
      clients.push(sudo);
      const { secret } = await sudo.call('totp.enroll', {});
      codes.add('alice', secret);
      const confirmed = await sudo.call('totp.confirm', { code: await codes.code('alice') });
      assert.equal(confirmed.state, 'confirmed');
      const own = Principal.spawnVia([...into, '/usr/bin/setpriv', `--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${id.groups.join(',')}`, '--'], SOCKET, id);
      clients.push(own);
      return own;
    }

    const txs: string[] = [];

    test('alice registers one passkey on host 1, and the same credential on hosts 2 and 3', async () => {
      const codes = fleet.hosts.map(() => new Authenticator());
      const alice = await Promise.all(fleet.hosts.map((h, i) => aliceOn(h, codes[i]!)));
      const { options } = await alice[0]!.call('passkey.begin', {});
      await alice[0]!.call('passkey.register', { response: key.create(options) as never, name: 'laptop', totp_code: await codes[0]!.code('alice') });
      const id = passkeyId(Buffer.from(key.credentials[0]!.id).toString('base64url'));
      const exported = await alice[0]!.call('passkey.export', { passkey_id: id });
      for (const i of [1, 2]) {
        const begun = await alice[i]!.call('passkey.begin', { existing: exported });
        const r = await alice[i]!.call('passkey.register', { existing_assertion: key.get(begun.options) as never, name: 'laptop', totp_code: await codes[i]!.code('alice') });
        assert.equal(r.passkey_id, id, 'the same credential');
      }
    });

    test('the agent proposes the same Medium change on each host through the relay; none is approved by policy', async () => {
      for (const h of fleet.hosts) {
        const r = await agent(['--host', h.name, 'preview', 'CreateGroup', '--param', 'group=team-once', '--json']);
        assert.equal(r.code, 0, r.stderr + relaySaid());
        const p = JSON.parse(r.stdout) as { transaction_id: string; risk: string };
        assert.equal(p.risk, 'medium');
        txs.push(p.transaction_id);
      }
      const shown = await agent(['--host', 'fleet-2', 'show', txs[1]!, '--json']);
      assert.equal((JSON.parse(shown.stdout) as { state: string }).state, 'Previewed', 'waiting for a person');
    });

    test('alice runs `airlock fleet approve` at the workstation; Chromium with her passkey signs once on its page; all three hosts approve', async () => {
      const child: ChildProcess = await fleet.ws.spawnAirlock('alice', ['fleet', 'approve', ...fleet.hosts.map((h, i) => `${h.name}:${txs[i]}`), '--listen', `127.0.0.1:${port}`, '--json']);
      let stderr = '';
      let stdout = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      let browser: Browser | undefined;
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setInterval(() => {
            const m = /http:\/\/localhost:\d+\/#[A-Za-z0-9_-]{43}/.exec(stderr);
            if (m) (clearInterval(timer), resolve(m[0]));
            else if (child.exitCode !== null) (clearInterval(timer), reject(new Error(`fleet approve exited ${child.exitCode}: ${stderr}${relaySaid()}`)));
          }, 200);
        });
        // The hosts side by side: each with its transaction and match code, and the same change on all.
        for (const [i, h] of fleet.hosts.entries()) assert.match(stderr, new RegExp(`${h.name}\\s+${txs[i]}\\s+medium risk\\s+match code \\S+`));
        assert.match(stderr, /the change on 3 of 3 \(fleet-1, fleet-2, fleet-3\)/);
        assert.match(stderr, /every host makes the same change/);

        // The page serves nobody without the token, from another origin, or under another Host name.
        const token = url.split('#')[1]!;
        assert.equal((await ask(port, '/plan')).status, 403);
        assert.equal((await ask(port, '/plan', { headers: { 'X-Airlock-Token': 'x'.repeat(43) } })).status, 403);
        assert.equal((await ask(port, '/', { headers: { Host: `evil.example:${port}` } })).status, 421);
        const post = (origin: string, t: string) => ask(port, '/assertion', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify({ token: t, assertion: {} }) });
        assert.equal((await post('https://evil.example', token)).status, 403);
        assert.equal((await post(`http://localhost:${port}`, 'y'.repeat(43))).status, 403);
        const big = await ask(port, '/assertion', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: `http://localhost:${port}` }, body: JSON.stringify({ token, pad: 'z'.repeat(70_000) }) });
        assert.equal(big.status, 413);
        const served = await ask(port, '/');
        assert.match(served.body, /<script src="\/fleet.js"/);

        // The person's browser: the same private key in a virtual platform authenticator.
        browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
        const ctx = await browser.newContext();
        const page = await ctx.newPage();
        const cdp = await ctx.newCDPSession(page);
        await cdp.send('WebAuthn.enable');
        const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
        const cred = key.credentials[0]!;
        await holdCredential(cdp, authenticatorId, cred);
        await page.goto(url);
        await page.waitForSelector('#approve:not([hidden])', { timeout: 30_000 });
        const rows = await page.$$eval('#hosts tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
        assert.deepEqual(rows.map((r) => [r[0], r[1]]), fleet.hosts.map((h, i) => [h.name, txs[i]]));
        await page.click('#approve');
        await page.waitForSelector('body[data-done="true"]', { timeout: 60_000 }).catch(async (e: Error) => {
          throw new Error(`${e.message}; the page says: ${await page.textContent('#status')}; terminal: ${stderr}${relaySaid()}`);
        });
        assert.match((await page.textContent('#status'))!, /Every host approved/);
        assert.equal(await exited, 0, stderr + stdout);
      } finally {
        await browser?.close();
        if (child.exitCode === null) child.kill('SIGTERM');
      }
      const out = JSON.parse(stdout) as { hosts: Array<{ host: string; ok: boolean; value?: { approved_by: string; fleet_entries: number } }> };
      assert.deepEqual(out.hosts.map((a) => [a.host, a.ok]), fleet.hosts.map((h) => [h.name, true]));
      for (const a of out.hosts) {
        assert.match(a.value!.approved_by, /^alice\(uid \d+\)$/);
        assert.equal(a.value!.fleet_entries, 3);
      }
      // Each host's signed log names alice, through the fleet, carried by the relay's account.
      for (const [i, h] of fleet.hosts.entries()) {
        const log = await logOf(h);
        const granted = log.find((e) => e.kind === 'approval_granted' && e.transaction_id === txs[i]);
        assert.equal(granted?.principal?.user, 'alice', `${h.name}: ${JSON.stringify(log.slice(-4))}`);
        assert.equal(granted?.principal?.via, 'fleet');
        assert.equal(granted?.details.second_factor, 'passkey');
        assert.equal(granted?.details.fleet_entries, 3);
        assert.match(String(granted?.details.fleet_carrier), /^airlock-relay\(uid \d+\)$/);
      }
    });

    test('the agent executes on each host: the host whose group was made from outside meanwhile fails alone', async () => {
      const made = await fleet.hosts[2]!.box.run('/usr/sbin/groupadd', ['team-once']);
      assert.equal(made.code, 0, made.stderr);
      const runs = await Promise.all(fleet.hosts.map((h, i) => agent(['--host', h.name, 'execute', txs[i]!, '--wait', '60', '--json'])));
      for (const r of runs.slice(0, 2)) {
        assert.equal(r.code, 0, r.stderr + r.stdout + relaySaid());
        assert.equal((JSON.parse(r.stdout) as { state: string }).state, 'Succeeded');
      }
      assert.equal(runs[2]!.code, 4, runs[2]!.stdout + runs[2]!.stderr);
      assert.match(runs[2]!.stdout, /"code": "state_changed"/);
      for (const h of fleet.hosts.slice(0, 2)) assert.equal((await h.box.run('/usr/bin/getent', ['group', 'team-once'])).code, 0, `the group exists on ${h.name}`);
    });

    test('what differs between hosts is shown; a transaction no longer pending refuses the plan, by host, before any page', async () => {
      const proposed: string[] = [];
      for (const [i, h] of fleet.hosts.entries()) {
        const r = await agent(['--host', h.name, 'preview', 'CreateGroup', '--param', `group=${i === 2 ? 'team-odd' : 'team-two'}`, '--json']);
        assert.equal(r.code, 0, r.stderr + relaySaid());
        proposed.push((JSON.parse(r.stdout) as { transaction_id: string }).transaction_id);
      }
      // fleet-1's first transaction ran already: the plan is refused, that host named, exit 4, nothing served.
      const stale = await fleet.ws.airlock('alice', ['fleet', 'approve', `fleet-1:${txs[0]}`, `fleet-2:${proposed[1]}`, '--listen', `127.0.0.1:${port}`]);
      assert.equal(stale.code, 4, stale.stderr);
      assert.match(stale.stderr, /fleet-1: not ready: stale_approval\/not_pending/);
      assert.doesNotMatch(stale.stderr, /http:\/\/localhost/);

      const child = await fleet.ws.spawnAirlock('alice', ['fleet', 'approve', ...fleet.hosts.map((h, i) => `${h.name}:${proposed[i]}`), '--listen', `127.0.0.1:${port}`]);
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise((r) => child.on('exit', r));
      try {
        for (let i = 0; i < 600 && !/http:\/\/localhost:\d+\/#/.test(stderr) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
        assert.match(stderr, /the change on 2 of 3 \(fleet-1, fleet-2\)/, stderr);
        assert.match(stderr, /fleet-3 differs:\n(\s+- .*\n)*\s+- .*team-two/, 'the usual change\'s lines fleet-3 lacks');
        assert.match(stderr, /fleet-3 differs:\n(\s+[-+] .*\n)*\s+\+ .*team-odd/, 'the lines fleet-3 has instead');
        assert.doesNotMatch(stderr, /every host makes the same change/);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      // Stopped before any assertion: nothing is approved anywhere.
      for (const [i, h] of fleet.hosts.entries()) {
        const shown = await agent(['--host', h.name, 'show', proposed[i]!, '--json']);
        assert.equal((JSON.parse(shown.stdout) as { state: string }).state, 'Previewed');
      }
    });
  });
}
