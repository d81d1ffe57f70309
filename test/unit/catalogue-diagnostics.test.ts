import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as kernelProcReads from '../../src/catalogue/families/kernel/proc-reads.js';
import { checkTcpPort, scanSshHostKeys } from '../../src/catalogue/families/network/reachability.js';
import { interfaceStatistics, listConnections, listNeighbours, listRoutingRules } from '../../src/catalogue/families/network/reads.js';
import { fileInfo } from '../../src/catalogue/families/files/metadata.js';
import { searchConfigFile, searchText } from '../../src/catalogue/families/files/contents.js';
import { listBoots, verifyJournal } from '../../src/catalogue/families/logging/journal-files.js';
import { kernelMessages } from '../../src/catalogue/families/logging/journal-query.js';
import { showJournaldConfig } from '../../src/catalogue/families/logging/journald.js';
import { processesOfUser, processLimits, processTree } from '../../src/catalogue/families/processes/reads.js';
import { command } from '../../src/catalogue/mechanism.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { actionRunner, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// The diagnostics actions (once one file, diagnostics.ts), each now in its own family's folder.
const actions: AnyAction[] = [
  ...Object.values(kernelProcReads).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a),
  listNeighbours, listRoutingRules, interfaceStatistics, listConnections, scanSshHostKeys, checkTcpPort,
  listBoots, kernelMessages, showJournaldConfig, verifyJournal, processTree, processesOfUser, processLimits, fileInfo, searchConfigFile,
];
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www:/var/www:/usr/sbin/nologin\nalice:x:1000:1000::/home/alice:/bin/bash\n';

/** The /proc files readProcess reads for one process. */
function proc(pid: number, p: { comm?: string; uid?: number; tgid?: number } = {}): Record<string, Node> {
  const { comm = 'nginx', uid = 33, tgid = pid } = p;
  return {
    [`/proc/${pid}/stat`]: `${pid} (${comm}) S 1 ${pid} ${pid} 0 -1 4194560 152 0 0 0 0 0 0 0 20 0 1 0 398645 2990080 393 18446744073709551615 0 0 0 0 0 0 0 4096 0 1 0 0 17 0 0 0 0 0 0\n`,
    [`/proc/${pid}/status`]: `Name:\t${comm}\nState:\tS (sleeping)\nTgid:\t${tgid}\nPid:\t${pid}\nPPid:\t1\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`,
    [`/proc/${pid}/cgroup`]: '0::/system.slice/nginx.service\n',
  };
}

const LINKS = [
  { ifname: 'lo', flags: ['LOOPBACK', 'UP'], operstate: 'UNKNOWN', addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host' }] },
  { ifname: 'eth0', flags: ['UP'], operstate: 'UP', addr_info: [{ family: 'inet', local: '192.0.2.10', prefixlen: 24, scope: 'global' }] },
];

function hostWith(tree: Record<string, Node> = {}, programs: Partial<Record<ProgramName, CommandOutput>> = {}) {
  return new FixtureHost(
    {
      '/etc/passwd': PASSWD,
      '/proc/stat': 'cpu 1 2 3\nbtime 1795981373\n',
      '/etc/ssh/sshd_config': 'PermitRootLogin no\n',
      '/etc/hosts': '127.0.0.1 localhost\n',
      '/etc/logrotate.d': { dir: true },
      ...tree,
    },
    (program, args) => {
      if (program === 'ip' && args.includes('addr')) return { code: 0, stdout: JSON.stringify(LINKS), stderr: '' };
      if (program === 'ip' && args.includes('route')) return { code: 0, stdout: '[]', stderr: '' };
      return programs[program] ?? { code: 127, stdout: '', stderr: 'not scripted' };
    },
  );
}

test('diagnostics actions keep their real family and are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, string, boolean]> = {
    ListNeighbours: ['network', 'low', true],
    ListRoutingRules: ['network', 'low', true],
    InterfaceStatistics: ['network', 'low', true],
    ListConnections: ['network', 'low', true],
    ScanSshHostKeys: ['network', 'low', true],
    CheckTcpPort: ['network', 'low', true],
    ListBoots: ['logging', 'low', true],
    KernelMessages: ['logging', 'medium', true],
    ShowJournaldConfig: ['logging', 'low', true],
    VerifyJournal: ['logging', 'low', true],
    ProcessTree: ['processes', 'low', true],
    ProcessesOfUser: ['processes', 'low', true],
    ProcessLimits: ['processes', 'low', true],
    FileInfo: ['files', 'low', true],
    SearchConfigFile: ['files', 'low', true],
    KernelCommandLine: ['kernel', 'low', true],
    ResourcePressure: ['kernel', 'low', true],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.deepEqual([a.family, a.risk, a.readOnly], expected[a.name], a.name);
    assert.equal(a.reboot, false, a.name);
    assert.equal(a.rollback, undefined, a.name); // a read has nothing to undo
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false, `${a.name} refuses unknown keys`);
  }
});

