import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONFIG_DIRS, CONFIG_FILES } from '../../src/catalogue/families/files/allowlist.js';
import { readConfigFile } from '../../src/catalogue/families/files/contents.js';
import { listConfigDirectory } from '../../src/catalogue/families/files/metadata.js';
import type { AnyAction } from '../../src/catalogue/action.js';
import { matchesGlob, pathMatching } from '../../src/catalogue/params.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const SECRETS = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/passwd-',
  '/etc/sudoers',
  '/etc/sudoers.d/admins',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/sshd_config.d/../../shadow',
  '/root/.ssh/id_ed25519',
  '/root/.ssh/authorized_keys',
  '/home/alice/.ssh/id_rsa',
  '/etc/apt/auth.conf',
  '/etc/apt/auth.conf.d/creds.conf',
  '/etc/apt/apt.conf.d/proxy.conf',
  '/etc/ssl/private/ssl-cert-snakeoil.key',
  '/etc/crontab',
  '/var/spool/cron/crontabs/root',
  '/proc/self/environ',
  '/etc/systemd/system/a/b.service',
];

test('matchesGlob: * stays within one segment, is never empty, and nothing else is special', () => {
  assert.ok(matchesGlob('/etc/sysctl.d/10-a.conf', '/etc/sysctl.d/*.conf'));
  assert.ok(!matchesGlob('/etc/sysctl.d/a/b.conf', '/etc/sysctl.d/*.conf'));
  assert.ok(!matchesGlob('/etc/sysctl.d/.conf', '/etc/sysctl.d/*.conf'));
  assert.ok(!matchesGlob('/etc/sysctlXd/a.conf', '/etc/sysctl.d/*.conf'), '. is literal');
  assert.ok(!matchesGlob('/etc/hosts.bak', '/etc/hosts'), 'anchored at the end');
  assert.ok(!matchesGlob('/x/etc/hosts', '/etc/hosts'), 'anchored at the start');
  assert.ok(!matchesGlob('/etc/a+b', '/etc/a+b+'));
  assert.ok(matchesGlob('/etc/(x)', '/etc/(x)'));
  assert.ok(matchesGlob('/home/bob/.ssh/authorized_keys', '/home/*/.ssh/authorized_keys'));
  assert.ok(!matchesGlob('/home/bob/x/.ssh/authorized_keys', '/home/*/.ssh/authorized_keys'));
});

