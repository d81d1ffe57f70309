/**
 * Swap files: listed (/proc/swaps), created (turned on and added to /etc/fstab) and removed.
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
 * ./fstab-verify.ts). RemoveSwapFile does not: systemd follows /proc/swaps by itself, and
 * its fstab generator sees the change at the next reload or boot.
 *
 * What the tests execute for real (test/scenarios/volumes.ts, on an overlay of the machine
 * running them, with loop devices attached in the scenario setup and detached by the last
 * scenario): a swap file on an ext4 file system on a loop device is created, checked in
 * /proc/swaps, undone when /etc/fstab cannot be written (chattr +i: swapoff and rm really
 * run; the job reports Failed rather than RolledBack because the executor's restore of the
 * unchanged, immutable fstab fails too), and removed (really swapped off).
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command, FD3, fileScan, fileWrite, type Step } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { withoutLines } from '../../lib/line-patch.js';
import { fstabWith, parseFstab, type FstabLine } from './fstab.js';
import { FSTAB, fstabChange, reportLine, systemdRuns, verifyFstab } from './fstab-verify.js';
import { fileSystemOf } from './filesystems.js';
import { mountPoint } from './mount-points.js';
import { mib, MiB } from './reports.js';
import { compensating, exact, type StateProbe } from '../../rollback.js';
import { generatedUnitProbe, pathProbe, pathUnit, swapAreasProbe } from './undo-state.js';

/** swapoff moves every swapped-out page back to RAM: on a busy host that takes minutes. */
const SWAPOFF_TIMEOUT_MS = 600_000;

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
  file: { isFile: boolean; isSymlink: boolean; size: number; mode: number } | null;
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
    file: st ? { isFile: st.isFile, isSymlink: st.isSymlink, size: st.size, mode: st.mode } : null,
    fstab: fstab ?? '',
    fstabExists: fstab !== null,
    entries: parseFstab(fstab ?? '').filter((e) => e.source === path),
    active: parseProcSwaps((await host.readFile('/proc/swaps')) ?? '').find((s) => s.path === path) ?? null,
  };
}

/** What the preview shows of a swap file state: everything but the whole /etc/fstab text. */
const shownSwap = <T extends { fstab: string }>({ fstab: _text, ...rest }: T) => rest;

export const swapFstabLine = (path: string) => `${path} none swap sw 0 0`;

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

export const listSwap = fixedRead({
  name: 'ListSwap',
  sensitive: false,
  reachesNetwork: false,
  family: 'storage',
  description: 'Show the active swap areas with their size, use and priority (/proc/swaps).',
  summary: 'Read /proc/swaps',
  files: ['/proc/swaps'],
  steps: [fileScan('/proc/swaps')],
});

// ---------------------------------------------------------------- swap actions

export const createSwapFile = action({
  name: 'CreateSwapFile',
  family: 'storage',
  description:
    'Create a swap file (new file only, mode 0600, on ext2/3/4 or XFS, leaving 5% of the file system free), turn it on, and add it to /etc/fstab so it is used at every boot; any failure undoes every step.',
  risk: 'high',
  // Each step has its undo: swapoff, the file the daemon made deleted (if still that file), /etc/fstab
  // restored and systemd reloaded onto it, /var/swap removed. A later revert cannot delete the file:
  // the executor keeps no undo of a file made by descriptor (see the report of issue 27).
  rollback: exact(({ path }: { path: string }, cur: { missingDirs: string[]; systemd: boolean }): StateProbe[] => [
    pathProbe(path),
    ...(cur.missingDirs.length ? [pathProbe(SWAP_DIR)] : []),
    swapAreasProbe,
    ...(cur.systemd ? [generatedUnitProbe(pathUnit(path, 'swap'))] : []),
  ]),
  readOnly: false,
  runsPrograms: false,
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
    command('fallocate', ['--length', `${sizeMiB}MiB`, '--', FD3], { file: { path, create: { mode: 0o600 } }, undo: command('rm', ['--', path], { paths: [path] }) }),
    command('mkswap', ['--', FD3], { file: { path }, noUndo: 'undone_earlier' }),
    command('swapon', ['--', path], { paths: [path], expect: { path, mode: 0o600 }, undo: command('swapoff', ['--', path], { paths: [path], timeoutMs: SWAPOFF_TIMEOUT_MS }) }),
    ...fstabChange(fileWrite(FSTAB, fstabWith(cur.fstab, swapFstabLine(path)), { mode: 0o644 }), [path], cur.systemd),
  ],
});

/** The fstab text without the given entries' lines. */
const fstabWithoutAll = (text: string, entries: FstabLine[]) => withoutLines(text, entries.map((e) => e.index));

export const removeSwapFile = action({
  name: 'RemoveSwapFile',
  family: 'storage',
  description: 'Turn off a swap file, remove its /etc/fstab line and delete it; only a file under the swap-file allowlist that is active swap or named in /etc/fstab as swap, and carries a swap signature.',
  risk: 'high',
  // Undone as CreateSwapFile makes one: a new file of the same size and mode, formatted and turned on again. Its
  // old pages are gone (swapped-out memory moved back to RAM first) and mkswap gives it a new UUID: equivalent, not identical.
  rollback: compensating('CreateSwapFile', ({ path }: { path: string }): StateProbe[] => [pathProbe(path), swapAreasProbe]),
  readOnly: false,
  runsPrograms: false,
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
    ...(cur.file
      ? [
          // A read first, whose undo formats the file the deletion's undo makes again (undos run last first).
          command('blkid', ['-p', '-o', 'value', '-s', 'TYPE', '--', path], { paths: [path], undo: command('mkswap', ['--', FD3], { file: { path } }) }),
          // Undone by a new file, made by the daemon (exclusively, root's, the mode it had) and filled by fallocate.
          command('rm', ['--', path], { paths: [path], undo: command('fallocate', ['--length', String(cur.file.size), '--', FD3], { file: { path, create: { mode: cur.file.mode & 0o7777 } } }) }),
        ]
      : []),
  ],
});
