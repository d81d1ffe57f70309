/**
 * File operations of the executor. Every path must be absolute and normalised,
 * match the action's allowlist, and have no symlink in any component; writes are
 * atomic (temp file, fsync, rename) and keep an existing file's owner and mode.
 */
import { constants, promises as fsp } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, basename } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import type { Owner } from '../catalogue/mechanism.js';
import { matchesGlob } from '../catalogue/params.js';

export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Refuses a path that is not normalised and absolute or that the action did not declare. */
export function checkAllowed(path: string, allow: readonly string[]): void {
  const segs = path.split('/');
  if (!path.startsWith('/') || path.includes('\0') || segs.slice(1).some((s) => s === '' || s === '.' || s === '..')) {
    throw new AirlockError('validation', 'bad_path', `refusing non-normalised path ${JSON.stringify(path)}`);
  }
  if (!allow.some((g) => matchesGlob(path, g))) {
    throw new AirlockError('authorization', 'path_not_allowed', `path ${path} is outside this action's allowlist`);
  }
}

/** Throws if any existing component of the path is a symlink. Missing trailing components are fine. */
export async function refuseSymlinks(path: string): Promise<void> {
  const segs = path.split('/').filter(Boolean);
  let cur = '';
  for (const seg of segs) {
    cur += '/' + seg;
    let st;
    try {
      st = await fsp.lstat(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (st.isSymbolicLink()) {
      throw new AirlockError('execution', 'symlink_in_path', `refusing ${path}: ${cur} is a symbolic link`, 'replace the link with a real file or directory, then preview again');
    }
  }
}

export interface FileSnapshot {
  path: string;
  existed: boolean;
  content?: Buffer;
  mode?: number;
  uid?: number;
  gid?: number;
  createdDirs: string[];
}

export async function readRegularFile(path: string, limit = MAX_FILE_BYTES): Promise<Buffer | null> {
  await refuseSymlinks(path);
  let fh;
  try {
    fh = await fsp.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new AirlockError('execution', 'symlink_in_path', `refusing ${path}: it is a symbolic link`);
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} is not a regular file`);
    if (st.size > limit) throw new AirlockError('execution', 'file_too_large', `${path} is ${st.size} bytes, over the ${limit}-byte limit`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

export async function snapshot(path: string): Promise<FileSnapshot> {
  const content = await readRegularFile(path);
  if (content === null) return { path, existed: false, createdDirs: [] };
  const st = await fsp.lstat(path);
  return { path, existed: true, content, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, createdDirs: [] };
}

/** Creates missing parent directories (one level is all the catalogue needs) and records them for rollback. */
async function ensureParent(path: string, parent: { mode: number; owner?: Owner } | undefined, created: string[]): Promise<void> {
  const dir = dirname(path);
  try {
    const st = await fsp.lstat(dir);
    if (!st.isDirectory()) throw new AirlockError('execution', 'not_a_directory', `${dir} is not a directory`);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !parent) throw e;
  }
  await fsp.mkdir(dir, { mode: parent.mode });
  created.push(dir);
  await fsp.chmod(dir, parent.mode);
  if (parent.owner) await fsp.chown(dir, parent.owner.uid, parent.owner.gid);
}

export async function atomicWrite(
  path: string,
  content: string | Buffer,
  opts: { mode: number; owner?: Owner; parent?: { mode: number; owner?: Owner } },
  created: string[] = [],
): Promise<void> {
  await refuseSymlinks(path);
  await ensureParent(path, opts.parent, created);
  let mode = opts.mode;
  let owner = opts.owner;
  try {
    const st = await fsp.lstat(path);
    if (!st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} exists and is not a regular file`);
    mode = st.mode & 0o7777;
    owner = { uid: st.uid, gid: st.gid };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const tmp = `${dirname(path)}/.${basename(path)}.airlock-${randomBytes(6).toString('hex')}`;
  const fh = await fsp.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(content);
    if (owner) await fh.chown(owner.uid, owner.gid);
    await fh.chmod(mode);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await fsp.unlink(tmp).catch(() => {});
    throw e;
  }
  await fh.close();
  // The directory may have been swapped for a link between the check and now: check again before the rename lands.
  await refuseSymlinks(tmp).catch(async (e) => {
    await fsp.unlink(tmp).catch(() => {});
    throw e;
  });
  await fsp.rename(tmp, path);
  const dirFh = await fsp.open(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
  await dirFh.sync().finally(() => dirFh.close());
}

export async function deleteFile(path: string): Promise<void> {
  await refuseSymlinks(path);
  const st = await fsp.lstat(path);
  if (!st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} is not a regular file`);
  await fsp.unlink(path);
}

/** Puts a file back the way snapshot() found it. */
export async function restore(snap: FileSnapshot): Promise<void> {
  if (snap.existed) {
    await atomicWrite(snap.path, snap.content!, { mode: snap.mode!, owner: { uid: snap.uid!, gid: snap.gid! } });
    await fsp.chmod(snap.path, snap.mode!);
    await fsp.chown(snap.path, snap.uid!, snap.gid!);
  } else {
    await fsp.unlink(snap.path).catch((e) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  for (const dir of snap.createdDirs.reverse()) await fsp.rmdir(dir).catch(() => {});
}
