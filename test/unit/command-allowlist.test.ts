/**
 * Commands root runs later on the agent's behalf (a sudo grant, a cron job, the commands of
 * the service a timer starts) come from one allowlist with a grammar
 * (src/catalogue/lib/agent-programs.ts). The attacks of issue 22, finding 4: programs that
 * are root-owned ELF executables in a system directory, no program runner, and still make
 * whoever holds the grant root (newusers, chgpasswd, dpkg-statoverride, systemd-firstboot)
 * or take the host down (fsfreeze), or run programs (cgexec). Each is refused, whatever
 * its arguments, by the one check (src/catalogue/lib/agent-command.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentCommandRefusal, commandArgument } from '../../src/catalogue/lib/agent-command.js';
import { AGENT_GRAMMARS, AGENT_PROGRAMS, VALUE_TYPES } from '../../src/catalogue/lib/agent-programs.js';
import { exampleArgs, parseGrammar } from '../../src/catalogue/lib/command-grammar.js';
import { FixtureHost, type Node } from './catalogue-fixture-host.js';

const EXE = { file: '\x7fELF\x02\x01', mode: 0o755 };

/** The six command lines the review got past the old denylist. */
export const FINDING_4_ATTACKS: ReadonlyArray<[string, string[]]> = [
  ['/usr/bin/cgexec', ['-g', 'cpu:x', 'sh']],
  ['/usr/sbin/newusers', ['/var/lib/x/users']],
  ['/usr/bin/systemd-firstboot', ['--force', '--root-password=X']],
  ['/usr/bin/dpkg-statoverride', ['--update', '--add', 'root', 'root', '0666', '/etc/shadow']],
  ['/usr/sbin/chgpasswd', []],
  ['/usr/sbin/fsfreeze', ['--freeze', '/']],
];

const tree: Record<string, Node> = { '/': { dir: true }, '/etc/shadow': { file: 'root:*:1::::::\n', mode: 0o640 }, '/var/lib/x/users': 'x\n' };
for (const [program] of FINDING_4_ATTACKS) tree[program] = EXE;

test('the six programs the review got past the denylist are refused, as a grant, a cron job and a timer\'s command', async () => {
  const host = new FixtureHost(tree);
  for (const [program, args] of FINDING_4_ATTACKS) {
    for (const what of ['the sudo grant', 'the cron job', 'x.service, which the timer starts']) {
      const r = await agentCommandRefusal(host, { what, program, args });
      assert.ok(r, `${program} ${args.join(' ')} passed as ${what}`);
      assert.equal(r.code, 'program_refused', `${program}: ${r.message}`);
      assert.match(r.message, /is not one of the programs/, program);
    }
  }
});

const root = (): FixtureHost => {
  const t: Record<string, Node> = { '/': { dir: true }, '/srv': { dir: true }, '/srv/cache': { dir: true }, '/var/cache/apt': { dir: true }, '/etc/logrotate.conf': 'weekly\n', '/tmp': { dir: true, mode: 0o1777 } };
  for (const p of AGENT_PROGRAMS) t[p.program] = EXE;
  return new FixtureHost(t);
};
const refusal = (program: string, args: string[]) => agentCommandRefusal(root(), { what: 'the cron job', program, args });

test('the table: real paths in /usr/bin or /usr/sbin, one row each, every usage line starts with the program', () => {
  const seen = new Set<string>();
  for (const p of AGENT_PROGRAMS) {
    assert.match(p.program, /^\/usr\/s?bin\/[a-z][a-z0-9-]*$/);
    assert.ok(!seen.has(p.program), p.program);
    seen.add(p.program);
    for (const u of p.usage) assert.equal(u.split(' ')[0], p.program.slice(p.program.lastIndexOf('/') + 1), u);
    assert.equal(AGENT_GRAMMARS.get(p.program)!.length, p.usage.length);
  }
  for (const [name, t] of Object.entries(VALUE_TYPES)) {
    assert.match(t.sample, t.syntax, `${name}'s sample fits its syntax`);
    assert.ok(!t.sample.startsWith('-'), name);
    assert.ok(commandArgument.safeParse(t.sample).success, name);
  }
});