test('every string parameter refuses the injection strings', () => {
  const fields: Array<[string, string, Record<string, unknown>]> = [
    ['InterfaceStatistics', 'interface', {}],
    ['ScanSshHostKeys', 'host', {}],
    ['CheckTcpPort', 'host', { port: 443 }],
    ['ProcessesOfUser', 'user', {}],
    ['FileInfo', 'path', {}],
    ['SearchConfigFile', 'path', { text: 'Port' }],
    ['SearchConfigFile', 'text', { path: '/etc/ssh/sshd_config' }],
  ];
  for (const [name, field, rest] of fields) {
    for (const bad of INJECTIONS) {
      // A search text may hold single spaces between words ("PermitRootLogin no"): harmless in one argv element.
      if (field === 'text' && bad === 'a b') continue;
      assert.equal(byName(name).params.safeParse({ ...rest, [field]: bad }).success, false, `${name}.${field} accepted ${JSON.stringify(bad)}`);
    }
  }
  for (const bad of ['a  b', ' a', 'a ', 'a\tb', '../etc', 'a..b', '$HOME', 'a;b', 'a\\b', 'x'.repeat(129)]) assert.equal(searchText.safeParse(bad).success, false, JSON.stringify(bad));
  for (const ok of ['PermitRootLogin', 'PermitRootLogin prohibit-password', '/var/log/*.log', 'net.ipv4.ip_forward = 1', '#Port 22', 'a.b', 'user@host']) assert.ok(searchText.safeParse(ok).success, ok);
  assert.equal(byName('ScanSshHostKeys').params.safeParse({ host: 'example.org', port: 0 }).success, false);
  assert.equal(byName('ScanSshHostKeys').params.safeParse({ host: 'example.org', port: 65536 }).success, false);
  assert.equal(byName('ScanSshHostKeys').params.safeParse({ host: 'example.org', port: '22' }).success, false);
  assert.equal(byName('KernelMessages').params.safeParse({ lines: 0 }).success, false);
  assert.equal(byName('KernelMessages').params.safeParse({ lines: 2001 }).success, false);
  assert.equal(byName('KernelMessages').params.safeParse({ lines: 10, priority: 'verbose' }).success, false);
  for (const pid of [0, -1, 1.5, 4_194_305]) assert.equal(byName('ProcessLimits').params.safeParse({ pid }).success, false, String(pid));
});

test('paths: only the files allowlist, and its directories for FileInfo', () => {
  for (const bad of ['/etc/shadow', '/etc/sudoers', '/root/.bashrc', '/etc/ssh/ssh_host_ed25519_key', '/etc/../etc/shadow', '/etc//hosts', '/etc/hosts/', 'etc/hosts']) {
    assert.equal(byName('FileInfo').params.safeParse({ path: bad }).success, false, bad);
    assert.equal(byName('SearchConfigFile').params.safeParse({ path: bad, text: 'x' }).success, false, bad);
  }
  assert.ok(byName('FileInfo').params.safeParse({ path: '/etc/sudoers.d' }).success, 'a listable directory');
  assert.equal(byName('SearchConfigFile').params.safeParse({ path: '/etc/sudoers.d', text: 'x' }).success, false, 'directories are not searched');
});

