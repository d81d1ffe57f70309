/**
 * Enrolling a second factor. A person enrols their own, over their own connection:
 * `totp.enroll` issues a pending secret, returned on that connection only (the CLI
 * shows it on the person's terminal, never on stdout); it approves nothing until
 * `totp.confirm` with a first valid code makes it the person's factor. A pending secret
 * expires after PENDING_MS, and a new enrolment replaces only a pending one. Replacing a
 * confirmed factor needs a code from it, checked as an approval code is (lockout,
 * failure count, a step spends once); without one, another admin approver resets the
 * factor through sudo with their own code (`totp.reset`), which the service also
 * notifies.
 *
 * A first enrolment (the person has no factor) is where an agent running as that person
 * would slip in a factor of its own, so it is never the person's word alone:
 * - the host's very first factor is enrolled through sudo from a login session (the kernel's
 *   login uid names the person), at the installing terminal (`airlock install` offers it);
 * - on a host that has an approver already, the first code proves the secret and the
 *   enrolment waits (AWAITING_MS) for another approver's `totp.approve`, with their own code.
 * Each step is a signed entry: totp_issued, totp_awaiting_approval, totp_enrolled (from now on
 * the factor counts; approved_by names who vouched), totp_reset.
 */
import type { Host } from '../catalogue/action.js';
import { DAEMON_ACT, entryDraft, type EntryDraft, type EntryKind } from '../audit/entry.js';
import type { EntryDetails } from '../audit/entry-details.js';
import { fail } from '../protocol/errors.js';
import type { ParsedParams } from '../protocol/methods.js';
import { enforce, mayApproveEnrolment, mayEnrolFirstApprover, mayReset, type Caller } from './authz.js';
import { enrolmentCheck, matchStep, newSecret } from '../protocol/totp.js';
import type { SpentStep, Store } from '../store/store.js';
import type { Identity } from './identity.js';
import { MAX_FAILURES, refuseSpentCode, type Purpose, type SecondFactor } from './second-factor.js';

/** How long a pending secret waits for its first code. */
export const PENDING_MS = 10 * 60_000;
/** How long a proven first enrolment waits for another approver. */
export const AWAITING_MS = 24 * 3600_000;

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

const iso = (ms: number) => new Date(ms).toISOString();

export class TotpEnrolment {
  constructor(private readonly o: EnrolmentOptions) {}

  /**
   * A pending secret for `person`, shown once to this connection; replacing a confirmed factor
   * needs `current_code`. (totp.enroll takes only that: it enrols the caller, and nobody enrols
   * another person; its schema refuses any other parameter.)
   */
  async issue(who: Identity, person: Person, req: ParsedParams<'totp.enroll'>) {
    const approver = this.o.name(person);
    const current = await this.o.store.totp(approver);
    const waiting = current ? null : await this.o.store.pendingTotp(approver);
    // Said before a secret is shown: a first factor on a host without any is enrolled through sudo.
    if (!current && !(await this.o.store.anyTotp())) enforce(mayEnrolFirstApprover(who));
    const spend = current ? await this.o.factor.checkCurrent(current, req.current_code, (details) => this.entry('totp_lockout', who, details)) : undefined;
    const secret = newSecret();
    const now = this.o.now();
    const expiresAt = now + PENDING_MS;
    const outcome = await this.o.store.issueTotp(
      approver,
      this.o.factor.seal(approver, secret),
      now,
      expiresAt,
      spend,
      this.entry('totp_issued', who, { approver, replaces: current ? 'confirmed' : waiting?.confirmedStep != null ? 'awaiting' : 'none', pending_expires_at: iso(expiresAt) }),
    );
    if (outcome === 'step_spent') refuseSpentCode(spend!.step, now);
    return { approver, user: person.user, state: 'pending' as const, expires_at: iso(expiresAt), secret, uri: this.o.factor.uri(secret, person.user) };
  }