test('pathMatching accepts only normalised absolute paths on the list', () => {
  const v = pathMatching(['/etc/hosts', '/etc/sysctl.d/*.conf'], 'path');
  assert.ok(v.safeParse('/etc/hosts').success);
  assert.ok(v.safeParse('/etc/sysctl.d/99-x.conf').success);
  for (const bad of ['/etc/hostsx', 'etc/hosts', '/etc/./hosts', '/etc//hosts', '/etc/hosts/', '/etc/sysctl.d/../hosts', '/etc/sysctl.d/x.conf\n', 7, null]) {
    assert.equal(v.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test('ReadConfigFile refuses secrets, traversal, NUL and injection in the path', () => {
  const refused = [
    ...SECRETS,
    ...INJECTIONS,
    '/etc/../etc/shadow',
    '/etc/sysctl.d/../../shadow',
    '/etc/sysctl.d/../../etc/shadow',
    '/etc/hosts\u0000x',
    '/etc/hosts\n/etc/shadow',
    '/etc/./hosts',
    '//etc/hosts',
    '/etc/hosts/',
    'etc/hosts',
    '/etc/hosts ',
    '/etc/sysctl.d/*.conf/../../shadow',
    '/' + 'a/'.repeat(3000) + 'hosts',
  ];
  for (const path of refused) assert.equal(readConfigFile.params.safeParse({ path }).success, false, JSON.stringify(path).slice(0, 80));
  assert.equal(readConfigFile.params.safeParse({ path: '/etc/hosts', follow: true }).success, false, 'unknown key');
  assert.equal(readConfigFile.params.safeParse({ path: ['/etc/hosts'] }).success, false);
  for (const path of ['/etc/hosts', '/etc/passwd', '/etc/ssh/sshd_config', '/etc/sysctl.d/99-x.conf', '/etc/apt/sources.list.d/debian.sources', '/etc/systemd/system/app.service']) {
    assert.ok(readConfigFile.params.safeParse({ path }).success, path);
  }
});

test('no allowlist glob can reach a known secret', () => {
  for (const s of SECRETS) for (const g of [...CONFIG_FILES, ...CONFIG_DIRS]) assert.ok(!matchesGlob(s, g), `${g} matches ${s}`);
});

const TREE: Record<string, Node> = {
  '/etc/hosts': '127.0.0.1 localhost\n',
  '/etc/sysctl.d/99-sysctl.conf': { link: '../sysctl.conf' },
  '/etc/sysctl.d/10-real.conf': 'vm.swappiness = 10\n',
  '/etc/logrotate.d/evil': { link: '/etc/shadow' },
  '/etc/ssh': { link: '/root/.ssh' },
  '/etc/fstab': { file: 'UUID=x / ext4 defaults 0 1\n', mode: 0o600 },
  '/etc/systemd/system/app.service': { dir: true },
  '/etc/sysctl.d': { dir: true },
  '/etc/cron.d': { link: '/root' },
  '/etc/logrotate.d': { dir: true },
  '/etc/apt/sources.list.d': 'not a directory',
  '/etc': { dir: true },
};

async function run(a: AnyAction, path: string) {
  const p = a.params.parse({ path });
  const cur = await a.current(p, new FixtureHost(TREE));
  checked(a, p, cur);
  return a.mechanism(p, cur);
}
const refusal = (fn: () => Promise<unknown>, code: string) => assert.rejects(fn, (e: unknown) => e instanceof AirlockError && e.code === code);

test('ReadConfigFile scans the file, and refuses links, missing files, directories and private files', async () => {
  assert.deepEqual(await run(readConfigFile, '/etc/hosts'), [{ kind: 'fileScan', path: '/etc/hosts' }]);
  assert.deepEqual(await run(readConfigFile, '/etc/sysctl.d/10-real.conf'), [{ kind: 'fileScan', path: '/etc/sysctl.d/10-real.conf' }]);
  await refusal(() => run(readConfigFile, '/etc/sysctl.d/99-sysctl.conf'), 'symlink_in_path');
  await refusal(() => run(readConfigFile, '/etc/logrotate.d/evil'), 'symlink_in_path');
  await refusal(() => run(readConfigFile, '/etc/ssh/sshd_config'), 'symlink_in_path');
  await refusal(() => run(readConfigFile, '/etc/fstab'), 'not_world_readable');
  await refusal(() => run(readConfigFile, '/etc/systemd/system/app.service'), 'not_a_file');
  await refusal(() => run(readConfigFile, '/etc/sysctl.conf'), 'no_such_file');
  assert.equal(readConfigFile.risk, 'low');
  assert.equal(readConfigFile.readOnly, true);
  for (const g of readConfigFile.files) assert.ok(CONFIG_FILES.includes(g));
});

test('ListConfigDirectory takes only the fixed directories and lists with ls -lab --', async () => {
  for (const bad of [...INJECTIONS, '/etc', '/root', '/etc/sysctl.d/', '/etc/sysctl.d/..', '/etc/sysctl.d/../shadow', '/etc/ssh', '/etc/sysctl.d\u0000']) {
    assert.equal(listConfigDirectory.params.safeParse({ path: bad }).success, false, JSON.stringify(bad).slice(0, 40));
  }
  assert.equal(listConfigDirectory.params.safeParse({ path: '/etc/sysctl.d', all: true }).success, false);
  assert.deepEqual(await run(listConfigDirectory, '/etc/sysctl.d'), [{ kind: 'command', program: 'ls', args: ['-l', '-a', '-b', '--time-style=long-iso', '--', '/etc/sysctl.d'], paths: ['/etc/sysctl.d'] }]);
  // ls is given the name: a link at the end or on the way is refused by the trusted-path rule.
  await refusal(() => run(listConfigDirectory, '/etc/cron.d'), 'untrusted_path');
  await refusal(() => run(listConfigDirectory, '/etc/ssh/sshd_config.d'), 'untrusted_path');
  await refusal(() => run(listConfigDirectory, '/etc/apt/sources.list.d'), 'not_a_directory');
  await refusal(() => run(listConfigDirectory, '/etc/sudoers.d'), 'no_such_directory');
});
