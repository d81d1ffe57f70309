/**
 * The transaction state machine, once, for both stores: every state, every transition, the
 * guard that refuses it and the columns it writes. SQLite and PostgreSQL execute this table
 * (src/store/lifecycle.ts) as one conditional UPDATE each, rendered here: their SQL differs
 * only in placeholders and the log's key, never in the rules.
 *
 *   create ─▶ Previewed ─approve─▶ Queued ─consume─▶ Running ─finish─▶ Succeeded, Failed, Canceled, RolledBack, NeedsReboot
 *               │                    │                 ├─interrupt─▶ Failed
 *               │                    │                 └─finish─▶ NeedsReboot ─reconcile_reboot─▶ Succeeded, Failed
 *               │                    └─cancel, expire─▶ Canceled
 *               └─deny, cancel, expire────────────────▶ Canceled
 *
 * A transition happens only from its `from` states and while every guard holds, tested in the
 * UPDATE's WHERE under the store's write lock: a request that lost a race changes nothing and
 * appends nothing. Its signed entry (`appends`, built by the daemon) is written in the same
 * store transaction as the change, or neither is. Guards beyond the row's own columns (a rule's
 * cap and cooldown, a second-factor step, a receipt consumed once in the signed log) are checked
 * in that same transaction by lifecycle.ts, in the order `alsoRefuses` lists them.
 */
import type { EntryKind } from '../audit/entry.js';
import { TERMINAL_STATES, type TxState } from '../protocol/risk.js';
import { EXPIRED_PREVIEW, EXPIRED_RECEIPT, INTERRUPTED } from './tx-row.js';

/** A condition on the row as it is: column, comparison, and what it compares with (a call's argument). */
type Guard = readonly [column: 'expires_at' | 'consumed_at' | 'receipt_commitment', test: '>' | '<=' | '=' | 'IS NULL', arg?: 'now' | 'commitment'];
/** A column a transition writes (besides state and updated_at, which every one writes). */
type Written = 'approved_by' | 'receipt_commitment' | 'expires_at' | 'consumed_at' | 'result_json';

export interface Transition {
  from: readonly TxState[];
  /** The state it leads to; several when the caller names the outcome (finish). */
  to: readonly TxState[];
  guard: readonly Guard[];
  writes: readonly Written[];
  /** The kind of the entry appended with it (none when nothing changed). */
  appends: EntryKind;
  /** Refusals checked in the same store transaction besides the row's guards, in this order. */
  alsoRefuses?: readonly string[];
  /** The result it stores, by the state it leaves (otherwise the caller's, when it gives one). */
  result?: Partial<Record<TxState, string>>;
}

export const TRANSITIONS = {
  // An INSERT, not an UPDATE: the id is new (a duplicate fails the store transaction).
  create: { from: [], to: ['Previewed'], guard: [], writes: [], appends: 'preview' },
  approve: { from: ['Previewed'], to: ['Queued'], guard: [['expires_at', '>', 'now']], writes: ['approved_by', 'receipt_commitment', 'expires_at'], appends: 'approval_granted', alsoRefuses: ['rule_exhausted (daily cap, cooldown)', 'step_spent (after the update: rolls it back)'] },
  consume: { from: ['Queued'], to: ['Running'], guard: [['consumed_at', 'IS NULL'], ['receipt_commitment', '=', 'commitment'], ['expires_at', '>', 'now']], writes: ['consumed_at'], appends: 'approval_consumed', alsoRefuses: ['already_consumed (an approval_consumed entry in the log: PostgreSQL)'] },
  finish: { from: ['Running'], to: TERMINAL_STATES, guard: [], writes: ['result_json'], appends: 'outcome' },
  cancel: { from: ['Previewed', 'Queued'], to: ['Canceled'], guard: [], writes: ['result_json'], appends: 'canceled' },
  deny: { from: ['Previewed'], to: ['Canceled'], guard: [], writes: ['result_json'], appends: 'denied' },
  expire: { from: ['Previewed', 'Queued'], to: ['Canceled'], guard: [['expires_at', '<=', 'now']], writes: ['result_json'], appends: 'expired', result: { Previewed: EXPIRED_PREVIEW, Queued: EXPIRED_RECEIPT } },
  // At start, for what a crash left Running: its effect is unknown.
  interrupt: { from: ['Running'], to: ['Failed'], guard: [], writes: ['result_json'], appends: 'reconciled', result: { Running: INTERRUPTED } },
  // A change that needs a reboot, finished by what the boot id says: at start in another boot, or when its reboot command failed (src/daemon/reboots.ts).
  reconcile_reboot: { from: ['NeedsReboot'], to: ['Succeeded', 'Failed'], guard: [], writes: ['result_json'], appends: 'reboot_reconciled' },
} as const satisfies Record<string, Transition>;
export type TransitionName = keyof typeof TRANSITIONS;

