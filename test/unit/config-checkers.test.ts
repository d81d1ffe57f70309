/**
 * The configuration checkers (issue 29): the declarations, the daemon's own parsers, and
 * RealHost.checkStaged with a real Executor on this machine: the parsers always, each checker
 * program where this machine has it (the booted test bed runs the rest:
 * test/integration/config-checkers-testbed.test.ts); the bounds (1 MiB, a YAML alias bomb, a
 * parse past its time limit while the event loop keeps answering); what a check may quote.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKER, CHECKERS, MAX_CHECKED_BYTES, MAX_PROBLEMS, PROBLEM_CHARS, type CheckerName } from '../../src/catalogue/lib/config-checkers.js';
import { parseIni, parseJson, parseTomlText, parseYaml } from '../../src/catalogue/lib/config-parsers.js';
import { locatedDiagnostics } from '../../src/catalogue/lib/checker-output.js';
import { PROGRAMS_LIB } from '../../src/catalogue/lib/programs.js';
import { Executor } from '../../src/daemon/executor.js';
import { resolvePrograms } from '../../src/daemon/programs.js';
import { RealHost } from '../../src/daemon/host.js';
import { ConfigParsers } from '../../src/daemon/config-parse.js';
import { inLane } from '../../src/daemon/run-context.js';
import { AirlockError } from '../../src/protocol/errors.js';

const programs = resolvePrograms();
const executor = new Executor({ programs });
const base = mkdtempSync(join(tmpdir(), 'airlock-checkers-'));
const checksDir = join(base, 'checks');
const host = new RealHost('debian', executor, { checksDir });
after(() => rmSync(base, { recursive: true, force: true }));

const check = (c: CheckerName, target: string, text: string) => host.checkStaged(c, target, text);
const refusedWith = (code: string) => (e: unknown) => e instanceof AirlockError && e.code === code;

test('every checker is declared whole: its program in the library table, access control high, a live check wherever it is not staged', () => {
  assert.deepEqual(Object.keys(CHECKER).sort(), [...CHECKERS].sort());
  const targets = ['/etc/nginx/sites-available/site', '/etc/nginx/nginx.conf', '/etc/nginx/snippets/x.conf', '/etc/ssh/sshd_config', '/etc/ssh/sshd_config.d/10-x.conf', '/etc/sudoers.d/x', '/etc/bind/named.conf.local', '/etc/systemd/system/x.service', '/etc/systemd/system/x.service.d/o.conf', '/etc/postfix/main.cf', '/etc/apache2/sites-available/x.conf', '/etc/app/x.json'];
  for (const name of CHECKERS) {
    const c = CHECKER[name];
    assert.equal(c.name, name);
    assert.equal(c.risk, name === 'sshd' || name === 'sudoers' ? 'high' : 'medium', name);
    assert.equal(c.program === null, c.parser !== null, `${name}: a program or a parser`);
    assert.equal(c.program === null, c.package === null, `${name}: a program names its package`);
    if (c.program) assert.ok(c.program in PROGRAMS_LIB, `${name}: ${c.program} is in lib/programs.ts`);
    for (const t of targets) {
      // A file systemd loads neither as a unit nor as a drop-in: nothing to check it with, so no edit checked by it.
      if (name === 'systemd-unit' && !/\.(service|timer)(\.d\/o\.conf)?$/.test(t)) {
        assert.equal(c.staged(t) || c.live(t) !== null, false, t);
        continue;
      }
      if (!c.staged(t)) assert.ok(c.live(t), `${name} on ${t}: neither staged nor live`);
      if (c.staged(t) && c.program) assert.ok(c.stagedRun, `${name} on ${t}: staged with no program run`);
    }
    const live = c.live(targets[0]!);
    if (live) assert.equal(live.noUndo, 'changes_nothing', name);
  }
  // nginx -t acts on what the text names (an OpenSSL engine is a shared object loaded as root): never before approval.
  assert.equal(CHECKER.nginx.beforeApproval, false);
  assert.equal(CHECKER.nginx.staged('/etc/nginx/snippets/x.conf'), false);
  assert.equal(CHECKER.sshd.staged('/etc/ssh/sshd_config.d/10-x.conf'), false);
  assert.equal(CHECKER['systemd-unit'].staged('/etc/systemd/system/x.service.d/o.conf'), false);
  assert.deepEqual(CHECKER['systemd-unit'].live('/etc/systemd/system/x.service.d/o.conf')?.args.at(-1), 'x.service');
  assert.equal(CHECKER.apache.staged('/etc/apache2/sites-available/x.conf'), false);
  assert.equal(CHECKER.postfix.staged('/etc/postfix/main.cf'), false);
});

test('the parsers: a valid and an invalid text each, problems with line numbers', () => {
  assert.deepEqual(parseJson('{"a": [1, 2]}\n'), []);
  assert.match(parseJson('{\n"a": 1,\n}\n')[0]!, /^line 3: /);
  assert.deepEqual(parseYaml('a: 1\nb: [x, y]\n---\nc: d\n'), []);
  assert.match(parseYaml('a: 1\nb: [x\n')[0]!, /^line \d+: /);
  assert.deepEqual(parseYaml('a: 1\nb:\n  c: 1\n  c: 2\n'), ['line 4: map keys must be unique: c'], 'a duplicate key is an error');
  // Linear: 60,000 keys in one map (the library's own unique-key check is quadratic: minutes).
  const t0 = Date.now();
  assert.deepEqual(parseYaml('x:\n' + Array.from({ length: 60_000 }, (_, i) => `  k${i}: v${i}`).join('\n')), []);
  assert.ok(Date.now() - t0 < 20_000, `took ${Date.now() - t0} ms`);
  assert.deepEqual(parseTomlText('[s]\na = 1\nb = "x"\n'), []);
  assert.match(parseTomlText('a = 1\nb = \n')[0]!, /^line 2, column \d+: /);
  assert.deepEqual(parseIni('; comment\n# also\n\n[section]\nkey = value\nempty =\n  indented=1\r\n'), []);
  assert.deepEqual(parseIni('[ok]\nno equals here\n[bad\n=novalue\n'), ['line 2: not a comment, a [section] or key = value', 'line 3: a section header must be [name] alone on its line', 'line 4: not a comment, a [section] or key = value']);
  const many = parseIni('x\n'.repeat(1000));
  assert.equal(many.length, MAX_PROBLEMS, 'bounded');
});

test('a YAML alias bomb is refused, quickly', () => {
  const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');
  const t0 = Date.now();
  const problems = parseYaml(bomb);
  assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /alias/i);
});

test('what a staged check quotes: only lines that locate a problem in the text, the staging paths named as a person knows them', () => {
  const out = [
    '/etc/shadow line 1: no argument after keyword "root:$y$j9T$secret:20794:0:99999:7:::"',
    '/etc/shadow: terminating, 1 bad configuration options',
    '/var/lib/airlock/checks/check-Ab12/sshd_config line 3: Bad configuration option: Frobnicate',
    '2026/12/07 16:46:44 [emerg] 26817#26817: unknown directive "lisen" in /var/lib/airlock/checks/check-Ab12/site:2',
    'x.service: Command foo is not executable: No such file or directory',
  ].join('\n');
  const { lines, left } = locatedDiagnostics(
    out,
    [
      { text: '/var/lib/airlock/checks/check-Ab12/sshd_config', at: 'anywhere', shownAs: '/etc/ssh/sshd_config' },
      { text: '/var/lib/airlock/checks/check-Ab12/site', at: 'anywhere', shownAs: '/etc/nginx/sites-available/site' },
      { text: 'x.service', at: 'start', shownAs: 'x.service' },
    ],
    MAX_PROBLEMS,
    PROBLEM_CHARS,
  );
  assert.deepEqual(lines, ['/etc/ssh/sshd_config line 3: Bad configuration option: Frobnicate', '[emerg] unknown directive "lisen" in /etc/nginx/sites-available/site:2', 'x.service: Command foo is not executable: No such file or directory']);
  assert.equal(left, 2);
  assert.ok(!lines.join('\n').includes('secret'));
});

test('checkStaged with the parsers: valid passes, invalid answers the problems; the staging area is left empty', async () => {
  assert.deepEqual(await check('json', '/etc/app/config.json', '{"a": 1}\n'), { ok: true });
  const bad = await check('json', '/etc/app/config.json', '{"a": }\n');
  assert.equal(bad.ok, false);
  assert.deepEqual(await check('yaml', '/etc/app/c.yaml', 'a: 1\n'), { ok: true });
  assert.equal((await check('yaml', '/etc/app/c.yaml', 'a: [1\n')).ok, false);
  assert.deepEqual(await check('toml', '/etc/app/c.toml', 'a = 1\n'), { ok: true });
  assert.equal((await check('toml', '/etc/app/c.toml', 'a = \n')).ok, false);
  assert.deepEqual(await check('ini', '/etc/app/c.ini', '[a]\nb = c\n'), { ok: true });
  assert.deepEqual(await check('ini', '/etc/app/c.ini', '[a]\nb c\n'), { ok: false, problems: ['line 2: not a comment, a [section] or key = value'] });
  // Bytes that are not UTF-8 (U+DC00 + byte, as Host.readFile gives them): JSON requires UTF-8; INI has no rule.
  assert.equal((await check('json', '/etc/app/c.json', '{"a": "\udce9"}')).ok, false);
  assert.deepEqual(await check('ini', '/etc/app/c.ini', 'a = caf\udce9\n'), { ok: true });
});

test('checkStaged refuses more than 1 MiB, and checks exactly 1 MiB', async () => {
  const json = (n: number) => `"${'a'.repeat(n - 2)}"`;
  assert.deepEqual(await check('json', '/etc/app/big.json', json(MAX_CHECKED_BYTES)), { ok: true });
  await assert.rejects(check('json', '/etc/app/big.json', json(MAX_CHECKED_BYTES + 1)), refusedWith('too_large'));
  await assert.rejects(check('nginx', '/etc/nginx/sites-available/big', 'x'.repeat(MAX_CHECKED_BYTES + 1)), refusedWith('too_large'));
});

test('checkStaged: a YAML alias bomb through the daemon is refused within seconds', async () => {
  const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');
  const t0 = Date.now();
  const r = await check('yaml', '/etc/app/bomb.yaml', bomb);
  assert.equal(r.ok, false);
  assert.match((r as { problems: string[] }).problems[0]!, /alias/i);
  assert.ok(Date.now() - t0 < 15_000, `took ${Date.now() - t0} ms (a worker's start included)`);
});

test('a parse past its time limit is stopped and refuses the text, and the event loop keeps answering meanwhile', async () => {
  const parsers = new ConfigParsers({ parseMs: 5, charsPerMs: 1e9, startMs: 30_000 });
  const text = Array.from({ length: 40_000 }, (_, i) => `key${i}: [a, b, {c: d}]`).join('\n'); // about 1 MiB
  let last = Date.now();
  let worst = 0;
  const tick = setInterval(() => {
    worst = Math.max(worst, Date.now() - last);
    last = Date.now();
  }, 5);
  try {
    const problems = await parsers.parse('yaml', text);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^a YAML parser did not finish within \d ms: the text is refused$/);
  } finally {
    clearInterval(tick);
  }
  assert.ok(worst < 500, `the event loop stalled ${worst} ms`);
  // A tenth of it parses within the real limit.
  assert.deepEqual(await new ConfigParsers().parse('yaml', text.slice(0, text.indexOf('\n', text.length / 10))), []);
});

test('checkStaged refusals: a target checked only live, nginx before approval, an unknown checker, a bad path', async () => {
  await assert.rejects(check('sshd', '/etc/ssh/sshd_config.d/10-x.conf', 'Port 22\n'), refusedWith('not_staged'));
  await assert.rejects(check('apache', '/etc/apache2/sites-available/x.conf', ''), refusedWith('not_staged'));
  await assert.rejects(check('nginx', '/etc/nginx/sites-available/site', 'server { listen 80; }\n'), refusedWith('check_after_approval'));
  await assert.rejects(check('named', '/etc/bind/named.conf.local', ''), refusedWith('check_after_approval'));
  await assert.rejects(check('nope' as CheckerName, '/etc/x', ''), refusedWith('unknown_checker'));
  await assert.rejects(check('json', '/etc/../x.json', '{}'), refusedWith('bad_path'));
  await assert.rejects(check('json', 'etc/x.json', '{}'), refusedWith('bad_path'));
});

test('checkStaged: a checker whose program this host lacks names the package to install', async () => {
  // This machine's programs but visudo's: a host without sudo, whatever this one has installed.
  const { [CHECKER.sudoers.program!]: _visudo, ...withoutVisudo } = programs;
  const lacking = new RealHost('debian', new Executor({ programs: withoutVisudo }), { checksDir });
  await inLane('change', () =>
    assert.rejects(lacking.checkStaged('sudoers', '/etc/sudoers.d/x', ''), (e: unknown) => {
      assert.ok(e instanceof AirlockError && e.code === 'program_missing', String(e));
      assert.match(e.hint ?? '', new RegExp(`install the ${CHECKER.sudoers.package} package`));
      return true;
    }),
  );
});

const has = (c: CheckerName) => (programs[CHECKER[c].program!] ? false : `${CHECKER[c].program} is not installed here (the test bed runs it)`);

/**
 * systemd-analyze verify stamps /run/systemd/systemd-units-load, the time systemd last loaded its
 * units, on whatever host runs it; findmnt --verify then says /etc/fstab is newer than systemd's
 * view (the volumes scenarios fail on it). Run here on this machine, the test puts the stamp back.
 */
