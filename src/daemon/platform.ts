/**
 * Detects the distribution from /etc/os-release, strictly: an unparseable file or
 * an unknown ID yields null, and a null platform gets read-only actions only.
 *
 * The file is parsed, never evaluated (src/protocol/os-release.ts). The ID is mapped
 * through a fixed table of exact IDs; ID_LIKE is never followed, since a derivative is
 * not proven to behave like its parent.
 */
import type { Platform } from '../catalogue/action.js';
import { assignments, parseOsRelease } from '../protocol/os-release.js';

/**
 * os-release ID -> platform. `rhel` also stands for the rebuilds that ship RHEL's own
 * packages (Rocky Linux, AlmaLinux) and for CentOS Stream, RHEL's upstream: same dnf,
 * firewalld and SELinux. From major version 8 only: before it, they had yum and no dnf.
 */
const PLATFORM_OF_ID: Record<string, { platform: Platform; minMajor?: number }> = {
  debian: { platform: 'debian' },
  ubuntu: { platform: 'ubuntu' },
  fedora: { platform: 'fedora' },
  rhel: { platform: 'rhel', minMajor: 8 },
  rocky: { platform: 'rhel', minMajor: 8 },
  almalinux: { platform: 'rhel', minMajor: 8 },
  centos: { platform: 'rhel', minMajor: 8 },
};

export function detectPlatform(osRelease: string | null): Platform | null {
  if (!osRelease) return null;
  const fields = parseOsRelease(osRelease);
  if (assignments(osRelease, 'ID') !== 1 || fields.ID === undefined) return null;
  const known = Object.hasOwn(PLATFORM_OF_ID, fields.ID) ? PLATFORM_OF_ID[fields.ID]! : null;
  if (!known) return null;
  if (known.minMajor !== undefined) {
    if (assignments(osRelease, 'VERSION_ID') !== 1) return null;
    const major = /^([0-9]{1,3})(\.[0-9]{1,4}){0,2}$/.exec(fields.VERSION_ID ?? '')?.[1];
    if (major === undefined || Number(major) < known.minMajor) return null;
  }
  return known.platform;
}