test('fixed reads run the expected argv', async () => {
  const steps = async (n: string) => (await run(n, {}, hostWith())).steps;
  assert.deepEqual(await steps('ListNeighbours'), [command('ip', ['-j', 'neigh', 'show'])]);
  assert.deepEqual(await steps('ListRoutingRules'), [command('ip', ['-j', '-4', 'rule', 'show']), command('ip', ['-j', '-6', 'rule', 'show'])]);
  assert.deepEqual(await steps('ListConnections'), [command('ss', ['-H', '-t', '-n', 'state', 'established'], { unprivileged: true })]);
  assert.deepEqual(await steps('ListBoots'), [command('journalctl', ['--list-boots', '--no-pager', '-o', 'json'])]);
  assert.deepEqual(await steps('ShowJournaldConfig'), [command('systemd-analyze', ['cat-config', '--no-pager', 'systemd/journald.conf'])]);
  assert.deepEqual(await steps('VerifyJournal'), [command('journalctl', ['--verify', '--quiet', '--no-pager'], { timeoutMs: 600_000 })]);
  assert.deepEqual(await steps('ProcessTree'), [command('ps', ['-e', '--forest', '-o', 'pid,ppid,user,stat,comm'])]);
  assert.deepEqual(await steps('KernelCommandLine'), [{ kind: 'fileScan', path: '/proc/cmdline' }]);
  assert.deepEqual(byName('KernelCommandLine').files, ['/proc/cmdline']);
});

test('InterfaceStatistics: one named interface, or all; an unknown name is refused', async () => {
  const one = await run('InterfaceStatistics', { interface: 'eth0' }, hostWith());
  assert.deepEqual(one.steps, [command('ip', ['-j', '-s', 'link', 'show', 'dev', 'eth0'])]);
  assert.deepEqual(one.shown, ['lo', 'eth0']);
  const h = hostWith();
  const all = await run('InterfaceStatistics', {}, h);
  assert.deepEqual(all.steps, [command('ip', ['-j', '-s', 'link', 'show'])]);
  assert.deepEqual(h.calls, [], 'all interfaces: nothing to read first');
  assert.match(all.preview.summary, /every interface/);
  await refused('InterfaceStatistics', { interface: 'eth9' }, hostWith(), 'no_such_interface', 'validation');
});

test('ScanSshHostKeys: resolution then a bounded key scan, port 22 by default', async () => {
  const { steps, preview } = await run('ScanSshHostKeys', { host: 'git.example.org' }, hostWith());
  assert.deepEqual(steps, [
    command('getent', ['ahosts', '--', 'git.example.org'], { okCodes: [0, 2] }),
    command('ssh-keyscan', ['-T', '5', '-p', '22', '--', 'git.example.org'], { okCodes: [0, 1], timeoutMs: 30_000 }),
  ]);
  assert.equal(preview.change, null);
  assert.ok(preview.sideEffects?.some((s) => s.includes('git.example.org:22')));
  const v6 = await run('ScanSshHostKeys', { host: '2001:db8::7', port: 2222 }, hostWith());
  assert.deepEqual((v6.steps[1] as { args: string[] }).args, ['-T', '5', '-p', '2222', '--', '2001:db8::7']);
  for (const s of [...steps, ...v6.steps]) assert.ok(s.kind === 'command' && !s.args.includes('-c'));
});

