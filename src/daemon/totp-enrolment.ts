/**
 * Enrolling a second factor. A person enrols their own, over their own connection:
 * `totp.enroll` issues a pending secret, returned on that connection only (the CLI
 * shows it on the person's terminal, never on stdout); it approves nothing until
 * `totp.confirm` with a first valid code makes it the person's factor. A pending secret
 * expires after PENDING_MS, and a new enrolment replaces only a pending one. Replacing a
 * confirmed factor needs a code from it, checked as an approval code is (lockout,
 * failure count, a step spends once); without one, another admin approver resets the
 * factor through sudo with their own code (`totp.reset`), which the service also
 * notifies. Each step is a signed entry:
 * totp_issued, totp_enrolled (confirmed: from now on the factor counts), totp_reset.
 */
import { z } from 'zod';
import type { Host } from '../catalogue/action.js';
import { LOGIN_NAME } from '../catalogue/params.js';
import type { EntryDraft } from '../audit/entry.js';
import { AirlockError, fail } from '../protocol/errors.js';
import { mayReset, type Caller } from './authz.js';
import { matchStep, newSecret } from '../protocol/totp.js';
import type { SpentStep, Store } from '../store/store.js';
import type { Identity } from './identity.js';
import { MAX_FAILURES, refuseSpentCode, type Purpose, type SecondFactor } from './second-factor.js';

/** How long a pending secret waits for its first code. */
export const PENDING_MS = 10 * 60_000;

export interface Person {
  uid: number;
  user: string;
}

export interface EnrolmentOptions {
  store: Store;
  factor: SecondFactor;
  host: Host;
  now: () => number;
  /** Who an entry is by (for a root peer, with the person behind it). */
  principal: (who: Identity) => EntryDraft['principal'];
  /** How a person is named in the store and the log: alice(uid 1001). */
  name: (p: Person) => string;
}

const EnrolParams = z.strictObject({ current_code: z.string().max(16).optional() });
const ConfirmParams = z.strictObject({ code: z.string().max(16).optional() });
const ResetParams = z.strictObject({ user: z.string().regex(LOGIN_NAME), totp_code: z.string().max(16).optional() });
const iso = (ms: number) => new Date(ms).toISOString();

export class TotpEnrolment {
  constructor(private readonly o: EnrolmentOptions) {}

  /** A pending secret for `person`, shown once to this connection; replacing a confirmed factor needs `current_code`. */
  async issue(who: Identity, person: Person, req: unknown) {
    const p = EnrolParams.safeParse(req ?? {});
    if (!p.success) {
      fail('validation', 'bad_params', 'totp.enroll takes only current_code: it enrols the caller, and nobody enrols another person', "a person enrols with `airlock totp enroll` from their own account; to delete somebody's factor, root runs `sudo airlock totp reset --user NAME`");
    }
    const approver = this.o.name(person);
    const current = await this.o.store.totp(approver);
    const spend = current ? await this.o.factor.checkCurrent(current, p.data!.current_code, (details) => this.entry('totp_lockout', who, details)) : undefined;
    const secret = newSecret();
    const now = this.o.now();
    const expiresAt = now + PENDING_MS;
    const outcome = await this.o.store.issueTotp(
      approver,
      this.o.factor.seal(approver, secret),
      now,
      expiresAt,
      spend,
      this.entry('totp_issued', who, { approver, replaces: current ? 'confirmed' : 'none', pending_expires_at: iso(expiresAt) }),
    );
    if (outcome === 'step_spent') refuseSpentCode(spend!.step, now);
    return { approver, user: person.user, state: 'pending' as const, expires_at: iso(expiresAt), secret, uri: this.o.factor.uri(secret, person.user) };
  }

