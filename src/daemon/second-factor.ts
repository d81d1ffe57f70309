/**
 * The second factor on approvals: a TOTP code from the approver's authenticator,
 * checked by the daemon (the agent never sees the secret), required for High risk
 * and, when configured, Medium. A code is spent with the approval it was typed for,
 * in the same store transaction, so it can approve nothing else; wrong codes are
 * counted and a run of them locks the approver out, which the signed log records.
 * The same rules check the current code that replacing a factor needs (totp-enrolment.ts).
 */
import { fail } from '../protocol/errors.js';
import type { EntryDraft } from '../audit/entry.js';
import type { EntryDetails } from '../audit/entry-details.js';
import type { SpentStep, Store, TotpRecord } from '../store/store.js';
import { matchStep, otpauthUri, secondsUntilStepAfter } from '../protocol/totp.js';
import type { TotpSeal } from './totp-seal.js';

/** Wrong codes in a row before a lockout, and how long it lasts. */
export const MAX_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60_000;
const ISSUER = 'Airlock';

/**
 * The refusal of a code whose step was already spent (by an approval, a re-enrolment, or a
 * concurrent request that won the race): the one place that says how long to wait.
 */
export function refuseSpentCode(spentStep: number, nowMs: number): never {
  const wait = secondsUntilStepAfter(spentStep, nowMs);
  const next = wait > 0 ? `wait for the next code (in ${wait} s)` : 'type the code your authenticator shows now';
  return fail('authorization', 'totp_spent', `that code was already used: ${next}`, 'each code is used once; a used code does not count toward the lockout');
}

export interface SecondFactorOptions {
  store: Store;
  now: () => number;
  /** Names this host in the authenticator app. */
  hostName: string;
  /** Seals and opens the stored secrets (totp.key): the store never holds one in clear. */
  seal: TotpSeal;
}

/** What a code is being checked for, in the words its refusals use. */
export interface Purpose {
  /** "approving tx_...": the subject of "... needs the 6-digit code". */
  what: string;
  /** How to give the code next time. */
  how: string;
}

export class SecondFactor {
  /** Per approver, the tail of the codes being checked: see serially(). */
  private readonly checking = new Map<string, Promise<unknown>>();

  constructor(private readonly o: SecondFactorOptions) {}

  /**
   * One code of an approver is compared at a time, against the factor's row read afresh and after
   * the failure of the code before it is stored: a burst of parallel guesses (every connection's
   * every request) counts toward the lockout one by one, instead of all being compared against
   * the row as it was before any of them failed. The queue is bounded by the daemon's connection
   * and in-flight request bounds.
   */
  private serially<T>(approver: string, work: () => Promise<T>): Promise<T> {
    const run = (this.checking.get(approver) ?? Promise.resolve()).then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.checking.set(approver, tail);
    void tail.then(() => this.checking.get(approver) === tail && this.checking.delete(approver));
    return run;
  }

  /**
   * Checks `code` for `approver` and returns the step it would spend; the caller
   * spends it atomically with the approval. Every refusal says what to do next.
   */
  async check(approver: string, user: string, code: unknown, txId: string, entryFor: (details: EntryDetails['totp_lockout']) => EntryDraft): Promise<SpentStep> {
    return this.checkFor(approver, user, code, { what: `approving ${txId}`, how: `run \`airlock approve ${txId}\` in a terminal: it asks for the code` }, entryFor);
  }

  /**
   * The same check for another act a person does with their own factor (resetting someone's
   * factor, reloading the policy): `purpose` says what it is and how to give the code.
   */
  async checkFor(approver: string, user: string, code: unknown, purpose: Purpose, entryFor: (details: EntryDetails['totp_lockout']) => EntryDraft): Promise<SpentStep> {
    return this.serially(approver, async () => {
      const rec = await this.o.store.totp(approver);
      if (!rec) {
        fail('authorization', 'totp_not_enrolled', `${purpose.what} needs a second factor, and ${approver} has none enrolled`, `${user} enrols once, as themselves, in their own terminal: \`airlock totp enroll\`; then try again`);
      }
      return this.verify(rec!, code, purpose, entryFor);
    });
  }

  /**
   * Checks a code of the factor `approver` has now, before that factor is replaced: the
   * same rules as an approval code (lockout, failure count, a step spends once).
   */
  async checkCurrent(rec: TotpRecord, code: unknown, entryFor: (details: EntryDetails['totp_lockout']) => EntryDraft): Promise<SpentStep> {
    const purpose = {
      what: `${rec.approver} already has a second factor: replacing it`,
      how: 'run `airlock totp enroll` in a terminal: it asks for a code from the factor you have now (lost it? root resets it with `sudo airlock totp reset --user NAME`)',
    };
    return this.serially(rec.approver, async () => this.verify((await this.o.store.totp(rec.approver)) ?? rec, code, purpose, entryFor));
  }

  private async verify(rec: TotpRecord, code: unknown, purpose: Purpose, entryFor: (details: EntryDetails['totp_lockout']) => EntryDraft): Promise<SpentStep> {
    const approver = rec.approver;
    const now = this.o.now();
    if (rec.lockedUntil > now) {
      fail('authorization', 'totp_locked', `${approver} typed ${MAX_FAILURES} wrong codes; codes of ${approver} are refused until ${new Date(rec.lockedUntil).toISOString()}`, 'wait for the lockout to end; it is recorded in the audit log');
    }
    if (code === undefined || code === null || code === '') {
      fail('authorization', 'totp_required', `${purpose.what} needs the 6-digit code from ${approver}'s authenticator app`, purpose.how);
    }
    const match = typeof code === 'string' ? matchStep(this.o.seal.open(approver, rec.sealedSecret), code, now, rec.lastStep) : null;
    if (match && !match.spent) return { approver, step: match.step };
    // A right code typed twice is a person's slip, not a guess: refused, and not counted toward the lockout.
    if (match) refuseSpentCode(rec.lastStep, now);
    const after = await this.o.store.recordTotpFailure(approver, now, { maxFailures: MAX_FAILURES, lockMs: LOCKOUT_MS }, entryFor({ approver, failures: MAX_FAILURES, locked_until: new Date(now + LOCKOUT_MS).toISOString() }));
    if (after.lockedUntil > now) {
      fail('authorization', 'totp_locked', `that code is wrong, and it was the ${MAX_FAILURES}th in a row: codes of ${approver} are refused for ${LOCKOUT_MS / 60_000} minutes`, 'the lockout is recorded in the audit log');
    }
    return fail('authorization', 'totp_invalid', `that code is wrong or expired (${MAX_FAILURES - after.failures} more tries before a ${LOCKOUT_MS / 60_000}-minute lockout)`, 'type the code your authenticator shows now; each code is used once');
  }

  /** Whether `approver` has a confirmed second factor to give. */
  async enrolled(approver: string): Promise<boolean> {
    return (await this.o.store.totp(approver)) !== null;
  }

  /** The secret sealed for the store; see totp-seal.ts. */
  seal(approver: string, secret: string): string {
    return this.o.seal.seal(approver, secret);
  }

  open(approver: string, sealedSecret: string): string {
    return this.o.seal.open(approver, sealedSecret);
  }

  /** The otpauth:// URI an authenticator app reads from the QR code. */
  uri(secret: string, user: string): string {
    return otpauthUri(secret, `${user}@${this.o.hostName}`, ISSUER);
  }
}
