/**
 * Volumes (family storage): swap files, LVM logical volumes, and reads of mounted file
 * systems, their inodes and one block device. The /etc/fstab parsing and writing and the
 * mount-point allowlist come from ./storage.ts; this file adds what lives on top of them.
 *
 * Swap files live at /swapfile, /var/swap/NAME, or NAME in a directory under /srv, /mnt or
 * /data, and NAME says "swap": no action here can turn an arbitrary file into swap or delete
 * one that is not swap. The path passes the trusted-path rule (lib/trusted-path.ts): every
 * directory above it root's alone, so nobody else can swap the file for their own (which
 * would then receive root's swapped-out memory). The daemon creates the file itself,
 * through its held parent directory, exclusively (never over an existing file), root:root
 * mode 0600, and hands it to fallocate and mkswap as their descriptor 3, so neither acts on
 * a name; swapon, which takes only a name, runs after the daemon has checked that the name
 * still leads to that very file (device, inode, owner, mode, one link). It goes on ext2/3/4
 * or XFS only (where a fallocate'd file is valid swap), with 5% of its file system left
 * free; each step has an undo, so a failure at any point (swapon refused, /etc/fstab
 * unwritable, findmnt --verify failing or warning) turns the swap off again, deletes the
 * file and restores /etc/fstab. Where systemd runs, CreateSwapFile reloads it before the
 * check (findmnt --verify warns while systemd uses an older /etc/fstab; see
 * lib/fstab-verify.ts). RemoveSwapFile does not: systemd follows /proc/swaps by itself, and
 * its fstab generator sees the change at the next reload or boot.
 *
 * LVM: ExtendLogicalVolume only grows (lvextend, never lvreduce) a plain or origin LV,
 * after checking the volume group's free extents. On a kernel without the device-mapper
 * driver (no "device-mapper" line in /proc/devices) no LV can be active, so the change is
 * to LVM metadata only and lvextend is told so with `--driverloaded n` (without it, it
 * fails trying to suspend a volume that cannot exist).
 *
 * What the tests execute for real (test/scenarios/volumes.ts, on an overlay of the machine
 * running them, with loop devices attached in the scenario setup and detached by the last
 * scenario): a swap file on an ext4 file system on a loop device is created, checked in
 * /proc/swaps, undone when /etc/fstab cannot be written (chattr +i: swapoff and rm really
 * run; the job reports Failed rather than RolledBack because the executor's restore of
 * the unchanged, immutable fstab fails too), and removed (really swapped off); LVM
 * metadata (pvs/vgs/lvs, and lvextend of an inactive LV) on a loop device. The
 * test machine's kernel has no device-mapper, so an ACTIVE LV, and with it `--resizefs`
 * and the path without `--driverloaded n`, are covered by the unit tests only (argv,
 * refusals), never executed.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, FD3, fileWrite, type Step } from '../mechanism.js';
import { params, token } from '../params.js';
import { FSTAB, fstabChange, reportLine, systemdRuns, verifyFstab } from '../lib/fstab-verify.js';
import { fstabWith, fstabWithout, mountPoint, parseFstab, type FstabLine } from './storage.js';
import { fixedRead } from '../lib/fixed-read.js';
import { linkTarget } from '../lib/host-files.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;
/** swapoff moves every swapped-out page back to RAM: on a busy host that takes minutes. */
const SWAPOFF_TIMEOUT_MS = 600_000;

/** The JSON a program printed, or null when it printed something else (an old version, a warning on stdout). */
function jsonOf<T>(stdout: string): T | null {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    return null;
  }
}

const mib = (bytes: number) => `${Math.round((bytes / MiB) * 10) / 10} MiB`;

// ---------------------------------------------------------------- parameters

const SWAP_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
/** Directories (and everything below them that is a valid mount point) where a swap file may be placed. */
const SWAP_DATA_DIRS = ['/srv', '/mnt', '/data'];
/** The only parent directory CreateSwapFile creates (mode 0700) when it is missing. */
const SWAP_DIR = '/var/swap';