test('CheckTcpPort: resolution, then one bounded connection that sends nothing; a closed port fails the job', async () => {
  const { steps, preview } = await run('CheckTcpPort', { host: 'deb.debian.org', port: 443 }, hostWith());
  assert.deepEqual(steps, [
    command('getent', ['ahosts', '--', 'deb.debian.org'], { okCodes: [0, 2] }),
    command('nc', ['-z', '-v', '-w', '5', '--', 'deb.debian.org', '443'], { timeoutMs: 30_000 }),
  ]);
  assert.equal(preview.change, null);
  for (const bad of [0, 65536, '443', -1]) assert.equal(byName('CheckTcpPort').params.safeParse({ host: 'example.org', port: bad }).success, false, String(bad));
  assert.equal(byName('CheckTcpPort').params.safeParse({ host: 'example.org' }).success, false, 'the port is required');
});

test('KernelMessages: bounded lines, optional priority', async () => {
  assert.deepEqual((await run('KernelMessages', { lines: 100 }, hostWith())).steps, [command('journalctl', ['--dmesg', '--no-pager', '-o', 'short-iso', '-n', '100'])]);
  const { steps, preview } = await run('KernelMessages', { lines: 2000, priority: 'err' }, hostWith());
  assert.deepEqual(steps, [command('journalctl', ['--dmesg', '--no-pager', '-o', 'short-iso', '-n', '2000', '-p', 'err'])]);
  assert.match(preview.summary, /last 2000 kernel messages .* priority err/);
});

test('ProcessesOfUser: by uid; an unknown user is refused', async () => {
  const { steps, preview, shown } = await run('ProcessesOfUser', { user: 'www-data' }, hostWith());
  assert.deepEqual(steps, [command('ps', ['-o', 'pid,ppid,stat,lstart,pcpu,pmem,rss,unit,comm', '--user', '33'], { okCodes: [0, 1] })]);
  assert.deepEqual(shown, { user: 'www-data', uid: 33 });
  assert.match(preview.summary, /www-data \(uid 33\)/);
  await refused('ProcessesOfUser', { user: 'mallory' }, hostWith(), 'no_such_user', 'validation');
});

