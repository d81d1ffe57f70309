/**
 * The one way the command line (and the audit writers it shares with the daemon) puts a file on
 * disk. A file is never touched by name after it is created: the folder is opened as a
 * descriptor, one component at a time without following a link that someone else could have
 * planted, and checked there (who can write it); the new file is created O_EXCL in that held
 * folder, its owner and mode are set on its open descriptor, it is synced, and it is renamed
 * within the same held folder. An account that can swap names in the folder while we work can
 * no longer send a chmod, a chown or the content to a file of its choosing.
 *
 * Node has no openat/renameat, so names inside a held folder are reached as
 * /proc/self/fd/N/NAME: the kernel resolves the magic link /proc/self/fd/N to the very inode N
 * holds (not to a path), then NAME inside it, exactly as openat(N, NAME) would; rename and link
 * between two such names in the same N are renameat/linkat within one descriptor. The same
 * technique as the executor's (src/daemon/safe-fs.ts), so no C runs in the CLI, and the kernel,
 * not our code, does the resolving. Without /proc every write fails (closed), with the reason.
 */
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmdirSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { AirlockError } from './errors.js';
import { parseGroup, parsePasswd } from './account-files.js';

export interface Owner {
  uid: number;
  gid: number;
}

export interface SafeWriteOptions {
  /** The file's mode, set on its descriptor (the umask plays no part). */
  mode: number;
  /** Root only: the file's owner, set on its descriptor. Also an account trusted to write its folders. */
  owner?: Owner;
  /** Refuse when the name exists, instead of replacing it (the finished file is linked in, never renamed over). */
  exclusive?: boolean;
  /** Create missing folders with this mode (and owner); without it a missing folder is an error. */
  folders?: { mode: number; owner?: Owner };
}