/** A transition's arguments: what its guards compare with, and the values of the columns it writes. */
export interface TransitionArgs {
  now: number;
  commitment?: string;
  /** The outcome, for a transition that leads to several states. */
  to?: TxState;
  /** The state the row was read in: the update applies only in it (and writes the table's result for it). */
  from?: TxState;
  /** Values of the written columns; one left undefined keeps what the row has. */
  set?: Partial<Record<Written, unknown>>;
}

/** One conditional UPDATE of the transactions table, with `?` placeholders: the dialect adds the row's key. */
export interface TransitionUpdate {
  /** `state = ?, updated_at = ?, ...`, the columns it names, and its values. */
  set: string;
  setColumns: string[];
  setArgs: unknown[];
  /** `state IN (?, ...) AND ...` and its values. */
  where: string;
  whereArgs: unknown[];
}

export function transitionUpdate(name: TransitionName, a: TransitionArgs): TransitionUpdate {
  const t: Transition = TRANSITIONS[name];
  const to = a.to ?? t.to[0]!;
  // A state the table does not lead to (or from) is a bug in the caller: refused, never stored.
  if (!t.to.includes(to)) throw new Error(`the ${name} transition does not lead to ${to}`);
  if (a.from !== undefined && !t.from.includes(a.from)) throw new Error(`the ${name} transition does not start from ${a.from}`);
  if (t.result && a.from === undefined) throw new Error(`the ${name} transition needs the state it leaves`);
  const values: Partial<Record<Written, unknown>> = t.result ? { ...a.set, result_json: t.result[a.from!] } : (a.set ?? {});
  const set = [['state', to], ['updated_at', a.now], ...t.writes.filter((w) => values[w] !== undefined).map((w) => [w, values[w]] as const)];
  const w = guardWhere({ ...t, from: a.from === undefined ? t.from : [a.from] }, a);
  return { set: set.map(([c]) => `${c} = ?`).join(', '), setColumns: set.map(([c]) => String(c)), setArgs: set.map(([, v]) => v), ...w };
}

/** The rows a transition may apply to now: its from-states and the guards it compares with `now` (expire's due rows). */
export function candidatesWhere(name: TransitionName, now: number): { where: string; whereArgs: unknown[] } {
  const t: Transition = TRANSITIONS[name];
  return guardWhere({ ...t, guard: t.guard.filter((g) => g[2] === 'now') }, { now });
}

function guardWhere(t: Transition, a: TransitionArgs): { where: string; whereArgs: unknown[] } {
  const parts = [`state IN (${t.from.map(() => '?').join(', ')})`];
  const args: unknown[] = [...t.from];
  for (const [column, test, arg] of t.guard) {
    if (test === 'IS NULL') parts.push(`${column} IS NULL`);
    else {
      const v = arg === 'now' ? a.now : a.commitment;
      if (v === undefined) throw new Error(`the guard ${column} ${test} needs ${arg}`);
      parts.push(`${column} ${test} ?`);
      args.push(v);
    }
  }
  return { where: parts.join(' AND '), whereArgs: args };
}