test('ProcessLimits: /proc/PID/limits of a process (init included); a free PID or a thread is refused', async () => {
  const { steps, preview } = await run('ProcessLimits', { pid: 4242 }, hostWith(proc(4242)));
  assert.deepEqual(steps, [{ kind: 'fileScan', path: '/proc/4242/limits' }]);
  assert.match(preview.summary, /nginx \(PID 4242, user www-data/);
  assert.deepEqual(byName('ProcessLimits').files, ['/proc/*/limits']);
  assert.deepEqual((await run('ProcessLimits', { pid: 1 }, hostWith(proc(1, { comm: 'systemd', uid: 0 })))).steps, [{ kind: 'fileScan', path: '/proc/1/limits' }]);
  await refused('ProcessLimits', { pid: 4243 }, hostWith(proc(4242)), 'no_such_process', 'validation');
  await refused('ProcessLimits', { pid: 4250 }, hostWith(proc(4250, { tgid: 4242 })), 'thread_id', 'validation');
});

test('FileInfo: stat of a file, a directory or a final link; a link on the way or a missing path is refused', async () => {
  const file = await run('FileInfo', { path: '/etc/ssh/sshd_config' }, hostWith());
  // stat describes the last component rather than follow it: the directories on the way are what must be root's alone.
  assert.deepEqual(file.steps, [command('stat', ['--', '/etc/ssh/sshd_config'], { paths: ['/etc/ssh/*'] })]);
  assert.match(file.preview.summary, /file, 19 bytes/);
  assert.match((await run('FileInfo', { path: '/etc/logrotate.d' }, hostWith())).preview.summary, /directory/);
  const link = await run('FileInfo', { path: '/etc/os-release' }, hostWith({ '/etc/os-release': { link: '../usr/lib/os-release' } }));
  assert.deepEqual(link.steps, [command('stat', ['--', '/etc/os-release'], { paths: ['/etc/*'] })]);
  assert.match(link.preview.summary, /symbolic link/);
  assert.deepEqual(byName('FileInfo').files, [], 'stat reads no content');
  await refused('FileInfo', { path: '/etc/ssh/sshd_config' }, hostWith({ '/etc/ssh': { link: '/root' } }), 'untrusted_path', 'authorization');
  await refused('FileInfo', { path: '/etc/ssh/sshd_config' }, hostWith({ '/etc/ssh': { dir: true, uid: 1000 } }), 'untrusted_path', 'authorization');
  await refused('FileInfo', { path: '/etc/timezone' }, hostWith(), 'no_such_file', 'validation');
});

test('SearchConfigFile: grep for plain text, under the same refusals as ReadConfigFile', async () => {
  const { steps, preview } = await run('SearchConfigFile', { path: '/etc/ssh/sshd_config', text: 'PermitRootLogin' }, hostWith());
  assert.deepEqual(steps, [command('grep', ['--fixed-strings', '--line-number', '--', 'PermitRootLogin', '/etc/ssh/sshd_config'], { okCodes: [0, 1], paths: ['/etc/ssh/sshd_config'] })]);
  assert.equal(preview.change, null);
  const anyCase = await run('SearchConfigFile', { path: '/etc/hosts', text: 'LOCALHOST', ignoreCase: true }, hostWith());
  assert.deepEqual(anyCase.steps, [command('grep', ['--fixed-strings', '--line-number', '--ignore-case', '--', 'LOCALHOST', '/etc/hosts'], { okCodes: [0, 1], paths: ['/etc/hosts'] })]);
  assert.match(anyCase.preview.summary, /in any case/);
  await refused('SearchConfigFile', { path: '/etc/fstab', text: 'x' }, hostWith(), 'no_such_file', 'validation');
  await refused('SearchConfigFile', { path: '/etc/hosts', text: 'x' }, hostWith({ '/etc/hosts': { link: '/etc/shadow' } }), 'untrusted_path', 'authorization');
  await refused('SearchConfigFile', { path: '/etc/fstab', text: 'x' }, hostWith({ '/etc/fstab': { file: 'x', mode: 0o600 } }), 'not_world_readable', 'authorization');
  await refused('SearchConfigFile', { path: '/etc/logrotate.d/apt', text: 'x' }, hostWith({ '/etc/logrotate.d/apt': { dir: true } }), 'not_a_file', 'validation');
});

test('ResourcePressure: the three pressure files, labelled; refused without PSI', async () => {
  const { steps } = await run('ResourcePressure', {}, hostWith({ '/proc/pressure/cpu': 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' }));
  assert.deepEqual(steps, [command('grep', ['--with-filename', '--regexp=^', '--', '/proc/pressure/cpu', '/proc/pressure/memory', '/proc/pressure/io'])]);
  assert.deepEqual(byName('ResourcePressure').files, ['/proc/pressure/cpu', '/proc/pressure/memory', '/proc/pressure/io']);
  await refused('ResourcePressure', {}, hostWith(), 'no_pressure_information', 'unsupported_platform');
});

test('no action passes the literal -c or an agent value before its --', async () => {
  const samples: Array<[string, Record<string, unknown>, Record<string, Node>]> = [
    ['ScanSshHostKeys', { host: 'example.org', port: 22 }, {}],
    ['CheckTcpPort', { host: 'example.org', port: 22 }, {}],
    ['SearchConfigFile', { path: '/etc/hosts', text: 'localhost' }, {}],
    ['FileInfo', { path: '/etc/hosts' }, {}],
  ];
  for (const [name, params, tree] of samples) {
    for (const s of (await run(name, params, hostWith(tree))).steps) {
      assert.equal(s.kind, 'command');
      if (s.kind !== 'command') continue;
      assert.ok(!s.args.includes('-c'), name);
      const dash = s.args.indexOf('--');
      for (const v of Object.values(params).filter((v): v is string => typeof v === 'string')) {
        if (s.args.includes(v)) assert.ok(s.args.indexOf(v) > dash && dash >= 0, `${name}: ${v} after --`);
      }
    }
  }
});
