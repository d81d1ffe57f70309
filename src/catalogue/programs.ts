import { PROGRAMS_FIREWALL } from './programs/firewall.js';
import { PROGRAMS_LOGGING } from './programs/logging.js';
import { PROGRAMS_PROCESSES } from './programs/processes.js';
import { PROGRAMS_SECURITY } from './programs/security.js';
import { PROGRAMS_REPOSITORIES } from './programs/repositories.js';
import { PROGRAMS_STORAGE } from './programs/storage.js';
import { PROGRAMS_NETCONFIG } from './programs/netconfig.js';
import { PROGRAMS_UNITCONFIG } from './programs/unitconfig.js';
import { PROGRAMS_USERS } from './families/users/programs.js';
import { PROGRAMS_SSH } from './families/ssh/programs.js';
import { PROGRAMS_PRIVILEGE } from './families/privilege/programs.js';
import { PROGRAMS_IDENTITY } from './families/identity/programs.js';
import { PROGRAMS_VOLUMES } from './programs/volumes.js';
import { PROGRAMS_CONTAINERS } from './programs/containers.js';
import { PROGRAMS_DIAGNOSTICS } from './programs/diagnostics.js';
import { neverRunByDaemon } from './lib/program-runners.js';

/**
 * Every program the catalogue may run, by name. The daemon resolves each to an
 * absolute path once at start (first candidate that exists, is root-owned and not
 * writable by group or others) and never consults PATH.
 */
const BASE_PROGRAMS = {
  uname: ['/usr/bin/uname', '/bin/uname'],
  df: ['/usr/bin/df', '/bin/df'],
  uptime: ['/usr/bin/uptime', '/bin/uptime'],
  lsblk: ['/usr/bin/lsblk', '/bin/lsblk'],
  findmnt: ['/usr/bin/findmnt', '/bin/findmnt'],
  ps: ['/usr/bin/ps', '/bin/ps'],
  useradd: ['/usr/sbin/useradd', '/sbin/useradd'],
  userdel: ['/usr/sbin/userdel', '/sbin/userdel'],
  usermod: ['/usr/sbin/usermod', '/sbin/usermod'],
  groupadd: ['/usr/sbin/groupadd', '/sbin/groupadd'],
  groupdel: ['/usr/sbin/groupdel', '/sbin/groupdel'],
  gpasswd: ['/usr/bin/gpasswd', '/bin/gpasswd'],
  chage: ['/usr/bin/chage', '/bin/chage'],
  passwd: ['/usr/bin/passwd', '/bin/passwd'],
  id: ['/usr/bin/id', '/bin/id'],
  'apt-get': ['/usr/bin/apt-get'],
  'apt-cache': ['/usr/bin/apt-cache'],
  'apt-mark': ['/usr/bin/apt-mark'],
  dpkg: ['/usr/bin/dpkg'],
  'dpkg-query': ['/usr/bin/dpkg-query'],
  // Fedora and RHEL (see families/packages.ts): `dnf [--cacheonly] COMMAND [options] SPEC`, never `--`
  // (dnf5 refuses it); `rpm --query|--verify [options] -- NAME|PATH`.
  dnf: ['/usr/bin/dnf'],
  rpm: ['/usr/bin/rpm', '/bin/rpm'],
  sysctl: ['/usr/sbin/sysctl', '/sbin/sysctl'],
  hostname: ['/usr/bin/hostname', '/bin/hostname'],
  ip: ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'],
  ss: ['/usr/bin/ss', '/usr/sbin/ss', '/bin/ss'],
  'ssh-keygen': ['/usr/bin/ssh-keygen'],
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  journalctl: ['/usr/bin/journalctl', '/bin/journalctl'],
  ln: ['/usr/bin/ln', '/bin/ln'],
  date: ['/usr/bin/date', '/bin/date'],
  ls: ['/usr/bin/ls', '/bin/ls'],
  apt: ['/usr/bin/apt'],
  lsmod: ['/usr/sbin/lsmod', '/sbin/lsmod'],
  free: ['/usr/bin/free', '/bin/free'],
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
} as const satisfies Record<string, readonly string[]>;

/** The base table plus the families' own tables (src/catalogue/programs/), one file each. */
export const PROGRAMS = {
  ...BASE_PROGRAMS,
  ...PROGRAMS_FIREWALL,
  ...PROGRAMS_LOGGING,
  ...PROGRAMS_PROCESSES,
  ...PROGRAMS_SECURITY,
  ...PROGRAMS_REPOSITORIES,
  ...PROGRAMS_STORAGE,
  ...PROGRAMS_NETCONFIG,
  ...PROGRAMS_UNITCONFIG,
  ...PROGRAMS_USERS,
  ...PROGRAMS_SSH,
  ...PROGRAMS_PRIVILEGE,
  ...PROGRAMS_IDENTITY,
  ...PROGRAMS_VOLUMES,
  ...PROGRAMS_CONTAINERS,
  ...PROGRAMS_DIAGNOSTICS,
};

export type ProgramName = keyof typeof PROGRAMS;

/**
 * Programs that send packets to a host their arguments name: getent resolves it (DNS, or
 * whatever NSS asks), nc connects to it, ssh-keyscan starts an SSH handshake with it. An
 * action whose mechanism runs one is a read that declares `reachesNetwork`; no state
 * reader runs one (it would reach out before anyone approved). Checked over the whole
 * catalogue by test/unit/read-declarations.test.ts and on every scenario's real mechanism.
 */
export const NETWORK_PROGRAMS: readonly ProgramName[] = ['getent', 'nc', 'ssh-keyscan'];

/**
 * Why a command must not run, or null: it names a shell, an interpreter or a program
 * runner (the `daemon: 'never'` entries of the one table, ./lib/program-runners.ts), or
 * passes `-c` (a shell's "run this string"). The executor checks every command, undo
 * steps and host reads included, and the tests check every mechanism the scenarios build.
 */
export function shellViolation(program: string, args: readonly string[]): string | null {
  if (neverRunByDaemon(program)) return `${program} is a shell, an interpreter or runs other programs`;
  if (args.includes('-c')) return `${program} is passed -c`;
  return null;
}