function isSwapFileLocation(path: string): boolean {
  if (path === '/swapfile') return true;
  const dir = posix.dirname(path);
  const name = posix.basename(path);
  if (posix.join(dir, name) !== path) return false; // a trailing '/', '//', '.' or '..' segment
  if (!SWAP_NAME.test(name) || !name.toLowerCase().includes('swap')) return false;
  if (dir === SWAP_DIR) return true;
  return SWAP_DATA_DIRS.some((d) => dir === d || dir.startsWith(`${d}/`)) && mountPoint.safeParse(dir).success;
}

/** A swap file's path: /swapfile, /var/swap/NAME, or NAME in a directory under /srv, /mnt or /data; NAME contains "swap". */
export const swapFilePath = token(/^\/[A-Za-z0-9_./-]+$/, 'swap file path', 300)
  .refine(isSwapFileLocation, 'swap file must be /swapfile, /var/swap/NAME or DIR/NAME with DIR under /srv, /mnt or /data, and NAME must contain "swap" (letters, digits, . _ -)')
  .describe('/swapfile, /var/swap/NAME, or DIR/NAME with DIR under /srv, /mnt or /data; NAME contains "swap"');

/** Swap size in MiB: 16 MiB to 64 GiB. */
export const swapSizeMiB = z.number().int().min(16).max(65_536);

/** A volume group or logical volume name as LVM allows it, less '+' and a leading '.' or '-'. */
export const lvmName = (what: string) => token(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, what, 64);

export const GROW_UNITS = { M: MiB, G: GiB } as const;

// ---------------------------------------------------------------- swap state

/** One line of /proc/swaps (sizes in KiB, as the kernel writes them). */
export interface SwapArea {
  path: string;
  type: string;
  sizeKiB: number;
  usedKiB: number;
  priority: number;
}

export function parseProcSwaps(text: string): SwapArea[] {
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const f = line.trim().split(/\s+/);
      if (f.length < 5) return [];
      return [{ path: f[0]!.replace(/\\040/g, ' '), type: f[1]!, sizeKiB: Number(f[2]), usedKiB: Number(f[3]), priority: Number(f[4]) }];
    });
}

/** MemAvailable from /proc/meminfo, in KiB (null when the line is missing). */
export function memAvailableKiB(meminfo: string): number | null {
  const m = /^MemAvailable:\s+(\d+) kB$/m.exec(meminfo);
  return m ? Number(m[1]) : null;
}

interface SwapFileState {
  path: string;
  file: { isFile: boolean; isSymlink: boolean; size: number } | null;
  fstab: string;
  fstabExists: boolean;
  /** Every /etc/fstab entry whose source is this path. */
  entries: FstabLine[];
  /** The path in /proc/swaps, or null when it is not an active swap area. */
  active: SwapArea | null;
}

async function readSwapFile(host: Host, path: string): Promise<SwapFileState> {
  // swapon, swapoff, blkid and rm take the name: nobody but root may be able to change what it leads to.
  await host.trustedPath(path);
  const fstab = await host.readFile(FSTAB);
  const st = await host.stat(path);
  return {
    path,
    file: st ? { isFile: st.isFile, isSymlink: st.isSymlink, size: st.size } : null,
    fstab: fstab ?? '',
    fstabExists: fstab !== null,
    entries: parseFstab(fstab ?? '').filter((e) => e.source === path),
    active: parseProcSwaps((await host.readFile('/proc/swaps')) ?? '').find((s) => s.path === path) ?? null,
  };
}

/** What the preview shows of a swap file state: everything but the whole /etc/fstab text. */
const shownSwap = <T extends { fstab: string }>({ fstab: _text, ...rest }: T) => rest;

export const swapFstabLine = (path: string) => `${path} none swap sw 0 0`;

/** The file system holding `dir` (findmnt --target), sizes in bytes; null when findmnt cannot tell. */
export async function fileSystemOf(host: Host, dir: string): Promise<{ target: string; source: string; fstype: string; size: number; avail: number } | null> {
  const r = await host.run('findmnt', ['-J', '-b', '-o', 'TARGET,SOURCE,FSTYPE,SIZE,AVAIL', '-T', dir]);
  if (r.code !== 0) return null;
  const fs = jsonOf<{ filesystems?: Array<Record<string, unknown>> }>(r.stdout)?.filesystems?.[0];
  if (!fs) return null;
  return { target: String(fs.target ?? ''), source: String(fs.source ?? ''), fstype: String(fs.fstype ?? ''), size: Number(fs.size ?? 0), avail: Number(fs.avail ?? 0) };
}

