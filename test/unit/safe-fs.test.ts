/**
 * The executor's file layer: paths resolve once, through held directory
 * descriptors, so swapping a component for a symlink mid-operation cannot
 * redirect a write, chmod, chown or unlink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync, linkSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { native } from '../../src/native/addon.js';
import { atomicWrite, checkAllowed, deleteFile, HeldDir, readRegularFile, readRegularFileByWalk, restore, snapshot } from '../../src/daemon/safe-fs.js';

function scratch(fn: (d: string) => Promise<void>) {
  return async () => {
    const d = mkdtempSync(join(tmpdir(), 'airlock-safefs-'));
    try {
      await fn(d);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  };
}

test(
  'a held directory keeps pointing at its inode after its path is swapped for a symlink',
  scratch(async (d) => {
    mkdirSync(join(d, 'home'));
    mkdirSync(join(d, 'victim'));
    const held = (await HeldDir.open(join(d, 'home')))!;
    renameSync(join(d, 'home'), join(d, 'home.moved'));
    symlinkSync(join(d, 'victim'), join(d, 'home'));
    await fsp.writeFile(held.at('f'), 'x');
    await held.close();
    assert.equal(readFileSync(join(d, 'home.moved', 'f'), 'utf8'), 'x');
    assert.equal(existsSync(join(d, 'victim', 'f')), false);
  }),
);

test(
  'symlinks anywhere on the path are refused for reads, writes and deletes',
  scratch(async (d) => {
    mkdirSync(join(d, 'real'));
    writeFileSync(join(d, 'real', 'secret'), 'top secret');
    symlinkSync(join(d, 'real'), join(d, 'link'));
    symlinkSync(join(d, 'real', 'secret'), join(d, 'real', 'alias'));
    const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e) => e.code);
    assert.equal(await code(readRegularFile(join(d, 'link', 'secret'))), 'symlink_in_path');
    assert.equal(await code(readRegularFile(join(d, 'real', 'alias'))), 'symlink_in_path');
    assert.equal(await code(atomicWrite(join(d, 'link', 'new'), 'x', { mode: 0o600 })), 'symlink_in_path');
    assert.equal(await code(atomicWrite(join(d, 'real', 'alias'), 'x', { mode: 0o600 })), 'not_a_file');
    assert.equal(await code(deleteFile(join(d, 'real', 'alias'))), 'not_a_file');
    assert.equal(readFileSync(join(d, 'real', 'secret'), 'utf8'), 'top secret');
  }),
);

test(
  'a hard link to another file is refused',
  scratch(async (d) => {
    writeFileSync(join(d, 'shadow'), 'hash');
    linkSync(join(d, 'shadow'), join(d, 'keys'));
    await assert.rejects(readRegularFile(join(d, 'keys')), (e: { code: string }) => e.code === 'hard_link');
  }),
);

test(
  'writes are atomic, keep an existing owner and mode, create a missing parent with its own mode, and restore exactly',
  scratch(async (d) => {
    const f = join(d, 'sub', 'file');
    const created: string[] = [];
    await atomicWrite(f, 'one\n', { mode: 0o640, parent: { mode: 0o710 } }, created);
    assert.deepEqual(created, [join(d, 'sub')]);
    assert.equal(statSync(join(d, 'sub')).mode & 0o777, 0o710);
    assert.equal(statSync(f).mode & 0o777, 0o640);
    const snap = await snapshot(f);
    await fsp.chmod(f, 0o600);
    await atomicWrite(f, 'two\n', { mode: 0o644 });
    assert.equal(statSync(f).mode & 0o777, 0o600, 'existing mode kept');
    assert.equal(readFileSync(f, 'utf8'), 'two\n');
    await restore(snap);
    assert.equal(readFileSync(f, 'utf8'), 'one\n');
    assert.equal(statSync(f).mode & 0o777, 0o640, 'restored mode');
    const absent = await snapshot(join(d, 'sub', 'none'));
    await atomicWrite(join(d, 'sub', 'none'), 'x', { mode: 0o600 });
    await restore(absent);
    assert.equal(existsSync(join(d, 'sub', 'none')), false);
  }),
);

test(
  'a write whose rename fails (an immutable target) leaves the file as it was and no temporary file behind',
  { skip: process.getuid?.() !== 0 && 'chattr +i needs root' },
  scratch(async (d) => {
    const f = join(d, 'fstab');
    writeFileSync(f, 'original\n');
    assert.equal(spawnSync('/usr/bin/chattr', ['+i', f]).status, 0, 'chattr +i works on this file system');
    try {
      await assert.rejects(atomicWrite(f, 'new\n', { mode: 0o644 }));
      assert.equal(readFileSync(f, 'utf8'), 'original\n');
      assert.deepEqual(readdirSync(d), ['fstab']);
    } finally {
      spawnSync('/usr/bin/chattr', ['-i', f]);
    }
  }),
);

test('paths outside the allowlist or not normalised are refused', () => {
  assert.throws(() => checkAllowed('/etc/hosts', ['/etc/hostname']), (e: { code: string }) => e.code === 'path_not_allowed');
  for (const p of ['/etc/../etc/hosts', '/etc//hosts', 'etc/hosts', '/etc/./hosts', '/etc/hosts\0']) {
    assert.throws(() => checkAllowed(p, ['/etc/*']), (e: { code: string }) => e.code === 'bad_path');
  }
  checkAllowed('/home/a/.ssh/authorized_keys', ['/home/*/.ssh/authorized_keys']);
  assert.throws(() => checkAllowed('/home/a/b/.ssh/authorized_keys', ['/home/*/.ssh/authorized_keys']));
});

