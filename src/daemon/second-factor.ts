/**
 * The second factor on approvals: a TOTP code from the approver's authenticator,
 * checked by the daemon (the agent never sees the secret), required for High risk
 * and, when configured, Medium. A code is spent with the approval it was typed for,
 * in the same store transaction, so it can approve nothing else; wrong codes are
 * counted and a run of them locks the approver out, which the signed log records.
 */
import { fail } from '../protocol/errors.js';
import { riskRank, type Risk } from '../protocol/risk.js';
import type { EntryDraft } from '../audit/entry.js';
import type { SpentStep, Store } from '../store/store.js';
import { matchStep, newSecret, otpauthUri } from '../protocol/totp.js';

/** Wrong codes in a row before a lockout, and how long it lasts. */
export const MAX_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60_000;
const ISSUER = 'Airlock';

export interface SecondFactorOptions {
  store: Store;
  now: () => number;
  /** The lowest risk that needs a code now: 'high' or 'medium' (the policy says; a reload may change it). */
  from: () => Risk;
  /** Names this host in the authenticator app. */
  hostName: string;
}

export class SecondFactor {
  constructor(private readonly o: SecondFactorOptions) {}

  required(risk: Risk): boolean {
    return riskRank(risk) >= riskRank(this.o.from());
  }

  /**
   * Checks `code` for `approver` and returns the step it would spend; the caller
   * spends it atomically with the approval. Every refusal says what to do next.
   */
  async check(approver: string, user: string, code: unknown, txId: string, entryFor: (details: EntryDraft['details']) => EntryDraft): Promise<SpentStep> {
    const rec = await this.o.store.totp(approver);
    if (!rec) {
      fail('authorization', 'totp_not_enrolled', `approving ${txId} needs a second factor, and ${approver} has none enrolled`, `enrol once with \`sudo airlock totp enroll --user ${user}\`, then approve again`);
    }
    const now = this.o.now();
    if (rec!.lockedUntil > now) {
      fail('authorization', 'totp_locked', `${approver} typed ${MAX_FAILURES} wrong codes; approvals by ${approver} are locked until ${new Date(rec!.lockedUntil).toISOString()}`, 'wait for the lockout to end; it is recorded in the audit log');
    }
    if (code === undefined || code === null || code === '') {
      fail('authorization', 'totp_required', `approving ${txId} needs the 6-digit code from ${approver}'s authenticator app`, `run \`airlock approve ${txId}\` in a terminal: it asks for the code`);
    }
    const step = typeof code === 'string' ? matchStep(rec!.secret, code, now, rec!.lastStep) : null;
    if (step !== null) return { approver, step };
    const after = await this.o.store.recordTotpFailure(approver, now, { maxFailures: MAX_FAILURES, lockMs: LOCKOUT_MS }, entryFor({ approver, failures: MAX_FAILURES, locked_until: new Date(now + LOCKOUT_MS).toISOString() }));
    if (after.lockedUntil > now) {
      fail('authorization', 'totp_locked', `that code is wrong, and it was the ${MAX_FAILURES}th in a row: approvals by ${approver} are locked for ${LOCKOUT_MS / 60_000} minutes`, 'the lockout is recorded in the audit log');
    }
    return fail('authorization', 'totp_invalid', `that code is wrong, expired or already used (${MAX_FAILURES - after.failures} more tries before a ${LOCKOUT_MS / 60_000}-minute lockout)`, 'type the code your authenticator shows now; each code approves one transaction');
  }

  /** Whether `approver` has a second factor to give. */
  async enrolled(approver: string): Promise<boolean> {
    return (await this.o.store.totp(approver)) !== null;
  }

  /** A new secret for `approver` (replacing any old one). The caller shows it once; it is never sent again. */
  async enroll(approver: string, user: string, entry: EntryDraft): Promise<{ secret: string; uri: string }> {
    const secret = newSecret();
    await this.o.store.enrollTotp(approver, secret, this.o.now(), entry);
    return { secret, uri: otpauthUri(secret, `${user}@${this.o.hostName}`, ISSUER) };
  }
}