  /** The pending secret becomes `person`'s factor once `code` is valid for it. */
  async confirm(who: Identity, person: Person, req: ParsedParams<'totp.confirm'>) {
    const approver = this.o.name(person);
    const pending = await this.o.store.pendingTotp(approver);
    const now = this.o.now();
    if (!pending || pending.expiresAt <= now) {
      fail('validation', 'totp_not_pending', `${approver} has no enrolment waiting for its first code: none was started, it was confirmed, or it expired after ${PENDING_MS / 60_000} minutes`, 'start one with `airlock totp enroll`');
    }
    if (pending!.confirmedStep !== null) {
      fail('validation', 'totp_not_pending', `${approver}'s enrolment is proven already and waits for another approver until ${iso(pending!.expiresAt)}`, `an approver runs \`airlock totp approve --user ${person.user} --check CODE\` with the check code your enrolment showed you`);
    }
    const code = req.code;
    if (code === undefined || code === '') {
      fail('authorization', 'totp_required', `confirming the enrolment of ${approver} needs the first 6-digit code the authenticator app shows`, 'run `airlock totp enroll` in a terminal: it asks for the code');
    }
    const step = matchStep(this.o.factor.open(approver, pending!.sealedSecret), code!, now, 0)?.step ?? null;
    if (step === null) {
      const left = await this.o.store.recordPendingTotpFailure(approver, MAX_FAILURES);
      if (left === 0) fail('authorization', 'totp_invalid', `that code is wrong, and it was the ${MAX_FAILURES}th: the pending enrolment of ${approver} is dropped`, 'start again with `airlock totp enroll` and add the new secret to the app');
      fail('authorization', 'totp_invalid', `that code is wrong or expired (${left} more tries for this enrolment)`, 'type the code the app shows now for the secret you just added');
    }
    // A replacement only of the factor whose code let this secret be issued (enrolled before it):
    // a secret issued while the person had none stays a first enrolment, whatever was approved since.
    const factor = await this.o.store.totp(approver);
    const replaced = factor !== null && factor.enrolledAt < pending!.issuedAt;
    const gone = () => fail('validation', 'totp_not_pending', `the enrolment of ${approver} was replaced or reset while it was being confirmed`, 'start again with `airlock totp enroll`');
    // Replacing needed a code of the factor it replaces (issue); a first enrolment needs more.
    const first = !replaced && !(await this.o.store.anyTotp());
    if (!replaced && !first) {
      const expiresAt = now + AWAITING_MS;
      const details = { approver, user: person.user, expires_at: iso(expiresAt) };
      if (!(await this.o.store.awaitTotpApproval(approver, pending!.sealedSecret, step!, now, expiresAt, this.entry('totp_awaiting_approval', who, details)))) gone();
      // The check code goes to this connection only (the person's terminal), never to the log.
      const check = enrolmentCheck(this.o.factor.open(approver, pending!.sealedSecret));
      return { approver, user: person.user, state: 'awaiting_approval' as const, expires_at: iso(expiresAt), check };
    }
    if (first) enforce(mayEnrolFirstApprover(who));
    const ok = await this.o.store.confirmTotp(approver, pending!.sealedSecret, step!, now, this.entry('totp_enrolled', who, { approver, replaced, ...(first ? { first_approver: true } : {}) }));
    if (!ok) gone();
    return { approver, user: person.user, state: 'confirmed' as const };
  }