test(
  'readRegularFile (one native read) answers as the walk it stands for, in every case: a file, /proc, absent, a link at any component, a hard link, a FIFO, a directory, too large',
  scratch(async (d) => {
    mkdirSync(join(d, 'dir', 'sub'), { recursive: true });
    writeFileSync(join(d, 'dir', 'sub', 'file'), 'content\n');
    writeFileSync(join(d, 'dir', 'big'), 'x'.repeat(5000));
    symlinkSync(join(d, 'dir'), join(d, 'linkdir'));
    symlinkSync(join(d, 'dir', 'sub', 'file'), join(d, 'dir', 'sub', 'linkfile'));
    writeFileSync(join(d, 'dir', 'two'), 'two names\n');
    linkSync(join(d, 'dir', 'two'), join(d, 'dir', 'two-again'));
    assert.equal(spawnSync('/usr/bin/mkfifo', [join(d, 'dir', 'fifo')]).status, 0);
    const cases: Array<[string, number?]> = [
      [join(d, 'dir', 'sub', 'file')],
      ['/proc/uptime'],
      ['/proc/self/status'], // /proc/self is a link
      [join(d, 'dir', 'sub', 'absent')],
      [join(d, 'nodir', 'file')],
      [join(d, 'linkdir', 'sub', 'file')],
      [join(d, 'dir', 'sub', 'linkfile')],
      [join(d, 'dir', 'two')],
      [join(d, 'dir', 'fifo')],
      [join(d, 'dir', 'sub')],
      [join(d, 'dir', 'big'), 4096],
      [join(d, 'dir', 'big'), 5000],
    ];
    const outcome = async (read: Promise<Buffer | null>) => {
      try {
        const b = await read;
        return b === null ? 'absent' : `read ${b.length} bytes`;
      } catch (e) {
        return `refused ${(e as { code?: string }).code}: ${(e as Error).message}`;
      }
    };
    for (const [path, limit] of cases) {
      const fast = await outcome(readRegularFile(path, limit));
      const walk = await outcome(readRegularFileByWalk(path, limit));
      // /proc/uptime changes between the two reads, not its size class.
      if (path === '/proc/uptime') assert.match(fast, /^read \d+ bytes$/);
      else assert.equal(fast, walk, path);
    }
    assert.equal((await readRegularFile(join(d, 'dir', 'sub', 'file')))!.toString(), 'content\n');
    // The native read is the one in use here (a kernel with openat2), not silently the walk.
    assert.equal((await native().readNoFollow(join(d, 'dir', 'sub', 'file'), 100)).content?.toString(), 'content\n');
    assert.equal((await native().readNoFollow(join(d, 'linkdir', 'sub', 'file'), 100)).content, undefined);
    assert.match(await outcome(readRegularFile(join(d, 'linkdir', 'sub', 'file'))), /symlink_in_path.*linkdir is a symbolic link/);
  }),
);
