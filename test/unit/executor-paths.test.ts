/**
 * The executor's side of the trusted-path mechanism, on real files of this machine (root
 * needed): a command step's paths are checked right before its program starts, a file
 * prepared for a program is created and handed over by descriptor and checked again by
 * name before a program that takes only a name, and a check program's warnings fail it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Executor } from '../../src/daemon/executor.js';
import { JobFiles } from '../../src/daemon/job-files.js';
import { resolvePrograms } from '../../src/daemon/programs.js';
import { command, FD3 } from '../../src/catalogue/mechanism.js';
import { AirlockError } from '../../src/protocol/errors.js';

const skip = process.getuid?.() !== 0 ? 'needs root' : false;
const executor = new Executor({ programs: resolvePrograms() });
/** A root-owned directory only root can write (not under /tmp, which anyone can write). */
let root = '';
before(() => {
  if (skip) return;
  root = mkdtempSync('/var/lib/airlock-executor-test-');
  chmodSync(root, 0o755);
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a path under a directory others can write is refused right before the program, which never runs', { skip }, async () => {
  const base = mkdtempSync('/tmp/airlock-exec-');
  try {
    const target = join(base, 'made');
    const run = await executor.runSteps([command('mkdir', ['-m', '0755', '--', target], { paths: [target] })], []);
    assert.equal(run.ok, false);
    assert.equal(run.error?.code, 'untrusted_path');
    assert.match(run.error!.message, /: \/tmp is writable by others/);
    assert.equal(existsSync(target), false, 'mkdir did not run');
    // The same check refuses the whole mechanism at preview.
    await assert.rejects(executor.checkPaths([command('ls', ['--', base], { undo: command('rmdir', ['--', target], { paths: [target] }) })]), (e: unknown) => e instanceof AirlockError && e.code === 'untrusted_path');
    await executor.checkPaths([command('ls', ['--', '/etc'], { paths: ['/etc'] })]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("each step is checked when it comes: a link on a later step's path fails the job there, and the earlier step is undone", { skip }, async () => {
  mkdirSync(join(root, 'real'));
  symlinkSync('/etc', join(root, 'link'));
  const made = join(root, 'real', 'made');
  const run = await executor.runSteps(
    [
      command('mkdir', ['-m', '0755', '--', made], { paths: [made], undo: command('rmdir', ['--', made], { paths: [made] }) }),
      command('ls', ['--', join(root, 'link', 'passwd')], { paths: [join(root, 'link', 'passwd')] }),
    ],
    [],
  );
  assert.equal(run.ok, false);
  assert.equal(run.error?.code, 'untrusted_path');
  assert.ok(run.error!.message.includes(`${join(root, 'link')} is a symbolic link`), run.error!.message);
  assert.equal(run.rolledBack, true);
  assert.equal(existsSync(made), false, 'the first step was undone');
});

test('a prepared file: created root:root 0600 by the daemon, fallocate and mkswap act on its descriptor, a name check passes', { skip }, async () => {
  const swap = join(root, 'swapfile');
  const run = await executor.runSteps(
    [
      command('fallocate', ['--length', '16MiB', '--', FD3], { file: { path: swap, create: { mode: 0o600 } } }),
      command('mkswap', ['--', FD3], { file: { path: swap } }),
      command('blkid', ['-p', '-o', 'value', '-s', 'TYPE', '--', swap], { paths: [swap], expect: { path: swap, mode: 0o600 } }),
    ],
    [],
  );
  assert.equal(run.ok, true, JSON.stringify(run.error));
  assert.equal(run.output[run.output.length - 1]!.trim(), 'swap', 'blkid, by name, reads the signature mkswap wrote through the descriptor');
  const st = lstatSync(swap);
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777, st.size, st.nlink], [0, 0, 0o600, 16 * 1024 * 1024, 1]);
  rmSync(swap);
});

test('a prepared file is never made over an existing one, and a failed job deletes the one it made', { skip }, async () => {
  const swap = join(root, 'existing');
  writeFileSync(swap, 'keep me');
  const over = await executor.runSteps([command('fallocate', ['--length', '16MiB', '--', FD3], { file: { path: swap, create: { mode: 0o600 } } })], []);
  assert.equal(over.error?.code, 'already_exists');
  assert.equal(readFileSync(swap, 'utf8'), 'keep me');
  const fresh = join(root, 'fresh');
  const failed = await executor.runSteps(
    [command('fallocate', ['--length', '16MiB', '--', FD3], { file: { path: fresh, create: { mode: 0o600 } } }), command('ls', ['--', join(root, 'nothing-here')])],
    [],
  );
  assert.equal(failed.ok, false);
  assert.equal(failed.rolledBack, true);
  assert.equal(existsSync(fresh), false, 'the file the job made is gone');
  // A descriptor is handed only for a file this job made.
  const stranger = await executor.runSteps([command('mkswap', ['--', FD3], { file: { path: swap } })], []);
  assert.equal(stranger.error?.code, 'file_not_prepared');
  assert.equal(readFileSync(swap, 'utf8'), 'keep me');
});

test('the name check before a name-only program: another inode, a changed mode or a second link is refused', { skip }, async () => {
  const path = join(root, 'checked');
  const refused = async (change: () => void, why: RegExp) => {
    const files = new JobFiles();
    try {
      await files.create(path, 0o600);
      await files.expect(path, 0o600);
      change();
      await assert.rejects(files.expect(path, 0o600), (e: unknown) => e instanceof AirlockError && e.code === 'file_changed' && why.test(e.message));
    } finally {
      await files.close();
      rmSync(path, { force: true });
      rmSync(`${path}.2`, { force: true });
    }
  };
  await refused(() => {
    rmSync(path);
    writeFileSync(path, 'another file', { mode: 0o600 });
  }, /another file now/);
  await refused(() => chmodSync(path, 0o644), /its mode is 0644, not 0600/);
  await refused(() => linkSync(path, `${path}.2`), /2 links/);
  await refused(() => rmSync(path), /it is gone/);
  // The undo removes only the file the job made, never what replaced it.
  const files = new JobFiles();
  await files.create(path, 0o600);
  rmSync(path);
  writeFileSync(path, 'replacement');
  await assert.rejects(files.remove(path), /no longer the file this job created/);
  assert.equal(readFileSync(path, 'utf8'), 'replacement');
  await files.close();
  rmSync(path);
});

test("a check program's warnings fail the step, with what it said", { skip }, async () => {
  const base = mkdtempSync('/tmp/airlock-verify-');
  try {
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    const tab = join(base, 'fstab');
    const success = 'Success, no errors or warnings detected';
    const verify = command('findmnt', ['--verify', '--tab-file', tab], { verdict: { success } });
    writeFileSync(tab, `tmpfs ${join(base, 'link')} tmpfs defaults 0 0\n`);
    const warned = await executor.runSteps([verify], []);
    assert.equal(warned.ok, false, 'findmnt exits 0 on a warning; the step fails all the same');
    assert.equal(warned.error?.code, 'check_failed');
    assert.match(warned.error!.message, /^findmnt reported: \[W\] non-canonical target path \(real: /);
    writeFileSync(tab, `tmpfs ${join(base, 'real')} tmpfs defaults 0 0\n`);
    assert.equal((await executor.runSteps([verify], [])).ok, true);
    // A warning on the step's allowlist, exactly as printed, passes; any other one still fails.
    const swap = join(base, 'swapfile');
    writeFileSync(swap, Buffer.alloc(16 * 1024 * 1024), { mode: 0o600 });
    execFileSync('/usr/sbin/mkswap', ['--', swap], { stdio: 'ignore' }); // a swap signature, so findmnt warns only about the file itself
    writeFileSync(tab, `${swap} none swap sw 0 0\n`);
    const tolerated = [`[W] non-bind mount source ${swap} is a directory or regular file`];
    assert.equal((await executor.runSteps([command('findmnt', verify.args, { verdict: { success, tolerated } })], [])).ok, true);
    assert.equal((await executor.runSteps([verify], [])).error?.code, 'check_failed');
    writeFileSync(tab, `${swap} none swap sw 0 0\ntmpfs ${join(base, 'link')} tmpfs defaults 0 0\n`);
    assert.equal((await executor.runSteps([command('findmnt', verify.args, { verdict: { success, tolerated } })], [])).error?.code, 'check_failed');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
