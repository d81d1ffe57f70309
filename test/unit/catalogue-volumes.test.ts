import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as lvm from '../../src/catalogue/families/storage/lvm.js';
import { blockDevice, blockDeviceInfo } from '../../src/catalogue/families/storage/block-devices.js';
import { filesystemInodes, listFilesystems } from '../../src/catalogue/families/storage/filesystems.js';
import { createSwapFile, memAvailableKiB, parseProcSwaps, removeSwapFile, swapFilePath } from '../../src/catalogue/families/storage/swap.js';
import { growth, hasDeviceMapper, lvmName, reportRows } from '../../src/catalogue/families/storage/lvm.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { actionRunner, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// What families/volumes.ts held: swap files, LVM, the file system reads and BlockDeviceInfo.
const actions: AnyAction[] = [createSwapFile, removeSwapFile, ...Object.values(lvm).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a), listFilesystems, filesystemInodes, blockDeviceInfo];
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);

const MiB = 1024 * 1024;
const FSTAB = '# /etc/fstab\nUUID=1111-2222 / ext4 errors=remount-ro 0 1\n';
const SWAPS_HEADER = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n';
const DIR = '/srv/swapdisk';
const SWAP = `${DIR}/swapfile`;
const SWAP_LINE = `${SWAP} none swap sw 0 0`;
const OK: CommandOutput = { code: 0, stdout: '', stderr: '' };

interface FileSystem {
  target: string;
  fstype: string;
  size: number;
  avail: number;
}
interface World {
  tree?: Record<string, Node>;
  /** The file system findmnt -T reports for each directory (default: ext4 with 10 GiB free). */
  fs?: Record<string, FileSystem>;
  swaps?: string;
  verify?: CommandOutput;
  blkid?: CommandOutput;
  memAvailableKiB?: number;
  lvm?: { pv?: object[]; vg?: object[]; lv?: object[]; fail?: boolean };
  lsblk?: object;
  deviceMapper?: boolean;
}

const EXT4: FileSystem = { target: DIR, fstype: 'ext4', size: 20 * 1024 * MiB, avail: 10 * 1024 * MiB };
const report = (key: string, rows: object[]) => JSON.stringify({ report: [{ [key]: rows }] });

function hostWith(w: World = {}) {
  const tree: Record<string, Node> = {
    '/etc/fstab': FSTAB,
    [DIR]: { dir: true },
    '/var/log': { dir: true },
    '/proc/swaps': SWAPS_HEADER + (w.swaps ?? ''),
    '/proc/meminfo': `MemTotal:        2000000 kB\nMemAvailable:    ${w.memAvailableKiB ?? 1_500_000} kB\n`,
    '/proc/devices': `Character devices:\n  1 mem\n\nBlock devices:\n  7 loop\n${w.deviceMapper === false ? '' : '253 device-mapper\n'}254 virtblk\n`,
    ...w.tree,
  };
  return new FixtureHost(tree, (program: ProgramName, args: string[]) => {
    if (program === 'findmnt' && args[0] === '--verify') return w.verify ?? { code: 0, stdout: 'Success, no errors or warnings detected\n', stderr: '' };
    if (program === 'findmnt' && args.includes('-T')) {
      const fs = w.fs?.[args[args.length - 1]!] ?? EXT4;
      return { code: 0, stdout: JSON.stringify({ filesystems: [{ ...fs, source: '/dev/vdb' }] }), stderr: '' };
    }
    if (program === 'blkid') return w.blkid ?? { code: 0, stdout: 'swap\n', stderr: '' };
    if (program === 'pvs' || program === 'vgs' || program === 'lvs') {
      if (w.lvm?.fail) return { code: 5, stdout: '', stderr: '  /dev/mapper/control: open failed\n  Volume group "x" not found\n' };
      const key = program.slice(0, 2);
      return { code: 0, stdout: report(key, (w.lvm?.[key as 'pv' | 'vg' | 'lv'] as object[]) ?? []), stderr: '' };
    }
    if (program === 'lsblk') return { code: 0, stdout: JSON.stringify({ blockdevices: [w.lsblk ?? { fstype: null, mountpoint: null }] }), stderr: '' };
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

test('volumes actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [risk: string, readOnly: boolean, rollback: string | undefined]> = {
    CreateSwapFile: ['high', false, 'exact'],
    RemoveSwapFile: ['high', false, 'compensating'],
    LvmReport: ['low', true, undefined],
    ExtendLogicalVolume: ['high', false, 'none'],
    ListFilesystems: ['low', true, undefined],
    FilesystemInodes: ['low', true, undefined],
    BlockDeviceInfo: ['low', true, undefined],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'storage', a.name);
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.ok(a.params.safeParse({ ...a.example, extra: 1 }).success === false, `${a.name} refuses unknown keys`);
  }
  assert.deepEqual(byName('CreateSwapFile').files, ['/etc/fstab']);
  assert.deepEqual(byName('RemoveSwapFile').files, ['/etc/fstab']);
});

