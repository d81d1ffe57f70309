/**
 * Edits of a service's configuration under a person's grant, on the booted Debian test bed with
 * nginx running (issue 29): a grant is a High change a person approves; the agent's edits under
 * it are checked by nginx itself (on a staged copy before the write, once a person approved it,
 * and `nginx -t` live after the write), a broken one leaves the host's files unchanged, a valid
 * one is applied and nginx reloaded. nginx reads its configuration as root, so its edits are
 * High: a policy rule naming the grant never approves them, and approves the Medium edits of an
 * application's JSON under /srv. Links, other accounts and paths outside are refused; a revoked
 * or expired grant stops the next edit, at preview and at execution.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

const SITES = '/etc/nginx/sites-available';
const DEFAULT_SITE = `${SITES}/default`;
const POLICY = `
[[rule]]
id = "nginx-sites-patches"
action = "PatchGrantedFile"
params = { grant = "nginx-sites" }
cooldown_minutes = 0
daily_cap = 100

[[rule]]
id = "app-config-patches"
action = "PatchGrantedFile"
params = { grant = "app-config" }
cooldown_minutes = 0
daily_cap = 100
`;

let w: World;
let agent: Principal, other: Principal, alice: Principal;
/** The grant that expires during the file: made first, checked last. */
let shortUntil = 0;

const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const run = async (program: string, args: string[]) => w.d.box.run(program, args);
const sha = async (path: string) => {
  const text = await w.d.box.readFile(path);
  return text === null ? null : createHash('sha256').update(text).digest('hex');
};
/** Puts a file in the test bed as root (through the shared folder, which the test bed sees at the same path). */
const plant = async (path: string, content: string) => {
  const staged = join(w.d.box.shared, `plant-${createHash('sha256').update(path).digest('hex').slice(0, 8)}`);
  writeFileSync(staged, content, { mode: 0o644 });
  assert.equal((await run('/usr/bin/cp', ['--', staged, path])).code, 0);
};
const port = async (n: number) => (await run('/usr/bin/nc', ['-z', '-w', '2', '127.0.0.1', String(n)])).code === 0;
/** Whether nginx listens on port n once its reload settles: the old workers keep the old ports a moment after a reload. */
const settles = async (n: number, listening: boolean) => {
  for (let i = 0; i < 50 && (await port(n)) !== listening; i++) await new Promise((r) => setTimeout(r, 100));
  return port(n);
};
const grantParams = (name: string, folder: string, checker: string, extra: Record<string, unknown> = {}) => ({ name, account: 'agent', folder, checker, unit: 'nginx.service', expires_at: inHours(8), ...extra });
const execute = (who: Principal, p: PreviewEnvelope, receipt: string) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt });

const SITE = (listen: number, body = 'return 200 "airlock\\n";') => `server {\n    listen ${listen};\n    location / {\n        ${body}\n    }\n}\n`;

