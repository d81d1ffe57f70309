/**
 * File operations of the executor. Every path must be absolute and normalised and
 * match the action's allowlist. A path is never resolved twice: its directory is
 * opened once, one component at a time with O_NOFOLLOW (so a symlink anywhere is
 * refused), and every later operation (open, create, chmod, chown, rename, unlink)
 * goes through that held descriptor as /proc/self/fd/N/NAME. Someone who owns the
 * directory (a user's ~/.ssh) can swap components while we work, but can no longer
 * redirect what we touch. Writes are atomic (temp file, fsync, rename) and keep an
 * existing file's owner and mode.
 */
import { constants, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { dirname, basename } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import type { Owner } from '../catalogue/mechanism.js';
import { matchesGlob } from '../catalogue/params.js';
import { native } from '../native/addon.js';

const { ENOENT, ENOSYS, EPERM } = osConstants.errno;
/** Whether readRegularFile's native read is in use: false once the kernel refused openat2. */
let fastReads = true;

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

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

const symlinkError = (path: string, at: string) =>
  new AirlockError('execution', 'symlink_in_path', `refusing ${path}: ${at} is a symbolic link`, 'replace the link with a real file or directory, then preview again');

/** A directory held open: names inside it resolve against this exact inode, whatever happens to its path. */
export class HeldDir {
  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}

  /** Opens `path` component by component without following any symlink. Null when a component is missing. */
  static async open(path: string, forPath = path): Promise<HeldDir | null> {
    // The first component is opened by absolute path: "/" itself cannot be a link, and
    // O_NOFOLLOW covers the component. Every later one goes through its parent's descriptor.
    let fh: FileHandle | null = null;
    let cur = '';
    for (const seg of path.split('/').filter(Boolean)) {
      cur += '/' + seg;
      const at: string = fh ? `/proc/self/fd/${fh.fd}/${seg}` : cur;
      let next: FileHandle;
      try {
        next = await fsp.open(at, DIR_FLAGS);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // O_DIRECTORY|O_NOFOLLOW reports a symlink as ENOTDIR: tell the two apart for the message.
        const isLink = code === 'ELOOP' || (code === 'ENOTDIR' && (await fsp.lstat(at).catch(() => null))?.isSymbolicLink());
        await fh?.close();
        if (code === 'ENOENT') return null;
        if (isLink) throw symlinkError(forPath, cur);
        if (code === 'ENOTDIR') throw new AirlockError('execution', 'not_a_directory', `refusing ${forPath}: ${cur} is not a directory`);
        throw e;
      }
      // The parent is no longer needed once the child is open: close it without waiting.
      if (fh) void fh.close().catch(() => {});
      fh = next;
    }
    return new HeldDir(path, fh ?? (await fsp.open('/', DIR_FLAGS)));
  }


  /** The name inside this directory, as a path the kernel resolves through the held descriptor. */
  at(name: string): string {
    return `/proc/self/fd/${this.fh.fd}/${name}`;
  }

  async lstat(name: string): Promise<Stats | null> {
    try {
      return await fsp.lstat(this.at(name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  sync(): Promise<void> {
    return this.fh.sync();
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/** Runs fn with the parent directory of `path` held open; null parent when it does not exist. */
async function withParent<T>(path: string, fn: (dir: HeldDir | null, name: string) => Promise<T>): Promise<T> {
  const dir = await HeldDir.open(dirname(path), path);
  try {
    return await fn(dir, basename(path));
  } finally {
    await dir?.close();
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

async function readIn(dir: HeldDir, name: string, path: string, limit: number): Promise<{ content: Buffer; st: Stats } | null> {
  let fh: FileHandle;
  try {
    fh = await fsp.open(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw symlinkError(path, path);
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} is not a regular file`);
    // A second name for a file elsewhere (a hard link) would make this path read or replace that file's content.
    if (st.nlink > 1) throw new AirlockError('execution', 'hard_link', `refusing ${path}: it has ${st.nlink} hard links`);
    if (st.size > limit) throw new AirlockError('execution', 'file_too_large', `${path} is ${st.size} bytes, over the ${limit}-byte limit`);
    return { content: await fh.readFile(), st };
  } finally {
    await fh.close();
  }
}

/**
 * A regular file's bytes (null when it or a directory above it is absent), refusing a link at
 * any component, a second hard link, anything but a regular file, and more than `limit` bytes.
 * The common case (readable, or absent) is one native job (src/native/addon.ts readNoFollow); everything
 * else takes the walk below, which refuses with the reason and the component it names.
 */
export async function readRegularFile(path: string, limit = MAX_FILE_BYTES): Promise<Buffer | null> {
  if (fastReads && path.startsWith('/') && !path.includes('\0')) {
    const r = await native().readNoFollow(path, limit);
    if (r.content) return r.content;
    if (r.errno === ENOENT) return null;
    // A kernel without openat2 (before 5.6), or a filter that refuses it: the walk, from now on.
    if (r.errno === ENOSYS || r.errno === EPERM) fastReads = false;
  }
  return readRegularFileByWalk(path, limit);
}

/** readRegularFile one component at a time: what the native read leaves to it, and its reference (safe-fs tests compare the two). */
export async function readRegularFileByWalk(path: string, limit = MAX_FILE_BYTES): Promise<Buffer | null> {
  return withParent(path, async (dir, name) => (dir ? ((await readIn(dir, name, path, limit))?.content ?? null) : null));
}

export async function snapshot(path: string): Promise<FileSnapshot> {
  return withParent(path, async (dir, name) => {
    const got = dir ? await readIn(dir, name, path, MAX_FILE_BYTES) : null;
    if (!got) return { path, existed: false, createdDirs: [] };
    return { path, existed: true, content: got.content, mode: got.st.mode & 0o7777, uid: got.st.uid, gid: got.st.gid, createdDirs: [] };
  });
}

/** Holds the parent directory, creating it (one level, the only depth the catalogue needs) when allowed. */
async function holdOrCreateParent(path: string, parent: { mode: number; owner?: Owner } | undefined, created: string[]): Promise<HeldDir> {
  const existing = await HeldDir.open(dirname(path), path);
  if (existing) return existing;
  if (!parent) throw new AirlockError('execution', 'not_found', `${dirname(path)} does not exist`);
  const grand = await HeldDir.open(dirname(dirname(path)), path);
  if (!grand) throw new AirlockError('execution', 'not_found', `${dirname(dirname(path))} does not exist`);
  try {
    const name = basename(dirname(path));
    await fsp.mkdir(grand.at(name), { mode: 0o700 });
    created.push(dirname(path));
    // Open what we just made without following links, then set mode and owner on that descriptor.
    let fh: FileHandle;
    try {
      fh = await fsp.open(grand.at(name), DIR_FLAGS);
    } catch (e) {
      if (['ELOOP', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) throw symlinkError(path, dirname(path));
      throw e;
    }
    try {
      await fh.chmod(parent.mode);
      if (parent.owner) await fh.chown(parent.owner.uid, parent.owner.gid);
    } finally {
      await fh.close();
    }
    await grand.sync();
  } finally {
    await grand.close();
  }
  const made = await HeldDir.open(dirname(path), path);
  if (!made) throw new AirlockError('execution', 'not_found', `${dirname(path)} vanished while it was being created`);
  return made;
}

export interface WriteOptions {
  /** Mode and owner for a new file; an existing file keeps its own unless `force` is set. */
  mode: number;
  owner?: Owner;
  force?: boolean;
  parent?: { mode: number; owner?: Owner };
}

export async function atomicWrite(path: string, content: string | Buffer, opts: WriteOptions, created: string[] = []): Promise<void> {
  const dir = await holdOrCreateParent(path, opts.parent, created);
  try {
    const name = basename(path);
    let mode = opts.mode;
    let owner = opts.owner;
    const st = await dir.lstat(name);
    if (st && !st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} exists and is not a regular file`);
    if (st && !opts.force) {
      mode = st.mode & 0o7777;
      owner = { uid: st.uid, gid: st.gid };
    }
    const tmp = `.${name}.airlock-${randomBytes(6).toString('hex')}`;
    const fh = await fsp.open(dir.at(tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await fh.writeFile(content);
      if (owner) await fh.chown(owner.uid, owner.gid);
      await fh.chmod(mode);
      await fh.sync();
    } catch (e) {
      await fh.close();
      await fsp.unlink(dir.at(tmp)).catch(() => {});
      throw e;
    }
    await fh.close();
    // A failed rename (an immutable target, a full directory) must not leave the temporary file behind.
    await fsp.rename(dir.at(tmp), dir.at(name)).catch(async (e) => {
      await fsp.unlink(dir.at(tmp)).catch(() => {});
      throw e;
    });
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export async function deleteFile(path: string): Promise<void> {
  await withParent(path, async (dir, name) => {
    const st = dir ? await dir.lstat(name) : null;
    if (!dir || !st) throw new AirlockError('execution', 'not_found', `${path} does not exist`);
    if (!st.isFile()) throw new AirlockError('execution', 'not_a_file', `${path} is not a regular file`);
    await fsp.unlink(dir.at(name));
    await dir.sync();
  });
}

/** Puts a file back the way snapshot() found it, owner and mode included, without following links. */
export async function restore(snap: FileSnapshot): Promise<void> {
  if (snap.existed) {
    await atomicWrite(snap.path, snap.content!, { mode: snap.mode!, owner: { uid: snap.uid!, gid: snap.gid! }, force: true });
  } else {
    await withParent(snap.path, async (dir, name) => {
      if (dir && (await dir.lstat(name))?.isFile()) await fsp.unlink(dir.at(name));
    });
  }
  for (const d of [...snap.createdDirs].reverse()) {
    // rmdir never follows a final symlink, and fails on anything not empty: safe by path.
    await fsp.rmdir(d).catch(() => {});
  }
}
