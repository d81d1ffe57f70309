import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvalsNeeded, DEFAULT_POLICY, explainPolicy, matchingRule, parsePolicy, PolicyError, valueMatches } from '../../src/policy/policy.js';

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
  assert.deepEqual(p.rules, [{ id: 'restart-web', action: 'RestartService', params: { unit: 'nginx.service' }, free: [], cooldownMs: 600_000, dailyCap: 20 }]);
  assert.deepEqual(p.notify.command, ['/usr/local/bin/page-me', '--quiet']);
  assert.notEqual(p.digest, parsePolicy(text + '\n').digest);
});

test('[approval] high: how many distinct persons approve a High change (1 by default, or 2), said by policy check', () => {
  assert.equal(DEFAULT_POLICY.highApprovers, 1);
  assert.equal(parsePolicy('[approval]\nsecond_factor_from = "medium"').highApprovers, 1);
  const two = parsePolicy('[approval]\nhigh = 2');
  assert.equal(two.highApprovers, 2);
  assert.equal(two.secondFactorFrom, 'high');
  assert.equal(approvalsNeeded(two, 'high'), 2);
  assert.equal(approvalsNeeded(two, 'medium'), 1);
  assert.equal(approvalsNeeded(DEFAULT_POLICY, 'high'), 1);
  assert.ok(explainPolicy(two).lines.some((l) => /two distinct persons must approve/.test(l)));
  assert.ok(explainPolicy(DEFAULT_POLICY).lines.some((l) => /high risk: one person approves/.test(l)));
  for (const bad of ['0', '3', '1.5', '"2"', 'true']) refused(`[approval]\nhigh = ${bad}`, /high is 1 or 2/);
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
  refused(rule('action = "CreateGroup"\nparams = { group = "a" }') + '\n' + rule('action = "CreateGroup"\nparams = { group = "b" }'), /used twice/);
  refused('[[rule]]\nid = "reads"\naction = "CreateGroup"\ncooldown_minutes = 0\ndaily_cap = 1', /reserved/);
  refused('[[rule]]\nid = "no-change"\naction = "CreateGroup"\ncooldown_minutes = 0\ndaily_cap = 1', /reserved "reads", "no-change" or "session"/);
  refused('[[rule]]\nid = "session"\naction = "CreateGroup"\ncooldown_minutes = 0\ndaily_cap = 1', /reserved/);
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

test('[masking] pseudonyms: the classes it names, explained; an unknown class is refused', () => {
  assert.deepEqual(DEFAULT_POLICY.pseudonyms, []);
  const p = parsePolicy('[masking]\npseudonyms = ["ip", "email", "ip"]\n');
  assert.deepEqual(p.pseudonyms, ['ip', 'email']);
  assert.ok(explainPolicy(p).lines.some((l) => /masking: .*ip, email become keyed pseudonyms/.test(l)));
  assert.ok(explainPolicy(DEFAULT_POLICY).lines.some((l) => /addresses and names are shown as they are/.test(l)));
  assert.throws(() => parsePolicy('[masking]\npseudonyms = ["phone"]\n'), PolicyError);
  assert.throws(() => parsePolicy('[masking]\nsecrets = "off"\n'), PolicyError, 'masking of secrets cannot be turned off');
});

test('a rule the daemon could never apply is refused, saying why and what to do', () => {
  const rule = (action: string, params: string) => `[[rule]]\nid = "r1"\naction = "${action}"\nparams = { ${params} }\ncooldown_minutes = 0\ndaily_cap = 5\n`;
  // A list parameter: a rule compares single values, so `names = "rtp*"` would never match a request.
  refused(rule('AddHostsEntry', 'ip = "10.0.0.5", names = "rtp*"'), /params\.names: AddHostsEntry's names is a list.*only strings, numbers and booleans.*so no rule can cover AddHostsEntry: a person approves these requests/);
  refused(rule('AddHostsEntry', 'ip = "10.0.0.5", names = ["rtp1"]'), /params\.names/); // TOML arrays are not constraints at all
  // A parameter every request carries must be named, or no request has exactly the rule's parameters.
  refused(rule('AddHostsEntry', 'ip = "10.0.0.5"'), /every AddHostsEntry request sets names, so a rule that does not name it never matches/);
  refused(rule('SetNtp', ''), /every SetNtp request sets enabled/);
  // A constraint of the wrong type, or a literal the parameter's own validation refuses, never matches either.
  refused(rule('SetNtp', 'enabled = "yes"'), /params\.enabled: SetNtp's enabled is a boolean, not a string/);
  refused(rule('UnitLogs', 'unit = "nginx.service", lines = "100"'), /params\.lines: UnitLogs's lines is a number, not a string/);
  refused(rule('UnitLogs', 'unit = "nginx.service", lines = 10.5'), /params\.lines: 10\.5 is not a value UnitLogs accepts for lines/);
  refused(rule('TopProcesses', 'by = "disk"'), /params\.by: "disk" is not a value TopProcesses accepts for by/);
  refused(rule('CreateGroup', 'group = "Web"'), /params\.group: "Web" is not a value CreateGroup accepts for group/);
  refused(rule('CreateGroup', 'group = 5'), /params\.group: CreateGroup's group is a string, not a number/);
  refused(rule('CreateGroup', 'nope = "x"'), /has no parameter nope \(it has group\)/);
  // What a rule can match: strings (globs too), numbers, booleans and enums.
  for (const ok of [rule('SetNtp', 'enabled = true'), rule('UnitLogs', 'unit = "nginx.service", lines = 100'), rule('UnitLogs', 'unit = "nginx.service"'), rule('TopProcesses', 'by = "cpu"'), rule('CreateGroup', 'group = "web-*"'), rule('RestartService', 'unit = "nginx.service"')]) {
    assert.doesNotThrow(() => parsePolicy(ok), ok);
  }
});

test('every parameter of every action is either matchable by a rule or refused with a reason', async () => {
  const { CATALOGUE } = await import('../../src/catalogue/index.js');
  const { ruleParameters } = await import('../../src/policy/rule-params.js');
  let matchable = 0;
  for (const a of CATALOGUE.values()) {
    for (const form of ruleParameters(a)) {
      for (const [key, p] of form.params) {
        if (p.types.length) matchable++;
        else assert.ok(p.why.length > 0, `${a.name}.${key}`);
      }
    }
  }
  assert.ok(matchable > 150, `${matchable} matchable parameters`);
});