before(async () => {
  w = await startWorld([], 'testbed', { policy: POLICY });
  // nginx's edits are High: the agent holds the admin role (it previews and executes them) and is no approver.
  agent = await w.as('agent', ['airlock-admin']);
  other = await w.as('other', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  assert.equal((await run('/usr/bin/systemctl', ['is-active', 'nginx.service'])).stdout.trim(), 'active', 'nginx runs in the test bed');
  // Where `airlock install` keeps the policy, and the grants beside it (the test bed's daemon reads its policy from the shared folder).
  assert.equal((await run('/usr/bin/mkdir', ['-m', '0755', '-p', '/etc/airlock'])).code, 0);
  // The grant that expires within the file: a minute and a bit from now.
  shortUntil = Date.now() + 75_000;
  const { r } = await w.lifecycle(alice, alice, 'GrantConfigEdits', { ...grantParams('short', '/etc/nginx/conf.d', 'nginx'), expires_at: new Date(shortUntil).toISOString() });
  assert.equal(r.state, 'Succeeded', JSON.stringify(r));
});
after(() => w?.close());

describe('a grant is a High change a person makes', () => {
  test('the agent cannot grant itself anything: it may propose a grant, and only a person approves one', async () => {
    const p = await agent.call('preview', { action_name: 'GrantConfigEdits', params: grantParams('mine', SITES, 'nginx') });
    assert.equal(p.risk, 'high');
    await rejectsWith(agent.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization');
    assert.equal(await w.d.box.readFile('/etc/airlock/grants/mine.json'), null);
  });

  test('alice grants the agent nginx\'s sites folder; the grant file and the signed log hold it', async () => {
    const { p, r } = await w.lifecycle(alice, alice, 'GrantConfigEdits', grantParams('nginx-sites', SITES, 'nginx'));
    assert.equal(p.risk, 'high');
    assert.match(p.summary, /agent may propose edits under \/etc\/nginx\/sites-available until .* nginx -t.*reload nginx\.service; each edit is High/);
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    const file = JSON.parse((await w.d.box.readFile('/etc/airlock/grants/nginx-sites.json'))!);
    assert.equal(file.account, 'agent');
    assert.equal(file.edit_risk, 'high', 'nginx reads its configuration as root');
    const kinds = (await w.entriesOf(p.transaction_id)).map((e) => e.kind);
    assert.ok(kinds.includes('approval_granted') && kinds.includes('outcome'), kinds.join(','));
  });

  test('folders that cannot be granted: /etc whole, Airlock\'s own, outside the grantable roots, longer than 30 days', async () => {
    for (const [folder, code] of [['/etc', 'not_grantable'], ['/etc/airlock', 'not_grantable'], ['/home/agent', 'not_grantable'], ['/var/lib', 'not_grantable']] as const) {
      await rejectsWith(alice.call('preview', { action_name: 'GrantConfigEdits', params: grantParams('bad', folder, 'nginx') }), 'authorization', code);
    }
    const far = new Date(Date.now() + 31 * 86_400_000).toISOString();
    await rejectsWith(alice.call('preview', { action_name: 'GrantConfigEdits', params: { ...grantParams('far', SITES, 'nginx'), expires_at: far } }), 'validation', 'expires_too_late');
  });
});

describe('edits under the grant, checked by nginx', () => {
  test('a broken site is refused by nginx on a staged copy before the write: nothing is written, the receipt unspent', async () => {
    const before = await sha(DEFAULT_SITE);
    // nginx -t runs as root on text a person has approved, never on a mere proposal (it can load what the text names).
    const p = await agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, content: 'server {\n    listen 8080;\n    bogus_directive on;\n}\n' } });
    assert.equal(p.risk, 'high');
    const g = await w.approveSoon(alice, p);
    const e = await rejectsWith(execute(agent, p, g.receipt), 'validation', 'config_invalid');
    assert.match(e.message, /bogus_directive/);
    assert.equal(await sha(DEFAULT_SITE), before, 'the file is unchanged');
    const t = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    assert.equal(t.state, 'Queued', 'the receipt was not spent');
  });

  test('a site nginx refuses only as a whole is applied, refused by nginx -t, and the exact bytes restored', async () => {
    // Another enabled file defines upstream "app"; the new default site defines it too: alone it is valid, together not.
    await plant('/etc/nginx/conf.d/upstream.conf', 'upstream app {\n    server 127.0.0.1:9;\n}\n');
    const before = await sha(DEFAULT_SITE);
    const p = await agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, content: `upstream app {\n    server 127.0.0.1:10;\n}\n${SITE(8080)}` } });
    assert.equal(p.risk, 'high');
    assert.match(JSON.stringify(p.proposed_change), /upstream app/, 'the preview shows the new lines');
    const g = await w.approveSoon(alice, p);
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'RolledBack', JSON.stringify(r));
    // The error names the check that failed; nginx's own lines are not quoted (an included file could be anyone's secret).
    assert.match(r.error?.message ?? '', /^nginx exited with status 1: .*test failed/);
    assert.equal(await sha(DEFAULT_SITE), before, 'the exact previous bytes are back');
    assert.equal(await port(8080), false, 'nginx never served the new site');
    assert.equal((await run('/usr/bin/rm', ['--', '/etc/nginx/conf.d/upstream.conf'])).code, 0);
  });

  test('a valid site is applied and nginx reloaded: it serves the new port', async () => {
    assert.equal(await port(8080), false);
    const { p, r } = await w.lifecycle(agent, alice, 'ReplaceGrantedFile', { grant: 'nginx-sites', path: DEFAULT_SITE, content: SITE(8080) });
    assert.match(p.summary, /^Replace \/etc\/nginx\/sites-available\/default .* under grant nginx-sites; .*nginx -t.*then reload nginx\.service/);
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    assert.equal(await w.d.box.readFile(DEFAULT_SITE), SITE(8080));
    assert.equal(await settles(8080, true), true, 'nginx reloaded and listens on 8080');
  });

  test('a patch against the exact current text applies; a stale one is refused; no rule approves a High edit', async () => {
    const stale = '--- a/default\n+++ b/default\n@@ -1,2 +1,2 @@\n server {\n-    listen 9090;\n+    listen 8081;\n';
    await rejectsWith(agent.call('preview', { action_name: 'PatchGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, diff: stale } }), 'validation', 'edit_does_not_apply');
    const diff = '--- a/default\n+++ b/default\n@@ -1,2 +1,2 @@\n server {\n-    listen 8080;\n+    listen 8081;\n';
    const p = await agent.call('preview', { action_name: 'PatchGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, diff } });
    assert.equal(p.auto_approval, undefined, 'the rule nginx-sites-patches names the grant, and still never approves a High edit');
    const g = await w.approveSoon(alice, p);
    const r = await execute(agent, p, g.receipt);
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    assert.equal(await settles(8081, true), true);
    assert.equal(await settles(8080, false), false);
  });

  test('CreateGrantedFile makes a new 0644 root file; RemoveGrantedFile removes it', async () => {
    const path = `${SITES}/app`;
    const { r } = await w.lifecycle(agent, alice, 'CreateGrantedFile', { grant: 'nginx-sites', path, content: SITE(8082) });
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    assert.equal((await run('/usr/bin/stat', ['-c', '%a %U %G', '--', path])).stdout.trim(), '644 root root');
    await rejectsWith(agent.call('preview', { action_name: 'CreateGrantedFile', params: { grant: 'nginx-sites', path, content: SITE(8083) } }), 'conflict', 'file_exists');
    const { r: removed } = await w.lifecycle(agent, alice, 'RemoveGrantedFile', { grant: 'nginx-sites', path });
    assert.equal(removed.state, 'Succeeded', JSON.stringify(removed));
    assert.equal(await w.d.box.readFile(path), null);
  });
});

describe('what a grant never lets through', () => {
  test('another account, even with the role, is refused: the grant covers the agent alone', async () => {
    await rejectsWith(other.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, content: SITE(8084) } }), 'authorization', 'not_the_grantee');
  });

  test('a path outside the folder, or climbing out of it, is refused', async () => {
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: '/etc/nginx/nginx.conf', content: 'x\n' } }), 'authorization', 'outside_grant');
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: `${SITES}/../nginx.conf`, content: 'x\n' } }), 'validation');
  });

  test('a symbolic link planted in the folder is refused, to a file or through a folder', async () => {
    assert.equal((await run('/usr/bin/ln', ['-s', '/etc/shadow', `${SITES}/evil`])).code, 0);
    assert.equal((await run('/usr/bin/ln', ['-s', '/etc', `${SITES}/out`])).code, 0);
    const shadow = await sha('/etc/shadow');
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: `${SITES}/evil`, content: 'x\n' } }), 'authorization', 'symlink_in_path');
    await rejectsWith(agent.call('preview', { action_name: 'CreateGrantedFile', params: { grant: 'nginx-sites', path: `${SITES}/out/cron.d-evil`, content: 'x\n' } }), 'authorization', 'symlink_in_path');
    assert.equal(await sha('/etc/shadow'), shadow);
    assert.equal((await run('/usr/bin/rm', ['--', `${SITES}/evil`, `${SITES}/out`])).code, 0);
  });

  test('an executable in the folder is never edited', async () => {
    await plant(`${SITES}/hook`, 'server {}\n');
    assert.equal((await run('/usr/bin/chmod', ['0755', '--', `${SITES}/hook`])).code, 0);
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: `${SITES}/hook`, content: SITE(8085) } }), 'authorization', 'executable');
    assert.equal((await run('/usr/bin/rm', ['--', `${SITES}/hook`])).code, 0);
  });

  test('a Medium grant (an application\'s JSON under /srv, its unit running as its own account): bad JSON refused at preview, a valid patch approved by the rule naming it', async () => {
    assert.equal((await run('/usr/bin/mkdir', ['-p', '/srv/app'])).code, 0);
    await plant('/srv/app/config.json', '{\n  "port": 80\n}\n');
    await plant('/etc/systemd/system/app.service', '[Service]\nUser=nobody\nExecStart=/usr/bin/sleep infinity\n');
    assert.equal((await run('/usr/bin/systemctl', ['daemon-reload'])).code, 0);
    assert.equal((await run('/usr/bin/systemctl', ['start', 'app.service'])).code, 0);
    // The same folder followed by a unit that runs as root: High.
    const asRoot = await alice.call('preview', { action_name: 'GrantConfigEdits', params: { name: 'app-root', account: 'agent', folder: '/srv/app', checker: 'json', unit: 'cron.service', follow_up: 'restart', expires_at: inHours(1) } });
    assert.match(asRoot.summary, /each edit is High/);
    const { p: g, r } = await w.lifecycle(alice, alice, 'GrantConfigEdits', { name: 'app-config', account: 'agent', folder: '/srv/app', checker: 'json', unit: 'app.service', follow_up: 'restart', expires_at: inHours(1) });
    assert.match(g.summary, /each edit is Medium/);
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    const pid = async () => (await run('/usr/bin/systemctl', ['show', '-p', 'MainPID', '--value', '--', 'app.service'])).stdout.trim();
    const before = await pid();
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'app-config', path: '/srv/app/config.json', content: '{"port": 80,}\n' } }), 'validation', 'config_invalid');
    // A replace is Medium too, but no rule names ReplaceGrantedFile: a person approves it.
    const replace = await agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'app-config', path: '/srv/app/config.json', content: '{"port": 81}\n' } });
    assert.equal(replace.risk, 'medium');
    assert.equal(replace.auto_approval, undefined);
    const diff = '--- a/config.json\n+++ b/config.json\n@@ -1,3 +1,3 @@\n {\n-  "port": 80\n+  "port": 8080\n }\n';
    const p = await agent.call('preview', { action_name: 'PatchGrantedFile', params: { grant: 'app-config', path: '/srv/app/config.json', diff } });
    assert.equal(p.risk, 'medium');
    assert.equal(p.auto_approval?.rule, 'app-config-patches', 'the rule naming the grant approves its Medium edit');
    const done = await execute(agent, p, p.auto_approval!.receipt);
    assert.equal(done.state, 'Succeeded', JSON.stringify(done));
    assert.equal(await w.d.box.readFile('/srv/app/config.json'), '{\n  "port": 8080\n}\n');
    assert.notEqual(await pid(), before, 'the follow-up restarted app.service');
    // A file the agent may not read is never edited under a grant (its text would be in the preview).
    await plant('/srv/app/secret.json', '{"token": "s3cr3t-zz9"}\n');
    assert.equal((await run('/usr/bin/chmod', ['0600', '--', '/srv/app/secret.json'])).code, 0);
    const e = await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'app-config', path: '/srv/app/secret.json', content: '{}\n' } }), 'authorization', 'not_world_readable');
    assert.doesNotMatch(JSON.stringify(e), /s3cr3t/);
  });

  test('airlock grants lists them for anyone, in words and as JSON', () => {
    const id = agent.identity;
    const r = spawnSync('/usr/bin/setpriv', [`--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${id.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, 'grants', '--json'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
    assert.equal(r.status, 0, r.stderr);
    const names = (JSON.parse(r.stdout).grants as Array<{ name: string; account: string }>).map((g) => g.name).sort();
    assert.deepEqual(names, ['app-config', 'nginx-sites', 'short']);
    assert.ok(!names.includes('app-root'), 'a grant only previewed is no grant');
  });
});

describe('the end of a grant', () => {
  test('a revoked grant stops an edit approved before the revocation, at execution, and every later one', async () => {
    const p = await agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, content: SITE(8086) } });
    const g = await w.approveSoon(alice, p);
    const { r } = await w.lifecycle(alice, alice, 'RevokeConfigGrant', { name: 'nginx-sites' });
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    await rejectsWith(execute(agent, p, g.receipt), 'authorization', 'no_such_grant');
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'nginx-sites', path: DEFAULT_SITE, content: SITE(8086) } }), 'authorization', 'no_such_grant');
  });

  test('a grant expires by itself: the next edit is refused', async () => {
    const path = '/etc/nginx/conf.d/agent.conf';
    const { r } = await w.lifecycle(agent, alice, 'CreateGrantedFile', { grant: 'short', path, content: SITE(8087) });
    assert.equal(r.state, 'Succeeded', JSON.stringify(r));
    const wait = shortUntil - Date.now() + 1000;
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    await rejectsWith(agent.call('preview', { action_name: 'ReplaceGrantedFile', params: { grant: 'short', path, content: SITE(8088) } }), 'authorization', 'grant_expired');
  });
});
