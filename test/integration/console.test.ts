/**
 * The web console end to end, in a real browser: Debian's headless Chromium driven by
 * playwright-core, with the DevTools virtual authenticator (a platform passkey with user
 * verification) on a page served by `airlock console`, which runs as its own Unix user
 * (airlock-console) and relays to a real daemon. alice registers a passkey with
 * `airlock passkey add` at a real pseudo-terminal while the browser opens the link it prints,
 * signs in, sees the High change the agent proposed through MCP with the match code MCP gave
 * it, approves it with her passkey while the agent's airlock_execute waits (it then runs and
 * succeeds), and denies another with a reason the agent is told.
 *
 * Attacks: an approval POST without the CSRF header or from another Origin (403, nothing
 * approved); an assertion made for one transaction posted for another (the daemon refuses it);
 * an API call without a session (401); host text with <script> and U+202E in a preview (inert,
 * escaped text: no script element added); a session ('this session' lane) granted from the
 * page lets the agent's identical request through, is listed, and is revoked from the page;
 * console.call from a process that is not the console's
 * account (refused), and from the console's account an approval without an assertion (refused).
 * Screenshots of the pending list and of a High approval, at phone and laptop sizes, go to
 * docs/console/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserWithPasskeys, openRegistration, visible as visibleOn } from '../support/console-browser.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { passkeyAdd, startConsole } from '../support/console-cli.js';
import { freePort } from '../support/loopback.js';
import { ROOT } from '../support/error-codes.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { matchCode } from '../../src/protocol/match-code.js';
import { renderPreview } from '../../src/client/render-preview.js';
import { livePreview } from '../../src/protocol/compacted.js';
import { startMcp } from '../support/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/client';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
/**
 * Where the screenshots go: docs/console/ when asked (AIRLOCK_UPDATE_SCREENSHOTS=1, to refresh
 * the docs' pictures), a scratch directory otherwise, so that a test run leaves the checkout as
 * it found it.
 */
const SHOTS = process.env.AIRLOCK_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'console') : mkdtempSync(join(tmpdir(), 'airlock-console-shots-'));
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SGR = /\x1b\[[0-9;]*m/g;
/** Host text an attacker planted: markup and a right-to-left override. */
const EVIL = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">\u202eevil';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d';

let w: World;
let agent: Principal, alice: Principal, consoleAccount: Principal;
let origin: string;
let port: number;
let server: ChildProcess;
let browser: Browser;
let page: Page;

/** The page's view of the API: a fetch from the page itself (its cookie, its origin), with or without the CSRF token. */
const pageFetch = (path: string, body: unknown, withCsrf: boolean) =>
  page.evaluate(
    async ([path, body, withCsrf]) => {
      const me = await (await fetch('/api/me')).json();
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (withCsrf) headers['X-Airlock-CSRF'] = me.csrf;
      const r = await fetch(path as string, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: r.status, body: await r.json() };
    },
    [path, body, withCsrf] as const,
  );

/** An assertion made in the page (app.js's own helper, a global of its script) over these options: what a person's approval sends. */
const assertionFor = (options: unknown) => page.evaluate(`getAssertion(${JSON.stringify(options)})`) as Promise<unknown>;
const approvalOptions = (id: string) => page.evaluate(async (id) => (await fetch(`/api/tx/${id}/approval-options`)).json(), id) as Promise<{ options: unknown; preview_digest: string }>;

const visible = (selector: string, timeout?: number) => visibleOn(page, selector, timeout);

let n = 0;
const highPreview = () => agent.call('preview', { action_name: 'CreateUser', params: { user: `web${n++}` } });
const stateOf = async (p: PreviewEnvelope) => (await agent.call('transaction.get', { transaction_id: p.transaction_id })).state;

async function shot(name: string, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(SHOTS, name), fullPage: false });
}