/** File systems on which a fallocate'd file is valid swap (btrfs needs nodatacow, others no swap files at all). */
export const SWAP_FILESYSTEMS = ['ext2', 'ext3', 'ext4', 'xfs'];
/** Share of its file system a new swap file must leave available. */
const FREE_RESERVE = 0.05;

/** The directories from the top down to the parent of `path`, with what is there now. */
async function ancestors(host: Host, path: string) {
  const dirs: string[] = [];
  for (let d = posix.dirname(path); d !== '/'; d = posix.dirname(d)) dirs.unshift(d);
  return Promise.all(dirs.map(async (dir) => ({ dir, st: await host.stat(dir) })));
}

// ---------------------------------------------------------------- swap actions

export const createSwapFile = action({
  name: 'CreateSwapFile',
  family: 'storage',
  description:
    'Create a swap file (new file only, mode 0600, on ext2/3/4 or XFS, leaving 5% of the file system free), turn it on, and add it to /etc/fstab so it is used at every boot; any failure undoes every step.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ path: swapFilePath, sizeMiB: swapSizeMiB }),
  files: [FSTAB],
  rebuildsAtExecute: { files: [FSTAB] },
  example: { path: '/swapfile', sizeMiB: 2048 },
  current: async ({ path }, host) => {
    const swap = await readSwapFile(host, path);
    const parents = await ancestors(host, path);
    // The trusted-path rule (readSwapFile) already refused a link or a non-directory among them.
    const missing = parents.filter((p) => p.st === null).map((p) => p.dir);
    const existing = parents.filter((p) => p.st !== null).map((p) => p.dir);
    const verify = await verifyFstab(host, swap.fstab);
    return {
      ...swap,
      missingDirs: missing,
      fileSystem: await fileSystemOf(host, existing[existing.length - 1] ?? '/'),
      fstabVerifies: verify.ok,
      fstabReport: verify.report,
      systemd: await systemdRuns(host),
    };
  },
  shown: shownSwap,
  check: ({ path, sizeMiB }, cur) => {
    if (!cur.fstabExists) throw new AirlockError('conflict', 'no_fstab', '/etc/fstab does not exist on this host');
    if (cur.file !== null || cur.active) throw new AirlockError('conflict', 'already_exists', `${path} already exists`, 'choose another path; RemoveSwapFile removes an old swap file');
    if (cur.entries.length > 0) throw new AirlockError('conflict', 'fstab_entry_exists', `/etc/fstab already names ${path}: ${cur.entries[0]!.text.trim()}`, 'a person removes the stale line first');
    if (cur.missingDirs.some((d) => d !== SWAP_DIR)) throw new AirlockError('conflict', 'parent_missing', `${cur.missingDirs[0]} does not exist`, 'create it first (CreateMountpoint) or choose /swapfile');
    const fs = cur.fileSystem;
    if (!fs) throw new AirlockError('execution', 'filesystem_unknown', `findmnt cannot tell which file system holds ${posix.dirname(path)}`);
    if (!SWAP_FILESYSTEMS.includes(fs.fstype)) {
      throw new AirlockError('conflict', 'unsupported_filesystem', `${path} would be on ${fs.fstype} (${fs.target}): swap files are made here only on ${SWAP_FILESYSTEMS.join(', ')}`, 'choose a path on an ext4 or XFS file system');
    }
    const leaves = fs.avail - sizeMiB * MiB;
    if (leaves < fs.size * FREE_RESERVE) {
      throw new AirlockError('conflict', 'insufficient_space', `${fs.target} has ${mib(fs.avail)} available: a ${sizeMiB} MiB swap file would leave less than ${FREE_RESERVE * 100}% of it free`, 'choose a smaller size or another file system');
    }
    if (!cur.fstabVerifies) {
      throw new AirlockError('conflict', 'fstab_already_invalid', `/etc/fstab already fails findmnt --verify (errors and warnings both count): ${reportLine(cur.fstabReport)}`, 'a person fixes the existing entries by hand first');
    }
  },
  preview: ({ path, sizeMiB }, cur) => {
    const fs = cur.fileSystem!;
    return {
      summary: `Create the ${sizeMiB} MiB swap file ${path}, turn it on and add it to /etc/fstab`,
      change: {
        creates_file: path,
        size_mib: sizeMiB,
        mode: '0600',
        owner: 'root:root',
        ...(cur.missingDirs.length ? { creates_directory: SWAP_DIR, directory_mode: '0700' } : {}),
        turns_on_swap: path,
        file: FSTAB,
        appends_line: swapFstabLine(path),
        prepared: 'created by the daemon itself (never over an existing file) and handed to fallocate and mkswap as an open file; swapon runs only if the path still leads to that file',
        then: `${cur.systemd ? 'runs systemctl daemon-reload, then ' : ''}checks /etc/fstab with findmnt --verify (an error or a warning fails it); any failing step turns the swap off, deletes the file and restores /etc/fstab`,
      },
      sideEffects: [
        `uses ${sizeMiB} MiB of ${fs.source} (${fs.fstype} on ${fs.target}): ${mib(fs.avail - sizeMiB * MiB)} stay available`,
        'the kernel may move idle memory pages to it at once; it is used at every boot from now on',
        cur.systemd ? 'systemd is reloaded, so its fstab generator sees the new line now' : 'systemd is not running here: nothing else reads the new /etc/fstab line until the next boot',
      ],
    };
  },
  mechanism: ({ path, sizeMiB }, cur) => [
    ...(cur.missingDirs.length ? [command('mkdir', ['-m', '0700', '--', SWAP_DIR], { paths: [SWAP_DIR], undo: command('rmdir', ['--', SWAP_DIR], { paths: [SWAP_DIR] }) })] : []),
    // The daemon creates the file (its undo deletes it, if the name still leads to it); fallocate and mkswap get it as fd 3.
    command('fallocate', ['--length', `${sizeMiB}MiB`, '--', FD3], { file: { path, create: { mode: 0o600 } } }),
    command('mkswap', ['--', FD3], { file: { path } }),
    command('swapon', ['--', path], { paths: [path], expect: { path, mode: 0o600 }, undo: command('swapoff', ['--', path], { paths: [path], timeoutMs: SWAPOFF_TIMEOUT_MS }) }),
    ...fstabChange(fileWrite(FSTAB, fstabWith(cur.fstab, swapFstabLine(path)), { mode: 0o644 }), [path], cur.systemd),
  ],
});

