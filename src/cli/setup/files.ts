/**
 * Reading and writing the clients' files. A write goes to a temporary file beside the target
 * and is renamed over it, so a client never reads half a file, all through the held folder of
 * src/protocol/safe-write.ts (nothing by name once the folder is open); a symlink (a dotfiles manager's)
 * is followed and its target written, not replaced, but only a symlink of this account's own
 * (or root's): a project folder is often writable by others (the agent itself), and a link
 * planted there would otherwise send setup's write, as this account or as root, to a file of
 * the planter's choosing. The mode is kept, or 0600 for a file that holds a token. Only UTF-8
 * text is read: anything else is refused, never re-encoded.
 */
import { lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { umask } from 'node:process';
import { dirname, join, resolve } from 'node:path';
import { removeFileSafely, writeFileSafely } from '../../protocol/safe-write.js';

/** Far above any client configuration (~/.claude.json grows with history, a few MiB at most). */
const MAX_BYTES = 32 * 1024 * 1024;

export type FileState = { ok: true; path: string; real: string; before: string | null; mode: number | null; uid: number | null; gid: number | null } | { ok: false; reason: string };

/** Symbolic links followed for one path at most (the kernel's own limit). */
const MAX_LINKS = 40;

/**
 * Where `path` leads, component by component from the root, following only symbolic links
 * owned by this account or by root (anyone else's is refused, wherever it sits in the path).
 * A path that does not exist (yet) from some component on leads to that component plus the rest.
 */
export function followOwnLinks(path: string): { ok: true; real: string } | { ok: false; reason: string } {
  const me = process.geteuid?.() ?? -1;
  let todo = resolve(path).split('/').filter(Boolean);
  let done = '/';
  let links = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      done = dirname(done); // `done` holds no link, so its parent is its real parent
      continue;
    }
    const next = join(done, part);
    let st;
    try {
      st = lstatSync(next);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { ok: true, real: join(next, ...todo) };
      return { ok: false, reason: `it cannot be read (${code})` };
    }
    if (st.isSymbolicLink()) {
      if (st.uid !== me && st.uid !== 0) {
        return { ok: false, reason: `${next} is a symbolic link owned by uid ${st.uid}, not by this account: setup does not follow a link another account could have planted (remove it, or make it your own)` };
      }
      if (++links > MAX_LINKS) return { ok: false, reason: 'it cannot be read (ELOOP)' };
      const target = readlinkSync(next);
      todo = [...(target.startsWith('/') ? target : join(done, target)).split('/').filter(Boolean), ...todo];
      done = '/';
      continue;
    }
    done = next;
  }
  return { ok: true, real: done };
}

export function readState(path: string): FileState {
  const led = followOwnLinks(path);
  if (!led.ok) return led;
  const real = led.real;
  try {
    const st = statSync(real);
    if (!st.isFile()) return { ok: false, reason: 'it is not a regular file' };
    if (st.size > MAX_BYTES) return { ok: false, reason: `it is larger than ${MAX_BYTES} bytes` };
    const bytes = readFileSync(real);
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes)) return { ok: false, reason: 'it is not UTF-8 text' };
    return { ok: true, path, real, before: text, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, path, real, before: null, mode: null, uid: null, gid: null };
    return { ok: false, reason: `it cannot be read (${code})` };
  }
}

/**
 * Throws unless `s.path` still leads where it led when it was read: between the plan and the
 * write (a confirmation at a terminal can take minutes) a folder on the way may have been
 * swapped for a link. What remains is the instant between this check and the write itself.
 */
export function assertStillLeads(s: Extract<FileState, { ok: true }>): void {
  const now = followOwnLinks(s.path);
  if (!now.ok) throw new Error(now.reason);
  if (now.real !== s.real) throw new Error(`it led to ${s.real} when it was read and leads to ${now.real} now`);
}

/** The nearest existing directory at or above `dir`. */
function existingAncestor(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (statSync(d).isDirectory()) return d;
    } catch {}
    if (d === dirname(d)) return d;
  }
}

/**
 * Writes `text` to `real` whole, through safe-write.ts: the folder is held by descriptor and
 * refused when an account other than this one, root and the file's owner can change it. Run as
 * root on another account's files (sudo with that HOME), new files and directories go to the
 * owner of the folder they are made in, and an existing file keeps its owner, so the account
 * can still read its own configuration.
 */
export function writeWhole(s: Extract<FileState, { ok: true }>, text: string, secret: boolean): number {
  const asRoot = process.getuid?.() === 0;
  const parent = statSync(existingAncestor(dirname(s.real)));
  const owner = asRoot ? { uid: s.uid ?? parent.uid, gid: s.gid ?? parent.gid } : undefined;
  // A new file without a token gets what the umask gives; a token's file is never more than 0600.
  const mode = secret ? 0o600 : (s.mode ?? 0o666 & ~umask());
  const dirOwner = asRoot ? { uid: parent.uid, gid: parent.gid } : undefined;
  writeFileSafely(s.real, text, { mode, owner, folders: { mode: 0o777 & ~umask(), owner: dirOwner } });
  return mode;
}

/** Deletes the file, then each directory above it that is left empty, up to (not including) `base`. */
export function deleteWhole(real: string, base: string): void {
  removeFileSafely(real, base);
}
