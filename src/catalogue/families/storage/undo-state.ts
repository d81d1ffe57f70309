/**
 * What the storage changes' rollbacks read and run (issue 27): the live state their commands
 * change, read the same way before a change, after it and after its undo (mounts, swap areas,
 * the units systemd's fstab generator makes), and the mount that puts back an unmounted file
 * system, built only from what findmnt said was there.
 */
import { command, type CommandStep } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import type { MountState } from './mount-state.js';

/**
 * The unit systemd names for a path (systemd-escape --path): '/' becomes '-', and any byte but
 * letters, digits, ':', '_' and '.' (and a leading '.') becomes \xNN. Mount points and swap files
 * here hold letters, digits and . _ - only.
 */
export function pathUnit(path: string, type: 'mount' | 'swap'): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '').replace(/\/+/g, '/');
  const escaped = [...trimmed].map((c, i) => (c === '/' ? '-' : /[A-Za-z0-9:_.]/.test(c) && !(i === 0 && c === '.') ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)).join('');
  return `${escaped || '-'}.${type}`;
}

/**
 * What is at a path: its type, mode, owner and size, never its bytes (a directory, or a swap
 * file that may hold swapped-out memory and that the kernel will not let anyone write).
 */
export const pathProbe = (path: string): StateProbe => ({ program: 'stat', args: ['--format=%F %a %u %g %s', '--', path] });

/** What is mounted on a mount point: source, type and options, or nothing (exit status 1). */
export const mountProbe = (mountpoint: string): StateProbe => ({ program: 'findmnt', args: ['-n', '-o', 'SOURCE,FSTYPE,OPTIONS', '-M', mountpoint] });

/** Whether systemd has a unit for an fstab line, and from where: what a daemon-reload after an fstab edit changes. */
export const generatedUnitProbe = (unit: string): StateProbe => ({ program: 'systemctl', args: ['show', '-p', 'LoadState', '-p', 'SourcePath', '--', unit] });

/** The active swap areas, without their use and priority (which change by themselves and at every swapon). */
export const swapAreasProbe: StateProbe = { program: 'swapon', args: ['--show=NAME,TYPE,SIZE', '--noheadings', '--bytes'] };

/** What findmnt printed, as mount may be given it again: no space, quote, comma inside a field or leading '-'. */
const SOURCE = /^[A-Za-z0-9_/][A-Za-z0-9_.:/=@+-]{0,254}$/;
const FSTYPE = /^[a-z0-9][a-z0-9._-]{0,31}$/;
const OPTIONS = /^[A-Za-z0-9_][A-Za-z0-9_.:/=@+-]*(,[A-Za-z0-9_][A-Za-z0-9_.:/=@+-]*)*$/;

/**
 * The undo of an unmount: `mount -t TYPE -o OPTIONS -- SOURCE MOUNTPOINT` with what was mounted
 * there, or null when findmnt's answer is not one mount can be given back safely. A source that
 * is a path is opened by name, so it is checked by the trusted-path rule like the mount point.
 */
export function remount(mountpoint: string, m: NonNullable<MountState['mounted']>): CommandStep | null {
  if (!SOURCE.test(m.source) || m.source.split('/').some((s) => s === '.' || s === '..') || !FSTYPE.test(m.fstype) || !OPTIONS.test(m.options) || m.options.length > 1000) return null;
  return command('mount', ['-t', m.fstype, '-o', m.options, '--', m.source, mountpoint], { paths: [mountpoint, ...(m.source.startsWith('/') ? [m.source] : [])] });
}
