/** Byte sizes and the JSON reports of the storage programs (findmnt -J, lsblk -J), read the one way. */

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
export const TiB = 1024 * GiB;

/** The JSON a program printed, or null when it printed something else (an old version, a warning on stdout). */
export function jsonOf<T>(stdout: string): T | null {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    return null;
  }
}

export const mib = (bytes: number) => `${Math.round((bytes / MiB) * 10) / 10} MiB`;
