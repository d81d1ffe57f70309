/**
 * What the daemon keeps of a finished change so that `airlock revert` can undo it later
 * (issue 27): the pre-state its steps replaced, captured right before each step ran (each
 * file's bytes, owner and mode, or its absence), each command's declared undo, and the state
 * the action touches as read before and after (src/catalogue/lib/state-probes.ts). It is kept
 * in the store with the transaction's result, bounded (MAX_KEPT_BYTES), and goes with the
 * result's details when retention compacts the transaction.
 */
import type { Risk } from '../protocol/risk.js';
import type { AnyAction } from './action.js';
import { uniqueProbes, type ProbedState } from './lib/state-probes.js';
import { fileDelete, fileWrite, type CommandStep, type Owner, type Step } from './mechanism.js';
import type { StateProbe } from './rollback.js';

/**
 * The bytes of file pre-state one transaction keeps for a revert; above it, it says it cannot.
 * As a preview's bound (MAX_PREVIEW_BYTES): the store reads whole rows, a page of history many at once.
 */
export const MAX_KEPT_BYTES = 256 * 1024;

/** One step of a finished job, as its revert needs it, in the order the steps ran. */
export type KeptStep =
  /** A file step: the file as it was right before it (`content` is lossless text, src/protocol/file-text.ts). */
  | { kind: 'file'; path: string; existed: false; madeDirs?: string[] }
  /** `deleted`: its step deleted it, and the preview showed only its size and digest: so does a revert's. */
  | { kind: 'file'; path: string; existed: true; content: string; mode: number; owner: Owner; deleted?: true }
  /** A command with a declared undo: the revert runs `undo`, and `redo` (the command) undoes the revert. */
  | { kind: 'command'; undo: CommandStep; redo: CommandStep };

/** What a revert of one finished transaction reads (Host.finishedChange). */
export interface FinishedChange {
  transactionId: string;
  /** The action, or `Plan` for a plan (its steps' kept steps one after another). */
  actionName: string;
  /** For a plan: its steps' actions, in order. */
  stepActions: string[];
  risk: Risk;
  state: string;
  summary: string;
  /** Why it cannot be reverted (nothing kept, over the bound, an action of class none, a failed job); absent when it can. */
  unavailable?: string;
  kept: KeptStep[];
  /** The state the change touches: read before its first step and after its last. */
  probes: StateProbe[];
  before: ProbedState;
  after: ProbedState;
}

/**
 * The bytes of file content a kept job holds, as stored (JSON: a NUL or a byte that is not UTF-8
 * takes six): what MAX_KEPT_BYTES bounds and the bench reports.
 */
export const keptBytes = (kept: readonly KeptStep[]): number => kept.reduce((n, k) => n + (k.kind === 'file' && k.existed ? Buffer.byteLength(JSON.stringify(k.content), 'utf8') : 0), 0);

/**
 * The steps that undo a finished job, last first: each file written back as it was before its
 * step (or deleted, when the step made it), each command's undo run. A revert's own failure is
 * rolled back the same way as any job's: its files from their snapshots, its commands by `redo`.
 */
export function revertSteps(kept: readonly KeptStep[]): Step[] {
  return [...kept].reverse().map((k): Step => {
    if (k.kind === 'command') return { ...k.undo, undo: k.redo };
    if (!k.existed) return fileDelete(k.path, k.madeDirs ? [...k.madeDirs].reverse() : undefined);
    return fileWrite(k.path, k.content, { mode: k.mode, owner: k.owner, ...(k.deleted ? { contentShown: false as const } : {}) });
  });
}

/**
 * The state a change touches, as probed before and after it and after its undo: what its
 * rollback declares of live state, and every file its file steps write or delete. None for a
 * read, a no-change (no step) or a change of class none (nothing to check an undo against).
 * The one reading of it, for a single action's execute and each step of a plan.
 */
export function changeProbes(a: AnyAction, params: Record<string, unknown>, current: unknown, steps: readonly Step[]): StateProbe[] {
  if (a.readOnly || a.rollback.class === 'none' || steps.length === 0) return [];
  const files = steps.flatMap((s): StateProbe[] => (s.kind === 'fileWrite' || s.kind === 'filePatch' || s.kind === 'fileDelete' ? [{ file: s.path }] : []));
  return uniqueProbes([...(a.rollback.state?.(params, current) ?? []), ...files]);
}
