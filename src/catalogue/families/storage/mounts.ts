/**
 * Storage: /etc/fstab entries, mounting and unmounting them, and mount points. An fstab
 * entry is checked by `findmnt --verify` before it counts: a failing check (an error, or
 * a warning such as a target reached through a link) restores the file.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command, fileScan, fileWrite, type Step } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { fstabEntry, fstabLine, fstabWith, fstabWithout } from './fstab.js';
import { FSTAB, fstabChange, fstabWrite, reportLine, systemdRuns, verifyFstab } from './fstab-verify.js';
import { mountPaths, readMountState, readSource, refuseNotDirectory, refuseSource, requireOneEntry, type MountState } from './mount-state.js';
import { mountPoint } from './mount-points.js';
import { generatedUnitProbe, mountProbe, pathProbe, pathUnit, remount } from './undo-state.js';
import { exact } from '../../rollback.js';

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

// ---------------------------------------------------------------- mount points

export const createMountpoint = action({
  name: 'CreateMountpoint',
  family: 'storage',
  description: 'Create an empty directory (mode 0755, owned by root) to mount a file system on, under /srv, /mnt, /data, /media or /var/lib/<name>.',
  risk: 'medium',
  // mkdir's undo is rmdir; the probe reads the directory (absent before, 0755 root:root after).
  rollback: exact(({ path }: { path: string }) => [pathProbe(path)]),
  readOnly: false,
  runsPrograms: false,
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
  // The file is restored from its snapshot and systemd reloaded onto it (fstabWrite); the probe reads the mount unit its generator makes.
  rollback: exact(({ mountpoint }: { mountpoint: string }, cur: { systemd: boolean }) => (cur.systemd ? [generatedUnitProbe(pathUnit(mountpoint, 'mount'))] : [])),
  runsPrograms: false,
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
  // As AddFstabEntry: the file from its snapshot, then systemd reloaded onto it.
  rollback: exact(({ mountpoint }: { mountpoint: string }, cur: { systemd: boolean }) => (cur.systemd ? [generatedUnitProbe(pathUnit(mountpoint, 'mount'))] : [])),
  runsPrograms: false,
  params: params({ mountpoint: mountPoint }),
  files: [FSTAB],
  rebuildsAtExecute: { files: [FSTAB] },
  example: { mountpoint: '/srv/data' },
  current: async ({ mountpoint }, host) => ({ ...(await readMountState(host, mountpoint)), systemd: await systemdRuns(host) }),
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted }),
  check: ({ mountpoint }, cur) => {
    requireOneEntry(cur);
    if (cur.mounted) throw new AirlockError('conflict', 'mounted', `${mountpoint} is mounted now (${cur.mounted.source}, ${cur.mounted.fstype})`, 'unmount it first with Unmount');
  },
  preview: ({ mountpoint }, cur) => {
    const e = cur.entries[0]!;
    return {
      summary: `Remove the /etc/fstab entry for ${mountpoint}`,
      change: { file: FSTAB, removes_line: { number: e.index + 1, text: e.text }, ...(cur.systemd ? { then: 'runs systemctl daemon-reload' } : {}) },
      sideEffects: [`${e.source} is no longer mounted on ${mountpoint} at boot; the directory and the data on ${e.source} stay`],
    };
  },
  mechanism: (_p, cur) => fstabWrite(fileWrite(FSTAB, fstabWithout(cur.fstab, cur.entries[0]!.index), { mode: 0o644 }), cur.systemd),
});

// ---------------------------------------------------------------- mounting

export const mount = action({
  name: 'Mount',
  family: 'storage',
  description: 'Mount the /etc/fstab entry of one mount point now (mount -- MOUNTPOINT), with the options fstab gives it.',
  risk: 'high',
  readOnly: false,
  // Undone by umount; what the mount hid is there again.
  rollback: exact(({ mountpoint }: { mountpoint: string }) => [mountProbe(mountpoint)]),
  runsPrograms: false,
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
    if (cur.mounted) return unchanged(`${mountpoint} is already mounted (${cur.mounted.source}, ${cur.mounted.fstype})`);
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
  mechanism: ({ mountpoint }, cur) => [command('mount', ['--', mountpoint], { paths: mountPaths(mountpoint, cur.source), undo: command('umount', ['--', mountpoint], { paths: [mountpoint] }) })],
});

export const unmount = action({
  name: 'Unmount',
  family: 'storage',
  description: 'Unmount the file system mounted on one mount point under /srv, /mnt, /data, /media or /var/lib/<name> (umount -- MOUNTPOINT); fails while it is in use.',
  risk: 'high',
  readOnly: false,
  // Undone by mounting the same source with the same type and options (remount); a tmpfs comes back empty.
  rollback: exact(({ mountpoint }: { mountpoint: string }) => [mountProbe(mountpoint)]),
  runsPrograms: false,
  params: params({ mountpoint: mountPoint }),
  files: [],
  example: { mountpoint: '/srv/data' },
  current: ({ mountpoint }, host) => readMountState(host, mountpoint),
  shown: (cur) => ({ path: cur.path, entries: cur.entries, mounted: cur.mounted }),
  check: ({ mountpoint }, cur) => {
    if (!cur.mounted) return unchanged(`nothing is mounted on ${mountpoint}`);
    refuseUnrestorable(cur);
  },
  preview: ({ mountpoint }, cur) => ({
    summary: `Unmount ${cur.mounted!.source} (${cur.mounted!.fstype}) from ${mountpoint}`,
    change: { unmounts: mountpoint, source: cur.mounted!.source, fstype: cur.mounted!.fstype },
    sideEffects: [
      ...(cur.mounted!.fstype === 'tmpfs' ? ['a tmpfs lives in memory: everything in it is lost (undoing this mounts an empty one with the same options)'] : [`the data stays on ${cur.mounted!.source}`]),
      'the job fails (and nothing changes) if a process still uses the file system: "target is busy"',
      ...(cur.entries.length ? ['its /etc/fstab entry stays: it mounts again at the next boot (RemoveFstabEntry removes it)'] : []),
    ],
  }),
  mechanism: ({ mountpoint }, cur): Step[] => [command('umount', ['--', mountpoint], { paths: [mountpoint], undo: refuseUnrestorable(cur) })],
});

/** The mount that undoes an unmount; a mount that findmnt describes in words mount could not be given back is refused. */
function refuseUnrestorable(cur: MountState) {
  const back = remount(cur.path, cur.mounted!);
  if (!back) {
    throw new AirlockError('conflict', 'unrestorable_mount', `${cur.path} is mounted as ${JSON.stringify([cur.mounted!.source, cur.mounted!.fstype, cur.mounted!.options].join(' '))}, which Airlock could not mount again if the job had to be undone`, 'a person unmounts it by hand');
  }
  return back;
}
