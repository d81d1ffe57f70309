/**
 * The pre-state a finished change keeps for `airlock revert` (src/catalogue/change-record.ts),
 * written by execute into the transaction's stored result (`result.revert`, under the row's MAC,
 * compacted with the result's details by retention) and read back by the revert's state reader
 * (Host.finishedChange). It never leaves the daemon: the transaction view shows what it holds,
 * never its bytes (forClient).
 */
import type { AnyAction } from '../catalogue/action.js';
import { MAX_KEPT_BYTES, keptBytes, type FinishedChange, type KeptStep } from '../catalogue/change-record.js';
import { probeState, stateDifferences, stateDigest, type ProbedState } from '../catalogue/lib/state-probes.js';
import { probeLabel, type StateProbe } from '../catalogue/rollback.js';
import { escapeText } from '../protocol/escape-text.js';
import { PLAN_ACTION } from '../protocol/plan.js';
import type { Store } from '../store/store.js';
import type { Host } from '../catalogue/action.js';
import type { UndoneStep } from './executor.js';

/** What `result.revert` holds. */
export interface StoredRevert {
  probes: StateProbe[];
  before: ProbedState;
  after: ProbedState;
  kept: KeptStep[];
  /** Why a revert cannot be made from it; absent when it can. */
  unavailable?: string;
}

/** The state before a change's first step, or why it could not be read (the change still runs: its undos do not need it). */
export async function probeBefore(probes: StateProbe[], host: Host): Promise<ProbedState | string> {
  try {
    return await probeState(probes, host);
  } catch (e) {
    return `the state it touches could not be read before it: ${(e as Error).message}`;
  }
}

/** After the steps (or after their rollback): the same probes again. A read that fails reads as a difference. */
export async function probeAfter(probes: StateProbe[], host: Host): Promise<ProbedState> {
  try {
    return await probeState(probes, host);
  } catch {
    return Object.fromEntries(probes.map((p, i) => [`unreadable ${i}`, '']));
  }
}

/** What a successful job keeps: its kept steps and states, or why a revert cannot be made from them. */
export function keptRevert(a: AnyAction | null, kept: KeptStep[] | null | undefined, probes: StateProbe[], before: ProbedState | string, after: ProbedState): StoredRevert {
  const base = { probes, before: typeof before === 'string' ? {} : before, after };
  const why =
    a && !a.readOnly && a.rollback.class === 'none'
      ? `${a.name} cannot be rolled back: ${a.rollback.reason}`
      : !kept
        ? 'a step ran a program that nothing undoes'
        : typeof before === 'string'
          ? before
          : keptBytes(kept) > MAX_KEPT_BYTES
            ? `the files it replaced are ${keptBytes(kept)} bytes, over the ${MAX_KEPT_BYTES} a transaction keeps for a revert`
            : undefined;
  return why ? { ...base, kept: [], unavailable: why } : { ...base, kept: kept! };
}

/** A finished transaction, as a revert reads it; null when the store has no such transaction. */
export async function finishedChange(store: Store, id: string): Promise<FinishedChange | null> {
  const tx = await store.getTransaction(id);
  if (!tx) return null;
  const stored = (tx.result as { revert?: StoredRevert } | null)?.revert;
  const steps = tx.actionName === PLAN_ACTION ? ((tx.params as { steps?: Array<{ action_name?: unknown }> }).steps ?? []).map((s) => String(s.action_name)) : [];
  const base = { transactionId: tx.id, actionName: tx.actionName, stepActions: steps, risk: tx.risk, state: tx.state, summary: tx.summary };
  const none = { kept: [], probes: [], before: {}, after: {} };
  if (tx.compactedAt !== null) return { ...base, ...none, unavailable: `its details were compacted by the retention policy` };
  if (tx.state !== 'Succeeded' && tx.state !== 'NeedsReboot') return { ...base, ...none, unavailable: `it is ${tx.state}: only a change that succeeded is reverted` };
  if (!stored) return { ...base, ...none, unavailable: 'it kept no pre-state (a read, a no-change, or a change made before Airlock kept them)' };
  return { ...base, kept: stored.kept, probes: stored.probes, before: stored.before, after: stored.after, ...(stored.unavailable ? { unavailable: stored.unavailable } : {}) };
}

/** An undo as the signed log lists it: "step 2 ok: restore /etc/hosts". */
export const undoneLine = (u: UndoneStep): string => `step ${u.step} ${u.ok ? 'ok' : 'FAILED'}: ${u.undo}`;

/** What a result says of the state after an undo or a revert, against what it must read as. */
export interface StateCheck {
  /** `before`: an automatic rollback (the state before this job); `reverted`: a revert (the state before the change it reverts). */
  expected: 'before' | 'reverted';
  /** What was read, as declared: a file's path, or a read-only program and its arguments (escaped). */
  probes: ShownProbe[];
  matches: boolean;
  /** The probes that read otherwise (escaped labels: a path or a command line). */
  differs: string[];
  expected_digest: string;
  state_digest: string;
}

/** A probe as a client sees it: the same shape, its text escaped. */
export type ShownProbe = { file: string; lines?: string } | { program: string; args: string[] };
export const shownProbes = (probes: readonly StateProbe[]): ShownProbe[] =>
  probes.map((p) => ('file' in p ? { file: escapeText(p.file), ...(p.lines === undefined ? {} : { lines: escapeText(p.lines) }) } : { program: p.program, args: p.args.map((a) => escapeText(a)) }));

export function stateCheck(expected: StateCheck['expected'], probes: readonly StateProbe[], want: ProbedState, now: ProbedState): StateCheck {
  // Only what `want` probes counts: a revert's own probes may name a file twice as a label differs.
  const seen = Object.fromEntries(Object.keys(want).map((k) => [k, now[k] ?? '']));
  const differs = stateDifferences(want, seen);
  return { expected, probes: shownProbes(probes.filter((p) => probeLabel(p) in want)), matches: differs.length === 0, differs: differs.map((d) => escapeText(d)), expected_digest: stateDigest(want), state_digest: stateDigest(seen) };
}

/** The stored result as a client sees it: what the revert kept is described, never shown. */
export function resultForClient(result: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!result || !('revert' in result)) return result;
  const { revert, ...rest } = result as { revert: StoredRevert };
  return { ...rest, revert: { available: !revert.unavailable, ...(revert.unavailable ? { unavailable: escapeText(revert.unavailable) } : {}), probes: shownProbes(revert.probes), state_before: stateDigest(revert.before), state_after: stateDigest(revert.after), kept_bytes: keptBytes(revert.kept) } };
}
