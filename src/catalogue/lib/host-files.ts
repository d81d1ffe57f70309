/** Looking at the host's file tree without following links: where a link points, what a directory holds. */
import { posix } from 'node:path';
import type { Host } from '../action.js';

/** Where a symbolic link points, as an absolute normalised path; null when `path` is not a link. */
export async function linkTarget(host: Host, path: string): Promise<string | null> {
  if (!(await host.stat(path))?.isSymlink) return null;
  const r = await host.run('readlink', ['--', path]);
  if (r.code !== 0 || r.stdout.trim() === '') return null;
  return posix.resolve(posix.dirname(path), r.stdout.replace(/\n$/, ''));
}

/**
 * The entries of a directory, as `ls -1 -A --quoting-style=escape` prints them: a name with
 * a space, newline or other unusual character comes back escaped (with a backslash), so a
 * caller that keeps only names matching a strict pattern never mistakes it for another.
 * Null when the directory cannot be listed (absent, not a directory).
 */
export async function listDirectory(host: Host, dir: string): Promise<string[] | null> {
  const r = await host.run('ls', ['-1', '-A', '--quoting-style=escape', '--', dir]);
  if (r.code !== 0) return null;
  return r.stdout.split('\n').filter((l) => l !== '');
}
