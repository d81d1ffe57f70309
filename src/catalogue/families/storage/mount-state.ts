/**
 * The one source of state for every fstab and mount action (fstab entries of a mount point,
 * the live mount, the directory), what a path source is, and the refusals they share.
 *
 * mount, umount, mkdir, du and findmnt resolve the names they are given themselves, so
 * every mount point, device path and directory here passes the trusted-path rule
 * (lib/trusted-path.ts) first: no link anywhere on it, every directory above it owned by
 * root and writable by root only. Otherwise a link in the middle of an allowed name
 * (/srv/agent/etc/profile.d) would mount over /etc, or detach /boot.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { parseFstab, type FstabLine } from './fstab.js';
import { FSTAB } from './fstab-verify.js';

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

export function refuseSource(src: SourceState | null): void {
  if (src && (src.kind === 'file' || src.kind === 'directory')) {
    throw new AirlockError('conflict', 'source_not_a_device', `${src.path} is a ${src.kind === 'file' ? 'regular file' : 'directory'}, not a device: mount would loop-mount or bind it`, 'name the device by UUID=... (BlockDeviceInfo shows it)');
  }
}

/** The paths a mount or a boot-time mount of this entry acts on by name. */
export const mountPaths = (mountpoint: string, src: SourceState | null) => [mountpoint, ...(src ? [src.path] : [])];

// ---------------------------------------------------------------- refusals

export function refuseNotDirectory(cur: MountState): void {
  if (cur.dir === null) throw new AirlockError('conflict', 'mountpoint_missing', `${cur.path} does not exist`, 'create it first with CreateMountpoint');
  if (cur.dir.isSymlink || !cur.dir.isDir) throw new AirlockError('conflict', 'mountpoint_not_directory', `${cur.path} is not a directory (a link or a file is there)`, 'a mount point must be a real directory');
}

/** Exactly one fstab entry for the mount point: none, or several (which one would mount?), is refused. */
export function requireOneEntry(cur: MountState): FstabLine {
  if (cur.entries.length === 0) throw new AirlockError('conflict', 'no_fstab_entry', `/etc/fstab has no entry for ${cur.path}`, 'ListFstab shows the entries; AddFstabEntry adds one');
  if (cur.entries.length > 1) {
    throw new AirlockError('conflict', 'ambiguous_fstab_entry', `/etc/fstab has ${cur.entries.length} entries for ${cur.path} (lines ${cur.entries.map((e) => e.index + 1).join(', ')})`, 'a person resolves the duplicates by hand');
  }
  return cur.entries[0]!;
}
