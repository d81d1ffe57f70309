/** Reads of file systems: which one holds a directory, their space and inodes, the size of one directory. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { usagePath } from './mount-points.js';
import { jsonOf } from './reports.js';

/** The file system holding `dir` (findmnt --target), sizes in bytes; null when findmnt cannot tell. */
export async function fileSystemOf(host: Host, dir: string): Promise<{ target: string; source: string; fstype: string; size: number; avail: number } | null> {
  const r = await host.run('findmnt', ['-J', '-b', '-o', 'TARGET,SOURCE,FSTYPE,SIZE,AVAIL', '-T', dir]);
  if (r.code !== 0) return null;
  const fs = jsonOf<{ filesystems?: Array<Record<string, unknown>> }>(r.stdout)?.filesystems?.[0];
  if (!fs) return null;
  return { target: String(fs.target ?? ''), source: String(fs.source ?? ''), fstype: String(fs.fstype ?? ''), size: Number(fs.size ?? 0), avail: Number(fs.avail ?? 0) };
}

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