test('validators refuse injection strings', () => {
  const vgName = lvmName('volume group name');
  for (const bad of INJECTIONS) {
    for (const [name, v] of Object.entries({ swapFilePath, vgName, blockDevice })) assert.equal(v.safeParse(bad).success, false, `${name} accepted ${JSON.stringify(bad)}`);
    for (const prefix of ['/srv/', '/var/swap/', '/mnt/x/', '/data/']) assert.equal(swapFilePath.safeParse(prefix + bad).success, false, `accepted ${JSON.stringify(prefix + bad)}`);
    assert.equal(blockDevice.safeParse(`/dev/${bad}`).success, false, `accepted /dev/${JSON.stringify(bad)}`);
  }
});

test('swap file paths: only the allowlist, and the name says swap', () => {
  for (const ok of ['/swapfile', '/var/swap/swap1', '/var/swap/web.swap', '/srv/swapfile', `${DIR}/swapfile`, '/mnt/a/b/swap.img', '/data/SWAP_2']) assert.ok(swapFilePath.safeParse(ok).success, ok);
  const bad = [
    '/etc/swapfile',
    '/swapfile2',
    '/swap',
    '/var/swap/data.img',
    '/var/swap/a/swapfile',
    '/srv/data.img',
    '/srv/../etc/swapfile',
    '/srv/./swapfile',
    '/srv//swapfile',
    '/srv/.swap',
    '/srv/a b/swapfile',
    '/var/lib/foo/swapfile',
    '/home/u/swapfile',
    '/tmp/swapfile',
    '/boot/swapfile',
    '/dev/sda2',
    'swapfile',
    '/srvx/swapfile',
    '/srv/swapfile/',
  ];
  for (const p of bad) assert.equal(swapFilePath.safeParse(p).success, false, p);
  const size = byName('CreateSwapFile').params;
  for (const s of [15, 65_537, 16.5, -16, '1024']) assert.equal(size.safeParse({ path: '/swapfile', sizeMiB: s }).success, false, String(s));
});

test('parsers: /proc/swaps, /proc/meminfo, /proc/devices, LVM reports, extent rounding', () => {
  assert.deepEqual(parseProcSwaps(`${SWAPS_HEADER}/swapfile                               file\t\t1048572\t\t2048\t\t-2\n/dev/vda3 partition 4194300 0 -3\n`), [
    { path: '/swapfile', type: 'file', sizeKiB: 1048572, usedKiB: 2048, priority: -2 },
    { path: '/dev/vda3', type: 'partition', sizeKiB: 4194300, usedKiB: 0, priority: -3 },
  ]);
  assert.deepEqual(parseProcSwaps(SWAPS_HEADER), []);
  assert.equal(memAvailableKiB('MemTotal: 5 kB\nMemAvailable:   1234 kB\n'), 1234);
  assert.equal(memAvailableKiB('MemTotal: 5 kB\n'), null);
  assert.equal(hasDeviceMapper('Block devices:\n  7 loop\n253 device-mapper\n'), true);
  assert.equal(hasDeviceMapper('Block devices:\n  7 loop\n254 virtblk\n'), false);
  assert.deepEqual(reportRows(report('vg', [{ vg_name: 'a' }]), 'vg'), [{ vg_name: 'a' }]);
  assert.throws(() => reportRows('{"report":[{}]}', 'vg'));
  assert.equal(growth({ extentSize: 4 * MiB }, 8, 'M'), 8 * MiB);
  assert.equal(growth({ extentSize: 4 * MiB }, 9, 'M'), 12 * MiB, 'rounded up to whole extents');
  assert.equal(growth({ extentSize: 4 * MiB }, 2, 'G'), 2048 * MiB);
});

