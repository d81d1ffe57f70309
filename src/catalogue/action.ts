/**
 * What a catalogue action is: a declaration. The daemon supplies the Host (read-only
 * access to the real machine); the action says what it reads, what it will change
 * and which mechanism steps do it.
 */
import { z } from 'zod';
import type { GroupEntry, PasswdEntry } from '../protocol/account-files.js';
import type { Risk } from '../protocol/risk.js';
import type { Effect } from './effects.js';
import type { Step } from './mechanism.js';
import type { ProgramName } from './programs.js';
import type { RollbackDeclaration } from './rollback.js';
import type { ProbedState } from './lib/state-probes.js';
import type { FinishedChange } from './change-record.js';
import type { CheckerName } from './lib/config-checkers.js';

export const FAMILIES = ['system', 'services', 'users', 'ssh', 'packages', 'kernel', 'identity', 'network', 'files', 'privilege', 'firewall', 'logging', 'processes', 'scheduling', 'security', 'storage', 'containers', 'revert'] as const;
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

/** What Host.users() and groups() return: the one parse of the account files (src/protocol/account-files.ts). */
export type { GroupEntry, PasswdEntry };
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Read-only view of the real host, implemented by the daemon. Nothing here changes anything. */
export interface Host {
  readonly platform: Platform | null;
  /**
   * File contents, or null when absent. Refuses symlinks on the path. Lossless: a byte that is
   * not UTF-8 comes as U+DC00 + byte (protocol/file-text.ts), so text built from it and written
   * back keeps that byte; never compare or hash it as UTF-8.
   */
  readFile(path: string): Promise<string | null>;
  /** Mode/owner/size of a path without following symlinks, or null when absent. */
  stat(path: string): Promise<{ mode: number; uid: number; gid: number; size: number; isFile: boolean; isDir: boolean; isSymlink: boolean } | null>;
  /**
   * Refuses (AirlockError untrusted_path, naming the component) unless `path` may be handed
   * to a root program by name: no component a link, every ancestor a root-owned directory
   * not writable by group or others (src/catalogue/lib/trusted-path.ts). An action calls it
   * before it reads or acts on such a path; the executor checks steps' `paths` again.
   */
  trustedPath(path: string): Promise<void>;
  /**
   * The first `bytes` bytes of a regular file and its number of hard links, opened without
   * following a symbolic link anywhere on the path; null when absent. Enough to tell a
   * binary from a script, and a program with a second name from one without.
   */
  fileHead(path: string, bytes: number): Promise<{ head: Uint8Array; links: number } | null>;
  /** Runs a read-only program through the same executor as mechanisms (no shell, time limit, output cap). */
  run(program: ProgramName, args: string[]): Promise<CommandOutput>;
  users(): Promise<PasswdEntry[]>;
  groups(): Promise<GroupEntry[]>;
  /** A finished transaction as a revert reads it (src/catalogue/change-record.ts); null when the store has none. */
  finishedChange(transactionId: string): Promise<FinishedChange | null>;
  /**
   * Checks `content` as the new text of `target` with `checker` (src/catalogue/lib/config-checkers.ts),
   * on a staged copy the daemon writes in a private root-only directory (never at `target`), or with
   * its own parser in a worker thread. Changes nothing on the host. { ok: true } or { ok: false,
   * problems } (the checker's own words, at most MAX_PROBLEMS lines of PROBLEM_CHARS, quoting only
   * lines that locate a problem in this text; escaping is done later by the preview). Refuses
   * (AirlockError): a checker whose program is missing (naming the package to install), content over
   * MAX_CHECKED_BYTES, a target the checker checks only live (`staged(target)` false), and a checker
   * with `beforeApproval: false` outside an approved change (at preview).
   */
  checkStaged(checker: CheckerName, target: string, content: string): Promise<{ ok: true } | { ok: false; problems: string[] }>;
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


/**
 * What a read-only action declares about what it returns. The policy's `reads` rule
 * (autoApprovalLane, src/daemon/authz.ts) relies on these two facts and on nothing else, so every read
 * states both: the type has no default to hide a decision behind, and
 * test/unit/read-declarations.test.ts checks them over the whole catalogue.
 */
export interface ReadDeclaration {
  readOnly: true;
  /**
   * True when the output can hold what a person should see before the agent does: the
   * contents of files (configuration, unit files, crontabs, rules), journal and log lines,
   * command lines, environments and container configuration, security policy (sudoers,
   * authorized keys, a user's password ageing, sshd's configuration) and other users'
   * activity (sessions, logins, connections). False for counts, states, versions, sizes and
   * lists of names. A sensitive read always waits for a person, whatever its risk.
   */
  sensitive: boolean;
  /**
   * True when the mechanism sends packets to a host the request names: a DNS query, a TCP
   * connection, an SSH handshake. The host's place on the network is then what the request
   * uses, so a token principal (which has no account on this host) does not get it from the
   * `reads` rule: a person approves.
   */
  reachesNetwork: boolean;
  /** A read changes nothing, so has nothing to undo. */
  rollback?: never;
}

/** An action that changes the host declares neither: the `reads` rule never applies to it. */
export interface ChangeDeclaration {
  readOnly: false;
  /**
   * The change makes the host run programs beyond its own fixed steps: package maintainer
   * scripts, units, containers, scheduled jobs, commands granted to sudo. A rule that approves
   * it automatically is as wide as what those programs do, so `policy check` warns on one.
   * Every caller of the agent-command allowlist declares it (test/unit/command-allowlist.test.ts).
   */
  runsPrograms: boolean;
  /**
   * How the change is undone: by an automatic rollback when a later step fails, and by
   * `airlock revert` once it succeeded (src/catalogue/rollback.ts). No default: every change says.
   */
  rollback: RollbackDeclaration<any, any>;
  sensitive?: never;
  reachesNetwork?: never;
}

/** Everything an action declares except whether it reads or changes (see ReadDeclaration, ChangeDeclaration). */
export interface ActionCore<P extends Record<string, unknown> = Record<string, unknown>, S = unknown> {
  name: string;
  family: Family;
  description: string;
  risk: Risk;
  reboot: boolean;
  /**
   * Its one step takes the host down (RebootHost), and the daemon with it: the daemon records the
   * transaction NeedsReboot, with this boot's id, before the step starts, and the daemon started in
   * the next boot reconciles it (src/daemon/reboots.ts). Such an action runs alone, never in a plan.
   */
  takesHostDown?: true;
  platforms: Platform[];
  params: z.ZodType<P>;
  /**
   * Parameters whose values are secrets (a password the action sets, a token): shown as
   * `⟦secret:KIND⟧` in previews, history and the log. Every parameter whose name says secret
   * (src/mask/names.ts) must be listed; test/unit/secret-params.test.ts checks the catalogue.
   */
  secretParams?: readonly string[];
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
  /**
   * The files this request may touch, read from its state, when they are not known before it is
   * read: a revert's are the paths the reverted change wrote, as kept. Absent: `files`.
   */
  filesFrom?: (current: S) => readonly string[];
  /** Reads the real current state the preview shows and the mechanism builds on. */
  current: (params: P, host: Host) => Promise<S>;
  /**
   * What the preview shows of that state (default: all of it). The requester sees the
   * preview before anyone approves, so it must not carry content a read would need approval for.
   */
  shown?: (current: S) => unknown;
  preview: (params: P, current: S) => PreviewParts;
  /**
   * Refuses (throws AirlockError) when the current state makes the change impossible or
   * unsafe; returns `unchanged(reason)` when the desired state already holds (an installed
   * package, a key that is there, a stopped unit to stop). Then nothing runs: the preview
   * says "no change: reason" with no mechanism, and the result is Succeeded with
   * `changed: false`, as apt and Ansible report "ok". A different thing in the way (another
   * key under the name, a file with other content) is a conflict, never unchanged.
   */
  check?: (params: P, current: S) => Unchanged | void;
  mechanism: (params: P, current: S) => Step[];
  /**
   * What the change leaves on the host (src/catalogue/effects.ts), from the state it was
   * previewed against: what a plan's later steps are previewed against. Absent on a change:
   * its effects are unknown, and every later step of a plan is computed after it runs.
   * test/unit/plans.test.ts lists the actions that declare it.
   */
  effects?: (params: P, current: S) => Effect[];
  /**
   * What the result says after the steps succeeded, from the state `current` reads again then
   * (a restarted unit's new main PID, not the old one the preview showed). Absent: the
   * preview's summary.
   */
  outcome?: (params: P, after: S) => string;
  /**
   * The state the change must leave, as probed (src/catalogue/lib/state-probes.ts): a revert's,
   * the state before the change it reverts. The daemon reads it back after the steps and the
   * result says whether it matches (`state_check`).
   */
  restores?: (params: P, current: S) => ProbedState;
  /**
   * The risk of this request, read from the state: never below the declared risk (the daemon
   * takes the higher). A revert's is the risk of the change it reverts.
   */
  riskFrom?: (current: S) => Risk;
  /**
   * The one account whose requests this is, read from the state (an edit under a grant: the
   * account granted, by uid), or null when the state names none (the check then refuses).
   * Absent: any principal with the role. The daemon refuses anyone else before the preview and
   * again at execution (buildChange, src/daemon/plan.ts).
   */
  requestedOnlyBy?: (current: S) => { uid: number; account: string; why: string } | null;
  /**
   * How a policy rule covers this action when some parameters are free text no rule could
   * constrain (a file's new content): the rule must name `named` by its literal value (a grant),
   * which bounds the `free` ones (its folder, its checker), and need not list those.
   */
  ruleScope?: { named: string; free: readonly string[] };
  /**
   * A person may request it from the web console's own form, not only approve it there: the
   * console relays `preview` and `execute` for the signed-in person of these actions and of no
   * other (src/daemon/verbs/console.ts). Grants are policy a person makes where they approve.
   */
  requestedAtConsole?: true;
  /**
   * Checks run on the request's own text by a program or a parser as root (an edit's new
   * configuration, on a staged copy): only once the caller is known to be allowed (its role for
   * the risk read, `requestedOnlyBy`) and, at execution, once the change rebuilt is known to be
   * the approved one. Throws to refuse; the daemon calls it after buildChange at preview and
   * right before the receipt is spent at execution (src/daemon/verbs/preview.ts, execute.ts).
   */
  verify?: (params: P, current: S, host: Host) => Promise<void>;
  /**
   * The transaction whose details its preview shows (a revert's: the files it kept, as diffs):
   * only one who may read that transaction in full (the requester, an approver or an admin: the
   * door's `reader` rule) may preview this request.
   */
  readsTransaction?: (params: P) => string;
  /** An example parameter object, used in docs and `airlock describe`. */
  example: P;
}

/** `readOnly: true` (a read: changes nothing, declares `sensitive` and `reachesNetwork`) or `readOnly: false` (a change). */
export type ActionNature = ReadDeclaration | ChangeDeclaration;

export type ActionSpec<P extends Record<string, unknown> = Record<string, unknown>, S = unknown> = ActionCore<P, S> & ActionNature;

export type AnyAction = ActionSpec<any, any>;

/** Omit that keeps a union a union (TypeScript's Omit merges its members into one). */
export type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a family file writes: reboot defaults to false, platforms to Debian and Ubuntu. */
export type ActionDeclaration<P extends Record<string, unknown>, S> = Omit<ActionCore<P, S>, 'reboot' | 'platforms'> &
  Partial<Pick<ActionCore<P, S>, 'reboot' | 'platforms'>> &
  ActionNature;

/** Declares an action. Keeps the literal types so `mechanism` and `preview` see typed params. */
export function action<P extends Record<string, unknown>, S>(d: ActionDeclaration<P, S>): ActionSpec<P, S> {
  return { ...d, reboot: d.reboot ?? false, platforms: d.platforms ?? DEBIAN_LIKE };
}

/** What check() returns when the desired state already holds; the one way an action says so. */
export interface Unchanged {
  readonly unchanged: string;
}
/** `reason` says what already holds, for a person: "nginx 1.22 is already installed". */
export const unchanged = (reason: string): Unchanged => ({ unchanged: reason });

/** Helper for read actions: current state is nothing to speak of, preview says what is read. */
export const nothingToRead = async (): Promise<null> => null;
