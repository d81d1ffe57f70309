/**
 * volumes actions (family storage), on a throwaway overlay of this host. Loop devices,
 * swap areas and LVM volume groups are global to the kernel, not to the sandbox's mount
 * namespace, so: the backing images live in the sandbox's /var/tmp, the first scenario
 * attaches them (one ext4 file system mounted in the sandbox at /srv/airlock-swap for the
 * swap files; one LVM physical volume with a volume group and an inactive LV), and the
 * LAST scenario detaches everything and checks, from this host, that nothing is left.
 *
 * The swap file is really created, turned on (checked in /proc/swaps inside the sandbox
 * and on this host), undone when /etc/fstab cannot be written (chattr +i), and really
 * turned off and deleted. LVM: this kernel may lack device-mapper, so the LV is never
 * active here; what runs is the metadata change (lvextend of an inactive LV, with
 * --driverloaded n when the kernel has no device-mapper), checked with lvs/vgs. The
 * active-LV path and --resizefs are covered by the unit tests only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { SandboxView, Scenario } from './types.js';

const SWAP_FS_IMG = '/var/tmp/airlock-swapfs.img';
const LVM_IMG = '/var/tmp/airlock-lvm.img';
const SWAP_DIR = '/srv/airlock-swap';
const SWAP = `${SWAP_DIR}/swapfile`;
const SWAP2 = `${SWAP_DIR}/swap2`;
const VG = 'airlock_test_vg';
const LV = 'data';
const MiB = 1024 * 1024;

/** Set by the first setup: the loop devices this file attached. */
let swapDev = '';
let lvmDev = '';
let fstabBefore = '';
/** /proc/swaps of this host (outside the sandbox) before anything ran. */
let hostSwapsBefore: string[] = [];

const hostSwaps = () => readFileSync('/proc/swaps', 'utf8').trim().split('\n').slice(1);
const noDeviceMapper = () => !/^\s*\d+ device-mapper$/m.test(readFileSync('/proc/devices', 'utf8'));

async function must(box: SandboxView, program: string, ...args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The JSON documents in a result's output lines (one per command that printed one). */
function jsonDocuments(lines: string[]): unknown[] {
  const docs: unknown[] = [];
  let pending: string[] = [];
  for (const line of lines) {
    pending.push(line);
    try {
      docs.push(JSON.parse(pending.join('\n')));
      pending = [];
    } catch {
      // not complete yet
    }
  }
  assert.deepEqual(pending, [], 'output ends with a whole JSON document');
  return docs;
}

/** /proc/swaps as the sandbox sees it (paths relative to its root), names only. */
const sandboxSwaps = async (box: SandboxView) => (await must(box, '/usr/bin/cat', '/proc/swaps')).trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]!);

const lvmRow = async (box: SandboxView, program: 'vgs' | 'lvs', columns: string, key: 'vg' | 'lv') => {
  const out = await must(box, `/usr/sbin/${program}`, '--reportformat', 'json', '--units', 'b', '--nosuffix', '-o', columns, '--', program === 'vgs' ? VG : `${VG}/${LV}`);
  return (JSON.parse(out) as { report: Array<Record<string, Array<Record<string, string>>>> }).report[0]![key]![0]!;
};

async function attach(box: SandboxView, image: string): Promise<string> {
  await must(box, '/usr/bin/truncate', '--size', '64M', '--', image);
  return (await must(box, '/usr/sbin/losetup', '--find', '--show', '--', image)).trim();
}

async function setUp(box: SandboxView): Promise<void> {
  hostSwapsBefore = hostSwaps();
  fstabBefore = (await box.readFile('/etc/fstab')) ?? '';
  const stale = await box.run('/usr/sbin/vgs', ['--', VG]);
  assert.notEqual(stale.code, 0, `volume group ${VG} already exists: a previous run left it (vgremove it and detach its loop device)`);
  swapDev = await attach(box, SWAP_FS_IMG);
  await must(box, '/usr/sbin/mkfs.ext4', '-q', '-F', '--', swapDev);
  await must(box, '/usr/bin/mkdir', '-p', '--', SWAP_DIR);
  await must(box, '/usr/bin/mount', '-t', 'ext4', '--', swapDev, SWAP_DIR);
  lvmDev = await attach(box, LVM_IMG);
  await must(box, '/usr/sbin/pvcreate', '--', lvmDev);
  await must(box, '/usr/sbin/vgcreate', '--', VG, lvmDev);
  // An LV that is never activated: without device-mapper, lvcreate must be told not to look for it.
  await must(box, '/usr/sbin/lvcreate', ...(noDeviceMapper() ? ['--driverloaded', 'n'] : []), '--activate', 'n', '--zero', 'n', '--size', '8M', '--name', LV, '--', VG);
}

