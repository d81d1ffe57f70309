/**
 * Storage: /etc/fstab entries, mounting and unmounting them, mount points, and the
 * size of directories and swap areas. Every mount point lives under a fixed allowlist
 * (/srv, /mnt, /data, /media, /var/lib/<name>), so no action here can hide or detach
 * the root, /usr, /etc, /boot, /var, /home, /proc, /sys, /dev or /run. An fstab entry
 * is checked by `findmnt --verify` before it counts: a failing check (an error, or a
 * warning such as a target reached through a link) restores the file.
 *
 * mount, umount, mkdir, du and findmnt resolve the names they are given themselves, so
 * every mount point, device path and directory here passes the trusted-path rule
 * (lib/trusted-path.ts) first: no link anywhere on it, every directory above it owned by
 * root and writable by root only. Otherwise a link in the middle of an allowed name
 * (/srv/agent/etc/profile.d) would mount over /etc, or detach /boot.
 *
 * Not here: swap files and LVM. swapon/swapoff act on the kernel's one global swap
 * list and LVM needs real block devices (loop devices are global too), so neither can
 * be exercised in a container without touching the machine that runs it.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, fileScan, fileWrite, type Step } from '../mechanism.js';
import { params, token } from '../params.js';
import { FSTAB, fstabChange, reportLine, systemdRuns, verifyFstab } from '../lib/fstab-verify.js';
import { fixedRead } from '../lib/fixed-read.js';

// ---------------------------------------------------------------- parameters

const SEGMENT = '[A-Za-z0-9_][A-Za-z0-9._-]{0,63}';

/** /var/lib directories whose loss (hidden under a mount) breaks the package manager, systemd or Airlock. */
export const PROTECTED_VAR_LIB = ['dpkg', 'apt', 'systemd', 'airlock', 'sudo', 'pam', 'polkit-1', 'dbus', 'ucf', 'misc', 'private', 'os-prober'];

/**
 * A mount point: /srv, /mnt, /data, /media or a directory below one of them, or
 * /var/lib/<name>[/...] for a name that is not one of PROTECTED_VAR_LIB. Segments hold
 * letters, digits and . _ - only (no space, which fstab would need escaped), at most 6 deep.
 */
export const mountPoint = token(new RegExp(`^(/(srv|mnt|data|media)(/${SEGMENT}){0,5}|/var/lib(/${SEGMENT}){1,4})$`), 'mount point (under /srv, /mnt, /data, /media or /var/lib/<name>)', 300)
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), "mount point must not contain '.' or '..' segments")
  .refine((p) => !p.startsWith('/var/lib/') || !PROTECTED_VAR_LIB.includes(p.split('/')[3]!), `mount point must not be under /var/lib/{${PROTECTED_VAR_LIB.join(',')}}`)
  .describe('an absolute directory under /srv, /mnt, /data, /media or /var/lib/<name>');

/** What an fstab entry mounts: UUID=..., LABEL=..., a /dev path, or the word tmpfs. */
export const fstabSource = token(
  /^(UUID=[0-9A-Fa-f][0-9A-Fa-f-]{3,35}|LABEL=[A-Za-z0-9_][A-Za-z0-9._-]{0,31}|PARTUUID=[0-9A-Fa-f][0-9A-Fa-f-]{3,35}|\/dev\/[A-Za-z0-9][A-Za-z0-9:._-]*(\/[A-Za-z0-9][A-Za-z0-9:._-]*){0,3}|tmpfs)$/,
  'source (UUID=..., LABEL=..., PARTUUID=..., /dev/... or tmpfs)',
  120,
);

export const FSTYPES = ['ext4', 'xfs', 'btrfs', 'vfat', 'tmpfs'] as const;
const FLAG_OPTIONS = ['defaults', 'noatime', 'nodev', 'nosuid', 'noexec', 'ro', 'rw', 'nofail'];
/** One mount option: a fixed flag, or size=N[kmg] / mode=NNNN (tmpfs only, see the entry refinements). */
export const mountOption = token(/^(defaults|noatime|nodev|nosuid|noexec|ro|rw|nofail|size=[1-9][0-9]{0,8}[kmg]|mode=[0-7]?[0-7]{3})$/, `mount option (${FLAG_OPTIONS.join(', ')}, size=N[kmg], mode=NNNN)`, 16);

const optionKey = (o: string) => o.split('=')[0]!;

