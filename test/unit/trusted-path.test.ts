/**
 * The trusted-path rule (src/catalogue/lib/trusted-path.ts) as a pure function, and the
 * daemon's checker (src/daemon/trusted-path.ts) on real directories of this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, chmodSync, chownSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { componentsOf, judgePath, untrustedPathError, type ComponentState } from '../../src/catalogue/lib/trusted-path.js';
import { checkTrustedPath } from '../../src/daemon/trusted-path.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { undeclaredPaths } from '../support/named-paths.js';

const dir = (over: Partial<ComponentState> = {}): ComponentState => ({ isDir: true, isSymlink: false, uid: 0, gid: 0, mode: 0o755, ...over });
const file = (over: Partial<ComponentState> = {}): ComponentState => ({ isDir: false, isSymlink: false, uid: 0, gid: 0, mode: 0o644, ...over });
const link: ComponentState = { isDir: false, isSymlink: true, uid: 0, gid: 0, mode: 0o777 };

test('the components of a path: every ancestor from / down, then the path itself', () => {
  assert.deepEqual(componentsOf('/srv/a/b'), [
    { component: '/', ancestor: true },
    { component: '/srv', ancestor: true },
    { component: '/srv/a', ancestor: true },
    { component: '/srv/a/b', ancestor: false },
  ]);
  assert.deepEqual(componentsOf('/'), [{ component: '/', ancestor: false }]);
  // A pattern in the last segment stands for the directory's entries: the directory is an ancestor.
  assert.deepEqual(componentsOf('/var/log/app/*.log'), [
    { component: '/', ancestor: true },
    { component: '/var', ancestor: true },
    { component: '/var/log', ancestor: true },
    { component: '/var/log/app', ancestor: true },
  ]);
});

test('a path that is not absolute and normalised, or has a pattern before its last segment, is refused', () => {
  for (const p of ['srv/a', '/srv//a', '/srv/a/', '/srv/./a', '/srv/../etc', '/srv/a\0b', '/var/log/*/x.log', '/var/lo?/x']) {
    assert.throws(() => componentsOf(p), (e: unknown) => e instanceof AirlockError && e.code === 'bad_path', p);
  }
});

test('root-owned real directories, not writable by group or others, pass; so does any owner of the last component', () => {
  assert.equal(judgePath('/srv/data', [dir(), dir(), dir({ uid: 1000, mode: 0o777 })]), null);
  assert.equal(judgePath('/etc/shadow', [dir(), dir(), file({ mode: 0o640, gid: 42 })]), null);
  assert.equal(judgePath('/var/swap', [dir(), dir(), dir({ mode: 0o700 })]), null);
});

test('a missing component ends the walk: what comes below it is made by root in a directory only root can write', () => {
  assert.equal(judgePath('/var/swap/swapfile', [dir(), dir(), null]), null);
  assert.equal(judgePath('/srv/new', [dir(), dir(), null]), null);
});

test('each broken ancestor is named with its reason', () => {
  const cases: Array<[string, Array<ComponentState | null>, string, string]> = [
    ['/srv/agent/etc/profile.d', [dir(), dir(), dir({ uid: 1001 }), dir(), dir()], '/srv/agent', 'belongs to uid 1001, not root'],
    ['/srv/etc-link/systemd/x', [dir(), dir(), link, dir()], '/srv/etc-link', 'is a symbolic link'],
    ['/var/tmp/x/y', [dir(), dir(), dir({ mode: 0o1777 }), dir()], '/var/tmp', 'is writable by others'],
    ['/var/mail/x/y', [dir(), dir(), dir({ mode: 0o2775, gid: 8 }), dir()], '/var/mail', 'is writable by its group (gid 8)'],
    ['/srv/f/x', [dir(), dir(), file(), null], '/srv/f', 'is not a directory'],
    ['/srv/x', [dir({ uid: 5 }), dir(), null], '/', 'belongs to uid 5, not root'],
    // The glob's directory is held to the ancestor standard.
    ['/var/log/app/*.log', [dir(), dir(), dir(), dir({ uid: 1001 })], '/var/log/app', 'belongs to uid 1001, not root'],
  ];
  for (const [path, states, component, reason] of cases) assert.deepEqual(judgePath(path, states), { component, reason }, path);
});

