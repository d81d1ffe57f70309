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
  /** Run as nobody: an inventory read that must show only what any user could see. */
  unprivileged?: boolean;
}

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
}

export type Step = CommandStep | FileScanStep | FileWriteStep | FilePatchStep | FileDeleteStep;
export type StepKind = Step['kind'];
export const STEP_KINDS: readonly StepKind[] = ['command', 'fileScan', 'fileWrite', 'filePatch', 'fileDelete'];

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
export const fileDelete = (path: string): FileDeleteStep => ({ kind: 'fileDelete', path });