test('CreateSwapFile: the daemon creates the file, fallocate and mkswap get it as fd 3, swapon checks it by name; fstab line, verify', async () => {
  const { steps, preview } = await run('CreateSwapFile', { path: SWAP, sizeMiB: 16 }, hostWith());
  assert.deepEqual(steps, [
    // A revert removes it by name (the automatic rollback, by inode, through the job's own undo of the file it made).
    { kind: 'command', program: 'fallocate', args: ['--length', '16MiB', '--', '/proc/self/fd/3'], file: { path: SWAP, create: { mode: 0o600 } }, undo: { kind: 'command', program: 'rm', args: ['--', SWAP], paths: [SWAP] } },
    { kind: 'command', program: 'mkswap', args: ['--', '/proc/self/fd/3'], file: { path: SWAP }, noUndo: 'undone_earlier' },
    {
      kind: 'command',
      program: 'swapon',
      args: ['--', SWAP],
      paths: [SWAP],
      expect: { path: SWAP, mode: 0o600 },
      undo: { kind: 'command', program: 'swapoff', args: ['--', SWAP], paths: [SWAP], timeoutMs: 600_000 },
    },
    { kind: 'fileWrite', path: '/etc/fstab', content: `${FSTAB}${SWAP_LINE}\n`, mode: 0o644 },
    // findmnt 2.38 warns about every swap file: that one line, for this file, is tolerated.
    {
      kind: 'command',
      program: 'findmnt',
      args: ['--verify', '--tab-file', '/etc/fstab'],
      verdict: { success: 'Success, no errors or warnings detected', tolerated: [`[W] non-bind mount source ${SWAP} is a directory or regular file`] },
      paths: [SWAP],
      noUndo: 'changes_nothing',
    },
  ]);
  // Where systemd runs it is reloaded before the check (findmnt warns while it uses an older fstab).
  const systemd = await run('CreateSwapFile', { path: SWAP, sizeMiB: 16 }, hostWith({ tree: { '/run/systemd/system': { dir: true } } }));
  assert.deepEqual(systemd.steps.map((s) => (s.kind === 'command' ? `${s.program}${s.undo ? `(undo ${s.undo.program})` : ''}${s.noUndo ? `(${s.noUndo})` : ''}` : s.kind)), [
    'fallocate(undo rm)',
    'mkswap(undone_earlier)',
    'swapon(undo swapoff)',
    'systemctl(undo systemctl)',
    'fileWrite',
    'systemctl(undone_earlier)',
    'findmnt(changes_nothing)',
  ]);
  // What its rollback reads: the file, the swap areas, and the swap unit systemd's fstab generator makes.
  const r = byName('CreateSwapFile').rollback;
  assert.deepEqual(r?.class === 'exact' && r.state?.({ path: SWAP, sizeMiB: 16 }, systemd.cur), [
    { program: 'stat', args: ['--format=%F %a %u %g %s', '--', SWAP] },
    { program: 'swapon', args: ['--show=NAME,TYPE,SIZE', '--noheadings', '--bytes'] },
    { program: 'systemctl', args: ['show', '-p', 'LoadState', '-p', 'SourcePath', '--', 'srv-swapdisk-swapfile.swap'] },
  ]);
  const change = preview.change as Record<string, unknown>;
  assert.equal(change.appends_line, SWAP_LINE);
  assert.equal(change.creates_file, SWAP);
  assert.equal(change.creates_directory, undefined);
  assert.ok(preview.sideEffects?.some((s) => s.includes('ext4 on /srv/swapdisk') && s.includes('10224 MiB stay available')), String(preview.sideEffects));
  // An fstab without its final newline gets one before the new line.
  const noNewline = await run('CreateSwapFile', { path: SWAP, sizeMiB: 16 }, hostWith({ tree: { '/etc/fstab': FSTAB.trimEnd() } }));
  assert.equal((noNewline.steps[3] as { content: string }).content, `${FSTAB}${SWAP_LINE}\n`);
});