export const fstabEntry = params({
  source: fstabSource,
  mountpoint: mountPoint,
  fstype: z.enum(FSTYPES),
  options: z.array(mountOption).min(1).max(10).optional(),
  pass: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
})
  .refine((e) => (e.source === 'tmpfs') === (e.fstype === 'tmpfs'), { message: 'the source tmpfs goes with the fstype tmpfs, and only with it', path: ['source'] })
  .refine((e) => e.fstype === 'tmpfs' || !(e.options ?? []).some((o) => o.includes('=')), { message: 'size= and mode= are tmpfs options', path: ['options'] })
  .refine((e) => new Set((e.options ?? []).map(optionKey)).size === (e.options ?? []).length, { message: 'each option at most once', path: ['options'] })
  .refine((e) => !((e.options ?? []).includes('ro') && (e.options ?? []).includes('rw')), { message: 'ro and rw contradict each other', path: ['options'] })
  .refine((e) => e.fstype !== 'tmpfs' || (e.pass ?? 0) === 0, { message: 'a tmpfs is never checked by fsck: pass must be 0', path: ['pass'] });

/** Directories whose total size DiskUsageOf reports: these, or a directory below one of them. */
export const USAGE_ROOTS = ['/srv', '/data', '/mnt', '/media', '/opt', '/home', '/tmp', '/var/tmp', '/var/log', '/var/lib', '/var/cache', '/var/backups', '/var/mail', '/var/spool'];
export const usagePath = token(new RegExp(`^(${USAGE_ROOTS.map((r) => r.replace(/\//g, '\\/')).join('|')})(/${SEGMENT}){0,6}$`), `directory (${USAGE_ROOTS.join(', ')} or below)`, 400).refine(
  (p) => !p.split('/').some((s) => s === '.' || s === '..'),
  "directory must not contain '.' or '..' segments",
);

// ---------------------------------------------------------------- the shared state reader

/** One fstab line that is an entry (not blank, not a comment), with its fields as written. */
export interface FstabLine {
  index: number;
  text: string;
  source: string;
  target: string;
  fstype: string;
}

/** Undoes fstab's octal escapes (\040 for a space) so a target compares with a real path. */
const unescapeFstab = (s: string) => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));

export function parseFstab(text: string): FstabLine[] {
  return text.split('\n').flatMap((line, index) => {
    const f = line.trim().split(/\s+/);
    if (f[0] === undefined || f[0] === '' || f[0].startsWith('#') || f.length < 2) return [];
    return [{ index, text: line, source: unescapeFstab(f[0]), target: unescapeFstab(f[1]!), fstype: f[2] ?? '' }];
  });
}

export interface MountState {
  path: string;
  /** /etc/fstab as text ('' when absent) and its entries for this mount point. */
  fstab: string;
  fstabExists: boolean;
  entries: FstabLine[];
  /** What is mounted there now (findmnt), or null. */
  mounted: { source: string; fstype: string; options: string } | null;
  /** The mount point as a directory: null when absent; isDir false when something else is there. */
  dir: { isDir: boolean; isSymlink: boolean } | null;
}