/** The fstab text without the given entries (removed from the last up, so the indexes stay right). */
const fstabWithoutAll = (text: string, entries: FstabLine[]) => [...entries].sort((a, b) => b.index - a.index).reduce((t, e) => fstabWithout(t, e.index), text);

export const removeSwapFile = action({
  name: 'RemoveSwapFile',
  family: 'storage',
  description: 'Turn off a swap file, remove its /etc/fstab line and delete it; only a file under the swap-file allowlist that is active swap or named in /etc/fstab as swap, and carries a swap signature.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ path: swapFilePath }),
  files: [FSTAB],
  rebuildsAtExecute: { files: [FSTAB] },
  example: { path: '/swapfile' },
  current: async ({ path }, host) => {
    const swap = await readSwapFile(host, path);
    const probe = swap.file?.isFile ? await host.run('blkid', ['-p', '-o', 'value', '-s', 'TYPE', '--', path]) : null;
    return {
      ...swap,
      entries: swap.entries.filter((e) => e.fstype === 'swap'),
      signature: probe && probe.code === 0 ? probe.stdout.trim() : null,
      memAvailableKiB: memAvailableKiB((await host.readFile('/proc/meminfo')) ?? ''),
    };
  },
  shown: shownSwap,
  check: ({ path }, cur) => {
    if (!cur.active && cur.entries.length === 0) {
      throw new AirlockError('conflict', 'not_a_swap_file', `${path} is neither an active swap area nor a swap entry of /etc/fstab`, 'ListSwap and ListFstab show the swap files');
    }
    if (cur.file && (cur.file.isSymlink || !cur.file.isFile)) throw new AirlockError('conflict', 'not_a_regular_file', `${path} is a link or not a regular file`, 'a person looks at it');
    if (cur.file && cur.signature !== 'swap') {
      throw new AirlockError('conflict', 'no_swap_signature', `${path} does not carry a swap signature (blkid: ${cur.signature ?? 'nothing'}): it is not deleted`, 'a person looks at it');
    }
    if (cur.active && cur.memAvailableKiB !== null && cur.active.usedKiB > cur.memAvailableKiB) {
      throw new AirlockError('conflict', 'not_enough_memory', `${path} holds ${cur.active.usedKiB} KiB of swapped-out memory, more than the ${cur.memAvailableKiB} KiB of RAM available`, 'free memory (or add another swap file) first');
    }
  },
  preview: ({ path }, cur) => ({
    summary: `${cur.active ? 'Turn off and delete' : 'Delete'} the swap file ${path}`,
    change: {
      ...(cur.active ? { turns_off_swap: path, size_kib: cur.active.sizeKiB, used_kib: cur.active.usedKiB } : {}),
      ...(cur.entries.length ? { file: FSTAB, removes_lines: cur.entries.map((e) => ({ number: e.index + 1, text: e.text })) } : {}),
      ...(cur.file ? { deletes_file: path, bytes: cur.file.size } : {}),
    },
    sideEffects: [
      ...(cur.active ? [`the ${cur.active.usedKiB} KiB swapped out to it move back to RAM first (swapoff can take minutes; it fails, changing nothing, when RAM runs short)`] : []),
      ...(cur.entries.length ? ['it is no longer used at boot; systemd sees the /etc/fstab change at its next daemon-reload or boot'] : []),
      ...(cur.file ? [] : [`${path} does not exist: only the /etc/fstab line goes`]),
    ],
  }),
  mechanism: ({ path }, cur): Step[] => [
    ...(cur.active ? [command('swapoff', ['--', path], { paths: [path], timeoutMs: SWAPOFF_TIMEOUT_MS, undo: command('swapon', ['--', path], { paths: [path] }) })] : []),
    ...(cur.entries.length ? [fileWrite(FSTAB, fstabWithoutAll(cur.fstab, cur.entries), { mode: 0o644 })] : []),
    ...(cur.file ? [command('rm', ['--', path], { paths: [path] })] : []),
  ],
});