test('the grammar reader refuses a usage line it could read two ways', () => {
  for (const bad of ['x [ TAG ] WORD', 'x WORD... -t', 'x [ -t TAG', 'x BOGUS', 'x [ [ -a ] ]', 'x [ -a WORD... ]']) assert.throws(() => parseGrammar(bad, VALUE_TYPES), /grammar:/, bad);
});

test('every usage line passes with only what it needs and with every option; one word more, one word less or a word changed does not', async () => {
  for (const p of AGENT_PROGRAMS) {
    for (const g of AGENT_GRAMMARS.get(p.program)!) {
      for (const full of [false, true]) {
        const args = exampleArgs(g, full);
        assert.equal(await refusal(p.program, args), null, `${p.program} ${args.join(' ')}`);
        for (const extra of ['--help', '-o', '-x']) {
          const more = await refusal(p.program, [...args, extra]);
          assert.ok(more && /^(arguments_refused|untrusted_argument)$/.test(more.code), `${p.program} ${[...args, extra].join(' ')} passed`);
        }
        for (let i = 0; i < args.length; i++) {
          const changed = args.map((a, j) => (j === i ? `-x${a}` : a));
          assert.notEqual(await refusal(p.program, changed), null, `${p.program} ${changed.join(' ')} passed`);
        }
      }
      if (g.items.some((i) => !i.optional)) assert.notEqual(await refusal(p.program, exampleArgs(g, false).slice(0, -1)), null, `${g.usage} without its last word`);
    }
  }
});

test('what the grammars leave out: programs run by options, free output files, pagers, template instances, options glued into values', async () => {
  const out: Array<[string, string[]]> = [
    ['/usr/bin/find', ['/srv/cache', '-mtime', '+7', '-exec', 'rm', '{}', ';']],
    ['/usr/bin/find', ['/srv/cache', '-mtime', '+7', '-fprint', '/etc/x']],
    ['/usr/bin/find', ['/srv/cache', '-mtime', '+7', '-delete', '-o', '-delete']],
    ['/usr/bin/find', ['-L', '/srv/cache', '-mtime', '+7', '-delete']],
    ['/usr/bin/find', ['/tmp', '-mtime', '+7', '-delete']],
    ['/usr/bin/find', ['/', '-mtime', '+7', '-delete']],
    ['/usr/bin/find', ['/etc/ssh', '-mtime', '+7', '-delete']],
    ['/usr/bin/find', ['/var/log', '-mtime', '+7', '-delete']],
    ['/usr/bin/apt-get', ['-o', 'APT::Update::Pre-Invoke::=x', 'update']],
    ['/usr/bin/apt-get', ['-oDir::Bin::dpkg=/srv/x', 'update']],
    ['/usr/bin/apt-get', ['install', '-y', 'x']],
    ['/usr/bin/apt-get', ['upgrade']],
    ['/usr/bin/apt-get', ['changelog', 'bash']],
    ['/usr/bin/journalctl', []],
    ['/usr/bin/journalctl', ['--vacuum-size=1G', '--file=/srv/x']],
    ['/usr/bin/journalctl', ['--vacuum-size=-1G']],
    ['/usr/bin/systemctl', ['start', 'getty@tty1.service']],
    ['/usr/bin/systemctl', ['start', 'reboot.target']],
    ['/usr/bin/systemctl', ['edit', 'cron.service']],
    ['/usr/bin/systemctl', ['status', 'cron.service']],
    ['/usr/bin/systemctl', ['start', '--', 'cron.service']],
    ['/usr/bin/systemctl', ['start', '-H', 'cron.service']],
    ['/usr/sbin/logrotate', ['--state=/etc/shadow', '/etc/logrotate.conf']],
    ['/usr/sbin/logrotate', ['/srv/x.conf']],
    ['/usr/sbin/logrotate', ['/etc/logrotate.conf', '/etc/logrotate.conf']],
    ['/usr/bin/logger', ['-f', '/etc/shadow']],
    ['/usr/bin/logger', ['ran', '-f', '/etc/shadow']],
    ['/usr/bin/logger', ['-t', '-f', 'x']],
    ['/usr/bin/df', ['--output=source,size', '/srv', '--exclude-type=x']],
    ['/usr/sbin/fstrim', ['--freeze', '/']],
    ['/usr/bin/uptime', ['-p', '-s']],
  ];
  for (const [program, args] of out) assert.notEqual(await refusal(program, args), null, `${program} ${args.join(' ')} passed`);
});