/** The one source of state for every fstab and mount action: fstab entries, the live mount, the directory. */
export async function readMountState(host: Host, path: string): Promise<MountState> {
  // First: findmnt, ls and stat below would otherwise already look through a link.
  await host.trustedPath(path);
  const text = await host.readFile(FSTAB);
  const st = await host.stat(path);
  const r = await host.run('findmnt', ['-J', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS', '-M', path]);
  let mounted: MountState['mounted'] = null;
  if (r.code === 0 && r.stdout.trim()) {
    const fs = (JSON.parse(r.stdout) as { filesystems?: Array<{ source?: string; fstype?: string; options?: string }> }).filesystems?.[0];
    if (fs) mounted = { source: fs.source ?? '', fstype: fs.fstype ?? '', options: fs.options ?? '' };
  }
  return {
    path,
    fstab: text ?? '',
    fstabExists: text !== null,
    entries: parseFstab(text ?? '').filter((e) => e.target === path),
    mounted,
    dir: st ? { isDir: st.isDir, isSymlink: st.isSymlink } : null,
  };
}

/** An fstab source that is a path (/dev/...): what is there now, after the trusted-path rule. */
export interface SourceState {
  path: string;
  /** absent (a disk not attached yet), a device node, or something mount must not be given. */
  kind: 'absent' | 'device' | 'file' | 'directory';
}

/**
 * mount opens a path source by name, and makes a loop device of a regular file: an image
 * in a directory anyone can write (/dev/shm) would put the agent's file system, setuid
 * programs and all, on the host. So a path source passes the trusted-path rule and, when it
 * exists, must be a device node. UUID=, LABEL=, PARTUUID= and tmpfs are not paths: null.
 */
export async function readSource(host: Host, source: string): Promise<SourceState | null> {
  if (!source.startsWith('/')) return null;
  await host.trustedPath(source);
  const st = await host.stat(source);
  return { path: source, kind: st === null ? 'absent' : st.isFile ? 'file' : st.isDir ? 'directory' : 'device' };
}

function refuseSource(src: SourceState | null): void {
  if (src && (src.kind === 'file' || src.kind === 'directory')) {
    throw new AirlockError('conflict', 'source_not_a_device', `${src.path} is a ${src.kind === 'file' ? 'regular file' : 'directory'}, not a device: mount would loop-mount or bind it`, 'name the device by UUID=... (BlockDeviceInfo shows it)');
  }
}

/** The paths a mount or a boot-time mount of this entry acts on by name. */
const mountPaths = (mountpoint: string, src: SourceState | null) => [mountpoint, ...(src ? [src.path] : [])];

// ---------------------------------------------------------------- refusals

function refuseNotDirectory(cur: MountState): void {
  if (cur.dir === null) throw new AirlockError('conflict', 'mountpoint_missing', `${cur.path} does not exist`, 'create it first with CreateMountpoint');
  if (cur.dir.isSymlink || !cur.dir.isDir) throw new AirlockError('conflict', 'mountpoint_not_directory', `${cur.path} is not a directory (a link or a file is there)`, 'a mount point must be a real directory');
}

/** Exactly one fstab entry for the mount point: none, or several (which one would mount?), is refused. */
function requireOneEntry(cur: MountState): FstabLine {
  if (cur.entries.length === 0) throw new AirlockError('conflict', 'no_fstab_entry', `/etc/fstab has no entry for ${cur.path}`, 'ListFstab shows the entries; AddFstabEntry adds one');
  if (cur.entries.length > 1) {
    throw new AirlockError('conflict', 'ambiguous_fstab_entry', `/etc/fstab has ${cur.entries.length} entries for ${cur.path} (lines ${cur.entries.map((e) => e.index + 1).join(', ')})`, 'a person resolves the duplicates by hand');
  }
  return cur.entries[0]!;
}

/** The fstab text with one more line: the file's own text, a newline if it lacked its last one, then the line. */
export function fstabWith(text: string, line: string): string {
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;
}

/** The fstab text without line `index` (lines are counted from 0 in the text as read). */
export function fstabWithout(text: string, index: number): string {
  return text
    .split('\n')
    .filter((_l, i) => i !== index)
    .join('\n');
}

export function fstabLine(e: z.infer<typeof fstabEntry>): string {
  return [e.source, e.mountpoint, e.fstype, (e.options ?? ['defaults']).join(','), '0', String(e.pass ?? 0)].join(' ');
}

const daemonReload = command('systemctl', ['daemon-reload']);

// ---------------------------------------------------------------- reads

export const listFstab = fixedRead({
  name: 'ListFstab',
  // Sensitive: /etc/fstab in full: mount options may carry credentials (cifs password=).
  sensitive: true,
  reachesNetwork: false,
  family: 'storage',
  description: 'Show /etc/fstab, the file systems mounted at boot.',
  summary: 'Read /etc/fstab',
  files: [FSTAB],
  steps: [fileScan(FSTAB)],
});

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

export const diskUsageOf = action({
  name: 'DiskUsageOf',
  family: 'storage',
  description: 'Show the total size of one directory (du -sh, not crossing into other file systems) under /srv, /home, /var/log, /var/lib and similar.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: usagePath }),
  files: [],
  example: { path: '/var/log' },
  current: async ({ path }, host) => {
    await host.trustedPath(path);
    return host.stat(path);
  },
  check: ({ path }, st) => {
    if (st === null) throw new AirlockError('validation', 'no_such_directory', `${path} does not exist`);
    if (st.isSymlink || !st.isDir) throw new AirlockError('validation', 'not_a_directory', `${path} is not a directory (a link or a file is there)`);
  },
  shown: () => null,
  preview: ({ path }) => ({ summary: `Read the total size of ${path} (du -sh -x)`, change: null }),
  mechanism: ({ path }) => [command('du', ['-sh', '-x', '--', path], { paths: [path] })],
});

// ---------------------------------------------------------------- mount points

export const createMountpoint = action({
  name: 'CreateMountpoint',
  family: 'storage',
  description: 'Create an empty directory (mode 0755, owned by root) to mount a file system on, under /srv, /mnt, /data, /media or /var/lib/<name>.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ path: mountPoint }),
  files: [],
  example: { path: '/srv/backup' },
  current: async ({ path }, host) => {
    await host.trustedPath(path);
    return { self: await host.stat(path), parent: await host.stat(path.slice(0, path.lastIndexOf('/')) || '/') };
  },
  check: ({ path }, cur) => {
    if (cur.self !== null) throw new AirlockError('conflict', 'already_exists', `${path} already exists`);
    if (cur.parent === null || cur.parent.isSymlink || !cur.parent.isDir) {
      throw new AirlockError('conflict', 'parent_missing', `the parent of ${path} is not an existing directory`, 'create the parent first with CreateMountpoint');
    }
  },
  preview: ({ path }) => ({
    summary: `Create the directory ${path}`,
    change: { creates_directory: path, mode: '0755', owner: 'root:root' },
  }),
  mechanism: ({ path }) => [command('mkdir', ['-m', '0755', '--', path], { paths: [path], undo: command('rmdir', ['--', path], { paths: [path] }) })],
});

// ---------------------------------------------------------------- fstab

export const addFstabEntry = action({
  name: 'AddFstabEntry',
  family: 'storage',
  description: 'Append one entry to /etc/fstab for an existing mount point, check the file with findmnt --verify (restoring it on any error) and reload systemd; does not mount it.',
  risk: 'high',
  readOnly: false,
  params: fstabEntry,
  files: [FSTAB],
  rebuildsAtExecute: { files: [FSTAB] },
  example: { source: 'UUID=3e6be9de-8139-11d1-9106-a43f08d823a6', mountpoint: '/srv/data', fstype: 'ext4', options: ['defaults', 'noatime', 'nofail'], pass: 2 },
  current: async (p, host) => {
    const cur = await readMountState(host, p.mountpoint);
    const source = await readSource(host, p.source);
    // An fstab that already fails the check would fail the job after the append too: say so first.
    const verify = await verifyFstab(host, cur.fstab);
    return { ...cur, source, verifies: verify.ok, verifyReport: verify.report, systemd: await systemdRuns(host) };
  },
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted, dir: cur.dir, source: cur.source, verifies: cur.verifies }),
  check: (p, cur) => {
    if (!cur.fstabExists) throw new AirlockError('conflict', 'no_fstab', '/etc/fstab does not exist on this host');
    if (cur.entries.length > 0) {
      throw new AirlockError('conflict', 'fstab_entry_exists', `/etc/fstab already has an entry for ${p.mountpoint}: ${cur.entries[0]!.text.trim()}`, 'RemoveFstabEntry removes it first');
    }
    refuseNotDirectory(cur);
    refuseSource(cur.source);
    if (!cur.verifies) {
      throw new AirlockError('conflict', 'fstab_already_invalid', `/etc/fstab already fails findmnt --verify (errors and warnings both count): ${reportLine(cur.verifyReport)}`, 'a person fixes the existing entries by hand first');
    }
  },
  preview: (p, cur) => ({
    summary: `Add an /etc/fstab entry mounting ${p.source} (${p.fstype}) on ${p.mountpoint}`,
    change: {
      file: FSTAB,
      appends_line: fstabLine(p),
      then: `${cur.systemd ? 'runs systemctl daemon-reload, then ' : ''}checks /etc/fstab with findmnt --verify (any error or warning restores the file${cur.systemd ? ', reloads systemd again' : ''} and fails the job)`,
    },
    sideEffects: [
      `${p.mountpoint} is mounted at every boot from now on${(p.options ?? []).includes('nofail') ? ' (nofail: a missing source does not stop the boot)' : ''}; Mount mounts it now`,
      ...(cur.mounted ? [`something is already mounted on ${p.mountpoint} (${cur.mounted.source}, ${cur.mounted.fstype})`] : []),
    ],
    warnings: [
      ...(p.fstype !== 'tmpfs' && !(p.options ?? []).includes('nofail') ? [`without nofail, a boot where ${p.source} is missing stops in emergency mode`] : []),
      ...(p.fstype === 'tmpfs' ? ['a tmpfs lives in memory: its content is lost at every unmount and reboot'] : []),
    ],
  }),
  // findmnt judges the new target by name, and so does the mount at every boot.
  mechanism: (p, cur) => fstabChange(fileWrite(FSTAB, fstabWith(cur.fstab, fstabLine(p)), { mode: 0o644 }), mountPaths(p.mountpoint, cur.source), cur.systemd),
});

