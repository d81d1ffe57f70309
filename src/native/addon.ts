/** Loads the project's own N-API addon (native/airlock_native.c), built by `npm install`. */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
  groups: number[];
  /** -1 when the kernel lacks SO_PEERPIDFD (Linux < 6.5). */
  pidfd: number;
}

export interface PeerProcess {
  pid: number;
  /** -1 when unset. */
  loginUid: number;
  /** From /proc/PID/status (-1 when unreadable): a setuid program has an effective uid 0 but not these. */
  realUid: number;
  savedUid: number;
  /** SUDO_UID and SUDO_USER from the process's environment ('' when absent). */
  sudoUid: string;
  sudoUser: string;
}

interface NativeAddon {
  peerCredentials(fd: number): PeerCredentials;
  /** What stands behind a root peer, read from the /proc entry its pidfd pins; throws once it has exited. */
  peerProcess(pidfd: number): PeerProcess;
  closeFd(fd: number): void;
  lockHolder(path: string): number;
  /**
   * A file's bytes in one thread-pool job: openat2 with RESOLVE_NO_SYMLINKS (a link at any
   * component is ELOOP), fstat, read. `content` only for a regular file with one link and at
   * most `limit` bytes; `errno` non-zero when the open or fstat failed.
   */
  readNoFollow(path: string, limit: number): Promise<{ errno: number; regular: boolean; nlink: number; content?: Buffer }>;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let addon: NativeAddon | null = null;

export function native(): NativeAddon {
  if (!addon) {
    try {
      addon = createRequire(import.meta.url)(join(root, 'native', 'build', 'Release', 'airlock_native.node')) as NativeAddon;
    } catch (e) {
      throw new Error(`the peer-credential addon is not built (${(e as Error).message}); run \`npm install\` (it needs g++, make and python3)`);
    }
  }
  return addon;
}
