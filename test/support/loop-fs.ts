/**
 * A small ext4 file system on a loop device, to fill (root only): made in a file, attached with
 * losetup, mounted where asked; unmounted and detached afterwards. Programs by path, argv
 * arrays, no shell.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { removeTree, tempDir } from './fs.js';

const run = (program: string, args: string[]) => execFileSync(program, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export interface LoopFs {
  mount(target: string): void;
  /** Unmounts (when mounted), detaches the loop device and removes the image; safe to call twice. */
  unmount(target: string): void;
}

export function loopFs(sizeMb: number): LoopFs {
  const dir = tempDir('airlock-loopfs-');
  const img = join(dir, 'fs.img');
  run('/usr/bin/truncate', ['-s', `${sizeMb}M`, img]);
  run('/usr/sbin/mkfs.ext4', ['-q', '-F', img]);
  let device: string | null = null;
  return {
    mount(target) {
      device = run('/usr/sbin/losetup', ['--find', '--show', '--', img]).trim();
      run('/usr/bin/mount', ['-t', 'ext4', '--', device, target]);
    },
    unmount(target) {
      try {
        if (device) run('/usr/bin/umount', ['--', target]);
      } finally {
        if (device) run('/usr/sbin/losetup', ['-d', device]);
        device = null;
        removeTree(dir);
      }
    },
  };
}

/** What an unprivileged writer gets in dir (statfs bavail x bsize), as the daemon measures it. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Appends zeros to `file` (as root: root-reserved blocks too) until free space in its directory
 * is at most `untilFree` bytes, or, with untilFree 0, until the file system refuses a single
 * block more (ENOSPC). fsync'd. Returns the bytes written.
 */
export function fill(file: string, dir: string, untilFree: number): number {
  const fd = openSync(file, 'a', 0o600);
  let written = 0;
  try {
    for (const chunk of [1024 * 1024, 4096]) {
      const zeros = Buffer.alloc(chunk);
      for (;;) {
        if (untilFree > 0 && freeBytes(dir) <= untilFree) return written;
        try {
          written += writeSync(fd, zeros);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break; // then smaller pieces, to the last block
        }
        if (untilFree > 0 && chunk > 4096) fsyncSync(fd); // so statfs counts what is written
      }
    }
    return written;
  } finally {
    fsyncSync(fd);
    closeSync(fd);
  }
}