export const removeFstabEntry = action({
  name: 'RemoveFstabEntry',
  family: 'storage',
  description: 'Remove the one /etc/fstab entry for a mount point that is not mounted now, and reload systemd.',
  risk: 'high',
  readOnly: false,
  params: params({ mountpoint: mountPoint }),
  files: [FSTAB],
  rebuildsAtExecute: { files: [FSTAB] },
  example: { mountpoint: '/srv/data' },
  current: ({ mountpoint }, host) => readMountState(host, mountpoint),
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted }),
  check: ({ mountpoint }, cur) => {
    requireOneEntry(cur);
    if (cur.mounted) throw new AirlockError('conflict', 'mounted', `${mountpoint} is mounted now (${cur.mounted.source}, ${cur.mounted.fstype})`, 'unmount it first with Unmount');
  },
  preview: ({ mountpoint }, cur) => {
    const e = cur.entries[0]!;
    return {
      summary: `Remove the /etc/fstab entry for ${mountpoint}`,
      change: { file: FSTAB, removes_line: { number: e.index + 1, text: e.text }, then: 'runs systemctl daemon-reload' },
      sideEffects: [`${e.source} is no longer mounted on ${mountpoint} at boot; the directory and the data on ${e.source} stay`],
    };
  },
  mechanism: (_p, cur) => [fileWrite(FSTAB, fstabWithout(cur.fstab, cur.entries[0]!.index), { mode: 0o644 }), daemonReload],
});

