/**
 * storage family, in the booted Debian test bed: its mount namespace is the
 * container's own, so the tmpfs mounted here never touches the machine running it.
 * A mount point is created, given an fstab entry, mounted, written to, unmounted and
 * its entry removed, each effect checked with findmnt and the file system from outside
 * the daemon; an entry that findmnt --verify rejects is rolled back. No swap and no
 * loop devices: both are global to the kernel.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const MP = '/srv/airlock-test';
const FINDMNT = '/usr/bin/findmnt';
const MOUNT = '/usr/bin/mount';
const UMOUNT = '/usr/bin/umount';

let fstabBefore = '';

const findmntJson = async (box: SandboxView, path: string) => {
  const r = await box.run(FINDMNT, ['-J', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS', '--', path]);
  return r.code === 0 ? (JSON.parse(r.stdout) as { filesystems: Array<{ target: string; source: string; fstype: string; options: string }> }).filesystems : null;
};

export const scenarios: Scenario[] = [
  {
    action: 'ListFstab',
    params: {},
    setup: async (box) => {
      // The test bed can mount a tmpfs in its own namespace (and the host's /mnt never sees it).
      assert.equal((await box.run(MOUNT, ['-t', 'tmpfs', '-o', 'size=1m', '--', 'tmpfs', '/mnt'])).code, 0, 'tmpfs mounts work in the test bed');
      assert.equal((await findmntJson(box, '/mnt'))?.[0]?.fstype, 'tmpfs');
      assert.equal((await box.run(UMOUNT, ['--', '/mnt'])).code, 0);
    },
    check: async (box, r) => {
      fstabBefore = (await box.readFile('/etc/fstab')) ?? '';
      assert.ok(fstabBefore.length > 0);
      assert.deepEqual(r.output, [fstabBefore.trimEnd()]); // the result drops the final newline
    },
  },
  {
    action: 'ListSwap',
    params: {},
    check: async (box, r) => {
      assert.match(r.output[0]!, /^Filename\s+Type\s+Size\s+Used\s+Priority/);
      assert.equal(r.output[0], ((await box.readFile('/proc/swaps')) ?? '').trimEnd());
    },
  },
  {
    action: 'DiskUsageOf',
    params: { path: '/var/log' },
    check: async (box, r) => {
      const direct = (await box.run('/usr/bin/du', ['-sh', '-x', '--', '/var/log'])).stdout;
      assert.match(r.output.join(''), /^[0-9.,]+[KMGT]?\t\/var\/log$/);
      assert.equal(`${r.output.join('')}\n`.split('\t')[1], direct.split('\t')[1]);
    },
  },
  {
    action: 'CreateMountpoint',
    params: { path: MP },
    check: async (box) => {
      const r = await box.run('/usr/bin/stat', ['-c', '%F %a %U:%G', '--', MP]);
      assert.equal(r.stdout.trim(), 'directory 755 root:root');
    },
  },
  {
    title: 'a tmpfs',
    action: 'AddFstabEntry',
    params: { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: ['nosuid', 'nodev', 'size=16m', 'mode=0750'] },
    check: async (box) => {
      const text = (await box.readFile('/etc/fstab')) ?? '';
      assert.equal(text, `${fstabBefore}tmpfs ${MP} tmpfs nosuid,nodev,size=16m,mode=0750 0 0\n`);
      assert.equal((await box.run(FINDMNT, ['--verify', '--tab-file', '/etc/fstab'])).code, 0);
      assert.equal(await findmntJson(box, MP), null, 'adding the entry does not mount it');
      // systemd was reloaded: its generator made a mount unit for the entry.
      const unit = await box.run('/usr/bin/systemctl', ['show', '-p', 'LoadState', '--value', '--', 'srv-airlock\\x2dtest.mount']);
      assert.equal(unit.stdout.trim(), 'loaded');
    },
  },
  {
    action: 'Mount',
    params: { mountpoint: MP },
    check: async (box) => {
      const fs = await findmntJson(box, MP);
      assert.equal(fs?.length, 1);
      assert.equal(fs[0]!.target, MP);
      assert.equal(fs[0]!.fstype, 'tmpfs');
      for (const o of ['nosuid', 'nodev', 'size=16384k', 'mode=750']) assert.ok(fs[0]!.options.split(',').includes(o), `${o} in ${fs[0]!.options}`);
      assert.ok(box.writeFile);
      await box.writeFile(`${MP}/hello.txt`, 'on the tmpfs\n');
      assert.equal((await box.run('/usr/bin/stat', ['-f', '-c', '%T', '--', `${MP}/hello.txt`])).stdout.trim(), 'tmpfs');
      assert.equal((await box.run('/usr/bin/cat', ['--', `${MP}/hello.txt`])).stdout, 'on the tmpfs\n');
    },
  },
  {
    action: 'Unmount',
    params: { mountpoint: MP },
    check: async (box) => {
      assert.equal(await findmntJson(box, MP), null);
      assert.equal(await box.readFile(`${MP}/hello.txt`), null, 'the tmpfs and its file are gone');
      assert.ok((await box.readFile('/etc/fstab'))?.includes(`tmpfs ${MP} tmpfs`), 'the fstab entry stays');
    },
  },
  {
    action: 'RemoveFstabEntry',
    params: { mountpoint: MP },
    check: async (box) => {
      assert.equal(await box.readFile('/etc/fstab'), fstabBefore);
      const st = await box.run('/usr/bin/stat', ['-c', '%F', '--', MP]);
      assert.equal(st.stdout.trim(), 'directory', 'the mount point stays');
    },
  },
  {
    title: 'an entry findmnt --verify rejects (a source that does not exist) is rolled back',
    action: 'AddFstabEntry',
    params: { source: 'UUID=0badc0de-0000-4000-8000-000000000000', mountpoint: MP, fstype: 'ext4', options: ['defaults', 'nofail'], pass: 2 },
    expect: 'RolledBack',
    check: async (box) => {
      assert.equal(await box.readFile('/etc/fstab'), fstabBefore, 'fstab restored');
      assert.equal((await box.run(FINDMNT, ['--verify', '--tab-file', '/etc/fstab'])).code, 0);
    },
  },
];