test('the path itself may not be a link, whoever made it', () => {
  assert.deepEqual(judgePath('/srv/boot-link', [dir(), dir(), link]), { component: '/srv/boot-link', reason: 'is a symbolic link' });
});

test('the refusal is typed and names the component', () => {
  const e = untrustedPathError('/srv/agent/etc/profile.d', { component: '/srv/agent', reason: 'belongs to uid 1001, not root' });
  assert.equal(e.category, 'authorization');
  assert.equal(e.code, 'untrusted_path');
  assert.match(e.message, /^refusing \/srv\/agent\/etc\/profile\.d: \/srv\/agent belongs to uid 1001, not root/);
  assert.ok(e.hint);
});

test('the daemon checker walks the real file system with lstat', { skip: process.getuid?.() !== 0 ? 'needs root to chown' : false }, async () => {
  await checkTrustedPath('/usr/bin/ls');
  await checkTrustedPath('/etc/passwd');
  await checkTrustedPath('/etc/airlock-does-not-exist/below');
  const refused = async (path: string, component: string) =>
    assert.rejects(checkTrustedPath(path), (e: unknown) => e instanceof AirlockError && e.code === 'untrusted_path' && e.message.includes(`${component} `), path);
  // /tmp is world-writable: nothing under it is safe by name.
  const base = mkdtempSync('/tmp/airlock-trusted-');
  try {
    await refused(join(base, 'x'), '/tmp');
    // A root-owned tree under /var/tmp would fail the same way; build one under a root-only directory instead.
    const root = mkdtempSync('/var/lib/airlock-trusted-test-');
    try {
      chmodSync(root, 0o755);
      mkdirSync(join(root, 'ok'));
      mkdirSync(join(root, 'user'));
      chownSync(join(root, 'user'), 65534, 65534);
      mkdirSync(join(root, 'group-w'));
      chmodSync(join(root, 'group-w'), 0o775);
      symlinkSync('/etc', join(root, 'link'));
      await checkTrustedPath(join(root, 'ok', 'file'));
      await checkTrustedPath(join(root, 'user')); // the last component may belong to anyone
      await refused(join(root, 'user', 'x'), join(root, 'user'));
      await refused(join(root, 'group-w', 'x'), join(root, 'group-w'));
      await refused(join(root, 'link', 'passwd'), join(root, 'link'));
      await refused(join(root, 'link'), join(root, 'link'));
      await refused(join(root, 'user', '*.log'), join(root, 'user'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('the scenario runner catches a path the agent named that a step gets by name undeclared', () => {
  const du = { kind: 'command', program: 'du', args: ['-sh', '-x', '--', '/var/log'] };
  assert.deepEqual(undeclaredPaths('DiskUsageOf', { path: '/var/log' }, du), ['/var/log']);
  assert.deepEqual(undeclaredPaths('DiskUsageOf', { path: '/var/log' }, { ...du, paths: ['/var/log'] }), []);
  // An entry of a declared directory (stat, which never follows its last component).
  assert.deepEqual(undeclaredPaths('FileInfo', { path: '/etc/hosts' }, { kind: 'command', args: ['--', '/etc/hosts'], paths: ['/etc/*'] }), []);
  assert.deepEqual(undeclaredPaths('FileInfo', { path: '/etc/ssh/x' }, { kind: 'command', args: ['--', '/etc/ssh/x'], paths: ['/etc/*'] }), ['/etc/ssh/x']);
  // Run as nobody, or a parameter programs only record: exempt.
  assert.deepEqual(undeclaredPaths('WhichPackageOwns', { path: '/usr/bin/ls' }, { kind: 'command', args: ['--', '/usr/bin/ls'], unprivileged: true }), []);
  assert.deepEqual(undeclaredPaths('CreateUser', { shell: '/bin/bash' }, { kind: 'command', args: ['--shell', '/bin/bash'] }), []);
  assert.deepEqual(undeclaredPaths('CreateSwapFile', { path: '/swapfile' }, { kind: 'command', args: ['--', '/swapfile'], expect: { path: '/swapfile' } }), []);
});
