/**
 * Reading and writing the clients' files. A write goes to a temporary file beside the target
 * and is renamed over it, so a client never reads half a file; a symlink (a dotfiles manager's)
 * is followed and its target written, not replaced. The mode is kept, or 0600 for a file that
 * holds a token. Only UTF-8 text is read: anything else is refused, never re-encoded.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';

/** Far above any client configuration (~/.claude.json grows with history, a few MiB at most). */
const MAX_BYTES = 32 * 1024 * 1024;

export type FileState = { ok: true; real: string; before: string | null; mode: number | null; uid: number | null; gid: number | null } | { ok: false; reason: string };

export function readState(path: string): FileState {
  let real = path;
  try {
    const l = lstatSync(path);
    if (l.isSymbolicLink()) {
      try {
        real = realpathSync(path);
      } catch {
        real = resolve(dirname(path), readlinkSync(path));
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, real, before: null, mode: null, uid: null, gid: null };
    return { ok: false, reason: `it cannot be read (${(e as NodeJS.ErrnoException).code})` };
  }
  try {
    const st = statSync(real);
    if (!st.isFile()) return { ok: false, reason: 'it is not a regular file' };
    if (st.size > MAX_BYTES) return { ok: false, reason: `it is larger than ${MAX_BYTES} bytes` };
    const bytes = readFileSync(real);
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes)) return { ok: false, reason: 'it is not UTF-8 text' };
    return { ok: true, real, before: text, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, real, before: null, mode: null, uid: null, gid: null };
    return { ok: false, reason: `it cannot be read (${code})` };
  }
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
 * Writes `text` to `real` whole. Run as root on another account's files (sudo with that
 * HOME), new files and directories go to the owner of the folder they are made in, and an
 * existing file keeps its owner, so the account can still read its own configuration.
 */
export function writeWhole(s: Extract<FileState, { ok: true }>, text: string, secret: boolean): number {
  const dir = dirname(s.real);
  const asRoot = process.getuid?.() === 0;
  const parent = statSync(existingAncestor(dir));
  const made = mkdirSync(dir, { recursive: true });
  if (made && asRoot) for (let d = dir; d.length >= made.length; d = dirname(d)) chownSync(d, parent.uid, parent.gid);
  const tmp = join(dir, `.${basename(s.real)}.airlock-${randomBytes(4).toString('hex')}`);
  // A new file without a token gets what the umask gives; a token's file is never more than 0600.
  const mode = secret ? 0o600 : s.mode;
  try {
    writeFileSync(tmp, text, { mode: mode ?? 0o666, flag: 'wx' });
    if (asRoot) chownSync(tmp, s.uid ?? parent.uid, s.gid ?? parent.gid);
    if (mode !== null) chmodSync(tmp, mode);
    renameSync(tmp, s.real);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw e;
  }
  return statSync(s.real).mode & 0o7777;
}

/** Deletes the file, then each directory above it that is left empty, up to (not including) `base`. */
export function deleteWhole(real: string, base: string): void {
  unlinkSync(real);
  for (let d = dirname(real); d.startsWith(base + '/'); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
  }
}
