import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POLICY, explainPolicy, matchingRule, parsePolicy, PolicyError, valueMatches } from '../../src/policy/policy.js';

const refused = (text: string, why: RegExp) => assert.throws(() => parsePolicy(text), (e: unknown) => e instanceof PolicyError && why.test(e.message), text);

test('the default policy: non-sensitive reads automatic, nothing else, second factor from high', () => {
  assert.equal(DEFAULT_POLICY.source, 'default');
  assert.equal(DEFAULT_POLICY.reads, 'auto');
  assert.deepEqual(DEFAULT_POLICY.rules, []);
  assert.equal(DEFAULT_POLICY.secondFactorFrom, 'high');
  assert.match(DEFAULT_POLICY.digest, /^sha256:e3b0c442/); // SHA-256 of the empty file
});

test('a full policy parses, and its digest is the SHA-256 of the bytes', () => {
  const text = `reads = "ask"
unattended = ["backup", "monitor"]
[approval]
second_factor_from = "medium"
[risk]
InstallPackage = "high"
[[rule]]
id = "restart-web"
action = "RestartService"
params = { unit = "nginx.service" }
cooldown_minutes = 10
daily_cap = 20
[notify]
command = ["/usr/local/bin/page-me", "--quiet"]
webhook = "https://hooks.example.org/airlock"
`;
  const p = parsePolicy(text);
  assert.equal(p.reads, 'ask');
  assert.deepEqual(p.unattended, ['backup', 'monitor']);
  assert.equal(p.secondFactorFrom, 'medium');
  assert.equal(p.riskOverrides.get('InstallPackage'), 'high');
  assert.deepEqual(p.rules, [{ id: 'restart-web', action: 'RestartService', params: { unit: 'nginx.service' }, cooldownMs: 600_000, dailyCap: 20 }]);
  assert.deepEqual(p.notify.command, ['/usr/local/bin/page-me', '--quiet']);
  assert.notEqual(p.digest, parsePolicy(text + '\n').digest);
});

test('what a policy may not say', () => {
  refused('reads = ', /not valid TOML/);
  refused('surprise = 1', /surprise|Unrecognized/i);
  refused('[risk]\nCreateUser = "low"', /never lower/);
  refused('[risk]\nNope = "high"', /no action named Nope/);
  const rule = (extra: string) => `[[rule]]\nid = "r1"\ncooldown_minutes = 0\ndaily_cap = 5\n${extra}`;
  refused(rule('action = "CreateUser"\nparams = { user = "bob" }'), /rules approve medium at most/);
  refused('[risk]\nCreateGroup = "high"\n' + rule('action = "CreateGroup"\nparams = { group = "web" }'), /rules approve medium at most/); // raised above Medium by the same file
  refused(rule('action = "CreateGroup"\nparams = { group = "*" }'), /starts with a wildcard/);
  refused(rule('action = "CreateGroup"\nparams = { group = "?eb" }'), /starts with a wildcard/);
  refused(rule('action = "ReadConfigFile"\nparams = { path = "/etc/../etc/*" }'), /\. or \.\. segments/);
  refused(rule('action = "CreateGroup"\nparams = { nope = "x" }'), /has no parameter nope/);
  refused(rule('action = "Nope"'), /no action named Nope/);
  refused(rule('action = "CreateGroup"') + '\n' + rule('action = "CreateGroup"'), /used twice/);
  refused('[[rule]]\nid = "reads"\naction = "CreateGroup"\ncooldown_minutes = 0\ndaily_cap = 1', /reserved/);
  refused('[[rule]]\nid = "r"\naction = "CreateGroup"', /cooldown_minutes|daily_cap/);
  refused('unattended = ["root; rm"]', /login name/);
  refused('[notify]\nwebhook = "file:///etc/passwd"', /webhook|protocol|URL/i);
});

test('globs never match an option, a . or .. segment, or across a /', () => {
  assert.ok(valueMatches('web-1', 'web-*'));
  assert.ok(!valueMatches('-rf', '-*'), 'a value that looks like an option never matches a glob');
  assert.ok(!valueMatches('+x', '+*'));
  assert.ok(!valueMatches('web/../x', 'web*'));
  assert.ok(!valueMatches('/srv/www/../../etc/shadow', '/srv/www/*'));
  assert.ok(!valueMatches('/srv/www/a/b', '/srv/www/*'), '* stays within one segment');
  assert.ok(valueMatches('/srv/www/index.html', '/srv/www/*'));
  assert.ok(!valueMatches('/srv/www/.', '/srv/www/*'));
  assert.ok(!valueMatches('web-1\n', 'web-*'));
  assert.ok(!valueMatches(5, 'web-*'));
  assert.ok(valueMatches(5, 5) && !valueMatches('5', 5) && valueMatches(true, true));
  assert.ok(valueMatches('web.service', 'web?service'));
  assert.ok(!valueMatches('web/service', 'web?service'), '? never matches /');
  assert.ok(valueMatches('a.b', 'a.b') && !valueMatches('axb', 'a.b'), 'a dot in a literal is a dot');
});

test('a rule covers a request only with exactly its parameter names', () => {
  const p = parsePolicy('[[rule]]\nid = "grp"\naction = "CreateGroup"\nparams = { group = "web-*" }\ncooldown_minutes = 0\ndaily_cap = 3\n');
  assert.equal(matchingRule(p, 'CreateGroup', { group: 'web-2' })?.id, 'grp');
  assert.equal(matchingRule(p, 'CreateGroup', { group: 'db-2' }), null);
  assert.equal(matchingRule(p, 'CreateGroup', { group: 'web-2', system: true }), null, 'an extra parameter is not covered');
  assert.equal(matchingRule(p, 'DeleteGroup', { group: 'web-2' }), null);
});

test('policy check explains rules and warns on dangerous ones', () => {
  const p = parsePolicy('[[rule]]\nid = "svc"\naction = "RestartService"\nparams = { unit = "ng*" }\ncooldown_minutes = 5\ndaily_cap = 3\n');
  const { lines, warnings } = explainPolicy(p);
  assert.ok(lines.some((l) => /rule svc: approves RestartService when unit matches "ng\*", at most once every 5 min and 3 times a day/.test(l)), lines.join('\n'));
  assert.ok(warnings.some((w) => /makes the host run programs/.test(w)));
  assert.ok(warnings.some((w) => /wide glob/.test(w)));
});