test('CreateSwapFile: /swapfile sits on the root file system; /var/swap is created (0700) when missing', async () => {
  const h = hostWith({ fs: { '/': { ...EXT4, target: '/' } } });
  const root = await run('CreateSwapFile', { path: '/swapfile', sizeMiB: 1024 }, h);
  assert.ok(h.calls.some(([p, a]) => p === 'findmnt' && a.join(' ') === '-J -b -o TARGET,SOURCE,FSTYPE,SIZE,AVAIL -T /'));
  assert.deepEqual((root.steps[0] as { args: string[]; file: unknown }).file, { path: '/swapfile', create: { mode: 0o600 } });
  assert.deepEqual((root.steps[0] as { args: string[] }).args, ['--length', '1024MiB', '--', '/proc/self/fd/3']);

  const created = await run('CreateSwapFile', { path: '/var/swap/swap1', sizeMiB: 64 }, hostWith({ fs: { '/var': { ...EXT4, target: '/' } } }));
  assert.deepEqual(created.steps[0], {
    kind: 'command',
    program: 'mkdir',
    args: ['-m', '0700', '--', '/var/swap'],
    paths: ['/var/swap'],
    undo: { kind: 'command', program: 'rmdir', args: ['--', '/var/swap'], paths: ['/var/swap'] },
  });
  assert.equal((created.preview.change as Record<string, unknown>).creates_directory, '/var/swap');
  const existing = await run('CreateSwapFile', { path: '/var/swap/swap1', sizeMiB: 64 }, hostWith({ tree: { '/var/swap': { dir: true } } }));
  assert.equal((existing.steps[0] as { program: string }).program, 'fallocate');
});

