/**
 * The trusted-path rule: when may the daemon hand a path to a root program by name?
 *
 * A program given a name resolves it itself, one component at a time, following every
 * link. So a name is safe only when nobody but root can change what any of its
 * components is: every ancestor (every directory from / down to the parent) must be a
 * real directory (not a link), owned by root, and not writable by its group or by others;
 * and the path itself must not be a link. Whoever owns or can write an ancestor could
 * otherwise swap in a link between the check and the program's own lookup, and point
 * mount, umount, swapon or logrotate at /etc or /boot.
 *
 * A component that does not exist ends the walk: everything below it is made later by
 * root in a directory only root can write. A last segment holding '*' (logrotate's
 * `DIR/*.log`) stands for the entries of DIR: then DIR itself is an ancestor too.
 *
 * This file is the rule alone (pure); src/daemon/trusted-path.ts applies it to the real
 * file system with lstat, for the Host at preview and the executor before each program.
 */
import { AirlockError } from '../../protocol/errors.js';

/** What lstat says of one component (never following a link). */
export interface ComponentState {
  isDir: boolean;
  isSymlink: boolean;
  uid: number;
  gid: number;
  mode: number;
}

/** The component of a path that makes it unsafe to hand over by name, and why. */
export interface UntrustedComponent {
  component: string;
  reason: string;
}

const GLOB = /[*?[\]]/;

/**
 * The components to look at, from "/" down: each with the role it plays. Refuses a path
 * that is not absolute and normalised, or that has a glob anywhere but in its last segment.
 */
export function componentsOf(path: string): Array<{ component: string; ancestor: boolean }> {
  const segs = path.split('/').slice(1);
  if (!path.startsWith('/') || path.includes('\0') || (path !== '/' && segs.some((s) => s === '' || s === '.' || s === '..'))) {
    throw new AirlockError('validation', 'bad_path', `refusing ${JSON.stringify(path)}: not an absolute, normalised path`);
  }
  if (segs.slice(0, -1).some((s) => GLOB.test(s))) throw new AirlockError('validation', 'bad_path', `refusing ${path}: only its last segment may hold a pattern`);
  const out = [{ component: '/', ancestor: path !== '/' }];
  let cur = '';
  for (const [i, seg] of (path === '/' ? [] : segs).entries()) {
    const last = i === segs.length - 1;
    if (last && GLOB.test(seg)) {
      // DIR/*.log: the entries of DIR are acted on, so DIR is an ancestor of each of them.
      out[out.length - 1]!.ancestor = true;
      break;
    }
    cur += `/${seg}`;
    out.push({ component: cur, ancestor: !last });
  }
  return out;
}

/**
 * What a program that never follows its last component (stat, which describes a link
 * itself) acts on by name: an entry of the path's directory, so only that directory and
 * the ones above it matter, as they do for DIR/*.log.
 */
export const entryIn = (path: string): string => `${path.slice(0, path.lastIndexOf('/')) || ''}/*`;

/** Why one component breaks the rule, or null. */
export function judgeComponent(state: ComponentState, ancestor: boolean): string | null {
  if (state.isSymlink) return 'is a symbolic link';
  if (!ancestor) return null;
  if (!state.isDir) return 'is not a directory';
  if (state.uid !== 0) return `belongs to uid ${state.uid}, not root`;
  if (state.mode & 0o002) return 'is writable by others';
  if (state.mode & 0o020) return `is writable by its group (gid ${state.gid})`;
  return null;
}

/**
 * The rule over states already read, in the order of componentsOf (null: the component
 * does not exist, and the walk ends there). Null when the path may be handed over by name.
 */
export function judgePath(path: string, states: ReadonlyArray<ComponentState | null>): UntrustedComponent | null {
  const parts = componentsOf(path);
  for (const [i, { component, ancestor }] of parts.entries()) {
    const st = states[i];
    if (st === null || st === undefined) return null;
    const reason = judgeComponent(st, ancestor);
    if (reason) return { component, reason };
  }
  return null;
}

/** The typed refusal: it names the component and says what a person can do. */
export function untrustedPathError(path: string, bad: UntrustedComponent): AirlockError {
  const self = bad.component === path;
  return new AirlockError(
    'authorization',
    'untrusted_path',
    `refusing ${path}: ${bad.component} ${bad.reason}; ${self ? 'a program would follow the link' : `whoever can change ${bad.component} could redirect what a root program does with ${path}`}`,
    self ? `name the real path instead of the link` : `choose a path whose directories are owned by root and writable by root only, or a person makes ${bad.component} so, then preview again`,
  );
}