// ---------------------------------------------------------------- LVM

const REPORT = ['--reportformat', 'json', '--units', 'b', '--nosuffix', '-o'];
const PV_COLUMNS = 'pv_name,vg_name,pv_fmt,pv_attr,pv_size,pv_free';
const VG_COLUMNS = 'vg_name,vg_attr,vg_size,vg_free,vg_extent_size,pv_count,lv_count';
const LV_COLUMNS = 'vg_name,lv_name,lv_path,lv_attr,lv_size,segtype';

export interface PhysicalVolume {
  name: string;
  vg: string;
  attr: string;
  size: number;
  free: number;
}
export interface VolumeGroup {
  name: string;
  attr: string;
  size: number;
  free: number;
  extentSize: number;
  pvCount: number;
  lvCount: number;
}
export interface LogicalVolume {
  vg: string;
  name: string;
  path: string;
  /** lvs lv_attr: [0] type ('-' plain, 'o' origin, 't' thin pool, ...), [4] state ('a' active, 'X' unknown). */
  attr: string;
  size: number;
  segtype: string;
}
export interface LvmState {
  pvs: PhysicalVolume[];
  vgs: VolumeGroup[];
  lvs: LogicalVolume[];
}

/** The rows of one `pvs|vgs|lvs --reportformat json` report (its first report's `key` list). */
export function reportRows(stdout: string, key: 'pv' | 'vg' | 'lv'): Array<Record<string, string>> {
  const doc = JSON.parse(stdout) as { report?: Array<Record<string, unknown>> };
  const rows = doc.report?.[0]?.[key];
  if (!Array.isArray(rows)) throw new Error(`no "${key}" list in the report`);
  return rows as Array<Record<string, string>>;
}

