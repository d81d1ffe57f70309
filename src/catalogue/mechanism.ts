/**
 * The closed set of mechanism shapes (LACS §2.2). A mechanism is a short, fixed
 * sequence of these steps, rebuilt by the daemon from the action name and the
 * validated parameters; nothing here is ever taken from a client.
 */
import type { ProgramName } from './programs.js';

export interface Owner {
  uid: number;
  gid: number;
}

export interface CommandStep {
  kind: 'command';
  /** A key of the program table, resolved to an absolute path when the daemon starts. */
  program: ProgramName;
  args: string[];
  /** Exit codes that count as success (default [0]). */
  okCodes?: number[];
  timeoutMs?: number;
  /** An exclusive host resource the command needs; a busy one is a conflict before the receipt is consumed. */
  resource?: ExclusiveResource;
  /** Extra environment on top of the fixed minimum (only constant keys, never agent text as a key). */
  env?: Record<string, string>;
  /** How to reverse this step if a later step fails (automatic rollback). */
  undo?: CommandStep;
  /**
   * Why a command without an undo needs none for its job to be reversed: it changes nothing
   * (a check or a read: `sshd -t`, `nft --check`, `apt-cache policy`), or it is undone by an
   * earlier step's undo, which runs after the files are restored (a reload that re-reads
   * them), or it is an event that leaves the state it found (`leaves_state`: a restart, a reload,
   * systemd re-reading its units), whose state probes read the same before and after. A finished
   * job with a command that has neither cannot be reversed (Executor.runSteps): a plan that fails
   * after it says so rather than report it rolled back.
   */
  noUndo?: 'changes_nothing' | 'undone_earlier' | 'leaves_state';
  /** Run as nobody: an inventory read that must show only what any user could see. */
  unprivileged?: boolean;
  /**
   * Paths the program acts on by name (in its args, or in a file it reads, as findmnt
   * --verify and logrotate do). Each must pass the trusted-path rule (lib/trusted-path.ts)
   * at preview and again right before the program starts. A last segment holding '*'
   * stands for the entries of its directory.
   */
  paths?: string[];
  /**
   * A file the daemon opens itself, without following any link, and hands to the program
   * as its descriptor 3 (its args name it FD3, /proc/self/fd/3), so the program acts on
   * that inode and never on a name. `create` makes it new (exclusively, root:root, with
   * this mode) and the job remembers its device and inode; without it, the file must be
   * one an earlier step of this job created.
   */
  file?: { path: string; create?: { mode: number } };
  /**
   * Right before the program starts, `path` must still be the file an earlier step of this
   * job created (same device and inode): a regular file with one link, owned by root, with
   * this mode. For programs that can only take a name (swapon).
   */
  expect?: { path: string; mode: number };
  /** For a check program that exits 0 on warnings (findmnt --verify): what else its output must show. */
  verdict?: Verdict;
}

/**
 * A check passes when its stdout has the `success` line, or else when every warning or
 * error line it printed ("[W] ...", "[E] ...") is, exactly, one of `tolerated`: an
 * allowlist of warnings known to be harmless (findmnt 2.38 warns about every swap file).
 */
export interface Verdict {
  success: string;
  tolerated?: string[];
}

/** Null when the output passes the verdict; otherwise the lines that fail it (for the error message). */
export function verdictProblems(v: Verdict, stdout: string): string[] | null {
  const lines = stdout.split('\n').map((l) => l.trim());
  if (lines.includes(v.success)) return null;
  const flagged = lines.filter((l) => /^\[[A-Z]\] /.test(l));
  const bad = flagged.filter((l) => !(v.tolerated ?? []).includes(l));
  if (flagged.length > 0 && bad.length === 0) return null;
  return bad.length ? bad : [`no "${v.success}"`];
}

/** How a program names the file of CommandStep.file. */
export const FD3 = '/proc/self/fd/3';

