/**
 * The configuration checkers on the booted Debian test bed (issue 29), where nginx-light,
 * openssh-server, sudo and systemd are installed: RealHost.checkStaged, built as the daemon builds
 * it, run as root inside the container by test/support/checker-probe.ts. Each checker passes a
 * valid text and refuses an invalid one with its own words, located in the target, never the
 * lines of a root-only file the text includes; nginx refuses before approval; a checker whose
 * program is missing names its package; nothing is left staged and nothing is written elsewhere.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startSandbox, type Sandbox } from '../../src/sandbox/overlay.js';
import { buildTestbedRoot } from '../../src/sandbox/testbed-root.js';
import type { CheckerName } from '../../src/catalogue/lib/config-checkers.js';

const skip = process.getuid?.() !== 0 ? 'needs root (a booted test bed)' : false;
const PROBE = fileURLToPath(new URL('../support/checker-probe.ts', import.meta.url));
const CHECKS = '/var/lib/airlock-checks';
let box: Sandbox;

before(async () => {
  if (skip) return;
  box = await startSandbox({ mode: 'boot', lower: buildTestbedRoot(), command: () => [] });
});
after(() => box?.stop());

interface Case {
  checker: CheckerName;
  target: string;
  content: string;
  approved?: boolean;
}
type Answer = { result?: { ok: boolean; problems?: string[] }; refused?: string; message?: string; hint?: string; error?: string };

/** Runs the cases in one process inside the container; the answers, and what the staging directory still holds. */
async function probe(cases: Case[]): Promise<{ answers: Answer[]; left: string[] }> {
  const r = await box.run(process.execPath, ['--import', import.meta.resolve('tsx'), PROBE, CHECKS, JSON.stringify(cases)]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { answers: lines.slice(0, -1), left: lines.at(-1).left };
}

const SITE = '/etc/nginx/sites-available/probe';
const INCLUDE_SHADOW = { nginx: 'include /etc/shadow;\n', sshd: 'Include /etc/shadow\n', sudoers: '@include /etc/shadow\n' };

test('each checker on the test bed: valid passes, invalid fails in its own located words, an included root-only file is never quoted', { skip }, async () => {
  const nginxConf = (await box.readFile('/etc/nginx/nginx.conf'))!;
  const sshdConfig = (await box.readFile('/etc/ssh/sshd_config'))!;
  const cases: Case[] = [
    // 0-3 nginx: a site inside the daemon's wrapper, and nginx.conf whole; on approved text only.
    { checker: 'nginx', target: SITE, content: 'server {\n  listen 8080;\n  server_name probe;\n  location / { return 200; }\n}\n', approved: true },
    { checker: 'nginx', target: SITE, content: 'server {\n  lisen 8080;\n}\n', approved: true },
    { checker: 'nginx', target: '/etc/nginx/nginx.conf', content: nginxConf, approved: true },
    { checker: 'nginx', target: '/etc/nginx/nginx.conf', content: nginxConf.replace('events {', 'events {\n\tfrobnicate on;'), approved: true },
    // 4 before approval
    { checker: 'nginx', target: SITE, content: 'server { listen 8080; }\n' },
    // 5 an included /etc/shadow
    { checker: 'nginx', target: SITE, content: `server {\n  listen 8080;\n  ${INCLUDE_SHADOW.nginx}}\n`, approved: true },
    // 6-8 sshd
    { checker: 'sshd', target: '/etc/ssh/sshd_config', content: sshdConfig },
    { checker: 'sshd', target: '/etc/ssh/sshd_config', content: `${sshdConfig}\nFrobnicate yes\n` },
    { checker: 'sshd', target: '/etc/ssh/sshd_config', content: `${INCLUDE_SHADOW.sshd}${sshdConfig}` },
    // 9-11 sudoers
    { checker: 'sudoers', target: '/etc/sudoers.d/probe', content: 'root ALL=(ALL:ALL) ALL\n' },
    { checker: 'sudoers', target: '/etc/sudoers.d/probe', content: 'root ALL=(ALL:ALL ALL\n' },
    { checker: 'sudoers', target: '/etc/sudoers.d/probe', content: `${INCLUDE_SHADOW.sudoers}root ALL=(ALL:ALL) ALL\n` },
    // 12-13 systemd-unit
    { checker: 'systemd-unit', target: '/etc/systemd/system/probe.service', content: '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n' },
    { checker: 'systemd-unit', target: '/etc/systemd/system/probe.service', content: '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\nType=bogus\n' },
    // 14 named: not installed on the test bed
    { checker: 'named', target: '/etc/bind/named.conf.local', content: 'options { };\n', approved: true },
    // 15-18 the parsers, in the container too
    { checker: 'json', target: '/etc/app/c.json', content: '{"a": 1}' },
    { checker: 'yaml', target: '/etc/app/c.yaml', content: 'a: [1\n' },
    { checker: 'toml', target: '/etc/app/c.toml', content: 'a = 1\n' },
    { checker: 'ini', target: '/etc/app/c.ini', content: '[a]\nb\n' },
  ];
  const { answers: a, left } = await probe(cases);
  const ok = (i: number) => assert.deepEqual(a[i], { result: { ok: true } }, `case ${i}: ${JSON.stringify(a[i])}`);
  const fails = (i: number, ...lines: RegExp[]) => {
    assert.equal(a[i]?.result?.ok, false, `case ${i}: ${JSON.stringify(a[i])}`);
    const problems = a[i]!.result!.problems!;
    for (const re of lines) assert.ok(problems.some((p) => re.test(p)), `case ${i}: no line matches ${re}:\n${problems.join('\n')}`);
    assert.ok(!problems.join('\n').includes(CHECKS), `case ${i}: the staging path is not shown`);
    assert.ok(problems.length <= 20 && problems.every((p) => p.length <= 201), `case ${i}: bounded`);
    return problems;
  };
  ok(0);
  fails(1, /^\[emerg\] unknown directive "lisen" in \/etc\/nginx\/sites-available\/probe:2$/, /^nginx -t failed \(exit status 1\)$/);
  ok(2);
  fails(3, /unknown directive "frobnicate" in \/etc\/nginx\/nginx\.conf:\d+/);
  assert.equal(a[4]?.refused, 'check_after_approval', JSON.stringify(a[4]));
  for (const i of [5, 8, 11]) {
    const problems = fails(i);
    assert.ok(!/root:|daemon:|\$y\$|:\d{5}:/.test(problems.join('\n')), `case ${i} quotes /etc/shadow:\n${problems.join('\n')}`);
    assert.match(problems.at(-1)!, /not quoted \(they locate nothing in this text\)/, `case ${i}`);
  }
  ok(6);
  fails(7, /^\/etc\/ssh\/sshd_config: line \d+: Bad configuration option: Frobnicate$/);
  ok(9);
  fails(10, /^\/etc\/sudoers\.d\/probe:1:\d+: syntax error$/);
  ok(12);
  fails(13, /^\/etc\/systemd\/system\/probe\.service:5: .*bogus/);
  assert.equal(a[14]?.refused, 'program_missing', JSON.stringify(a[14]));
  assert.equal(a[14]?.hint, 'install the bind9-utils package');
  ok(15);
  fails(16, /^line \d+: /);
  ok(17);
  assert.deepEqual(a[18], { result: { ok: false, problems: ['line 2: not a comment, a [section] or key = value'] } });
  assert.deepEqual(left, [], 'every staging directory was removed');
});

test('a staged nginx check writes nothing outside its staging directory: the pid file and error log of the wrapper stay in it', { skip }, async () => {
  const before = await box.run('/usr/bin/stat', ['-c', '%Y %s', '/var/log/nginx/error.log']);
  const pid = await box.readFile('/run/nginx.pid'); // the test bed's own nginx runs
  const { answers, left } = await probe([{ checker: 'nginx', target: SITE, content: 'server { listen 8081; }\n', approved: true }]);
  assert.deepEqual(answers[0], { result: { ok: true } });
  assert.deepEqual(left, []);
  assert.equal((await box.run('/usr/bin/stat', ['-c', '%Y %s', '/var/log/nginx/error.log'])).stdout, before.stdout, "nginx's own error log is untouched");
  assert.equal(await box.readFile('/run/nginx.pid'), pid, "the running nginx's pid file is untouched");
  assert.equal(await box.readFile(SITE), null, 'nothing at the target');
});
