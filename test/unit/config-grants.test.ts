/**
 * The pure parts of grants for configuration edits (src/catalogue/families/files/grant-record.ts)
 * and the no-fuzz diff an edit applies (src/catalogue/lib/unified-diff.ts): which folders may be
 * granted, what an edit under one risks, which paths it covers, a grant file as Airlock writes it,
 * and a diff that applies only where it says, against the exact text. The actions themselves run
 * on the booted test bed (test/integration/config-grants.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editRiskOf, grantableProblem, grantInForce, grantRecord, grantText, outsideGrant, type GrantRecord } from '../../src/catalogue/families/files/grant-record.js';
import { patched } from '../../src/catalogue/lib/unified-diff.js';
import { CATALOGUE } from '../../src/catalogue/index.js';

const GRANT: GrantRecord = { version: 1, name: 'web', account: 'agent', uid: 1000, folder: '/etc/nginx/sites-available', checker: 'nginx', follow_up: { verb: 'reload', unit: 'nginx.service' }, edit_risk: 'high', expires_at: '2030-01-01T00:00:00.000Z' };

test('a grant covers one folder two levels or more under /etc, /srv, /opt or /usr/local/etc, never Airlock\'s own', () => {
  for (const ok of ['/etc/nginx', '/etc/nginx/sites-available', '/srv/app', '/opt/app/etc', '/usr/local/etc/app']) assert.equal(grantableProblem(ok), null, ok);
  for (const bad of ['/etc', '/srv', '/', '/etc/airlock', '/etc/airlock/grants', '/home/agent', '/var/lib/app', '/root/x', '/usr/bin', '/etcetera/x']) assert.notEqual(grantableProblem(bad), null, bad);
});

test('edits are Medium only for an application\'s files under /srv or /opt, checked by a parser, reloaded as an account of its own', () => {
  assert.equal(editRiskOf('/srv/app', 'json', 'app'), 'medium');
  assert.equal(editRiskOf('/opt/app/conf', 'yaml', 'dynamic'), 'medium');
  // The follow-up unit runs as root, or there is none: whatever reads the files may be root.
  assert.equal(editRiskOf('/srv/app', 'json', ''), 'high');
  assert.equal(editRiskOf('/srv/app', 'json', 'root'), 'high');
  assert.equal(editRiskOf('/srv/app', 'json', null), 'high');
  // A service's own checker runs as root on the text (nginx -t loads what an engine: key names).
  assert.equal(editRiskOf('/srv/www', 'nginx', 'www-data'), 'high');
  assert.equal(editRiskOf('/etc/nginx/sites-available', 'nginx', 'www-data'), 'high');
  assert.equal(editRiskOf('/etc/postgresql/15/main', 'ini', 'postgres'), 'high');
  assert.equal(editRiskOf('/srv/app', 'sudoers', 'app'), 'high');
  assert.equal(editRiskOf('/etc/myapp', 'yaml', 'app'), 'high');
  assert.equal(editRiskOf('/srvx/app', 'json', 'app'), 'high');
});

test('a path is under the grant only inside its folder, each name plain, no backup or hidden file', () => {
  assert.equal(outsideGrant(GRANT, '/etc/nginx/sites-available/app'), null);
  assert.equal(outsideGrant(GRANT, '/etc/nginx/sites-available/sub/app.conf'), null);
  for (const bad of ['/etc/nginx/nginx.conf', '/etc/nginx/sites-available', '/etc/nginx/sites-availableX/app', '/etc/nginx/sites-available/.hidden', '/etc/nginx/sites-available/app.dpkg-old', '/etc/nginx/sites-available/app~', '/etc/nginx/sites-available/a b', '/etc/nginx/sites-available/a\u202eb']) {
    assert.notEqual(outsideGrant(GRANT, bad), null, bad);
  }
});

test('a grant file is exactly what GrantConfigEdits writes: its schema round-trips, and an expired or missing grant is refused', () => {
  assert.deepEqual(grantRecord.parse(JSON.parse(grantText(GRANT))), GRANT);
  assert.throws(() => grantRecord.parse({ ...GRANT, extra: 1 }));
  assert.throws(() => grantRecord.parse({ ...GRANT, uid: 0 }), 'root is never granted');
  assert.equal(grantInForce({ name: 'web', record: GRANT, problem: null }, Date.parse('2029-12-31T23:59:59Z')), GRANT);
  assert.throws(() => grantInForce({ name: 'web', record: GRANT, problem: null }, Date.parse(GRANT.expires_at)), /expired/);
  assert.throws(() => grantInForce({ name: 'web', record: null, problem: null }, 0), /no grant web/);
  assert.throws(() => grantInForce({ name: 'web', record: null, problem: 'not JSON' }, 0), /not JSON/);
});

test('a diff applies only against the exact text at the place it names: no fuzz, no search elsewhere', () => {
  const text = 'a\nb\nc\nd\n';
  assert.deepEqual(patched(text, '--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n'), { text: 'a\nb\nC\nd\n' });
  // The same lines, one place off: refused, though a fuzzy patch would find them.
  assert.ok('problem' in patched(text, '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n b\n-c\n+C\n'));
  assert.ok('problem' in patched(text, '--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-x\n+C\n'), 'a removed line that is not there');
  assert.ok('problem' in patched(text, 'not a diff at all'), 'no hunk');
  assert.ok('problem' in patched(text, '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+A\n'), 'two files');
  assert.deepEqual(patched('', '--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n'), { text: 'x\n' });
});

test('every edit under a grant names its one requester and a rule scope, and is never a plan step', () => {
  const edits = [...CATALOGUE.values()].filter((a) => a.name.endsWith('GrantedFile'));
  assert.deepEqual(edits.map((a) => a.name).sort(), ['CreateGrantedFile', 'PatchGrantedFile', 'RemoveGrantedFile', 'ReplaceGrantedFile']);
  for (const a of edits) {
    assert.ok(a.requestedOnlyBy, `${a.name} names its requester`);
    assert.equal(a.ruleScope?.named, 'grant', a.name);
    assert.ok(a.riskFrom, `${a.name} reads its risk from the grant (so plans refuse it)`);
  }
  // Nothing else frees a rule from listing parameters.
  assert.deepEqual([...CATALOGUE.values()].filter((a) => a.ruleScope).map((a) => a.name).sort(), edits.map((a) => a.name).sort());
});

test('the console requests grants and nothing else: requestedAtConsole is declared by the grant actions alone, its changes High and running no program', () => {
  const here = [...CATALOGUE.values()].filter((a) => a.requestedAtConsole);
  assert.deepEqual(here.map((a) => a.name).sort(), ['GrantConfigEdits', 'ListConfigGrants', 'RevokeConfigGrant']);
  for (const a of here) {
    if (a.readOnly) continue;
    assert.equal(a.runsPrograms, false, `${a.name}: a grant or a revocation writes one file and runs nothing`);
    assert.equal(a.risk, 'high', `${a.name}: a change made at the console is High, approved with a passkey like any`);
  }
});

test('a policy rule for an edit names its grant by its exact value, and then covers any content or diff under it', async () => {
  const { parsePolicy, matchingRule } = await import('../../src/policy/policy.js');
  const rule = (params: string) => `[[rule]]\nid = "r"\naction = "PatchGrantedFile"\nparams = ${params}\ncooldown_minutes = 0\ndaily_cap = 10\n`;
  const p = parsePolicy(rule('{ grant = "app" }'));
  assert.equal(matchingRule(p, 'PatchGrantedFile', { grant: 'app', path: '/srv/app/c.json', diff: 'anything' })?.id, 'r');
  assert.equal(matchingRule(p, 'PatchGrantedFile', { grant: 'other', path: '/srv/app/c.json', diff: 'anything' }), null, 'another grant');
  assert.equal(matchingRule(p, 'ReplaceGrantedFile', { grant: 'app', path: '/srv/app/c.json', content: 'x' }), null, 'another action');
  // A path glob narrows it further.
  const narrow = parsePolicy(rule('{ grant = "app", path = "/srv/app/conf.d/*" }'));
  assert.equal(matchingRule(narrow, 'PatchGrantedFile', { grant: 'app', path: '/srv/app/c.json', diff: 'x' }), null);
  assert.equal(matchingRule(narrow, 'PatchGrantedFile', { grant: 'app', path: '/srv/app/conf.d/c.json', diff: 'x' })?.id, 'r');
  // Without the grant, or with a glob for it, the rule is refused when the policy is read.
  assert.throws(() => parsePolicy(rule('{ path = "/srv/app/c.json" }')), /grant/);
  assert.throws(() => parsePolicy(rule('{ grant = "ap*" }')), /names its grant by its exact value/);
  // Rules never approve what a grant's own risk (High) keeps for a person: GrantConfigEdits itself is High.
  assert.throws(() => parsePolicy(`[[rule]]\nid = "g"\naction = "GrantConfigEdits"\nparams = {}\ncooldown_minutes = 0\ndaily_cap = 1\n`), /high/i);
});

test('airlock grant: revoke is its own command, the options a grant needs are asked for, a duration is checked before any connection', async () => {
  const { spawnSync } = await import('node:child_process');
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--socket', '/nonexistent/airlock.sock'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const revoke = cli('grant', 'revoke', 'web');
  assert.equal(revoke.status, 7, `the daemon is unreachable, nothing else: ${revoke.stderr}`);
  const missing = cli('grant', 'web', '--folder', '/srv/web');
  assert.equal(missing.status, 5, missing.stderr);
  assert.match(missing.stderr, /needs --account, --check/);
  const duration = cli('grant', 'web', '--account', 'agent', '--folder', '/srv/web', '--check', 'json', '--for', '31days');
  assert.equal(duration.status, 5, duration.stderr);
  assert.match(duration.stderr, /bad_duration/);
});