/** What the approver sees of a command step besides its argv: the paths it acts on and how (and so what execution must match). */
/** Every path a command step acts on by name or through a held file: what the trusted-path rule checks. */
export const stepPaths = (s: CommandStep): string[] => [...(s.paths ?? []), ...(s.file ? [s.file.path] : []), ...(s.expect ? [s.expect.path] : [])];
/** Every text a command step hands its program (argv, environment, the paths it names), its undo's too. */
export const commandTexts = (s: CommandStep): string[] => [...s.args, ...Object.entries(s.env ?? {}).flat(), ...stepPaths(s), ...(s.undo ? commandTexts(s.undo) : [])];

export interface FileScanStep {
  kind: 'fileScan';
  path: string;
}

export interface FileWriteStep {
  kind: 'fileWrite';
  path: string;
  content: string;
  /** Used when the file does not exist yet; an existing file keeps its own owner and mode. */
  mode: number;
  owner?: Owner;
  /** Create the parent directory with this mode and owner when it is missing. */
  parent?: { mode: number; owner?: Owner };
  /**
   * false: every byte is bound, but the preview shows only its size and SHA-256, never its lines
   * (a revert writing back a file the reverted change deleted, whose preview never showed them).
   */
  contentShown?: false;
}

export interface FilePatchStep {
  kind: 'filePatch';
  path: string;
  /** Exact text that must occur exactly once; it is replaced by `replace`. */
  search: string;
  replace: string;
}

export interface FileDeleteStep {
  kind: 'fileDelete';
  path: string;
  /**
   * Directories to remove after the file, innermost first, each only when empty (a revert of a
   * change that made them for the file: ~/.ssh for authorized_keys). rmdir never follows a link.
   */
  thenEmptyDirs?: string[];
}

export type Step = CommandStep | FileScanStep | FileWriteStep | FilePatchStep | FileDeleteStep;
export type StepKind = Step['kind'];
export const STEP_KINDS: readonly StepKind[] = ['command', 'fileScan', 'fileWrite', 'filePatch', 'fileDelete'];

/**
 * Whether the undos of a finished job of these steps bring the host back: every command carries
 * an undo or says why it needs none (noUndo), and none acts on a file made for it by descriptor
 * (the job no longer holds it). File steps are always restored from their snapshots. What a
 * plan shows as a step's rollback and what its failure reverses (Executor.runSteps).
 */
export const reversibleWhenDone = (steps: readonly Step[]): boolean =>
  steps.every((s) => s.kind !== 'command' || ((s.undo !== undefined || s.noUndo !== undefined) && (s.file === undefined || s.undo !== undefined || s.noUndo === 'undone_earlier')));

export type ExclusiveResource = 'dpkg';
/** Lock files that say an exclusive resource is busy (checked with F_OFD_GETLK). */
export const RESOURCE_LOCKS: Record<ExclusiveResource, string[]> = {
  dpkg: ['/var/lib/dpkg/lock-frontend', '/var/lib/dpkg/lock', '/var/lib/apt/lists/lock'],
};

export const command = (program: ProgramName, args: string[], opts: Omit<CommandStep, 'kind' | 'program' | 'args'> = {}): CommandStep => ({
  kind: 'command',
  program,
  args,
  ...opts,
});
export const fileScan = (path: string): FileScanStep => ({ kind: 'fileScan', path });
export const fileWrite = (path: string, content: string, opts: Omit<FileWriteStep, 'kind' | 'path' | 'content'>): FileWriteStep => ({
  kind: 'fileWrite',
  path,
  content,
  ...opts,
});
export const filePatch = (path: string, search: string, replace: string): FilePatchStep => ({ kind: 'filePatch', path, search, replace });
export const fileDelete = (path: string, thenEmptyDirs?: string[]): FileDeleteStep => (thenEmptyDirs?.length ? { kind: 'fileDelete', path, thenEmptyDirs } : { kind: 'fileDelete', path });