  /** The pending secret becomes `person`'s factor once `code` is valid for it. */
  async confirm(who: Identity, person: Person, req: unknown) {
    const p = ConfirmParams.safeParse(req ?? {});
    if (!p.success) fail('validation', 'bad_params', 'totp.confirm takes only code, the first code the authenticator app shows');
    const approver = this.o.name(person);
    const pending = await this.o.store.pendingTotp(approver);
    const now = this.o.now();
    if (!pending || pending.expiresAt <= now) {
      fail('validation', 'totp_not_pending', `${approver} has no enrolment waiting for its first code: none was started, it was confirmed, or it expired after ${PENDING_MS / 60_000} minutes`, 'start one with `airlock totp enroll`');
    }
    const code = p.data!.code;
    if (code === undefined || code === '') {
      fail('authorization', 'totp_required', `confirming the enrolment of ${approver} needs the first 6-digit code the authenticator app shows`, 'run `airlock totp enroll` in a terminal: it asks for the code');
    }
    const step = matchStep(this.o.factor.open(approver, pending!.sealedSecret), code!, now, 0)?.step ?? null;
    if (step === null) {
      const left = await this.o.store.recordPendingTotpFailure(approver, MAX_FAILURES);
      if (left === 0) fail('authorization', 'totp_invalid', `that code is wrong, and it was the ${MAX_FAILURES}th: the pending enrolment of ${approver} is dropped`, 'start again with `airlock totp enroll` and add the new secret to the app');
      fail('authorization', 'totp_invalid', `that code is wrong or expired (${left} more tries for this enrolment)`, 'type the code the app shows now for the secret you just added');
    }
    const replaced = (await this.o.store.totp(approver)) !== null;
    const ok = await this.o.store.confirmTotp(approver, pending!.sealedSecret, step!, now, this.entry('totp_enrolled', who, { approver, replaced }));
    if (!ok) fail('validation', 'totp_not_pending', `the enrolment of ${approver} was replaced or reset while it was being confirmed`, 'start again with `airlock totp enroll`');
    return { approver, user: person.user, state: 'confirmed' as const };
  }

  /**
   * An admin approver, through sudo, deletes another person's factor (and any pending secret)
   * with their own code; the owner enrols again as if for the first time.
   */
  async reset(who: Caller, req: unknown) {
    const p = ResetParams.safeParse(req ?? {});
    if (!p.success) fail('validation', 'bad_user', 'totp.reset takes user, a login name such as alice, and totp_code, your own code');
    const name = p.data!.user;
    const account = (await this.o.host.users()).find((u) => u.name === name);
    if (!account) fail('validation', 'no_such_user', `there is no user ${name} on this host`);
    const d = mayReset(who, { uid: account!.uid, user: account!.name });
    if (!d.ok) throw new AirlockError(d.refusal.category, d.refusal.code, d.refusal.message, d.refusal.hint);
    const approver = this.o.name({ uid: account!.uid, user: account!.name });
    // Nothing to reset is said before any code is asked for (and spent).
    const noFactor = () => fail('validation', 'no_factor', `${approver} has no second factor to reset`, `${name} enrols with \`airlock totp enroll\``);
    if (!(await this.o.store.totp(approver)) && !(await this.o.store.pendingTotp(approver))) noFactor();
    const how = `run \`sudo airlock totp reset --user ${name}\` in a terminal: it asks for your code`;
    const spend = await this.ownCode(who, p.data!.totp_code, { what: `resetting ${approver}'s second factor`, how });
    const had = await this.o.store.resetTotp(approver, (h) => this.entry('totp_reset', who, { approver, factor: h.factor, pending: h.pending }), spend);
    if (had === 'step_spent') return refuseSpentCode(spend.step, this.o.now());
    if (!had.factor && !had.pending) noFactor();
    return { approver, user: name, ...had };
  }

  /**
   * The step of the caller's own factor that `code` gives, for an act of the host's
   * administrator (resetting a factor, reloading the policy); the caller spends it with the act.
   */
  async ownCode(who: Identity, code: unknown, purpose: Purpose): Promise<SpentStep> {
    const p = who.person;
    if (!p) fail('authorization', 'no_person', `${purpose.what} is done by a person with their own second factor`);
    return this.o.factor.checkFor(this.o.name(p!), p!.user, code, purpose, (details) => this.entry('totp_lockout', who, details));
  }

  private entry(kind: EntryDraft['kind'], who: Identity, details: EntryDraft['details']): EntryDraft {
    return { kind, transaction_id: null, action_name: null, risk: null, request_hash: null, principal: this.o.principal(who), details };
  }
}