test('CreateSwapFile refusals', async () => {
  const p = { path: SWAP, sizeMiB: 16 };
  await refused('CreateSwapFile', p, hostWith({ tree: { [SWAP]: 'data' } }), 'already_exists', 'conflict');
  await refused('CreateSwapFile', p, hostWith({ tree: { '/etc/fstab': `${FSTAB}${SWAP_LINE}\n` } }), 'fstab_entry_exists', 'conflict');
  await refused('CreateSwapFile', { ...p, path: '/srv/none/swapfile' }, hostWith(), 'parent_missing', 'conflict');
  // Nobody but root may be able to change a directory on the way: an agent's directory, a link, a file.
  await refused('CreateSwapFile', { ...p, path: '/srv/link/swapfile' }, hostWith({ tree: { '/srv/link': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  await refused('CreateSwapFile', { ...p, path: '/srv/agent/swapfile' }, hostWith({ tree: { '/srv/agent': { dir: true, uid: 1001 } } }), 'untrusted_path', 'authorization');
  await refused('CreateSwapFile', { ...p, path: '/srv/open/swapfile' }, hostWith({ tree: { '/srv/open': { dir: true, mode: 0o777 } } }), 'untrusted_path', 'authorization');
  await refused('CreateSwapFile', { ...p, path: '/srv/file/swapfile' }, hostWith({ tree: { '/srv/file': 'x' } }), 'untrusted_path', 'authorization');
  for (const fstype of ['btrfs', 'tmpfs', 'overlay', 'nfs4', 'vfat']) await refused('CreateSwapFile', p, hostWith({ fs: { [DIR]: { ...EXT4, fstype } } }), 'unsupported_filesystem', 'conflict');
  // 5% of the file system must stay available: 100 MiB file system, 21 MiB available, 16 MiB asked leaves 5 MiB: exactly enough.
  const small = { target: DIR, fstype: 'ext4', size: 100 * MiB, avail: 21 * MiB };
  await run('CreateSwapFile', p, hostWith({ fs: { [DIR]: small } }));
  await refused('CreateSwapFile', p, hostWith({ fs: { [DIR]: { ...small, avail: 21 * MiB - 1 } } }), 'insufficient_space', 'conflict');
  await refused('CreateSwapFile', { ...p, sizeMiB: 65_536 }, hostWith(), 'insufficient_space');
  await refused('CreateSwapFile', p, hostWith({ verify: { code: 1, stdout: '', stderr: '1 error' } }), 'fstab_already_invalid');
  await refused('CreateSwapFile', p, hostWith({ verify: { code: 0, stdout: '/srv/l\n   [W] non-canonical target path (real: /etc)\n', stderr: '0 parse errors, 0 errors, 1 warning' } }), 'fstab_already_invalid');
  await refused('CreateSwapFile', p, new FixtureHost({ [DIR]: { dir: true } }, () => OK), 'no_fstab');
});

test('RemoveSwapFile: swapoff (undo swapon), fstab line removed, file deleted', async () => {
  const fstab = `${FSTAB}${SWAP_LINE}\n# after\n`;
  const h = hostWith({ tree: { [SWAP]: { file: 'x'.repeat(64), mode: 0o600 }, '/etc/fstab': fstab }, swaps: `${SWAP} file 16380 1024 -2\n` });
  const { steps, preview, shown } = await run('RemoveSwapFile', { path: SWAP }, h);
  assert.deepEqual(steps, [
    { kind: 'command', program: 'swapoff', args: ['--', SWAP], paths: [SWAP], timeoutMs: 600_000, undo: { kind: 'command', program: 'swapon', args: ['--', SWAP], paths: [SWAP] } },
    { kind: 'fileWrite', path: '/etc/fstab', content: `${FSTAB}# after\n`, mode: 0o644 },
    // Undone as CreateSwapFile makes one (undos run last first): a new file of its size and mode by descriptor, then formatted.
    { kind: 'command', program: 'blkid', args: ['-p', '-o', 'value', '-s', 'TYPE', '--', SWAP], paths: [SWAP], undo: { kind: 'command', program: 'mkswap', args: ['--', '/proc/self/fd/3'], file: { path: SWAP } } },
    { kind: 'command', program: 'rm', args: ['--', SWAP], paths: [SWAP], undo: { kind: 'command', program: 'fallocate', args: ['--length', '64', '--', '/proc/self/fd/3'], file: { path: SWAP, create: { mode: 0o600 } } } },
  ]);
  assert.ok(h.calls.some(([p, a]) => p === 'blkid' && a.join(' ') === `-p -o value -s TYPE -- ${SWAP}`));
  assert.deepEqual(preview.change, { turns_off_swap: SWAP, size_kib: 16380, used_kib: 1024, file: '/etc/fstab', removes_lines: [{ number: 3, text: SWAP_LINE }], deletes_file: SWAP, bytes: 64 });
  assert.equal((shown as Record<string, unknown>).fstab, undefined, 'the preview does not carry the whole fstab');

  // Every fstab line naming it goes (a duplicate too); a non-swap line with the same source is not a swap entry.
  const twice = await run('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x', '/etc/fstab': `${SWAP_LINE}\n${FSTAB}${SWAP_LINE}\n` } }));
  assert.deepEqual(twice.steps.map((s) => s.kind), ['fileWrite', 'command', 'command']);
  assert.equal((twice.steps[0] as { content: string }).content, FSTAB);
});

test('RemoveSwapFile: only active, only in fstab, or already deleted', async () => {
  const active = await run('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x' }, swaps: `${SWAP} file 16380 0 -2\n` }));
  assert.deepEqual(active.steps.map((s) => (s.kind === 'command' ? s.program : s.kind)), ['swapoff', 'blkid', 'rm']);
  const gone = await run('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { '/etc/fstab': `${FSTAB}${SWAP_LINE}\n` } }));
  assert.deepEqual(gone.steps, [{ kind: 'fileWrite', path: '/etc/fstab', content: FSTAB, mode: 0o644 }]);
  assert.ok(gone.preview.sideEffects?.some((s) => s.includes('does not exist')));
});

