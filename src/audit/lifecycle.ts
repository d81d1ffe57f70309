/**
 * The lifecycle rules `airlock audit verify` checks over a log's entries, in order: what a
 * store row edited behind the daemon's back (another host, a DBA) would make the daemon sign.
 * Every entry may be signed and chained and the log still tell a story that cannot happen:
 *
 *   one_consumption_per_approval  a receipt is consumed once, and only after its approval_granted
 *   execute_after_approval        execution_started follows its transaction's approval_consumed
 *   reboot_after_needs_reboot  a reboot_reconciled follows its transaction's outcome in state
 *                              NeedsReboot, once (from NeedsReboot to Succeeded or Failed)
 *   enrolment_after_reset         a factor is enrolled over a confirmed one only as its replacement
 *                                 (totp_enrolled replaced=true) or after a totp_reset of it
 *   enrolment_approved            a first enrolment is the host's first factor, through sudo
 *                                 (first_approver), or is approved by another person who holds
 *                                 a factor (approved_by), and a replacement replaces a factor the
 *                                 log saw enrolled; judged from the first daemon_started
 *                                 whose daemon enforced it (details.enrolment_rules = 1)
 *
 * A walk that starts after archived entries has not seen the earlier part of a transaction's
 * life: a transaction it did not see previewed is not judged. State is one small record per
 * transaction and per approver of the walked part of the log (the live log is bounded by archiving).
 */
import type { LogEntry } from './entry.js';

export type LifecycleRule = 'one_consumption_per_approval' | 'execute_after_approval' | 'reboot_after_needs_reboot' | 'enrolment_after_reset' | 'enrolment_approved';

/** daemon_started details.enrolment_rules of a daemon that enforces approved first enrolments (totp-enrolment.ts). */
export const ENROLMENT_RULES = 1;

export interface LifecycleBreak {
  seq: number;
  rule: LifecycleRule;
  reason: string;
}

type TxStage = 'previewed' | 'approved' | 'consumed' | 'executing' | 'needs_reboot' | 'finished';
const FINISHING = new Set(['outcome', 'canceled', 'denied', 'expired', 'reconciled']);

export class LifecycleCheck {
  private readonly txs = new Map<string, { stage: TxStage; at: number }>();
  /** Approvers with a confirmed factor: the seq of its totp_enrolled. */
  private readonly factors = new Map<string, number>();
  /** What the approver's latest totp_issued said it replaces ('confirmed', 'awaiting', 'none'). */
  private readonly issued = new Map<string, unknown>();
  /** The running daemon enforced approved first enrolments (its daemon_started said so). */
  private enrolmentRules = false;

  /** `fromStart`: the walk began at entry 1, so a transaction it never saw previewed does not exist. */
  constructor(private readonly fromStart: boolean) {}

  /** The rule this entry breaks, or null. */
  observe(e: LogEntry): LifecycleBreak | null {
    if (e.kind === 'daemon_started') this.enrolmentRules = e.details.enrolment_rules === ENROLMENT_RULES;
    if (e.kind === 'totp_issued' && typeof e.details.approver === 'string') this.issued.set(e.details.approver, e.details.replaces);
    if (e.kind === 'totp_enrolled' || e.kind === 'totp_reset') return this.factor(e);
    const id = e.transaction_id;
    if (id === null) return null;
    const tx = this.txs.get(id);
    const broken = (rule: LifecycleRule, reason: string): LifecycleBreak => ({ seq: e.seq, rule, reason: `${rule}: transaction ${JSON.stringify(id.slice(0, 80))} ${reason}` });
    if (e.kind === 'preview') {
      this.txs.set(id, { stage: 'previewed', at: e.seq });
      return null;
    }
    if (!tx) {
      // Before a base (archived entries) its approval may be out of sight; from entry 1 there is none.
      if (this.fromStart && e.kind === 'approval_consumed') return broken('one_consumption_per_approval', 'has a receipt consumed but no preview or approval_granted entry');
      if (this.fromStart && e.kind === 'execution_started') return broken('execute_after_approval', 'is executed but has no preview or approval entry');
      if (this.fromStart && e.kind === 'reboot_reconciled') return broken('reboot_after_needs_reboot', 'is reconciled after a reboot but has no preview or outcome entry');
      return null;
    }
    const was = tx.stage;
    const move = (stage: TxStage) => this.txs.set(id, { stage, at: e.seq });
    if (e.kind === 'approval_granted') move('approved');
    else if (e.kind === 'approval_consumed') {
      if (was !== 'approved') {
        const why = was === 'previewed' ? 'has a receipt consumed without an approval_granted entry' : `has its receipt consumed again (its approval was consumed at seq ${tx.at} or before)`;
        return broken('one_consumption_per_approval', why);
      }
      move('consumed');
    } else if (e.kind === 'execution_started') {
      if (was !== 'consumed') return broken('execute_after_approval', `is executed without an approval consumed for it (it was ${was} at seq ${tx.at})`);
      move('executing');
    } else if (e.kind === 'reboot_reconciled') {
      if (was !== 'needs_reboot') return broken('reboot_after_needs_reboot', `is reconciled after a reboot but was not left NeedsReboot (it was ${was} at seq ${tx.at})`);
      move('finished');
    } else if (e.kind === 'outcome' && e.details.state === 'NeedsReboot') move('needs_reboot');
    else if (FINISHING.has(e.kind)) move('finished');
    return null;
  }

  private factor(e: LogEntry): LifecycleBreak | null {
    const approver = typeof e.details.approver === 'string' ? e.details.approver : null;
    if (approver === null) return null;
    if (e.kind === 'totp_reset') {
      this.factors.delete(approver);
      return null;
    }
    const confirmed = this.factors.get(approver);
    const others = [...this.factors.keys()].filter((a) => a !== approver);
    this.factors.set(approver, e.seq);
    // From entry 1 the walk knows every live factor; after archived entries it does not.
    if (this.fromStart && this.enrolmentRules && e.details.replaced === true) {
      const why = confirmed === undefined ? 'replaced one the log never saw enrolled' : this.issued.get(approver) !== 'confirmed' ? 'replaced one, but its secret was issued as a first enrolment (no code of the factor it replaces)' : null;
      if (why) return { seq: e.seq, rule: 'enrolment_approved', reason: `enrolment_approved: the factor of ${JSON.stringify(approver.slice(0, 80))} ${why}` };
    }
    if (this.fromStart && this.enrolmentRules && confirmed === undefined && e.details.replaced !== true) {
      const by = e.details.approved_by;
      const why =
        others.length === 0
          ? e.details.first_approver === true ? null : 'is the host\'s first factor but was not enrolled as its first approver'
          : typeof by === 'string' && others.includes(by) ? null : `was enrolled while ${others.length} other approver(s) held a factor, without the approval of one (approved_by ${JSON.stringify(typeof by === 'string' ? by.slice(0, 80) : null)})`;
      if (why) return { seq: e.seq, rule: 'enrolment_approved', reason: `enrolment_approved: the factor of ${JSON.stringify(approver.slice(0, 80))} ${why}` };
    }
    if (confirmed !== undefined && e.details.replaced !== true) {
      return {
        seq: e.seq,
        rule: 'enrolment_after_reset',
        reason: `enrolment_after_reset: a factor of ${JSON.stringify(approver.slice(0, 80))} was enrolled as if none were there, but the one enrolled at seq ${confirmed} has no totp_reset: its row was deleted outside the daemon`,
      };
    }
    return null;
  }
}
