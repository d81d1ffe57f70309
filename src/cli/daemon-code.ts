/**
 * What the root service loads, and whether anyone but root can change it: node itself and
 * this checkout's whole package tree (bin, dist, src for the tsx fallback, every file under
 * node_modules including native .node files, native/build, package.json). Whoever can write
 * any one of those files, or a directory that holds one, or a directory above (very often
 * the agent's own account, for a checkout in a home directory or a Node from nvm), changes
 * the code the daemon runs as root at its next start: root with no approval.
 * `airlock install` refuses such a tree and `airlock doctor` fails on it.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** The checkout's parts the daemon loads, each walked to its last file. */
export const LOADED_PARTS = ['bin', 'dist', 'src', 'node_modules', join('native', 'build'), 'package.json'] as const;
/** More entries than this in the trees is not a checkout: refused rather than walked without end. */
export const MAX_WALKED = 200_000;

export interface UntrustedPath {
  path: string;
  why: string;
  /** What to run as root: recursive over the tree it lies in, or on the one path above a tree. */
  fix: string;
}

export interface CodeReport {
  problems: UntrustedPath[];
  /** Entries looked at (files, directories, links). */
  walked: number;
}

/**
 * Every file and directory the daemon loads from `checkout` (and `node`), each resolved
 * through its links, and every directory above each, up to /: owned by root and writable by
 * neither group nor others. A sticky directory of root's above a tree (/tmp) is no way in:
 * others may add entries there but neither rename nor remove root's. Fails closed: an entry
 * that cannot be read, or a tree past MAX_WALKED entries, is a problem too.
 */
export function checkDaemonCode(checkout: string, node = process.execPath): CodeReport {
  const problems: UntrustedPath[] = [];
  // Two sets: a directory judged as an ancestor (above()) is still walked below when a link leads into it.
  const judgedAbove = new Set<string>();
  const walkedPaths = new Set<string>();
  let walked = 0;
  const judge = (path: string, st: Stats, fix: string, sticky = false) => {
    if (st.uid !== 0) problems.push({ path, why: `owned by uid ${st.uid}, not root`, fix });
    else if (st.mode & 0o022 && !sticky) problems.push({ path, why: `writable by its group or by others (mode ${(st.mode & 0o7777).toString(8)})`, fix });
  };
  const one = (p: string) => `chown root:root ${p}; chmod go-w ${p}`;
  const recursive = (p: string) => `chown -R root:root ${p}; chmod -R go-w ${p}`;
  /** The directories above a resolved path, up to /. */
  const above = (real: string) => {
    for (let p = dirname(real); !judgedAbove.has(p); p = dirname(p)) {
      judgedAbove.add(p);
      const st = statSync(p);
      judge(p, st, one(p), st.uid === 0 && (st.mode & 0o1000) !== 0);
      if (p === sep) break;
    }
  };
  /** A path and, when `descend`, all below it; links resolved, their targets judged and walked. */
  const walk = (start: string, descend: boolean) => {
    // Each entry with the tree it lies in (a link's target starts a tree of its own), which the fix names.
    const stack: Array<[path: string, root: string]> = [[start, start]];
    while (stack.length) {
      const [path, root] = stack.pop()!;
      if (++walked > MAX_WALKED) throw new Error(`more than ${MAX_WALKED} entries under ${start}`);
      let real: string;
      let st: Stats;
      try {
        // Below a resolved directory only a link can lead elsewhere: realpath (a walk of its own) for links alone.
        st = lstatSync(path);
        real = path === start || st.isSymbolicLink() ? realpathSync(path) : path;
        if (real !== path) st = lstatSync(real);
      } catch (e) {
        problems.push({ path, why: `unreadable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), so not checked`, fix: `remove or repair ${path}` });
        continue;
      }
      if (walkedPaths.has(real)) continue;
      walkedPaths.add(real);
      const tree = real === path ? root : real;
      // A link's target lies elsewhere: its own directories up to / must be root's too.
      if (real !== path) above(real);
      judge(real, st, descend ? recursive(tree) : one(real));
      if (descend && st.isDirectory()) for (const name of readdirSync(real)) stack.push([join(real, name), tree]);
    }
  };
  try {
    for (const top of [node, checkout]) {
      above(realpathSync(top));
      walk(top, false);
    }
    for (const part of LOADED_PARTS) {
      const path = join(realpathSync(checkout), part); // the root of each tree real, so each fix names a real path
      try {
        lstatSync(path);
      } catch {
        continue; // dist before a build, native/build on a host without the addon: nothing there to load
      }
      walk(path, true);
    }
  } catch (e) {
    problems.push({ path: checkout, why: `cannot be checked: ${(e as Error).message}`, fix: recursive(checkout) });
  }
  return { problems, walked };
}

/** The first few problems in a line, and how many more. */
export function describeUntrusted(problems: UntrustedPath[], shown: number): string {
  const more = problems.length > shown ? `; and ${problems.length - shown} more` : '';
  return problems.slice(0, shown).map((p) => `${p.path} is ${p.why}`).join('; ') + more;
}

/** The distinct commands that fix them, in order (the first few: each fix of a tree covers all in it). */
export function untrustedFix(problems: UntrustedPath[]): string {
  const fixes = [...new Set(problems.map((p) => p.fix))];
  return `as root: ${fixes.slice(0, 5).join('; ')}${fixes.length > 5 ? `; then run this again for the rest` : ''}`;
}
