/**
 * The Store's transaction methods, once, for both stores: each runs one transition of the table
 * (transitions.ts) inside a group commit (group-commit.ts), so the state change and its signed
 * entry are one store transaction. What differs between SQLite and PostgreSQL (placeholders,
 * the log's key, PostgreSQL's row MACs) is the small LifecycleDialect each store gives; the
 * operations are Steps (steps.ts), so SQLite's run synchronously inside its batch.
 */
import type { EntryDraft } from '../audit/entry.js';
import { AirlockError } from '../protocol/errors.js';
import type { TxState } from '../protocol/risk.js';
import { RollBack, type GroupCommit } from './group-commit.js';
import type { ApprovalOutcome, ConsumeOutcome, PasskeyUse, RuleLimit, RuleUsage, SpentStep, TxRecord } from './store.js';
import { candidatesWhere, transitionUpdate, type TransitionArgs, type TransitionName, type TransitionUpdate } from './transitions.js';
import { consumeRefusal, newRow, toRecord, type NewRow, type Row } from './tx-row.js';
import { call, type Awaitable, type Steps } from './steps.js';
import { quorumEntries, type CoApproval, type QuorumApproval, type QuorumEntries, type QuorumOutcome } from './co-approval.js';
/** A transactions row as stored, with the column only the store reads. */
export type StoredRow = Row & { consumed_at: number | null };

export interface LifecycleDialect<C> {
  /** The transaction's row, inside a write; PostgreSQL checks its MAC (nothing is decided on a row this host did not write). */
  row(c: C, id: string): Awaitable<StoredRow | undefined>;
  /** The rows matching `where` (candidatesWhere), checked likewise; with `limit`, the oldest `limit` of them. */
  rows(c: C, where: { where: string; whereArgs: unknown[] }, limit?: number): Awaitable<StoredRow[]>;
  insert(c: C, row: NewRow): Awaitable<void>;
  /** Runs one transition's UPDATE on the row `id`; true when it changed the row. */
  update(c: C, id: string, u: TransitionUpdate): Awaitable<boolean>;
  /** Spends this step of the approver's factor; false when it already was (or there is none). */
  spendStep(c: C, s: SpentStep): Awaitable<boolean>;
  /**
   * Moves a passkey's counter to the one an approval's assertion reported; false when the
   * passkey is gone or the counter does not move forward (a replayed or cloned assertion). A
   * counter of 0 stays 0: the authenticator keeps none, and the once-only approval is the guard.
   */
  usePasskey(c: C, u: PasskeyUse, now: number): Awaitable<boolean>;
  ruleUsage(c: C, ruleId: string, now: number): Awaitable<RuleUsage>;
  recordRuleUse(c: C, ruleId: string, now: number): Awaitable<void>;
  /** Whether the signed log already holds the transaction's approval_consumed entry. */
  consumedInLog(c: C, id: string): Awaitable<boolean>;
  /** The approvals recorded for a transaction that needs more than one (co-approval.ts), checked like every row decided on. */
  coApprovals(c: C, id: string): Awaitable<CoApproval[]>;
  addCoApproval(c: C, a: CoApproval): Awaitable<void>;
  /** Drops a transaction's recorded approvals once its receipt is minted: its approval_granted names them. */
  dropCoApprovals(c: C, id: string): Awaitable<void>;
}

/** At its daily cap (approvals in the last 24 hours) or inside its cooldown (since its last approval). */
export function ruleExhausted(u: RuleUsage, rule: RuleLimit, now: number): boolean {
  if (u.lastDay >= rule.dailyCap) return true;
  return u.last !== null && now - u.last < rule.cooldownMs;
}

type Approval = { approvedBy: string; commitment: string; expiresAt: number; now: number; spend?: SpentStep; passkey?: PasskeyUse; rule?: RuleLimit };

/**
 * Both stores extend this: it is their Store methods that move a transaction. A store gives
 * its group commit and its dialect (in its constructor, before any method runs).
 */
export abstract class TransactionLifecycle<C> {
  protected abstract readonly group: GroupCommit<C>;
  protected abstract readonly transitions: LifecycleDialect<C>;

  async createTransaction(tx: TxRecord, entry: EntryDraft): Promise<void> {
    await this.group.run(
      () => [entry],
      (c) => this.transitions.insert(c, newRow(tx)),
    );
  }

