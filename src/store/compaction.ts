/**
 * Retention, as both stores apply it (compactFinished, pruneHistory): which transactions are
 * due, what a compacted one keeps, and the digest its signed entry carries. A finished
 * transaction keeps its details (parameters, preview, result messages) for the policy's
 * keep_details; then it is compacted to what history and audits need (action, the
 * parameters' digest, risk, who, when, outcome, the preview's digest), and after keep_history
 * it is deleted from the store. Its signed entries stay in the log throughout.
 */
import { hash } from 'node:crypto';
import { TERMINAL_STATES } from '../protocol/risk.js';
import { decodeStored } from '../audit/entry-encoding.js';

/** `state IN (...)` for the finished states: a fixed list, from the one definition of them. */
export const FINISHED_SQL = `state IN (${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')})`;

/** What a compacted transaction keeps as its parameters and preview: nothing (their digests stay in their own columns). */
export const COMPACTED_JSON = '{}';

/**
 * Rule uses older than this are no longer counted by any daily cap (the last 24 hours, with an
 * hour's margin for clocks): pruneHistory deletes them, except each rule's last use, which its
 * cooldown (up to 7 days) still measures from.
 */
export const RULE_USE_KEEP_MS = 25 * 3_600_000;

/**
 * A compacted result: the outcome, without messages, summaries or reasons (free text that the
 * log's entries and the history's summary column already cover). `denied_by` and `expired`
 * stay: who refused it and which stage ran out are part of "who" and "outcome".
 */
export function compactedResult(state: string, resultJson: string | Buffer | null): string {
  let r: Record<string, unknown> = {};
  try {
    const parsed: unknown = resultJson ? JSON.parse(decodeStored(resultJson)) : null;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) r = parsed as Record<string, unknown>;
  } catch {
    // an unreadable result compacts to its state alone: compaction must not stop on one bad row
  }
  const e = r.error as Record<string, unknown> | null | undefined;
  // The error's category and code alone (a replacer list keeps just those keys; the message and hint go).
  const error = e && typeof e === 'object' && typeof e.category === 'string' && typeof e.code === 'string' ? JSON.parse(JSON.stringify(e, ERROR_KEPT)) : null;
  return JSON.stringify({
    state,
    changed: r.changed === true,
    needs_reboot: r.needs_reboot === true,
    error,
    ...(typeof r.denied_by === 'string' ? { denied_by: r.denied_by } : {}),
    ...(r.expired === 'preview' || r.expired === 'receipt' ? { expired: r.expired } : {}),
  });
}

const ERROR_KEPT = ['category', 'code'];

/** The `ids_sha256` of a compacted or pruned batch: SHA-256 hex over its ids, sorted, joined by "\n". */
export function idsDigest(ids: readonly string[]): string {
  return hash('sha256', [...ids].sort().join('\n'), 'hex');
}