/** Undoes setUp whatever state earlier scenarios left, every step tried even when one fails. */
async function tearDown(box: SandboxView): Promise<void> {
  for (const path of [SWAP, SWAP2]) if ((await sandboxSwaps(box)).includes(path)) await box.run('/usr/sbin/swapoff', ['--', path]);
  await box.run('/usr/bin/chattr', ['-i', '--', '/etc/fstab']);
  await box.run('/usr/bin/umount', ['--', SWAP_DIR]);
  await box.run('/usr/sbin/vgremove', ['--force', ...(noDeviceMapper() ? ['--driverloaded', 'n'] : []), '--', VG]);
  if (lvmDev) await box.run('/usr/sbin/pvremove', ['--', lvmDev]);
  for (const dev of [swapDev, lvmDev]) if (dev) await box.run('/usr/sbin/losetup', ['--detach', dev]);
  await box.run('/usr/bin/rm', ['-f', '--', SWAP_FS_IMG, LVM_IMG]);
}

export const scenarios: Scenario[] = [
  {
    action: 'ListFilesystems',
    params: {},
    setup: setUp,
    check: async (box, r) => {
      const fss = (jsonDocuments(r.output)[0] as { filesystems: Array<{ source: string; fstype: string; size: number; avail: number; target: string }> }).filesystems;
      const ours = fss.find((f) => f.target === SWAP_DIR);
      assert.ok(ours, `${SWAP_DIR} is listed: ${r.output[0]}`);
      assert.equal(ours.source, swapDev);
      assert.equal(ours.fstype, 'ext4');
      const direct = JSON.parse(await must(box, '/usr/bin/findmnt', '-J', '-b', '-o', 'SIZE,AVAIL', '-M', SWAP_DIR)) as { filesystems: Array<{ size: number; avail: number }> };
      assert.equal(ours.size, direct.filesystems[0]!.size);
      assert.ok(ours.size > 50 * MiB && ours.size <= 64 * MiB, String(ours.size));
      assert.ok(!fss.some((f) => ['proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts'].includes(f.fstype)), 'no pseudo file systems');
    },
  },
  {
    action: 'FilesystemInodes',
    params: {},
    check: async (box, r) => {
      assert.match(r.output[0]!, /^Filesystem\s+Type\s+Inodes\s+IUsed\s+IFree\s+IUse%\s+Mounted on$/);
      const line = r.output.find((l) => l.endsWith(` ${SWAP_DIR}`));
      assert.ok(line, `a line for ${SWAP_DIR}`);
      const direct = (await must(box, '/usr/bin/df', '-i', '-P', '-T', '--', SWAP_DIR)).trim().split('\n')[1]!;
      const [source, type, inodes] = line.split(/\s+/);
      assert.deepEqual([source, type, inodes], direct.split(/\s+/).slice(0, 3));
      assert.equal(type, 'ext4');
      assert.ok(Number(inodes) > 1000, `inodes ${inodes}`);
    },
  },
  {
    action: 'BlockDeviceInfo',
    get params() {
      return { device: swapDev };
    },
    check: async (box, r) => {
      const end = r.output.indexOf('}');
      const dev = (jsonDocuments(r.output.slice(0, end + 1))[0] as { blockdevices: Array<Record<string, unknown>> }).blockdevices[0]!;
      assert.equal(dev.name, swapDev);
      assert.equal(dev.type, 'loop');
      assert.equal(dev.size, 64 * MiB);
      assert.equal(dev.mountpoint, SWAP_DIR);
      // The probe, not udev (which may not run here): the same UUID mkfs wrote, read from outside.
      const probe = r.output.slice(end + 1);
      assert.ok(probe.includes('TYPE=ext4'), probe.join(' '));
      assert.ok(probe.includes(`UUID=${(await must(box, '/usr/sbin/blkid', '-p', '-o', 'value', '-s', 'UUID', '--', swapDev)).trim()}`), probe.join(' '));
    },
  },
  {
    action: 'LvmReport',
    params: {},
    check: async (box, r) => {
      const docs = jsonDocuments(r.output);
      assert.equal(docs.length, 3, 'pvs, vgs and lvs');
      const [pvs, vgs, lvs] = docs.map((o, i) => (o as { report: Array<Record<string, Array<Record<string, string>>>> }).report[0]![['pv', 'vg', 'lv'][i]!]!);
      assert.deepEqual(pvs!.find((p) => p.pv_name === lvmDev)?.vg_name, VG);
      const vg = vgs!.find((v) => v.vg_name === VG)!;
      assert.deepEqual(vg, { ...(await lvmRow(box, 'vgs', 'vg_name,vg_attr,vg_size,vg_free,vg_extent_size,pv_count,lv_count', 'vg')) });
      assert.equal(vg.lv_count, '1');
      const lv = lvs!.find((l) => l.vg_name === VG && l.lv_name === LV)!;
      assert.equal(lv.lv_size, String(8 * MiB));
      assert.equal(lv.lv_path, `/dev/${VG}/${LV}`);
      assert.ok(lv.lv_attr, 'lvs reports the attributes');
      assert.notEqual(lv.lv_attr[4], 'a', 'never active here');
    },
  },
  {
    title: 'an inactive LV, metadata only',
    action: 'ExtendLogicalVolume',
    params: { vg: VG, lv: LV, add: 8, unit: 'M' },
    check: async (box) => {
      assert.equal((await lvmRow(box, 'lvs', 'lv_size', 'lv')).lv_size, String(16 * MiB));
      const vg = await lvmRow(box, 'vgs', 'vg_size,vg_free', 'vg');
      assert.equal(Number(vg.vg_free), Number(vg.vg_size) - 16 * MiB);
    },
  },
  {
    action: 'CreateSwapFile',
    params: { path: SWAP, sizeMiB: 16 },
    check: async (box) => {
      const line = (await must(box, '/usr/bin/cat', '/proc/swaps')).split('\n').find((l) => l.startsWith(`${SWAP} `));
      assert.ok(line, `${SWAP} is in the sandbox's /proc/swaps`);
      const [, type, sizeKiB] = line.split(/\s+/);
      assert.equal(type, 'file');
      assert.ok(Number(sizeKiB) > 16 * 1024 - 64 && Number(sizeKiB) < 16 * 1024, `16 MiB less the header: ${sizeKiB} KiB`);
      assert.equal(hostSwaps().length, hostSwapsBefore.length + 1, "this host's /proc/swaps has one more area");
      assert.equal((await must(box, '/usr/bin/stat', '-c', '%F %a %U:%G %s', '--', SWAP)).trim(), `regular file 600 root:root ${16 * MiB}`);
      assert.equal((await must(box, '/usr/sbin/blkid', '-p', '-o', 'value', '-s', 'TYPE', '--', SWAP)).trim(), 'swap');
      assert.equal(await box.readFile('/etc/fstab'), `${fstabBefore}${SWAP} none swap sw 0 0\n`);
    },
  },
  {
    title: 'an /etc/fstab that cannot be written: the swap is turned off and the file deleted again',
    action: 'CreateSwapFile',
    params: { path: SWAP2, sizeMiB: 16 },
    setup: async (box) => {
      await must(box, '/usr/bin/chattr', '+i', '--', '/etc/fstab');
    },
    // Every command undo runs (swapoff, rm); the immutable /etc/fstab was never changed, so nothing to restore there.
    expect: 'RolledBack',
    check: async (box, r) => {
      await must(box, '/usr/bin/chattr', '-i', '--', '/etc/fstab');
      assert.match(JSON.stringify(r.error), /EPERM.*fstab/, 'it failed at the /etc/fstab write, after swapon');
      assert.deepEqual(await sandboxSwaps(box), [SWAP], 'only the first swap file is on');
      assert.equal(hostSwaps().length, hostSwapsBefore.length + 1);
      assert.equal(await box.readFile(SWAP2), null, `${SWAP2} deleted`);
      assert.equal(await box.readFile('/etc/fstab'), `${fstabBefore}${SWAP} none swap sw 0 0\n`);
    },
  },
  {
    action: 'RemoveSwapFile',
    params: { path: SWAP },
    setup: async (box) => {
      await box.run('/usr/bin/chattr', ['-i', '--', '/etc/fstab']); // in case the scenario above stopped early
    },
    check: async (box) => {
      assert.deepEqual(await sandboxSwaps(box), [], 'swapped off');
      assert.deepEqual(hostSwaps(), hostSwapsBefore, "this host's /proc/swaps is as before");
      assert.equal(await box.readFile(SWAP), null, 'file deleted');
      assert.equal(await box.readFile('/etc/fstab'), fstabBefore);
    },
  },
  {
    title: 'after every loop device is detached (the last scenario: it cleans up)',
    action: 'ListFilesystems',
    params: {},
    setup: tearDown,
    check: async (box, r) => {
      assert.ok(!r.output.some((l) => l.includes(SWAP_DIR)), `${SWAP_DIR} is no longer mounted`);
      const attached = await must(box, '/usr/sbin/losetup', '--list', '--noheadings', '--output', 'NAME,BACK-FILE');
      for (const image of [SWAP_FS_IMG, LVM_IMG]) assert.ok(!attached.includes(image), `${image} detached: ${attached}`);
      for (const dev of [swapDev, lvmDev]) assert.ok(!attached.split('\n').some((l) => l.split(/\s+/)[0] === dev), `${dev} detached`);
      assert.notEqual((await box.run('/usr/sbin/vgs', ['--', VG])).code, 0, `${VG} is gone`);
      assert.deepEqual(hostSwaps(), hostSwapsBefore);
    },
  },
];