test('a refusal says what is allowed: the whole table for a program off it, the usage lines and types for one on it', async () => {
  const off = (await refusal('/usr/sbin/newusers', ['/srv/x']))!;
  assert.equal(off.category, 'authorization');
  for (const p of AGENT_PROGRAMS) assert.ok(off.message.includes(`${p.program}: ${p.usage.join(' or ')}`), p.program);
  const on = (await refusal('/usr/bin/journalctl', ['--vacuum-size=1T']))!;
  assert.equal(on.code, 'arguments_refused');
  assert.match(on.message, /journalctl --vacuum-size=1T fits none of the usage lines Airlock allows for it \(journalctl --rotate: argument 1 \(--vacuum-size=1T\) is not --rotate; journalctl --vacuum-size=SIZE: argument 1 \(--vacuum-size=1T\) is not --vacuum-size=SIZE;/);
  assert.match(on.message, /SIZE is a size: a number and K, M or G/);
  assert.equal(on.hint, 'write the arguments as one of: journalctl --rotate; journalctl --vacuum-size=SIZE; journalctl --vacuum-time=AGE; journalctl --vacuum-files=INT');
});

test('the actions whose commands pass this check are the ones policy knows make the host run programs', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { RUNS_PROGRAMS } = await import('../../src/policy/policy.js');
  const families = join(import.meta.dirname, '..', '..', 'src', 'catalogue', 'families');
  const callers: string[] = [];
  for (const f of await readdir(families, { recursive: true })) {
    if (f.endsWith('.ts') && (await readFile(join(families, f), 'utf8')).includes('agentCommandRefusal(')) callers.push(f);
  }
  // A new caller names its actions here, and they declare runsPrograms (policy check warns on rules for them).
  assert.deepEqual(callers.sort(), ['privilege/sudo-grants.ts', 'scheduling/cron.ts', 'scheduling/timers.ts']);
  const { CATALOGUE } = await import('../../src/catalogue/index.js');
  for (const a of ['CreateSudoGrant', 'AddCronJob', 'CreateTimer']) {
    const spec = CATALOGUE.get(a)!;
    assert.ok(!spec.readOnly && spec.runsPrograms, `${a} declares runsPrograms`);
    assert.ok(RUNS_PROGRAMS.includes(a), a);
  }
});

test('every change declares whether it makes the host run programs, and policy reads only that declaration', async () => {
  const { CATALOGUE } = await import('../../src/catalogue/index.js');
  const { RUNS_PROGRAMS } = await import('../../src/policy/policy.js');
  const changes = [...CATALOGUE.values()].filter((a) => !a.readOnly);
  assert.deepEqual(changes.filter((a) => typeof (a as { runsPrograms?: unknown }).runsPrograms !== 'boolean').map((a) => a.name), []);
  assert.deepEqual([...RUNS_PROGRAMS].sort(), changes.filter((a) => !a.readOnly && a.runsPrograms).map((a) => a.name).sort());
  // What the declaration covers, by family: units started, packages' maintainer scripts, jobs, containers, grants.
  for (const name of ['InstallPackage', 'UpgradeAll', 'StartService', 'RestartService', 'EnableTimer', 'AddCronJob', 'CreateTimer', 'StartContainer', 'CreateSudoGrant']) {
    assert.ok(RUNS_PROGRAMS.includes(name), `${name} makes the host run programs`);
  }
  for (const name of ['CreateUser', 'SetSysctl', 'AddHostsEntry']) assert.ok(!RUNS_PROGRAMS.includes(name), `${name} runs no program of its own choosing`);
});

test("housekeeping deletes nothing from the record: Airlock's checkpoints and code, the audit and journal logs", () => {
  const cleanup = VALUE_TYPES.CLEANUP_DIR.syntax;
  for (const dir of ['/var/log/airlock', '/var/log/airlock/old', '/var/log/audit', '/var/log/journal/abc']) assert.ok(!cleanup.test(dir), `${dir} is housekeeping`);
  for (const dir of ['/var/log/nginx', '/var/log/airlockish', '/var/cache/apt', '/srv/app/tmp', '/opt/app/cache']) assert.ok(cleanup.test(dir), `${dir} is refused`);
  assert.match(VALUE_TYPES.CLEANUP_DIR.describe, /not in \/var\/log\/airlock/);
});
