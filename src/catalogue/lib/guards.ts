/**
 * Everything Airlock refuses to stop, delete, lock or hide, in one file a reviewer can
 * read: the units that keep the host reachable, the accounts and groups no action
 * removes or joins, the packages never removed. The families' refusals consult these
 * lists; none keeps a list of its own.
 */
import { AIRLOCK_GROUPS } from '../../protocol/risk.js';
import type { GroupEntry, PasswdEntry } from '../action.js';

// ---------------------------------------------------------------- units

/** Units that hand out a root shell on a console; no action here changes them. */
export const RESCUE_UNITS = ['rescue.service', 'emergency.service', 'debug-shell.service'];
export const isRescueUnit = (name: string) => RESCUE_UNITS.includes(name) || name.endsWith('-shell.service');

/**
 * Units whose loss cuts the host off or breaks Airlock. None is ever stopped,
 * disabled or masked here; 'refuse' ones are not restarted either, 'warn' ones are,
 * with a warning (an SSH restart keeps open sessions).
 */
export const LIFELINE_UNITS: Record<string, { restart: 'refuse' | 'warn'; why: string }> = {
  'systemd-journald.service': { restart: 'refuse', why: 'the system journal, which records every service (Airlock included)' },
  'dbus.service': { restart: 'refuse', why: 'the system bus, through which systemctl itself reaches systemd' },
  'dbus-broker.service': { restart: 'refuse', why: 'the system bus, through which systemctl itself reaches systemd' },
  'systemd-logind.service': { restart: 'refuse', why: 'login management; without it no one can log in' },
  'airlock.service': { restart: 'refuse', why: 'the Airlock daemon itself' },
  'ssh.service': { restart: 'warn', why: 'the SSH server, often the only way into this host' },
  'sshd.service': { restart: 'warn', why: 'the SSH server, often the only way into this host' },
};

/** Network managers: stopping one may take this host off the network. Allowed, with a warning. */
export const NETWORK_UNITS = ['networking.service', 'systemd-networkd.service', 'NetworkManager.service'];

// ---------------------------------------------------------------- accounts and groups

/**
 * Accounts no destructive action may touch: root, system accounts (uid < 1000),
 * nobody, and anyone in a group that confers administration.
 */
export function isProtectedUser(u: PasswdEntry): boolean {
  return u.uid < 1000 || u.uid === 65534 || u.name === 'root';
}

/**
 * System groups (gid < 1000) grant device, log or key access (input, kmem, systemd-journal,
 * ssl-cert, ...): joining one is refused unless it is listed here as harmless.
 */
export const JOINABLE_SYSTEM_GROUPS = ['users', 'www-data'];
export const isPrivilegedSystemGroup = (g: GroupEntry) => g.gid < 1000 && !JOINABLE_SYSTEM_GROUPS.includes(g.name);

/** Groups whose membership is administration (sudo, root-equivalent container/VM daemons, log and disk access) or an Airlock role. */
export const PROTECTED_GROUPS = ['root', 'sudo', 'adm', 'wheel', 'shadow', 'disk', 'docker', 'lxd', 'incus-admin', 'libvirt', ...AIRLOCK_GROUPS];

// ---------------------------------------------------------------- packages

/** Never removed, whatever dpkg says of them: package management, init, remote access, privilege, libc, Airlock's runtime. */
export const PROTECTED_PACKAGES = ['apt', 'dpkg', 'systemd', 'systemd-sysv', 'init', 'openssh-server', 'sudo', 'libc6', 'nodejs'];
/** The same for rpm, which has no essential flag or priority: what Debian marks essential is named here. */
export const PROTECTED_RPMS = ['dnf', 'dnf5', 'rpm', 'yum', 'systemd', 'systemd-udev', 'openssh-server', 'sudo', 'glibc', 'nodejs', 'bash', 'coreutils', 'filesystem', 'setup', 'kernel-core', 'selinux-policy-targeted'];
