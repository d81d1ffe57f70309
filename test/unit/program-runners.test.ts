/**
 * The table of shells, interpreters and program runners the daemon never runs
 * (src/catalogue/lib/program-runners.ts), and the argument alphabet of the one check for
 * commands run on the agent's behalf (src/catalogue/lib/agent-command.ts; its allowlist
 * is tested in command-allowlist.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neverRunByDaemon, programRunner, PROGRAM_RUNNERS } from '../../src/catalogue/lib/program-runners.js';
import { argumentPath, commandArgument } from '../../src/catalogue/lib/agent-command.js';
import { PROGRAMS } from '../../src/catalogue/programs.js';

test('every runner the reviews named, and the usual GTFOBins that run programs, is in the table', () => {
  const named = [
    'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1', 'ld-linux.so.2', 'ld.so', 'ld-musl-x86_64.so.1', 'ldd',
    'env', 'nice', 'nohup', 'timeout', 'setsid', 'setpriv', 'runuser', 'su', 'sudo', 'chroot', 'unshare', 'nsenter', 'xargs', 'find',
    'ssh-agent', 'setarch', 'x86_64', 'linux32', 'logsave', 'systemd-cat', 'systemd-run', 'dbus-run-session', 'script', 'strace', 'ltrace', 'gdb', 'perf',
    'busybox',
    'python3', 'python3.11', 'perl', 'perl5.36.0', 'ruby3.1', 'node', 'php8.2', 'lua5.4', 'tclsh8.6', 'awk', 'gawk', 'mawk', 'sed',
    'vi', 'vim.basic', 'less', 'more', 'man', 'ssh', 'make',
    'bash', 'dash', 'sh', 'zsh',
  ];
  for (const name of named) assert.ok(programRunner(name), `${name} is not in the table`);
  assert.ok(programRunner('/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'), 'by path too');
});

test('every entry says why, and no name is in two entries', () => {
  const seen = new Map<string, string>();
  for (const r of PROGRAM_RUNNERS) {
    assert.ok(r.why.length > 20 && /^it /.test(r.why), r.why);
    assert.ok(r.names.length > 0);
    for (const n of r.names) {
      assert.ok(!seen.has(n), `${n} is in "${seen.get(n)}" and "${r.why}"`);
      seen.set(n, r.why);
    }
  }
});

test('ordinary one-job programs are not caught by a pattern', () => {
  for (const name of ['uptime', 'df', 'free', 'id', 'hostname', 'date', 'ls', 'lsblk', 'ldapsearch', 'locale', 'logger', 'nginx', 'fstrim', 'touch', 'true', 'backup-home']) {
    assert.equal(programRunner(name), null, name);
  }
});

test('what the daemon may never run is what it must never need: shells, interpreters, runners', () => {
  for (const name of ['sh', 'bash', 'env', 'python3', 'awk', 'sed', 'find', 'xargs', 'ld-linux-x86-64.so.2', 'setarch', 'sudo', 'nsenter', 'vi', 'less']) assert.ok(neverRunByDaemon(name), name);
  for (const name of Object.keys(PROGRAMS)) assert.ok(!neverRunByDaemon(name), `${name} is in the daemon's program table`);
});

test('arguments: one alphabet that neither sudoers nor /bin/sh reads anything into, files by absolute path only', () => {
  for (const ok of ['-h', '--now', 'restart', 'nginx.service', '--output=source,size', '/', '/srv/data', '--config=/etc/x.conf', 'user@host', 'a:b', '+3', '-o=/x']) assert.ok(commandArgument.safeParse(ok).success, ok);
  for (const bad of ['', ' ', 'a b', '*', '?', '[x]', '\\', '"', '""', "'", '%', '$HOME', '`id`', ';', '|', '&', '>', '<', '(', '#', '!', '^', '~', 'a\nb', 'rel/x', './x', '/a/../b', '/a/./b', '//a', '/a/', '--f=rel/x', 'x'.repeat(256)]) {
    assert.equal(commandArgument.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.equal(argumentPath('/etc/x'), '/etc/x');
  assert.equal(argumentPath('--config=/etc/x'), '/etc/x');
  assert.equal(argumentPath('-o=/x'), '/x');
  assert.equal(argumentPath('restart'), null);
  assert.equal(argumentPath('a=/x'), null, 'not an option: refused by the alphabet rule instead');
  assert.equal(commandArgument.safeParse('a=/x').success, false);
});