const UNITS_LOAD = '/run/systemd/systemd-units-load';
function keepUnitsLoadStamp(): () => void {
  const was = existsSync(UNITS_LOAD) ? statSync(UNITS_LOAD) : null;
  return () => {
    if (!was) rmSync(UNITS_LOAD, { force: true });
    else utimesSync(UNITS_LOAD, was.atime, was.mtime);
  };
}

test('systemd-unit: systemd-analyze verify on a staged unit file', { skip: has('systemd-unit') }, async (t) => {
  t.after(keepUnitsLoadStamp());
  assert.deepEqual(await check('systemd-unit', '/etc/systemd/system/airlock-probe.service', '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n'), { ok: true });
  const r = await check('systemd-unit', '/etc/systemd/system/airlock-probe.service', '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\nType=bogus\n');
  assert.equal(r.ok, false);
  const problems = (r as { problems: string[] }).problems;
  assert.match(problems[0]!, /^\/etc\/systemd\/system\/airlock-probe\.service:5: .*bogus/, problems.join('\n'));
  assert.match(problems.at(-1)!, /systemd-analyze verify failed \(exit status 1\)/);
  assert.ok(!problems.join('\n').includes(checksDir), 'the staging path is never shown');
});

test('sshd, sudoers: staged where this machine has them', async (t) => {
  if (!has('sshd')) {
    assert.equal((await check('sshd', '/etc/ssh/sshd_config', 'Frobnicate yes\n')).ok, false);
  } else t.diagnostic('no sshd here');
  if (!has('sudoers')) {
    assert.deepEqual(await check('sudoers', '/etc/sudoers.d/probe', 'root ALL=(ALL:ALL) ALL\n'), { ok: true });
    assert.equal((await check('sudoers', '/etc/sudoers.d/probe', 'root ALL=(ALL:ALL\n')).ok, false);
  } else t.diagnostic('no visudo here');
});

test('every check left the staging area empty, and it is the daemon user\'s alone', () => {
  assert.deepEqual(readdirSync(checksDir), []);
  assert.equal(statSync(checksDir).mode & 0o777, 0o700);
});
