/**
 * /etc/fstab entries: what an entry Airlock writes may hold (source, mount point, type,
 * options, fsck pass), the file's lines parsed as mount reads them, and its text with a
 * line added or removed (every other line kept as written; see lib/line-patch.ts).
 */
import { z } from 'zod';
import { params, token } from '../../params.js';
import { appendLine, withoutLines } from '../../lib/line-patch.js';
import { mountPoint } from './mount-points.js';

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

/** The fstab text with one more line: the file's own text, a newline if it lacked its last one, then the line. */
export function fstabWith(text: string, line: string): string {
  return appendLine(text, line);
}

/** The fstab text without line `index` (lines are counted from 0 in the text as read). */
export function fstabWithout(text: string, index: number): string {
  return withoutLines(text, [index]);
}

export function fstabLine(e: z.infer<typeof fstabEntry>): string {
  return [e.source, e.mountpoint, e.fstype, (e.options ?? ['defaults']).join(','), '0', String(e.pass ?? 0)].join(' ');
}
