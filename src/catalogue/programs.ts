import { PROGRAMS_LIB } from './lib/programs.js';
import { PROGRAMS_CONTAINERS } from './families/containers/programs.js';
import { PROGRAMS_FILES } from './families/files/programs.js';
import { PROGRAMS_FIREWALL } from './families/firewall/programs.js';
import { PROGRAMS_IDENTITY } from './families/identity/programs.js';
import { PROGRAMS_KERNEL } from './families/kernel/programs.js';
import { PROGRAMS_LOGGING } from './families/logging/programs.js';
import { PROGRAMS_NETWORK } from './families/network/programs.js';
import { PROGRAMS_PACKAGES } from './families/packages/programs.js';
import { PROGRAMS_PRIVILEGE } from './families/privilege/programs.js';
import { PROGRAMS_PROCESSES } from './families/processes/programs.js';
import { PROGRAMS_SCHEDULING } from './families/scheduling/programs.js';
import { PROGRAMS_SECURITY } from './families/security/programs.js';
import { PROGRAMS_SERVICES } from './families/services/programs.js';
import { PROGRAMS_SSH } from './families/ssh/programs.js';
import { PROGRAMS_STORAGE } from './families/storage/programs.js';
import { PROGRAMS_SYSTEM } from './families/system/programs.js';
import { PROGRAMS_USERS } from './families/users/programs.js';
import { PROGRAMS_REVERT } from './families/revert/programs.js';
import { neverRunByDaemon } from './lib/program-runners.js';

/**
 * Every program the catalogue may run, by name: the library's table and each family's own
 * (src/catalogue/families/<family>/programs.ts). The daemon resolves each to an absolute
 * path once at start (first candidate that exists, is root-owned and not writable by group
 * or others) and never consults PATH. A name in several tables has the same candidates in
 * each, and every program a family's files run is in its own table or the library's
 * (test/unit/catalogue-house.test.ts).
 */
export const PROGRAM_TABLES = {
  lib: PROGRAMS_LIB,
  containers: PROGRAMS_CONTAINERS,
  files: PROGRAMS_FILES,
  firewall: PROGRAMS_FIREWALL,
  identity: PROGRAMS_IDENTITY,
  kernel: PROGRAMS_KERNEL,
  logging: PROGRAMS_LOGGING,
  network: PROGRAMS_NETWORK,
  packages: PROGRAMS_PACKAGES,
  privilege: PROGRAMS_PRIVILEGE,
  processes: PROGRAMS_PROCESSES,
  scheduling: PROGRAMS_SCHEDULING,
  security: PROGRAMS_SECURITY,
  services: PROGRAMS_SERVICES,
  ssh: PROGRAMS_SSH,
  storage: PROGRAMS_STORAGE,
  system: PROGRAMS_SYSTEM,
  users: PROGRAMS_USERS,
  revert: PROGRAMS_REVERT,
} as const;

export const PROGRAMS = {
  ...PROGRAMS_LIB,
  ...PROGRAMS_CONTAINERS,
  ...PROGRAMS_FILES,
  ...PROGRAMS_FIREWALL,
  ...PROGRAMS_IDENTITY,
  ...PROGRAMS_KERNEL,
  ...PROGRAMS_LOGGING,
  ...PROGRAMS_NETWORK,
  ...PROGRAMS_PACKAGES,
  ...PROGRAMS_PRIVILEGE,
  ...PROGRAMS_PROCESSES,
  ...PROGRAMS_SCHEDULING,
  ...PROGRAMS_SECURITY,
  ...PROGRAMS_SERVICES,
  ...PROGRAMS_SSH,
  ...PROGRAMS_STORAGE,
  ...PROGRAMS_SYSTEM,
  ...PROGRAMS_USERS,
  ...PROGRAMS_REVERT,
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
  if (args.includes('-c') && !(program === CANCEL_SHUTDOWN.program && args.length === CANCEL_SHUTDOWN.args.length)) return `${program} is passed -c`;
  return null;
}

/**
 * The one command whose `-c` is no command string, by its exact argv: `shutdown -c` cancels a
 * scheduled shutdown, and systemd's shutdown has no long form of it.
 */
export const CANCEL_SHUTDOWN = { program: 'shutdown', args: ['-c'] } as const satisfies { program: ProgramName; args: readonly string[] };
