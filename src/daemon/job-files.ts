/**
 * Files the executor prepares for a root program within one job (CommandStep.file and
 * .expect): a swap file is created here, through its held parent directory (no link
 * followed), exclusively, root:root with its mode, and stays open for the whole job.
 * Programs that can take a descriptor (fallocate, mkswap) get it as their fd 3 and never
 * see a name; a program that needs a name (swapon) runs only after the name is checked
 * to lead to that same inode, still root-owned with its mode and one link.
 */
import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import { HeldDir } from './safe-fs.js';

interface Prepared {
  fh: FileHandle;
  dev: number;
  ino: number;
}

const CREATE = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

async function holdParent(path: string): Promise<HeldDir> {
  const dir = await HeldDir.open(dirname(path), path);
  if (!dir) throw new AirlockError('execution', 'not_found', `${dirname(path)} does not exist`);
  return dir;
}

export class JobFiles {
  private readonly files = new Map<string, Prepared>();

  /** Creates `path` (never over anything that exists) and returns the descriptor a program gets as its fd 3. */
  async create(path: string, mode: number): Promise<number> {
    if (this.files.has(path)) throw new AirlockError('execution', 'already_exists', `${path} was already created by this job`);
    const dir = await holdParent(path);
    try {
      let fh: FileHandle;
      try {
        fh = await fsp.open(dir.at(basename(path)), CREATE, 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new AirlockError('conflict', 'already_exists', `${path} already exists`, 'preview again');
        throw e;
      }
      try {
        // The parent may be setgid: the file belongs to root:root whatever the directory says.
        await fh.chown(0, 0);
        await fh.chmod(mode);
        const st = await fh.stat();
        await dir.sync();
        this.files.set(path, { fh, dev: st.dev, ino: st.ino });
        return fh.fd;
      } catch (e) {
        await fh.close();
        await fsp.unlink(dir.at(basename(path))).catch(() => {});
        throw e;
      }
    } finally {
      await dir.close();
    }
  }

  /** The descriptor of a file this job created; any other file is refused (fail closed). */
  fd(path: string): number {
    const f = this.files.get(path);
    if (!f) throw new AirlockError('execution', 'file_not_prepared', `${path} was not created by this job, so no program is handed it`);
    return f.fh.fd;
  }

  /** Refuses unless `path` still names the file this job created: same device and inode, a regular file with one link, root-owned, this mode. */
  async expect(path: string, mode: number): Promise<void> {
    const f = this.files.get(path);
    if (!f) throw new AirlockError('execution', 'file_not_prepared', `${path} was not created by this job`);
    const dir = await holdParent(path);
    try {
      const st = await dir.lstat(basename(path));
      const why = !st
        ? 'it is gone'
        : !st.isFile()
          ? 'it is no longer a regular file'
          : st.dev !== f.dev || st.ino !== f.ino
            ? 'it is another file now (device or inode differ)'
            : st.nlink !== 1
              ? `it has ${st.nlink} links`
              : st.uid !== 0
                ? `it belongs to uid ${st.uid}`
                : (st.mode & 0o7777) !== mode
                  ? `its mode is ${(st.mode & 0o7777).toString(8).padStart(4, '0')}, not ${mode.toString(8).padStart(4, '0')}`
                  : null;
      if (why) throw new AirlockError('execution', 'file_changed', `refusing to go on with ${path}: ${why} since Airlock created it in this job`, 'a person looks at what changed it; the job was rolled back');
    } finally {
      await dir.close();
    }
  }

  /** Undo of create: removes the file if `path` still names it (never whatever replaced it). */
  async remove(path: string): Promise<void> {
    const f = this.files.get(path);
    if (!f) return;
    const dir = await holdParent(path);
    try {
      const st = await dir.lstat(basename(path));
      if (st && st.dev === f.dev && st.ino === f.ino) {
        await fsp.unlink(dir.at(basename(path)));
        await dir.sync();
      } else if (st) {
        throw new Error(`${path} is no longer the file this job created: left in place`);
      }
    } finally {
      await dir.close();
    }
  }

  /** Closes every descriptor the job held (the files themselves stay). */
  async close(): Promise<void> {
    for (const f of this.files.values()) await f.fh.close().catch(() => {});
    this.files.clear();
  }
}