before(async () => {
  port = await freePort();
  origin = `http://localhost:${port}`;
  w = await startWorld([], 'overlay', { policy: `[passkeys]\nrp_id = "localhost"\norigins = ["${origin}"]\n\n[console]\nurl = "${origin}"\n` });
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', APPROVER);
  // The console's account needs a role group to connect at all; the daemon then lets it relay and nothing else.
  consoleAccount = await w.as('airlock-console', ['airlock-observer']);
  server = await startConsole(consoleAccount.identity, w.d.socket, port, origin);
  ({ browser, page } = await browserWithPasskeys('/usr/bin/chromium', LAPTOP));
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  await w?.close();
});

describe('the web console', () => {
  test('alice registers a passkey: the terminal prints the link and check code, the page shows the same code and makes it, her TOTP code finishes it', async () => {
    const r = await passkeyAdd(
      alice.identity,
      w.d.socket,
      ['--name', 'laptop'],
      async (link, check) => {
        assert.ok(link.startsWith(`${origin}/register#`), link);
        await openRegistration(page, link, check, /^alice\(uid \d+\)$/);
        await page.click('#reg-button');
        await visible('#notice:not([hidden])');
        assert.match((await page.textContent('#notice'))!, /type the code from your authenticator app at your terminal/);
      },
      () => w.codes.code('alice'),
    );
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /registered passkey laptop \([0-9a-f]{16}\) for alice\(uid \d+\)/);
  });

  test('a console API call without a session is 401', async () => {
    for (const path of ['/api/inbox', '/api/tx/tx_000000000000000000000000']) {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.equal(r.status, 401, path);
    }
  });

  test('alice signs in with her passkey', async () => {
    await page.goto(`${origin}/`);
    await page.waitForSelector('#view-signin:not([hidden])');
    await page.click('#signin-button');
    await visible('#view-inbox:not([hidden])');
    assert.match((await page.textContent('#who'))!, /^alice\(uid \d+\)$/);
  });

  test("the agent's High change (through MCP) is listed, shown as the CLI renders it with the match code MCP gave the agent, and approved with alice's passkey while airlock_execute waits; it then succeeds", async () => {
    const mcp = await startMcp({ identity: agent.identity, insidePid: w.d.box.pid, env: { AIRLOCK_SOCKET: w.d.socket } });
    const tool = async (name: string, args: Record<string, unknown>) => (await mcp.client.callTool({ name, arguments: args }, { timeout: 180_000 })) as CallToolResult;
    const proposed = (await tool('airlock_propose', { steps: [{ action_name: 'CreateUser', params: { user: `web${n++}` } }] })).structuredContent as { steps: Array<{ transaction_id: string; match_code: string }> };
    const id = proposed.steps[0]!.transaction_id;
    const p = livePreview(await alice.call('transaction.get', { transaction_id: id }));
    assert.equal(p.risk, 'high');
    assert.equal(proposed.steps[0]!.match_code, matchCode(p.preview_digest), "the agent's MCP answer carries the match code");
    const executing = tool('airlock_execute', { steps: [{ transaction_id: id }], wait_for_approval: 120 });
    // A second request waiting beside it, for the list's screenshot.
    await agent.call('preview', { action_name: 'CreateGroup', params: { group: 'deploy' } });
    await page.goto(`${origin}/`);
    const item = `a[href="/tx/${p.transaction_id}"]`;
    await visible(item, 20_000);
    assert.match((await page.textContent(item))!, /CreateUser/);
    await shot('pending-laptop.png', LAPTOP);
    await shot('pending-phone.png', PHONE);
    await page.setViewportSize(LAPTOP);
    await page.click(item);
    await visible('#tx-decide:not([hidden])');
    assert.equal(await page.textContent('#tx-match'), matchCode(p.preview_digest), 'the match code the agent got');
    assert.equal(await page.textContent('#tx-preview'), renderPreview(p).replace(SGR, ''), 'the preview exactly as the CLI renders it');
    await shot('approve-high-laptop.png', LAPTOP);
    await shot('approve-high-phone.png', PHONE);
    // On a phone: nothing wider than the screen, and the Approve button a large touch target on screen with its code.
    const phone = await page.evaluate(() => {
      const b = document.getElementById('approve-button')!.getBoundingClientRect();
      const m = document.getElementById('tx-match')!.getBoundingClientRect();
      return { scrollWidth: document.documentElement.scrollWidth, button: { height: b.height, width: b.width, bottom: b.bottom }, match: m.bottom };
    });
    assert.ok(phone.scrollWidth <= PHONE.width, `the page is ${phone.scrollWidth}px wide on a ${PHONE.width}px screen`);
    assert.ok(phone.button.height >= 48 && phone.button.width >= 200, JSON.stringify(phone.button));
    assert.ok(phone.button.bottom <= PHONE.height && phone.match <= PHONE.height, 'the code and the button are on the first screen');
    await page.setViewportSize(LAPTOP);
    await page.click('#approve-button');
    await visible('#notice:not([hidden])');
    assert.match((await page.textContent('#notice'))!, /Approved by alice\(uid \d+\)/);
    const executed = (await executing).structuredContent as { steps: Array<{ state: string }> };
    await mcp.close();
    assert.deepEqual(executed.steps.map((s) => s.state), ['Succeeded'], 'airlock_execute waited for the approval, then ran it');
    assert.match((await agent.call('transaction.get', { transaction_id: id })).approved_by ?? '', /^alice\(uid \d+\)$/);
  });

  test('a change denied from the page, with a reason: the agent is told the reason', async () => {
    const p = await highPreview();
    const waiting = agent.call('transaction.wait', { transaction_id: p.transaction_id, timeout_ms: 120_000 });
    await page.goto(`${origin}/tx/${p.transaction_id}`);
    await visible('#tx-deny:not([hidden])');
    await page.fill('#deny-reason', 'not before the backup runs');
    await page.click('#deny-button');
    await visible('#notice:not([hidden])');
    const outcome = await waiting;
    assert.equal(outcome.outcome, 'denied');
    if (outcome.outcome !== 'denied') return;
    assert.equal(outcome.reason, 'not before the backup runs');
    assert.match(outcome.denied_by, /^alice\(uid \d+\)$/);
  });

  test("'this session' from the page: a Medium request approved for an hour lets the agent's identical request through; the list shows the grant, and Revoke ends it", async () => {
    const ask = () => agent.call('preview', { action_name: 'CreateGroup', params: { group: 'sessiongroup' } });
    const p = await ask();
    assert.equal(p.risk, 'medium');
    await page.goto(`${origin}/tx/${p.transaction_id}`);
    await visible('#tx-session:not([hidden])');
    await page.selectOption('#session-minutes', '60');
    await shot('approve-session-phone.png', PHONE);
    await page.setViewportSize(LAPTOP);
    await page.click('#approve-button');
    await visible('#notice:not([hidden])');
    assert.match((await page.textContent('#notice'))!, /Identical requests of agent\(uid \d+\) are approved until/);
    const again = await ask();
    assert.equal(again.auto_approval?.rule, 'session', 'the identical request is approved by the grant');
    assert.match(again.auto_approval!.approved_by, /^alice\(uid \d+\)$/);
    // A High change offers no session.
    const high = await highPreview();
    await page.goto(`${origin}/tx/${high.transaction_id}`);
    await visible('#tx-decide:not([hidden])');
    assert.equal(await page.isVisible('#tx-session'), false);
    await page.goto(`${origin}/`);
    const revoke = `#sessions-list button[data-grant="${again.auto_approval!.session_grant!.grant_id}"]`;
    await visible(revoke);
    assert.match((await page.textContent('#sessions-list'))!, /CreateGroup \{"group":"sessiongroup"\}.*used 1 time/);
    await page.click(revoke);
    await visible('#notice:not([hidden])');
    assert.match((await page.textContent('#notice'))!, /Revoked: it had approved 1 request/);
    assert.equal((await ask()).auto_approval, undefined, 'revoked: a person decides again');
  });

  test('alice grants a folder from the page: the form previews GrantConfigEdits as her, she reads it and approves it with her passkey, and it runs; the list shows the grant, and Revoke takes it away the same way', async () => {
    const must = async (p: string, a: string[]) => assert.equal((await w.d.box.run(p, a)).code, 0, `${p} ${a.join(' ')}`);
    // What an installed host has (/etc/airlock), and an application's folder.
    await must('/usr/bin/mkdir', ['-p', '-m', '0755', '--', '/etc/airlock', '/srv/app']);
    const grantFile = `/proc/${w.d.box.pid}/root/etc/airlock/grants/app-config.json`;
    await page.goto(`${origin}/`);
    await visible('a[href="/grants"]');
    await page.click('a[href="/grants"]');
    await visible('#view-grants:not([hidden])');
    await page.waitForFunction(() => (document.getElementById('grant-checker') as HTMLSelectElement).options.length > 0);
    assert.equal(await page.isVisible('#grants-empty'), true, 'no grant yet');
    await page.fill('#grant-name', 'app-config');
    await page.fill('#grant-account', 'agent');
    await page.fill('#grant-folder', '/srv/app');
    await page.selectOption('#grant-checker', 'json');
    await page.selectOption('#grant-for', '1d');
    const asked = Date.now();
    await page.click('#grant-button');
    await page.waitForURL(/\/tx\/tx_[0-9a-f]{24}$/);
    await visible('#tx-decide:not([hidden])');
    const id = /tx_[0-9a-f]{24}/.exec(page.url())![0];
    assert.match((await page.textContent('#tx-summary'))!, /^Make grant app-config: agent may propose edits under \/srv\/app until .*, each checked by .*; each edit is High$/);
    assert.match((await page.textContent('#tx-by'))!, /^alice\(uid \d+\)$/, 'the request is her own, made through the console as her');
    assert.equal(existsSync(grantFile), false, 'previewed: nothing written');
    await page.click('#approve-button');
    await visible('#notice:not([hidden])');
    assert.match((await page.textContent('#notice'))!, /^Done: /);
    const g = JSON.parse(readFileSync(grantFile, 'utf8')) as { account: string; folder: string; checker: string; expires_at: string };
    assert.deepEqual([g.account, g.folder, g.checker], ['agent', '/srv/app', 'json']);
    const ends = Date.parse(g.expires_at) - asked;
    assert.ok(ends > 86_000_000 && ends < 86_500_000, `a grant for 1d ends a day later (${ends} ms)`);
    const tx = await alice.call('transaction.get', { transaction_id: id });
    assert.equal(tx.state, 'Succeeded');
    assert.match(tx.approved_by ?? '', /^alice\(uid \d+\)$/);
    const entries = await w.entriesOf(id);
    for (const kind of ['preview', 'approval_granted', 'execution_started'] as const) assert.equal(entries.find((e) => e.kind === kind)?.principal?.via, 'console', `the signed log says the ${kind} came through the console`);
    // The agent's edit under it now previews (and its requester is checked against the grant).
    const edit = await agent.call('preview', { action_name: 'CreateGrantedFile', params: { grant: 'app-config', path: '/srv/app/settings.json', content: '{"port": 8080}\n' } });
    assert.equal(edit.risk, 'high', 'no follow-up unit of its own account: each edit waits for a person');
    // Listed, and revoked the same way: a preview read and approved with the passkey, then run.
    await page.goto(`${origin}/grants`);
    const revoke = '#grants-list button[data-grant="app-config"]';
    await visible(revoke);
    assert.match((await page.textContent('#grants-list'))!, /app-config.*agent may propose edits under \/srv\/app, checked by json; its edits are high.*until /);
    await shot('grants-phone.png', PHONE);
    await page.setViewportSize(LAPTOP);
    await page.click(revoke);
    await page.waitForURL(/\/tx\/tx_[0-9a-f]{24}$/);
    await visible('#tx-decide:not([hidden])');
    assert.match((await page.textContent('#tx-summary'))!, /^Revoke grant app-config \(agent under \/srv\/app/);
    assert.equal(existsSync(grantFile), true, 'previewed: still there');
    await page.click('#approve-button');
    await visible('#notice:not([hidden])');
    assert.match((await page.textContent('#notice'))!, /^Done: /);
    assert.equal(existsSync(grantFile), false, 'revoked');
    await rejectsWith(agent.call('preview', { action_name: 'CreateGrantedFile', params: { grant: 'app-config', path: '/srv/app/settings.json', content: '{}\n' } }), 'authorization', 'no_such_grant');
  });

  test('an approval POST without the CSRF token or from another Origin is 403 and approves nothing; an assertion made for one transaction does not approve another', async () => {
    const a = await highPreview();
    const b = await highPreview();
    await page.goto(`${origin}/tx/${a.transaction_id}`);
    await visible('#tx-decide:not([hidden])');
    const { options, preview_digest } = await approvalOptions(a.transaction_id);
    const assertion = await assertionFor(options);
    // From the page itself, without the CSRF header.
    const noCsrf = await pageFetch(`/api/tx/${a.transaction_id}/approve`, { preview_digest, assertion }, false);
    assert.equal(noCsrf.status, 403);
    assert.equal(noCsrf.body.error.code, 'forged_request');
    // With the page's cookie and token, but from another origin.
    const cookie = (await page.context().cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = (await page.evaluate(async () => (await fetch('/api/me')).json())).csrf as string;
    const cross = await fetch(`${origin}/api/tx/${a.transaction_id}/approve`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-Airlock-CSRF': csrf, Origin: 'http://evil.localhost:8080' }, body: JSON.stringify({ preview_digest, assertion }) });
    assert.equal(cross.status, 403);
    assert.equal(await stateOf(a), 'Previewed', 'nothing approved');
    // A's assertion, posted (properly) for B: the daemon's challenge for B is another one.
    const swapped = await pageFetch(`/api/tx/${b.transaction_id}/approve`, { preview_digest: b.preview_digest, assertion }, true);
    assert.equal(swapped.status, 403, JSON.stringify(swapped.body));
    assert.equal(swapped.body.error.code, 'bad_assertion');
    assert.equal(await stateOf(b), 'Previewed');
    assert.equal(await stateOf(a), 'Previewed');
  });

  test('host text with <script> and a right-to-left override, in a key line and in a file diff, is shown as inert, escaped text', async () => {
    const must = async (p: string, a: string[]) => assert.equal((await w.d.box.run(p, a)).code, 0, `${p} ${a.join(' ')}`);
    await must('/usr/sbin/useradd', ['-m', '--', 'eve']);
    await must('/usr/bin/install', ['-d', '-m', '0700', '-o', 'eve', '-g', 'eve', '--', '/home/eve/.ssh']);
    writeFileSync(`/proc/${w.d.box.pid}/root/home/eve/.ssh/authorized_keys`, `${KEY} ${EVIL}\n`, { mode: 0o600 });
    const p = await agent.call('preview', { action_name: 'RemoveAuthorizedKey', params: { user: 'eve', key: KEY } });
    await page.goto(`${origin}/tx/${p.transaction_id}`);
    await page.waitForFunction((id) => document.getElementById('tx-preview')!.textContent!.includes(id), p.transaction_id);
    const seen = await page.evaluate(() => ({
      text: document.getElementById('tx-preview')!.textContent!,
      html: document.getElementById('tx-preview')!.innerHTML,
      scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
      images: document.querySelectorAll('img').length,
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    }));
    assert.ok(seen.text.includes('<script>window.__pwned=1</script>'), seen.text);
    assert.ok(seen.html.includes('&lt;script&gt;'), 'shown as text, not markup');
    assert.ok(seen.text.includes('\\u202eevil'), 'the override is shown escaped');
    assert.ok(!seen.text.includes('\u202e'), 'no raw right-to-left override');
    assert.deepEqual(seen.scripts, ['/webauthn.js', '/app.js'], 'no script element added');
    assert.equal(seen.images, 0);
    assert.equal(seen.pwned, null);
    // The same in a file's diff: a line of /etc/hosts an attacker wrote is context of the change.
    const hosts = `/proc/${w.d.box.pid}/root/etc/hosts`;
    writeFileSync(hosts, `127.0.0.1 localhost\n# ${EVIL}\n`);
    const d = await agent.call('preview', { action_name: 'AddHostsEntry', params: { ip: '10.0.0.12', names: ['db.internal'] } });
    await page.goto(`${origin}/tx/${d.transaction_id}`);
    await page.waitForFunction((id) => document.getElementById('tx-preview')!.textContent!.includes(id), d.transaction_id);
    const diff = await page.evaluate(() => ({ text: document.getElementById('tx-preview')!.textContent!, scripts: document.querySelectorAll('script').length, pwned: (window as unknown as { __pwned?: number }).__pwned ?? null }));
    assert.match(diff.text, /# <script>window\.__pwned=1<\/script>.*\\u202eevil/, diff.text);
    assert.ok(!diff.text.includes('\u202e'), 'no raw right-to-left override in the diff');
    assert.deepEqual([diff.scripts, diff.pwned], [2, null], 'the page\'s own two scripts, no more');
  });

  test('console.call from a process that is not the console is refused; the console itself cannot approve without an assertion', async () => {
    const anySession = 'A'.repeat(43);
    await rejectsWith(agent.callUnchecked('console.call', { session: anySession, method: 'inbox', params: {} }), 'authorization', 'not_the_console');
    await rejectsWith(alice.callUnchecked('console.call', { session: anySession, method: 'inbox', params: {} }), 'authorization', 'not_the_console');
    await rejectsWith(alice.callUnchecked('console.sign_in_options', {}), 'authorization', 'not_the_console');
    // The console's account with a real session of alice's (signed in with her passkey in the page): an approval without an assertion, or with a code, is refused.
    const { challenge_id, options } = (await consoleAccount.callUnchecked('console.sign_in_options', {})) as { challenge_id: string; options: unknown };
    const signIn = (await consoleAccount.callUnchecked('console.sign_in', { challenge_id, assertion: await assertionFor(options) })) as { session: string };
    const p = await highPreview();
    await rejectsWith(consoleAccount.callUnchecked('console.call', { session: signIn.session, method: 'approve', params: { transaction_id: p.transaction_id, preview_digest: p.preview_digest } }), 'authorization', 'assertion_required');
    await rejectsWith(consoleAccount.callUnchecked('console.call', { session: signIn.session, method: 'approve', params: { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('alice') } }), 'authorization', 'assertion_required');
    assert.equal(await stateOf(p), 'Previewed');
    // Through the console a person requests grants and nothing else: a preview or an execution of any other action is not relayed.
    await rejectsWith(consoleAccount.callUnchecked('console.call', { session: signIn.session, method: 'preview', params: { action_name: 'CreateUser', params: { user: 'viaconsole' } } }), 'authorization', 'not_relayed');
    await rejectsWith(consoleAccount.callUnchecked('console.call', { session: signIn.session, method: 'execute', params: { transaction_id: p.transaction_id, action_name: 'CreateUser', params: p.params, receipt: 'x' } }), 'authorization', 'not_relayed');
    await rejectsWith(consoleAccount.callUnchecked('console.call', { session: signIn.session, method: 'preview', params: { params: {} } }), 'authorization', 'not_relayed');
  });
});