// ---------------------------------------------------------------- mounting

export const mount = action({
  name: 'Mount',
  family: 'storage',
  description: 'Mount the /etc/fstab entry of one mount point now (mount -- MOUNTPOINT), with the options fstab gives it.',
  risk: 'high',
  readOnly: false,
  params: params({ mountpoint: mountPoint }),
  files: [],
  example: { mountpoint: '/srv/data' },
  current: async ({ mountpoint }, host) => {
    const cur = await readMountState(host, mountpoint);
    // What the mount would hide: entries of the directory as it is now (names only, counted).
    const ls = cur.dir?.isDir && !cur.mounted ? await host.run('ls', ['-1', '-A', '--', mountpoint]) : null;
    // The source of the one entry (several are refused below): an fstab line may have been written by hand.
    const source = cur.entries.length === 1 ? await readSource(host, cur.entries[0]!.source) : null;
    return { ...cur, source, hidden: ls && ls.code === 0 ? ls.stdout.split('\n').filter(Boolean).length : 0 };
  },
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted, dir: cur.dir, source: cur.source, hidden: cur.hidden }),
  check: ({ mountpoint }, cur) => {
    requireOneEntry(cur);
    if (cur.mounted) throw new AirlockError('conflict', 'already_mounted', `${mountpoint} is already mounted (${cur.mounted.source}, ${cur.mounted.fstype})`);
    refuseNotDirectory(cur);
    refuseSource(cur.source);
  },
  preview: ({ mountpoint }, cur) => {
    const e = cur.entries[0]!;
    return {
      summary: `Mount ${e.source} (${e.fstype}) on ${mountpoint}`,
      change: { mounts: mountpoint, fstab_entry: e.text.trim() },
      warnings: cur.hidden > 0 ? [`${mountpoint} holds ${cur.hidden} entries now: they are hidden (not deleted) while the file system is mounted on it`] : [],
    };
  },
  mechanism: ({ mountpoint }, cur) => [command('mount', ['--', mountpoint], { paths: mountPaths(mountpoint, cur.source) })],
});

export const unmount = action({
  name: 'Unmount',
  family: 'storage',
  description: 'Unmount the file system mounted on one mount point under /srv, /mnt, /data, /media or /var/lib/<name> (umount -- MOUNTPOINT); fails while it is in use.',
  risk: 'high',
  readOnly: false,
  params: params({ mountpoint: mountPoint }),
  files: [],
  example: { mountpoint: '/srv/data' },
  current: ({ mountpoint }, host) => readMountState(host, mountpoint),
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted }),
  check: ({ mountpoint }, cur) => {
    if (!cur.mounted) throw new AirlockError('conflict', 'not_mounted', `nothing is mounted on ${mountpoint}`);
  },
  preview: ({ mountpoint }, cur) => ({
    summary: `Unmount ${cur.mounted!.source} (${cur.mounted!.fstype}) from ${mountpoint}`,
    change: { unmounts: mountpoint, source: cur.mounted!.source, fstype: cur.mounted!.fstype },
    sideEffects: [
      ...(cur.mounted!.fstype === 'tmpfs' ? ['a tmpfs lives in memory: everything in it is lost'] : [`the data stays on ${cur.mounted!.source}`]),
      'the job fails (and nothing changes) if a process still uses the file system: "target is busy"',
      ...(cur.entries.length ? ['its /etc/fstab entry stays: it mounts again at the next boot (RemoveFstabEntry removes it)'] : []),
    ],
  }),
  mechanism: ({ mountpoint }): Step[] => [command('umount', ['--', mountpoint], { paths: [mountpoint] })],
});
