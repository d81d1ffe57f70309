/**
 * How the security actions look at paths before they read or name them: the first
 * symbolic link on a path (audit watches and certificates refuse or follow it), and the
 * regular files of a drop-in directory (pwquality.conf.d, audit rules.d), with links and
 * odd names set aside to be reported rather than read. Also the owner of what they write.
 */
import type { Host } from '../../action.js';
import { listDirectory } from '../../lib/host-files.js';

/** root:root, the owner of every file the security actions write. */
export const ROOT = { uid: 0, gid: 0 };

/** The first component of `path` (itself included) that is a symbolic link, or null. */
export async function firstSymlink(host: Host, path: string): Promise<string | null> {
  const segs = path.split('/').slice(1);
  for (let n = 1; n <= segs.length; n++) {
    const prefix = '/' + segs.slice(0, n).join('/');
    if ((await host.stat(prefix))?.isSymlink) return prefix;
  }
  return null;
}

/** Names in `dir` that match `re` and are regular files (links and odd names are reported, not read). */
export async function regularFilesIn(host: Host, dir: string, re: RegExp): Promise<{ files: string[]; skipped: string[] } | null> {
  const names = await listDirectory(host, dir);
  if (names === null) return null;
  const files: string[] = [];
  const skipped: string[] = [];
  for (const name of names.filter((n) => re.test(n) || n.includes('\\'))) {
    const st = re.test(name) ? await host.stat(`${dir}/${name}`) : null;
    (st?.isFile ? files : skipped).push(name);
  }
  return { files: files.sort(), skipped };
}