test('RemoveSwapFile refusals', async () => {
  const fstab = `${FSTAB}${SWAP_LINE}\n`;
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x' } }), 'not_a_swap_file', 'conflict');
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x', '/etc/fstab': `${FSTAB}${SWAP} /srv/x ext4 defaults 0 0\n` } }), 'not_a_swap_file');
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x', '/etc/fstab': fstab }, blkid: { code: 0, stdout: 'ext4\n', stderr: '' } }), 'no_swap_signature', 'conflict');
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x', '/etc/fstab': fstab }, blkid: { code: 2, stdout: '', stderr: '' } }), 'no_swap_signature');
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: { dir: true }, '/etc/fstab': fstab } }), 'not_a_regular_file');
  // swapoff and rm would follow a link, or act in a directory someone else can change.
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: { link: '/etc/passwd' }, '/etc/fstab': fstab } }), 'untrusted_path', 'authorization');
  await refused('RemoveSwapFile', { path: '/srv/agent/swapfile' }, hostWith({ tree: { '/srv/agent': { dir: true, uid: 1001 }, '/srv/agent/swapfile': 'x' }, swaps: '/srv/agent/swapfile file 16380 0 -2\n' }), 'untrusted_path');
  await refused('RemoveSwapFile', { path: SWAP }, hostWith({ tree: { [SWAP]: 'x' }, swaps: `${SWAP} file 4000000 2000000 -2\n`, memAvailableKiB: 1_000_000 }), 'not_enough_memory', 'conflict');
});

const VG = { vg_name: 'vg0', vg_attr: 'wz--n-', vg_size: String(1024 * MiB), vg_free: String(100 * MiB), vg_extent_size: String(4 * MiB), pv_count: '1', lv_count: '2' };
const LV = { vg_name: 'vg0', lv_name: 'data', lv_path: '/dev/vg0/data', lv_attr: '-wi-ao----', lv_size: String(512 * MiB), segtype: 'linear' };
const PV = { pv_name: '/dev/vdb', vg_name: 'vg0', pv_fmt: 'lvm2', pv_attr: 'a--', pv_size: String(1024 * MiB), pv_free: String(100 * MiB) };
const LVM = { pv: [PV], vg: [VG], lv: [LV, { ...LV, lv_name: 'pool', lv_attr: 'twi-a-tz--', segtype: 'thin-pool' }] };

test('LvmReport: pvs, vgs, lvs as JSON in bytes; the preview counts them', async () => {
  const h = hostWith({ lvm: LVM });
  const { steps, preview, shown } = await run('LvmReport', {}, h);
  const report = ['--reportformat', 'json', '--units', 'b', '--nosuffix', '-o'];
  assert.deepEqual(steps, [
    { kind: 'command', program: 'pvs', args: [...report, 'pv_name,vg_name,pv_fmt,pv_attr,pv_size,pv_free'] },
    { kind: 'command', program: 'vgs', args: [...report, 'vg_name,vg_attr,vg_size,vg_free,vg_extent_size,pv_count,lv_count'] },
    { kind: 'command', program: 'lvs', args: [...report, 'vg_name,lv_name,lv_path,lv_attr,lv_size,segtype'] },
  ]);
  assert.match(preview.summary, /1 physical volumes, 1 volume groups, 2 logical volumes/);
  assert.deepEqual(shown, { physical_volumes: 1, volume_groups: 1, logical_volumes: 2 });
  const cur = (await run('LvmReport', {}, h)).cur as lvm.LvmState;
  assert.deepEqual(cur.vgs[0], { name: 'vg0', attr: 'wz--n-', size: 1024 * MiB, free: 100 * MiB, extentSize: 4 * MiB, pvCount: 1, lvCount: 2 });
  assert.deepEqual(cur.lvs[0], { vg: 'vg0', name: 'data', path: '/dev/vg0/data', attr: '-wi-ao----', size: 512 * MiB, segtype: 'linear' });
  await refused('LvmReport', {}, hostWith({ lvm: { fail: true } }), 'lvm_unreadable', 'execution');
});