async function lvmRows(host: Host, program: 'pvs' | 'vgs' | 'lvs', columns: string, key: 'pv' | 'vg' | 'lv') {
  const r = await host.run(program, [...REPORT, columns]);
  try {
    if (r.code !== 0) throw new Error(`exit status ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
    return reportRows(r.stdout, key);
  } catch (e) {
    throw new AirlockError('execution', 'lvm_unreadable', `${program} failed: ${(e as Error).message}`);
  }
}

/** Physical volumes, volume groups and logical volumes, sizes in bytes. */
export async function readLvm(host: Host): Promise<LvmState> {
  const num = (s: string | undefined) => Number(s ?? 0);
  const pvs = (await lvmRows(host, 'pvs', PV_COLUMNS, 'pv')).map((r) => ({ name: r.pv_name ?? '', vg: r.vg_name ?? '', attr: r.pv_attr ?? '', size: num(r.pv_size), free: num(r.pv_free) }));
  const vgs = (await lvmRows(host, 'vgs', VG_COLUMNS, 'vg')).map((r) => ({
    name: r.vg_name ?? '',
    attr: r.vg_attr ?? '',
    size: num(r.vg_size),
    free: num(r.vg_free),
    extentSize: num(r.vg_extent_size),
    pvCount: num(r.pv_count),
    lvCount: num(r.lv_count),
  }));
  const lvs = (await lvmRows(host, 'lvs', LV_COLUMNS, 'lv')).map((r) => ({ vg: r.vg_name ?? '', name: r.lv_name ?? '', path: r.lv_path ?? '', attr: r.lv_attr ?? '', size: num(r.lv_size), segtype: r.segtype ?? '' }));
  return { pvs, vgs, lvs };
}

/** True when the running kernel has the device-mapper driver (a "device-mapper" block major in /proc/devices). */
export const hasDeviceMapper = (procDevices: string) => /^\s*\d+ device-mapper$/m.test(procDevices);

export const lvmReport = action({
  name: 'LvmReport',
  family: 'storage',
  description: 'Show LVM physical volumes, volume groups (size, free space, extent size) and logical volumes (path, attributes, size), sizes in bytes, as JSON (pvs, vgs, lvs).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readLvm(host),
  shown: (cur) => ({ physical_volumes: cur.pvs.length, volume_groups: cur.vgs.length, logical_volumes: cur.lvs.length }),
  preview: (_p, cur) => ({ summary: `Read the LVM report (pvs, vgs, lvs): ${cur.pvs.length} physical volumes, ${cur.vgs.length} volume groups, ${cur.lvs.length} logical volumes`, change: null }),
  mechanism: () => [command('pvs', [...REPORT, PV_COLUMNS]), command('vgs', [...REPORT, VG_COLUMNS]), command('lvs', [...REPORT, LV_COLUMNS])],
});

/** File systems lvextend --resizefs (fsadm) can grow. */
export const RESIZABLE_FILESYSTEMS = ['ext2', 'ext3', 'ext4', 'xfs'];
/** LV types grown here: plain volumes and snapshot origins (thin, cache, RAID and snapshots have their own rules). */
const GROWABLE_LV_TYPES = ['-', 'o'];

export const extendLogicalVolume = action({
  name: 'ExtendLogicalVolume',
  family: 'storage',
  description:
    'Grow one logical volume by N MiB or GiB (lvextend --size +N), when its volume group has the free extents; optionally grow the ext2/3/4 or XFS file system on it too (--resizefs, active volumes only). Never shrinks.',
  risk: 'high',
  readOnly: false,
  params: params({
    vg: lvmName('volume group name'),
    lv: lvmName('logical volume name'),
    add: z.number().int().min(1).max(67_108_864),
    unit: z.enum(['M', 'G']),
    resizefs: z.boolean().optional(),
  }).refine((p) => p.add * GROW_UNITS[p.unit] <= 64 * TiB, { message: 'at most 64 TiB at once', path: ['add'] }),
  files: [],
  example: { vg: 'vg0', lv: 'data', add: 10, unit: 'G', resizefs: true },
  current: async ({ vg, lv }, host) => {
    const lvm = await readLvm(host);
    const volume = lvm.lvs.find((l) => l.vg === vg && l.name === lv) ?? null;
    const active = volume?.attr[4] === 'a';
    let fileSystem: { fstype: string; mountpoint: string } | null = null;
    if (volume && active) {
      const r = await host.run('lsblk', ['-J', '-o', 'FSTYPE,MOUNTPOINT', '--', await deviceNode(host, volume.path)]);
      const dev = r.code === 0 ? jsonOf<{ blockdevices?: Array<{ fstype?: string | null; mountpoint?: string | null }> }>(r.stdout)?.blockdevices?.[0] : undefined;
      if (dev?.fstype) fileSystem = { fstype: dev.fstype, mountpoint: dev.mountpoint ?? '' };
    }
    return {
      group: lvm.vgs.find((g) => g.name === vg) ?? null,
      volume,
      active,
      fileSystem,
      deviceMapper: hasDeviceMapper((await host.readFile('/proc/devices')) ?? ''),
    };
  },
  check: ({ vg, lv, add, unit, resizefs }, cur) => {
    if (!cur.group) throw new AirlockError('validation', 'no_such_volume_group', `there is no volume group ${vg}`, 'LvmReport lists them');
    if (!cur.volume) throw new AirlockError('validation', 'no_such_logical_volume', `volume group ${vg} has no logical volume ${lv}`, 'LvmReport lists them');
    if (!GROWABLE_LV_TYPES.includes(cur.volume.attr[0] ?? '')) {
      throw new AirlockError('conflict', 'unsupported_volume_type', `${vg}/${lv} is not a plain logical volume (attributes ${cur.volume.attr}, ${cur.volume.segtype})`, 'thin pools, snapshots, cache and RAID volumes are grown by a person');
    }
    const need = growth(cur.group, add, unit);
    if (need > cur.group.free) {
      throw new AirlockError('conflict', 'insufficient_free_space', `volume group ${vg} has ${mib(cur.group.free)} free; growing ${vg}/${lv} by ${add} ${unit}iB needs ${mib(need)}`, 'add a physical volume to the group, or ask for less');
    }
    if (resizefs && !cur.active) throw new AirlockError('conflict', 'not_active', `${vg}/${lv} is not active: its file system cannot be grown`, 'grow it without resizefs, or activate it first');
    if (resizefs && !RESIZABLE_FILESYSTEMS.includes(cur.fileSystem?.fstype ?? '')) {
      throw new AirlockError('conflict', 'no_resizable_filesystem', `${vg}/${lv} holds ${cur.fileSystem?.fstype ?? 'no file system'}: only ${RESIZABLE_FILESYSTEMS.join(', ')} are grown with it`, 'grow it without resizefs');
    }
  },
  preview: ({ vg, lv, add, unit, resizefs }, cur) => {
    const need = growth(cur.group!, add, unit);
    const fs = cur.fileSystem;
    return {
      summary: `Grow the logical volume ${vg}/${lv} by ${add} ${unit}iB (${mib(cur.volume!.size)} to ${mib(cur.volume!.size + need)})${resizefs ? ` with its ${fs!.fstype} file system` : ''}`,
      change: {
        logical_volume: `${vg}/${lv}`,
        size_bytes: { before: cur.volume!.size, after: cur.volume!.size + need },
        volume_group_free_bytes: { before: cur.group!.free, after: cur.group!.free - need },
        grows_filesystem: resizefs ? fs : null,
      },
      sideEffects: [
        ...(resizefs ? [`the ${fs!.fstype} file system ${fs!.mountpoint ? `mounted on ${fs!.mountpoint} ` : ''}grows with it (lvextend runs fsadm; online when mounted)`] : []),
        ...(!resizefs && fs ? [`the ${fs.fstype} file system on it keeps its size until it is grown too`] : []),
        ...(cur.deviceMapper ? [] : ['this kernel has no device-mapper driver, so no logical volume is active here: only the LVM metadata changes (lvextend --driverloaded n)']),
      ],
      warnings: ['Airlock cannot undo this: shrinking a logical volume (and its file system) is a separate operation that can lose data'],
    };
  },
  mechanism: ({ vg, lv, add, unit, resizefs }, cur) => [
    command('lvextend', ['--size', `+${add}${unit}`, ...(resizefs ? ['--resizefs'] : []), ...(cur.deviceMapper ? [] : ['--driverloaded', 'n']), '--', `${vg}/${lv}`], { timeoutMs: 600_000 }),
  ],
});

/** Bytes an LV grows by: the request rounded up to whole extents, as lvextend does. */
export function growth(group: { extentSize: number }, add: number, unit: keyof typeof GROW_UNITS): number {
  const bytes = add * GROW_UNITS[unit];
  const extent = group.extentSize || 1;
  return Math.ceil(bytes / extent) * extent;
}

// ---------------------------------------------------------------- file system reads

export const listFilesystems = fixedRead({
  name: 'ListFilesystems',
  sensitive: false,
  reachesNetwork: false,
  family: 'storage',
  description: 'List mounted file systems (no pseudo file systems) with source, type, size, used and available bytes and use%, as JSON (findmnt --df).',
  summary: 'Read mounted file systems with their usage (findmnt -J -b --df)',
  steps: [command('findmnt', ['-J', '-b', '--df'])],
});

export const filesystemInodes = fixedRead({
  name: 'FilesystemInodes',
  sensitive: false,
  reachesNetwork: false,
  family: 'storage',
  description: 'Show inode totals, use and free inodes of every mounted file system (df -i): a full inode table refuses new files while space remains.',
  summary: 'Read inode use of mounted file systems (df -i -P -T)',
  steps: [command('df', ['-i', '-P', '-T'])],
});

/**
 * The device node a device path names. udev's names (/dev/disk/by-uuid/UUID, /dev/VG/LV)
 * are links: such a link is resolved here, once, to a path under /dev, and programs get the
 * node itself, which must pass the trusted-path rule (no link, /dev and its directories
 * root's alone, so not /dev/shm).
 */
export async function deviceNode(host: Host, path: string): Promise<string> {
  let node = path;
  if ((await host.stat(path))?.isSymlink) {
    const target = await linkTarget(host, path);
    if (target === null || !target.startsWith('/dev/')) {
      throw new AirlockError('authorization', 'link_outside_dev', `${path} is a link to ${target ?? 'something Airlock cannot resolve'}, not to a device under /dev`);
    }
    node = target;
  }
  await host.trustedPath(node);
  return node;
}

/** A block device path under /dev: /dev/sda1, /dev/nvme0n1, /dev/loop0, /dev/VG/LV, /dev/mapper/NAME, /dev/disk/by-uuid/UUID. */
export const blockDevice = token(/^\/dev\/[A-Za-z0-9][A-Za-z0-9:._+-]*(\/[A-Za-z0-9][A-Za-z0-9:._+-]*){0,2}$/, 'block device (/dev/...)', 200);

export const blockDeviceInfo = action({
  name: 'BlockDeviceInfo',
  family: 'storage',
  description:
    'Show one block device and what it holds: type, size in bytes, read-only, mount point and model with its children, as JSON (lsblk), then the signature on the device itself: file system type, label, UUID and PARTUUID, what an fstab entry needs (blkid -p, which reads the device and so works without udev).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ device: blockDevice }),
  files: [],
  example: { device: '/dev/sda' },
  current: async ({ device }, host) => {
    if ((await host.stat(device)) === null) return { node: device, st: null };
    const node = await deviceNode(host, device);
    return { node, st: await host.stat(node) };
  },
  check: ({ device }, { node, st }) => {
    if (st === null) throw new AirlockError('validation', 'no_such_device', `${device} does not exist`, 'ListBlockDevices lists the block devices');
    if (st.isDir || st.isFile) throw new AirlockError('validation', 'not_a_block_device', `${node} is a ${st.isDir ? 'directory' : 'regular file'}, not a block device`);
  },
  shown: ({ node }) => ({ device: node }),
  preview: ({ device }, { node }) => ({ summary: `Read what lsblk knows of ${device}${node !== device ? ` (${node})` : ''} and what it holds, and probe its signature (blkid -p)`, change: null }),
  mechanism: (_p, { node }) => [
    command('lsblk', ['-J', '-b', '-p', '-o', 'NAME,TYPE,SIZE,RO,FSTYPE,LABEL,UUID,PARTUUID,MOUNTPOINT,MODEL', '--', node], { paths: [node] }),
    // lsblk takes FSTYPE, LABEL and UUID from udev's database (null where udev does not run); blkid -p reads the device. Status 2: no signature.
    command('blkid', ['-p', '-o', 'export', '--', node], { okCodes: [0, 2], paths: [node] }),
  ],
});