  recordApproval(id: string, a: Approval, entry: EntryDraft): Promise<ApprovalOutcome> {
    return this.group.run((o) => (o === 'approved' ? [entry] : []), (c) => this.approve(c, id, a));
  }

  /** A person's approval where more than one must approve (co-approval.ts): recorded, or the last one, minting. */
  recordQuorumApproval(id: string, a: QuorumApproval, entries: QuorumEntries): Promise<QuorumOutcome> {
    return this.group.run((o) => quorumEntries(o, entries), (c) => this.approveInQuorum(c, id, a));
  }

  consumeReceipt(id: string, commitment: string, now: number, entries: EntryDraft[]): Promise<ConsumeOutcome> {
    return this.group.run((o) => (o === 'consumed' ? entries : []), (c) => this.consume(c, id, commitment, now));
  }

  async finish(id: string, state: TxState, result: Record<string, unknown>, now: number, entry: EntryDraft): Promise<void> {
    const finished = await this.group.run(
      (ok) => (ok ? [entry] : []),
      (c) => this.apply(c, id, 'finish', { now, to: state, set: { result_json: JSON.stringify(result) } }),
    );
    if (!finished) throw new AirlockError('integrity', 'not_running', `transaction ${id} is not Running`);
  }

  cancel(id: string, now: number, entry: EntryDraft, opts: { result?: Record<string, unknown>; onlyFrom?: 'Previewed' } = {}): Promise<boolean> {
    const result = opts.result ? JSON.stringify(opts.result) : undefined;
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      (c) => this.apply(c, id, opts.onlyFrom === 'Previewed' ? 'deny' : 'cancel', { now, set: { result_json: result } }),
    );
  }

  async expireDue(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]> {
    return (await this.group.run<TxRecord[]>((txs) => txs.map(entryFor), (c) => this.applyToAll(c, 'expire', now))).map((t) => t.id);
  }

  expire(id: string, now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<TxRecord | null> {
    return this.group.run((tx) => (tx ? [entryFor(tx)] : []), (c) => this.expireOne(c, id, now));
  }

  async reconcileInterrupted(now: number, entryFor: (tx: TxRecord) => EntryDraft): Promise<string[]> {
    return (await this.group.run<TxRecord[]>((txs) => txs.map(entryFor), (c) => this.applyToAll(c, 'interrupt', now))).map((t) => t.id);
  }

  /** The oldest `limit` transactions left NeedsReboot, oldest first. */
  awaitingReboot(limit: number): Promise<TxRecord[]> {
    return this.group.run(() => [], (c) => this.oldestAwaitingReboot(c, limit));
  }

  private *oldestAwaitingReboot(c: C, limit: number): Steps<TxRecord[]> {
    return (yield* call(this.transitions.rows(c, candidatesWhere('reconcile_reboot', 0), limit))).map(toRecord);
  }

  /** NeedsReboot -> `to` with its result and reboot_reconciled entry, or nothing (false) when it is no longer NeedsReboot. */
  reconcileReboot(id: string, to: 'Succeeded' | 'Failed', result: Record<string, unknown>, now: number, entry: EntryDraft): Promise<boolean> {
    return this.group.run(
      (ok) => (ok ? [entry] : []),
      (c) => this.apply(c, id, 'reconcile_reboot', { now, to, set: { result_json: JSON.stringify(result) } }),
    );
  }

  private apply(c: C, id: string, name: TransitionName, a: TransitionArgs): Steps<boolean> {
    return call(this.transitions.update(c, id, transitionUpdate(name, a)));
  }

  private *approve(c: C, id: string, a: Approval): Steps<ApprovalOutcome> {
    // The rule is checked first, inside the same store transaction that records its use.
    if (a.rule && ruleExhausted(yield* call(this.transitions.ruleUsage(c, a.rule.id, a.now)), a.rule, a.now)) return 'rule_exhausted';
    if (!(yield* this.apply(c, id, 'approve', { now: a.now, set: { approved_by: a.approvedBy, receipt_commitment: a.commitment, expires_at: a.expiresAt } }))) return 'not_pending';
    // Rolling back undoes the approval with it: both happen or neither does.
    if (a.spend && !(yield* call(this.transitions.spendStep(c, a.spend)))) throw new RollBack('step_spent' as const);
    if (a.passkey && !(yield* call(this.transitions.usePasskey(c, a.passkey, a.now)))) throw new RollBack('passkey_replayed' as const);
    if (a.rule) yield* call(this.transitions.recordRuleUse(c, a.rule.id, a.now));
    return 'approved';
  }

  /**
   * The earlier approvals are read in the same store transaction that records this one or mints
   * the receipt: both stores serialize writes, so two approvals never both see the other missing.
   * Every refusal comes before anything is written or spent; a spent step or a replayed passkey
   * after it rolls this approval back with the row it added.
   */
  private *approveInQuorum(c: C, id: string, a: QuorumApproval): Steps<QuorumOutcome> {
    const r = yield* call(this.transitions.row(c, id));
    if (!r || r.state !== 'Previewed' || r.expires_at <= a.now) return 'not_pending';
    if (r.preview_digest !== a.previewDigest) return 'digest_mismatch';
    // Only approvals of this very preview count (the digest is fixed per transaction: a row of another fails nothing open).
    const earlier = (yield* call(this.transitions.coApprovals(c, id))).filter((x) => x.previewDigest === r.preview_digest);
    const others = earlier.filter((x) => x.approver !== a.person);
    // Needing two, the same person twice is one person. Needing one (a reload lowered it), their earlier approval just does not count twice.
    if (a.needed > 1 && others.length < earlier.length) return 'same_approver';
    const have = others.length + 1;
    if (have < a.needed) {
      yield* call(this.transitions.addCoApproval(c, { txId: id, approver: a.person, principal: a.approvedBy, previewDigest: r.preview_digest, at: a.now }));
      yield* this.spendFactor(c, a);
      return { recorded: have };
    }
    if (!(yield* this.apply(c, id, 'approve', { now: a.now, set: { approved_by: a.approvedBy, receipt_commitment: a.commitment, expires_at: a.expiresAt } }))) return 'not_pending';
    yield* this.spendFactor(c, a);
    yield* call(this.transitions.dropCoApprovals(c, id));
    return { approved: others.sort((x, y) => x.at - y.at).map((x) => x.principal) };
  }

  /** Spends the approver's TOTP step or moves their passkey's counter, or rolls the whole approval back. */
  private *spendFactor(c: C, a: { spend?: SpentStep; passkey?: PasskeyUse; now: number }): Steps<void> {
    if (a.spend && !(yield* call(this.transitions.spendStep(c, a.spend)))) throw new RollBack('step_spent' as const);
    if (a.passkey && !(yield* call(this.transitions.usePasskey(c, a.passkey, a.now)))) throw new RollBack('passkey_replayed' as const);
  }

  private *consume(c: C, id: string, commitment: string, now: number): Steps<ConsumeOutcome> {
    const was = yield* call(this.transitions.row(c, id));
    // A row's MAC cannot tell a row copied back from an earlier version (Queued, before its
    // run) from the current one; the signed log can: a transaction consumes once, ever.
    if (yield* call(this.transitions.consumedInLog(c, id))) return 'already_consumed';
    if (yield* this.apply(c, id, 'consume', { now, commitment, set: { consumed_at: now } })) return 'consumed';
    return consumeRefusal(was, commitment);
  }

  /** Expires one transaction past its deadline, recording which stage ran out: the row as it was, or null when it was not due. */
  private *expireOne(c: C, id: string, now: number): Steps<TxRecord | null> {
    const r = yield* call(this.transitions.row(c, id));
    // A row in a state expiry does not leave (already Running or finished) is simply not due.
    if (!r || (r.state !== 'Previewed' && r.state !== 'Queued')) return null;
    return (yield* this.apply(c, r.id, 'expire', { now, from: r.state })) ? toRecord(r) : null;
  }

  /** The transition on every row it applies to now; the rows as they were. */
  private *applyToAll(c: C, name: 'expire' | 'interrupt', now: number): Steps<TxRecord[]> {
    const done: TxRecord[] = [];
    for (const r of yield* call(this.transitions.rows(c, candidatesWhere(name, now)))) {
      if (yield* this.apply(c, r.id, name, { now, from: r.state as TxState })) done.push(toRecord(r));
    }
    return done;
  }
}