test('ExtendLogicalVolume: lvextend --size +N -- VG/LV, --resizefs for an active ext4, --driverloaded n without device-mapper', async () => {
  const grow = { vg: 'vg0', lv: 'data', add: 64, unit: 'M' };
  const mounted = hostWith({ lvm: LVM, lsblk: { fstype: 'ext4', mountpoint: '/srv/data' } });
  const fs = await run('ExtendLogicalVolume', { ...grow, resizefs: true }, mounted);
  assert.deepEqual(fs.steps, [{ kind: 'command', program: 'lvextend', args: ['--size', '+64M', '--resizefs', '--', 'vg0/data'], timeoutMs: 600_000 }]);
  assert.ok(mounted.calls.some(([p, a]) => p === 'lsblk' && a.join(' ') === '-J -o FSTYPE,MOUNTPOINT -- /dev/vg0/data'));
  assert.deepEqual(fs.preview.change, {
    logical_volume: 'vg0/data',
    size_bytes: { before: 512 * MiB, after: 576 * MiB },
    volume_group_free_bytes: { before: 100 * MiB, after: 36 * MiB },
    grows_filesystem: { fstype: 'ext4', mountpoint: '/srv/data' },
  });
  assert.ok(fs.preview.warnings?.some((w) => w.includes('cannot undo')));

  const plain = await run('ExtendLogicalVolume', grow, mounted);
  assert.deepEqual((plain.steps[0] as { args: string[] }).args, ['--size', '+64M', '--', 'vg0/data']);
  assert.ok(plain.preview.sideEffects?.some((s) => s.includes('keeps its size')));

  // No device-mapper in the kernel: nothing can be active, lvextend changes metadata only.
  const inactive = { pv: [PV], vg: [{ ...VG, vg_free: String(2 * 1024 * MiB) }], lv: [{ ...LV, lv_attr: '-wi-XX----' }] };
  const noDm = hostWith({ lvm: inactive, deviceMapper: false });
  const meta = await run('ExtendLogicalVolume', { vg: 'vg0', lv: 'data', add: 1, unit: 'G' }, noDm);
  assert.deepEqual((meta.steps[0] as { args: string[] }).args, ['--size', '+1G', '--driverloaded', 'n', '--', 'vg0/data']);
  assert.ok(meta.preview.sideEffects?.some((s) => s.includes('no device-mapper')));
  assert.ok(!noDm.calls.some(([p]) => p === 'lsblk'), 'an inactive LV has no device to ask');
  // A snapshot origin grows too.
  await run('ExtendLogicalVolume', grow, hostWith({ lvm: { ...LVM, lv: [{ ...LV, lv_attr: 'owi-aos---' }] } }));
});

test('ExtendLogicalVolume refusals and parameter bounds', async () => {
  const grow = { vg: 'vg0', lv: 'data', add: 64, unit: 'M' };
  await refused('ExtendLogicalVolume', { ...grow, vg: 'vg9' }, hostWith({ lvm: LVM }), 'no_such_volume_group', 'validation');
  await refused('ExtendLogicalVolume', { ...grow, lv: 'none' }, hostWith({ lvm: LVM }), 'no_such_logical_volume', 'validation');
  await refused('ExtendLogicalVolume', { ...grow, lv: 'pool' }, hostWith({ lvm: LVM }), 'unsupported_volume_type', 'conflict');
  // 100 MiB free: 100 M fits, 97 M rounds up to 100 M (4 MiB extents) and fits, 101 M does not.
  await run('ExtendLogicalVolume', { ...grow, add: 100 }, hostWith({ lvm: LVM }));
  await run('ExtendLogicalVolume', { ...grow, add: 97 }, hostWith({ lvm: LVM }));
  await refused('ExtendLogicalVolume', { ...grow, add: 101 }, hostWith({ lvm: LVM }), 'insufficient_free_space', 'conflict');
  await refused('ExtendLogicalVolume', { ...grow, add: 1, unit: 'G' }, hostWith({ lvm: LVM }), 'insufficient_free_space');
  const inactive = { ...LVM, lv: [{ ...LV, lv_attr: '-wi-------' }] };
  await refused('ExtendLogicalVolume', { ...grow, resizefs: true }, hostWith({ lvm: inactive }), 'not_active', 'conflict');
  await refused('ExtendLogicalVolume', { ...grow, resizefs: true }, hostWith({ lvm: LVM }), 'no_resizable_filesystem', 'conflict');
  await refused('ExtendLogicalVolume', { ...grow, resizefs: true }, hostWith({ lvm: LVM, lsblk: { fstype: 'btrfs', mountpoint: '/srv' } }), 'no_resizable_filesystem');

  const p = byName('ExtendLogicalVolume').params;
  for (const bad of [{ add: 0 }, { add: -1 }, { add: 1.5 }, { unit: 'T' }, { unit: 'm' }, { add: 65_537, unit: 'G' }, { add: 67_108_865 }, { vg: 'vg0/x' }, { lv: '..' }, { lv: '-x' }, { size: '+1G' }]) {
    assert.equal(p.safeParse({ ...grow, ...bad }).success, false, JSON.stringify(bad));
  }
  assert.ok(p.safeParse({ ...grow, add: 65_536, unit: 'G' }).success);
});