  /**
   * Another approver, with their own code, vouches for people's proven first enrolments (one
   * or a few, each named with the check code the person read out): from now on they count. Each
   * person's first code proved they hold the secret; the check code says it is the secret the
   * approver was told of, not one an agent running as the person enrolled over it since. All or
   * none: nothing is approved, and no code spent, when one cannot be.
   */
  async approve(who: Caller, req: ParsedParams<'totp.approve'>) {
    const asked = new Map(req.enrolments.map((e) => [e.user, e.check]));
    const users = [...asked.keys()];
    const now = this.o.now();
    const enrolments: { owner: Person; approver: string; sealedSecret: string }[] = [];
    // Everything is said before any code is asked for (and spent).
    for (const [user, check] of asked) {
      const owner = await this.account(user);
      enforce(mayApproveEnrolment(who, owner));
      const approver = this.o.name(owner);
      const pending = await this.o.store.pendingTotp(approver);
      if (!pending || pending.confirmedStep === null || pending.expiresAt <= now) {
        fail('validation', 'no_enrolment_awaiting', `${approver} has no enrolment waiting for approval: they have not enrolled, not typed their first code yet, or it lapsed after ${AWAITING_MS / 3600_000} hours`, `${owner.user} runs \`airlock totp enroll\` from their own account, then you approve it`);
      }
      if (enrolmentCheck(this.o.factor.open(approver, pending!.sealedSecret)) !== check) {
        fail(
          'authorization',
          'enrolment_check_mismatch',
          `the enrolment waiting for ${approver} is not the one whose check code you were given: ${owner.user}, or something running as them, enrolled again since`,
          `ask ${owner.user} whether they enrolled again; if not, reset it (\`sudo airlock totp reset --user ${owner.user}\`) and have them enrol at their own terminal, then approve the check code it shows them`,
        );
      }
      enrolments.push({ owner, approver, sealedSecret: pending!.sealedSecret });
    }
    const names = [...asked].map(([u, c]) => `--user ${u} --check ${c}`).join(' ');
    const spend = await this.ownCode(who, req.totp_code, { what: `approving the second factor of ${users.join(', ')}`, how: `run \`airlock totp approve ${names}\` in a terminal: it asks for your code` });
    const approvedBy = this.o.name(who.person!);
    const outcome = await this.o.store.approveTotp(
      enrolments.map((e) => ({ approver: e.approver, sealedSecret: e.sealedSecret, entry: this.entry('totp_enrolled', who, { approver: e.approver, replaced: false, approved_by: approvedBy }) })),
      now,
      spend,
    );
    if (outcome === 'step_spent') return refuseSpentCode(spend.step, now);
    if (outcome === 'gone') fail('validation', 'no_enrolment_awaiting', 'an enrolment was replaced, reset or lapsed meanwhile: none was approved', 'look at who enrolled again, then approve again');
    return { approved: enrolments.map((e) => ({ approver: e.approver, user: e.owner.user })), state: 'confirmed' as const, approved_by: approvedBy };
  }

  /** The host's account named `name`, or validation/no_such_user. */
  private async account(name: string): Promise<Person> {
    const account = (await this.o.host.users()).find((u) => u.name === name);
    if (!account) fail('validation', 'no_such_user', `there is no user ${name} on this host`);
    return { uid: account!.uid, user: account!.name };
  }

  /**
   * An admin approver, through sudo, deletes another person's factor (and any pending secret),
   * and with `passkeys` their passkeys too (a lost phone holds both), with their own code; the
   * owner enrols again as if for the first time.
   */
  async reset(who: Caller, req: ParsedParams<'totp.reset'>) {
    const name = req.user;
    const owner = await this.account(name);
    enforce(mayReset(who, owner));
    const approver = this.o.name(owner);
    const passkeys = req.passkeys === true;
    // Nothing to reset is said before any code is asked for (and spent).
    const noFactor = () => fail('validation', 'no_factor', `${approver} has no second factor${passkeys ? ' and no passkey' : ''} to reset`, `${name} enrols with \`airlock totp enroll\``);
    const holds = (await this.o.store.totp(approver)) || (await this.o.store.pendingTotp(approver)) || (passkeys && (await this.o.store.passkeys(approver)).length > 0);
    if (!holds) noFactor();
    const how = `run \`sudo airlock totp reset --user ${name}${passkeys ? ' --passkeys' : ''}\` in a terminal: it asks for your code`;
    const spend = await this.ownCode(who, req.totp_code, { what: `resetting ${approver}'s second factor${passkeys ? ' and passkeys' : ''}`, how });
    const had = await this.o.store.resetTotp(approver, (h) => this.entry('totp_reset', who, { approver, factor: h.factor, pending: h.pending, ...(h.passkeys !== undefined ? { passkeys: h.passkeys } : {}) }), spend, { passkeys });
    if (had === 'step_spent') return refuseSpentCode(spend.step, this.o.now());
    if (!had.factor && !had.pending && !had.passkeys) noFactor();
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

  private entry<K extends EntryKind>(kind: K, who: Identity, details: EntryDetails[K]): EntryDraft {
    return entryDraft(kind, { ...DAEMON_ACT, principal: this.o.principal(who) }, details);
  }
}
