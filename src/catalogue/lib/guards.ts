/**
 * Everything Airlock refuses to stop, delete, lock or hide, in one file a reviewer can
 * read: the units that keep the host reachable, the accounts and groups no action
 * removes or joins, the packages never removed, and who must keep SSH access. The
 * families' refusals consult these lists; none keeps a list of its own.
 */
import { AIRLOCK_GROUPS, APPROVER_GROUP } from '../../protocol/risk.js';
import type { GroupEntry, PasswdEntry } from '../action.js';
import { sshPatternRe } from './ssh-patterns.js';

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

// ---------------------------------------------------------------- SSH access

/*
 * The people an SSH change must not shut out: members of APPROVER_GROUP approve Airlock's
 * requests (src/daemon/identity.ts), and often reach the host over SSH only. An sshd
 * setting that would refuse their logins is not refused (a person may mean it), but the
 * preview names them; a user change that would refuse every login is refused.
 */

/** An account as the SSH checks see it: its groups (the primary one included) and whether a key file of it holds a key. */
export interface SshLogin {
  name: string;
  groups: string[];
  hasKeys: boolean;
}

/** The approvers among `users`: listed in APPROVER_GROUP, or with it as their primary group. */
export function approversAmong(users: readonly PasswdEntry[], groups: readonly GroupEntry[]): PasswdEntry[] {
  const g = groups.find((e) => e.name === APPROVER_GROUP);
  return users.filter((u) => g && (g.members.includes(u.name) || u.gid === g.gid));
}

/** Whether one of sshd's AllowUsers or AllowGroups patterns admits `name`; a pattern's @host part is not compared. */
const admits = (patterns: readonly string[], name: string) => patterns.some((p) => sshPatternRe(p.split('@')[0]!).test(name));

/**
 * Those of `logins` sshd would refuse under these AllowUsers and AllowGroups (the patterns
 * of every line sshd reads, which it adds up; null where the option is set nowhere).
 */
export function shutOutBy<T extends SshLogin>(logins: readonly T[], allowUsers: readonly string[] | null, allowGroups: readonly string[] | null): T[] {
  return logins.filter((a) => (allowUsers !== null && !admits(allowUsers, a.name)) || (allowGroups !== null && !a.groups.some((g) => admits(allowGroups, g))));
}

/** Those of `logins` that `PasswordAuthentication no` would refuse: they have no key to log in with. */
export const withoutKeys = <T extends SshLogin>(logins: readonly T[]): T[] => logins.filter((a) => !a.hasKeys);

/**
 * Whether forcing a password change (chage --lastday 0) would refuse every login of an
 * account, SSH keys included: the next login must change the password first, and pam_unix
 * asks for the current one, which a locked or empty password field cannot give.
 * ForcePasswordChange is refused then.
 */
export const forcedChangeLocksOut = (shadow: { locked: boolean; hasPassword: boolean }): boolean => shadow.locked || !shadow.hasPassword;
