/**
 * What a catalogue action is: a declaration. The daemon supplies the Host (read-only
 * access to the real machine); the action says what it reads, what it will change
 * and which mechanism steps do it.
 */
import { z } from 'zod';
import type { Risk } from '../protocol/risk.js';
import type { Step } from './mechanism.js';
import type { ProgramName } from './programs.js';

export const FAMILIES = ['system', 'services', 'users', 'ssh', 'packages', 'kernel', 'identity', 'network', 'files', 'privilege', 'firewall', 'logging', 'processes', 'scheduling', 'security', 'storage', 'containers'] as const;
export type Family = (typeof FAMILIES)[number];

/** Distributions Airlock recognises (src/daemon/platform.ts maps /etc/os-release onto them). */
export const PLATFORMS = ['debian', 'ubuntu', 'fedora', 'rhel'] as const;
export type Platform = (typeof PLATFORMS)[number];
/** apt and dpkg, ufw, AppArmor. */
export const DEBIAN_LIKE: Platform[] = ['debian', 'ubuntu'];
/** dnf and rpm, firewalld, SELinux. 'rhel' covers its rebuilds too (see platform.ts). */
export const RHEL_LIKE: Platform[] = ['fedora', 'rhel'];
/** Every recognised distribution: for actions whose mechanism is the same everywhere, or chosen per distribution. */
export const ALL_PLATFORMS: Platform[] = [...PLATFORMS];

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}
export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Read-only view of the real host, implemented by the daemon. Nothing here changes anything. */
export interface Host {
  readonly platform: Platform | null;
  /** File contents, or null when absent. Refuses symlinks on the path. */
  readFile(path: string): Promise<string | null>;
  /** Mode/owner/size of a path without following symlinks, or null when absent. */
  stat(path: string): Promise<{ mode: number; uid: number; gid: number; size: number; isFile: boolean; isDir: boolean; isSymlink: boolean } | null>;
  /** Runs a read-only program through the same executor as mechanisms (no shell, time limit, output cap). */
  run(program: ProgramName, args: string[]): Promise<CommandOutput>;
  users(): Promise<PasswdEntry[]>;
  groups(): Promise<GroupEntry[]>;
}

export interface PreviewParts {
  summary: string;
  /** The concrete change, stated for a person: "adds line X to /etc/...". Empty for reads. */
  change: unknown;
  sideEffects?: string[];
  warnings?: string[];
}

export interface RebuildDeclaration {
  files: readonly string[];
  /**
   * How the preview shows one of the step's own lines (without its newline), for files whose
   * lines may hold secrets; the approval still binds the exact lines. Default: as it is.
   */
  showLine?: (line: string) => string;
}

export interface ActionSpec<P extends Record<string, unknown> = Record<string, unknown>, S = unknown> {
  name: string;
  family: Family;
  description: string;
  risk: Risk;
  reboot: boolean;
  rollback: boolean;
  /** True for actions that read secrets (never Low) or that change nothing: informs docs and policy. */
  readOnly: boolean;
  platforms: Platform[];
  params: z.ZodType<P>;
  /** Files any step of this action may touch, as globs where `*` matches within one path segment. */
  files: string[];
  /**
   * Files (globs, each one of `files`) that this action's fileWrite steps rebuild from the
   * file's current content at execution, keeping the lines other programs add or change
   * meanwhile (/etc/hosts, fstab, authorized_keys). An approval then binds only the lines
   * the step removes and adds, with its path, mode and owner; every other file step is
   * bound byte for byte. Absent: no rebuild, every byte is bound.
   */
  rebuildsAtExecute?: RebuildDeclaration;
  /** Reads the real current state the preview shows and the mechanism builds on. */
  current: (params: P, host: Host) => Promise<S>;
  /**
   * What the preview shows of that state (default: all of it). The requester sees the
   * preview before anyone approves, so it must not carry content a read would need approval for.
   */
  shown?: (current: S) => unknown;
  preview: (params: P, current: S) => PreviewParts;
  /** Refuses (throws AirlockError) when the current state makes the change impossible or unsafe. */
  check?: (params: P, current: S) => void;
  mechanism: (params: P, current: S) => Step[];
  /** An example parameter object, used in docs and `airlock describe`. */
  example: P;
}

export type AnyAction = ActionSpec<any, any>;

/** What a family file writes: reboot and rollback default to false, platforms to Debian and Ubuntu. */
export type ActionDeclaration<P extends Record<string, unknown>, S> = Omit<ActionSpec<P, S>, 'reboot' | 'rollback' | 'platforms'> &
  Partial<Pick<ActionSpec<P, S>, 'reboot' | 'rollback' | 'platforms'>>;

/** Declares an action. Keeps the literal types so `mechanism` and `preview` see typed params. */
export function action<P extends Record<string, unknown>, S>(d: ActionDeclaration<P, S>): ActionSpec<P, S> {
  return { ...d, reboot: d.reboot ?? false, rollback: d.rollback ?? false, platforms: d.platforms ?? DEBIAN_LIKE };
}

/** Helper for read actions: current state is nothing to speak of, preview says what is read. */
export const nothingToRead = async (): Promise<null> => null;