test('ListFilesystems and FilesystemInodes: fixed reads', async () => {
  assert.deepEqual((await run('ListFilesystems', {}, hostWith())).steps, [{ kind: 'command', program: 'findmnt', args: ['-J', '-b', '--df'] }]);
  assert.deepEqual((await run('FilesystemInodes', {}, hostWith())).steps, [{ kind: 'command', program: 'df', args: ['-i', '-P', '-T'] }]);
});

test('BlockDeviceInfo: lsblk of one device under /dev; refusals', async () => {
  const h = hostWith({
    tree: { '/dev/vg0/data': { link: '../dm-0' }, '/dev/dm-0': { device: true }, '/dev/sda': { device: true }, '/dev/null-file': 'x', '/dev/disk/by-uuid/x': { link: '/var/tmp/img' }, '/dev/shm': { dir: true, mode: 0o1777 }, '/dev/shm/d': { device: true } },
  });
  // udev's link is resolved once: both programs get the device node itself.
  const { steps, preview } = await run('BlockDeviceInfo', { device: '/dev/vg0/data' }, h);
  assert.deepEqual(steps, [
    { kind: 'command', program: 'lsblk', args: ['-J', '-b', '-p', '-o', 'NAME,TYPE,SIZE,RO,FSTYPE,LABEL,UUID,PARTUUID,MOUNTPOINT,MODEL', '--', '/dev/dm-0'], paths: ['/dev/dm-0'] },
    { kind: 'command', program: 'blkid', args: ['-p', '-o', 'export', '--', '/dev/dm-0'], okCodes: [0, 2], paths: ['/dev/dm-0'] },
  ]);
  assert.match(preview.summary, /\/dev\/vg0\/data \(\/dev\/dm-0\)/);
  assert.deepEqual((await run('BlockDeviceInfo', { device: '/dev/sda' }, h)).steps.map((s) => (s as { paths: string[] }).paths), [['/dev/sda'], ['/dev/sda']]);
  await refused('BlockDeviceInfo', { device: '/dev/disk/by-uuid/x' }, h, 'link_outside_dev', 'authorization');
  await refused('BlockDeviceInfo', { device: '/dev/shm/d' }, h, 'untrusted_path', 'authorization');
  await refused('BlockDeviceInfo', { device: '/dev/sdz' }, h, 'no_such_device', 'validation');
  await refused('BlockDeviceInfo', { device: '/dev/null-file' }, h, 'not_a_block_device', 'validation');
  await refused('BlockDeviceInfo', { device: '/dev/vg0' }, h, 'not_a_block_device');
  for (const ok of ['/dev/sda', '/dev/nvme0n1p2', '/dev/loop7', '/dev/mapper/vg0-data', '/dev/disk/by-uuid/3e6be9de-8139-11d1-9106-a43f08d823a6', '/dev/md127']) assert.ok(blockDevice.safeParse(ok).success, ok);
  for (const bad of ['/dev', '/dev/', '/etc/passwd', '/dev/../etc/shadow', '/dev/./sda', '/dev//sda', '/dev/a/b/c/d', 'sda', '/dev/sda 1']) assert.equal(blockDevice.safeParse(bad).success, false, bad);
});
