/**
 * Which directories the storage actions may name. Every mount point lives under a fixed
 * allowlist (/srv, /mnt, /data, /media, /var/lib/<name>), so no action can hide or detach
 * the root, /usr, /etc, /boot, /var, /home, /proc, /sys, /dev or /run; DiskUsageOf sizes
 * directories under a wider list of data and log directories.
 */
import { token } from '../../params.js';

const SEGMENT = '[A-Za-z0-9_][A-Za-z0-9._-]{0,63}';

/** /var/lib directories whose loss (hidden under a mount) breaks the package manager, systemd or Airlock. */
export const PROTECTED_VAR_LIB = ['dpkg', 'apt', 'systemd', 'airlock', 'sudo', 'pam', 'polkit-1', 'dbus', 'ucf', 'misc', 'private', 'os-prober'];

/**
 * A mount point: /srv, /mnt, /data, /media or a directory below one of them, or
 * /var/lib/<name>[/...] for a name that is not one of PROTECTED_VAR_LIB. Segments hold
 * letters, digits and . _ - only (no space, which fstab would need escaped), at most 6 deep.
 */
export const mountPoint = token(new RegExp(`^(/(srv|mnt|data|media)(/${SEGMENT}){0,5}|/var/lib(/${SEGMENT}){1,4})$`), 'mount point (under /srv, /mnt, /data, /media or /var/lib/<name>)', 300)
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), "mount point must not contain '.' or '..' segments")
  .refine((p) => !p.startsWith('/var/lib/') || !PROTECTED_VAR_LIB.includes(p.split('/')[3]!), `mount point must not be under /var/lib/{${PROTECTED_VAR_LIB.join(',')}}`)
  .describe('an absolute directory under /srv, /mnt, /data, /media or /var/lib/<name>');

/** Directories whose total size DiskUsageOf reports: these, or a directory below one of them. */
export const USAGE_ROOTS = ['/srv', '/data', '/mnt', '/media', '/opt', '/home', '/tmp', '/var/tmp', '/var/log', '/var/lib', '/var/cache', '/var/backups', '/var/mail', '/var/spool'];
export const usagePath = token(new RegExp(`^(${USAGE_ROOTS.map((r) => r.replace(/\//g, '\\/')).join('|')})(/${SEGMENT}){0,6}$`), `directory (${USAGE_ROOTS.join(', ')} or below)`, 400).refine(
  (p) => !p.split('/').some((s) => s === '.' || s === '..'),
  "directory must not contain '.' or '..' segments",
);