const STICKY = 0o1000;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Symbolic links followed for one path at most (the kernel's own limit). */
const MAX_LINKS = 40;

const unsafe = (path: string, why: string, hint: string) => new AirlockError('authorization', 'unsafe_folder', `refusing to write ${path}: ${why}`, hint);

/** The accounts allowed to change a folder a file of `opts` goes into: root, this process's, the file's owner. */
function trustedUids(opts: { owner?: Owner }): Set<number> {
  return new Set([0, process.geteuid?.() ?? 0, ...(opts.owner ? [opts.owner.uid] : [])]);
}

/** Who besides the trusted accounts can add, remove or rename entries of the folder `st`; null when nobody. */
function otherWriter(st: Stats, trusted: Set<number>): string | null {
  if (!trusted.has(st.uid)) return `uid ${st.uid} owns it`;
  // Sticky (/tmp): an entry can be replaced only by its own owner, who is checked in turn.
  if (st.mode & STICKY) return null;
  if (st.mode & 0o002) return 'every account can write it';
  if (st.mode & 0o020 && st.gid !== 0) {
    const others = groupWritersBeyond(st.gid, trusted);
    if (others) return `its group (gid ${st.gid}) can write it, and ${others}`;
  }
  return null;
}

/** Who in group `gid` is not trusted (by name), from /etc/group and /etc/passwd; unknown counts as someone. */
function groupWritersBeyond(gid: number, trusted: Set<number>): string | null {
  let users, groups;
  try {
    users = parsePasswd(readFileSync('/etc/passwd', 'utf8'));
    groups = parseGroup(readFileSync('/etc/group', 'utf8'));
  } catch {
    return 'the account list cannot be read to tell who is in it';
  }
  const group = groups.find((g) => g.gid === gid);
  if (!group) return 'the group is not in /etc/group, so who is in it is unknown';
  const uidOf = (name: string) => users.find((u) => u.name === name)?.uid ?? -1;
  const members = [...group.members, ...users.filter((u) => u.gid === gid).map((u) => u.name)];
  const untrusted = members.filter((n) => !trusted.has(uidOf(n)));
  return untrusted.length ? `${untrusted[0]} is in it` : null;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code ?? '';

/** A folder held open by descriptor: names in it resolve against this inode, whatever happens to its path. */
export class HeldFolder {
  private constructor(
    /** The folder's path as it was followed (for messages). */
    readonly path: string,
    readonly fd: number,
  ) {}

  /**
   * Opens `path` from the root one component at a time. A symbolic link is followed only when
   * root or this account owns it (it cannot be replaced by anyone else: its folder was checked);
   * every folder on the way, the last included, must be changeable by nobody but the trusted
   * accounts (see otherWriter). `forFile` names the file being written, for messages.
   */
  static open(path: string, forFile: string, opts: { owner?: Owner; folders?: { mode: number; owner?: Owner } } = {}): HeldFolder {
    const trusted = trustedUids(opts);
    const me = process.geteuid?.() ?? 0;
    let todo = resolve(path).split('/').filter(Boolean);
    let fd = openRoot(forFile);
    let shown = '/';
    let links = 0;
    try {
      check(fd, shown, forFile, trusted);
      while (todo.length > 0) {
        const seg = todo.shift()!;
        if (seg === '.') continue;
        const at = `/proc/self/fd/${fd}/${seg}`;
        let next: number;
        try {
          next = openSync(at, DIR_FLAGS);
        } catch (e) {
          const code = errno(e);
          const st = code === 'ENOENT' ? null : lstatOrNull(at);
          if (st?.isSymbolicLink()) {
            if (st.uid !== 0 && st.uid !== me) {
              throw unsafe(forFile, `${join(shown, seg)} is a symbolic link of uid ${st.uid}, which could point it anywhere`, 'remove the link, or make it your own');
            }
            if (++links > MAX_LINKS) throw unsafe(forFile, `${path} leads through more than ${MAX_LINKS} links`, 'shorten the chain of links');
            const target = readlinkSync(at);
            todo = [...target.split('/').filter(Boolean), ...todo];
            if (target.startsWith('/')) {
              closeSync(fd);
              fd = openRoot(forFile);
              shown = '/';
            }
            continue;
          }
          if (code !== 'ENOENT' || !opts.folders) {
            throw new AirlockError('execution', code === 'ENOENT' ? 'not_found' : 'not_a_directory', `cannot write ${forFile}: ${join(shown, seg)} ${code === 'ENOENT' ? 'does not exist' : `cannot be opened as a folder (${code})`}`, code === 'ENOENT' ? `create ${join(shown, seg)} first` : undefined);
          }
          next = makeFolder(at, opts.folders);
        }
        closeSync(fd);
        fd = next;
        shown = seg === '..' ? dirname(shown) : join(shown, seg);
        check(fd, shown, forFile, trusted);
      }
      return new HeldFolder(shown, fd);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** `name` inside this folder, as a path the kernel resolves through the held descriptor. */
  at(name: string): string {
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  lstat(name: string): Stats | null {
    return lstatOrNull(this.at(name));
  }

  close(): void {
    closeSync(this.fd);
  }
}

function openRoot(forFile: string): number {
  try {
    // "/" cannot be a link; every later component goes through its parent's descriptor.
    const fd = openSync('/', DIR_FLAGS);
    try {
      closeSync(openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_DIRECTORY)); // without /proc: say so now
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return fd;
  } catch (e) {
    throw new AirlockError('execution', 'no_proc', `cannot write ${forFile}: /proc is not mounted (${errno(e)}), and files are written only through /proc/self/fd`, 'mount /proc');
  }
}

function check(fd: number, shown: string, forFile: string, trusted: Set<number>): void {
  const who = otherWriter(fstatSync(fd), trusted);
  if (who) {
    throw unsafe(forFile, `${who}, so that account could swap what is written in ${shown}`, `write it as the account that owns ${shown}, or make ${shown} writable only by you (chmod go-w, chown)`);
  }
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** mkdir at a held name, then mode and owner on the descriptor of what was made. */
function makeFolder(at: string, f: { mode: number; owner?: Owner }): number {
  mkdirSync(at, { mode: 0o700 });
  const fd = openSync(at, DIR_FLAGS);
  try {
    if (f.owner) fchownSync(fd, f.owner.uid, f.owner.gid);
    fchmodSync(fd, f.mode);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** A file being written: a temporary file in the held folder until commit() puts it in place. */
export class NewFile {
  private settled = false;
  private constructor(
    readonly path: string,
    private readonly folder: HeldFolder,
    private readonly tmp: string,
    readonly fd: number,
    private readonly opts: SafeWriteOptions,
  ) {}

  static create(path: string, opts: SafeWriteOptions): NewFile {
    const full = resolve(path);
    const folder = HeldFolder.open(dirname(full), full, opts);
    try {
      const name = basename(full);
      const st = folder.lstat(name);
      if (st && opts.exclusive) throw new AirlockError('conflict', 'file_exists', `${full} exists`, 'choose another file, or remove it first');
      if (st && !st.isFile() && !st.isSymbolicLink()) throw new AirlockError('execution', 'not_a_file', `${full} exists and is not a regular file`);
      const tmp = `.${name}.airlock-${randomBytes(6).toString('hex')}`;
      const fd = openSync(folder.at(tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      return new NewFile(full, folder, tmp, fd, opts);
    } catch (e) {
      folder.close();
      throw e;
    }
  }

  /**
   * The temporary file's name for a program this process runs to check it before commit (visudo -cf):
   * through this process's own hold on the folder, so it names the file we wrote and nothing else.
   */
  get stagedPath(): string {
    return `/proc/${process.pid}/fd/${this.folder.fd}/${this.tmp}`;
  }

  write(chunk: Buffer | string): void {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let at = 0; at < b.length; ) at += writeSync(this.fd, b, at);
  }

  /** Owner, mode, sync, then into place within the held folder; the folder is synced so the rename lasts. */
  commit(): void {
    try {
      // Owner first: chown clears set-id bits, so the mode set after it is the mode that stays.
      if (this.opts.owner) fchownSync(this.fd, this.opts.owner.uid, this.opts.owner.gid);
      fchmodSync(this.fd, this.opts.mode);
      fsyncSync(this.fd);
      // Our name must still be our file: an account that may change this folder (the file's owner)
      // could have swapped it. What it could still swap after this check it could put there itself:
      // rename and link never follow a link, so nothing outside this folder is touched.
      const mine = fstatSync(this.fd);
      const now = this.folder.lstat(this.tmp);
      if (!now || now.ino !== mine.ino || now.dev !== mine.dev) {
        throw unsafe(this.path, `its temporary file was replaced while it was written`, `see who else can change ${this.folder.path}`);
      }
      if (this.opts.exclusive) {
        try {
          linkSync(this.folder.at(this.tmp), this.folder.at(basename(this.path)));
        } catch (e) {
          if (errno(e) === 'EEXIST') throw new AirlockError('conflict', 'file_exists', `${this.path} exists`, 'choose another file, or remove it first');
          throw e;
        }
        unlinkSync(this.folder.at(this.tmp));
      } else {
        try {
          renameSync(this.folder.at(this.tmp), this.folder.at(basename(this.path)));
        } catch (e) {
          // In a sticky folder (/tmp) only a file's owner may replace it.
          if (errno(e) === 'EPERM') throw unsafe(this.path, 'another account owns it, in a folder where only its owner may replace it', 'write to another name, or ask its owner to remove it');
          throw e;
        }
      }
      this.settled = true;
      fsyncSync(this.folder.fd);
    } finally {
      this.abort();
    }
  }

  /** Closes, and removes the temporary file unless it was put in place. */
  abort(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    (this as { fd: number }).fd = -1;
    if (!this.settled) {
      this.settled = true;
      try {
        unlinkSync(this.folder.at(this.tmp));
      } catch {
        // already gone
      }
    }
    this.folder.close();
  }
}

/** Writes `content` to `path` whole, replacing what is there (or refusing to, with `exclusive`). */
export function writeFileSafely(path: string, content: Buffer | string, opts: SafeWriteOptions): void {
  const f = NewFile.create(path, opts);
  try {
    f.write(content);
  } catch (e) {
    f.abort();
    throw e;
  }
  f.commit();
}

/** Makes the folder `path` (and missing ones above it) with `mode`, or sets `mode` and owner on the existing one. */
export function makeFolderSafely(path: string, mode: number, owner?: Owner): void {
  const full = resolve(path);
  const parent = HeldFolder.open(dirname(full), full, { owner, folders: { mode, owner } });
  try {
    const at = parent.at(basename(full));
    let fd: number;
    try {
      fd = openSync(at, DIR_FLAGS);
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw unsafe(full, `it is not a folder (${errno(e)})`, `remove ${full}, then try again`);
      mkdirSync(at, { mode: 0o700 });
      fd = openSync(at, DIR_FLAGS);
    }
    try {
      if (owner) fchownSync(fd, owner.uid, owner.gid);
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  } finally {
    parent.close();
  }
}

/** Removes the file `path` (a link is removed, never followed), then each folder above it left empty, below `keep`. */
export function removeFileSafely(path: string, keep = dirname(resolve(path))): void {
  const full = resolve(path);
  const folder = HeldFolder.open(dirname(full), full);
  try {
    unlinkSync(folder.at(basename(full)));
  } finally {
    folder.close();
  }
  for (let d = dirname(full); d.startsWith(keep + '/'); d = dirname(d)) {
    let parent: HeldFolder;
    try {
      parent = HeldFolder.open(dirname(d), d);
    } catch {
      return; // a folder left in place is no harm
    }
    try {
      rmdirSync(parent.at(basename(d))); // rmdir never follows a link, and only empties go
    } catch {
      return;
    } finally {
      parent.close();
    }
  }
}
