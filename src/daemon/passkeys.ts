/**
 * Passkeys (WebAuthn) as an approval factor, verified here by the daemon with a kept library
 * (@simplewebauthn/server): whatever relays a ceremony (a browser, the console) carries bytes
 * the person's authenticator signed, and decides nothing.
 *
 * - Registration: `begin` issues a random challenge for the person behind the connection (one
 *   at a time, for REGISTRATION_TTL_MS, used once whether it succeeds or not); `register`
 *   verifies the new credential against it, the policy's RP ID and origins, and user
 *   verification. The verb then stores it only with the person's current factor spent.
 * - Approval: the challenge is not random but derived from the transaction, the preview digest
 *   and the approval's deadline (src/protocol/passkey.ts), so an assertion approves that
 *   preview and nothing else; the credential must be the approver's own; user verification is
 *   required; the signature counter moves forward with the approval in one store transaction
 *   (store.ts PasskeyUse), so the same assertion never counts twice.
 *
 * The RP ID and origins come from the root-owned policy ([passkeys], passkey-settings.ts) and
 * never from the request.
 */
import { createHash, randomBytes } from 'node:crypto';
import { fail } from '../protocol/errors.js';
import { parsePersonKey } from '../protocol/person-key.js';
import { approvalChallenge, passkeyId, registrationProofChallenge } from '../protocol/passkey.js';
import type { PasskeyAssertion, PasskeyPublic, PasskeyRegistration } from '../protocol/wire/passkey.js';
import type { FleetApproval } from '../audit/entry-details.js';
import type { PasskeySettings } from '../policy/passkey-settings.js';
import type { PasskeyRecord, PasskeyUse, Store, TxRecord } from '../store/store.js';

/**
 * The WebAuthn library and its ASN.1 and CBOR parsers, loaded at the first ceremony rather than
 * at start-up: a host where nobody uses a passkey never loads them, and the daemon's first
 * requests do not wait for them.
 */
let webauthn: Promise<typeof import('@simplewebauthn/server')> | undefined;
const lib = () => (webauthn ??= import('@simplewebauthn/server'));

/** How long a registration's challenge stays valid: long enough to find the security key. */
export const REGISTRATION_TTL_MS = 5 * 60_000;
/** The most registrations begun and not finished at once (one per person): a bounded map. */
export const MAX_PENDING_REGISTRATIONS = 256;
/** The most passkeys one person may hold: each is a way in, and the approval options list them all. */
export const MAX_PASSKEYS_PER_PERSON = 16;
/** EdDSA, ES256, RS256: what authenticators offer; the library verifies each. */
const ALGORITHMS = [-8, -7, -257];
/** How long a browser may wait for the person, in the options it is given. */
const CEREMONY_TIMEOUT_MS = 120_000;

export interface PasskeysOptions {
  store: Store;
  now: () => number;
  /** Names this host to the person's authenticator ("Airlock on web-1"). */
  hostName: string;
  /** The [passkeys] settings of the policy in force (a reload changes them). */
  settings: () => PasskeySettings;
}

/** A person as the daemon keys their factors: alice(uid 1001) (protocol/person-key.ts), and their login name. */
export interface PasskeyPerson {
  key: string;
  user: string;
}

/** A verified new credential, not yet stored. */
export type NewPasskey = Pick<PasskeyRecord, 'credentialId' | 'publicKey' | 'counter' | 'transports'>;

/** A registration's answer the console relayed, verified: the passkey to store, the proof vouching for it, and whether it came from another host. */
export interface Parked {
  fresh: NewPasskey;
  proof?: PasskeyUse & { passkeyId: string };
  existing?: true;
}

/** What a browser answers a registration with: a new credential (`response`), or the assertion of a passkey from another host (`existing_assertion`). */
export interface RegistrationAnswer {
  response?: PasskeyRegistration;
  existing_assertion?: PasskeyAssertion;
}

/** A registration under way: begun by the person at their own connection, answered by their browser directly or through the console. */
interface Registration {
  /** Names it to the console (random, 128 bits): the console learns it only from the person's link. */
  id: string;
  person: PasskeyPerson;
  challenge: string;
  expiresAt: number;
  options: Record<string, unknown>;
  proof?: Record<string, unknown>;
  /** Verified at the console, waiting for the person's terminal; `existing`: a passkey from another host, which signed `challenge`. */
  parked?: Parked;
  /** A passkey registered on another host, to be registered here once it signs `challenge`. */
  existing?: { credentialId: string; publicKey: Buffer; transports: string[]; name: string };
}

export class Passkeys {
  /** Registrations under way, by person: one each. `parked`: a credential the console relayed, verified, waiting for the person's terminal to finish it. */
  private readonly pending = new Map<string, Registration>();

  constructor(private readonly o: PasskeysOptions) {}

  /** The WebAuthn user handle of a person on this host: stable, opaque, not their uid. */
  private userHandle(person: PasskeyPerson): Uint8Array {
    return createHash('sha256').update(`airlock-passkey-user-v1\0${this.o.hostName}\0${person.key}`).digest();
  }

  /**
   * Starts a registration for `person`: the options their browser passes to
   * navigator.credentials.create(); with `existing` (a passkey of theirs registered on another
   * host, for the same RP ID), navigator.credentials.get() options over a fresh random challenge
   * that this passkey, and no other, signs to show the person holds it.
   */
  async begin(person: PasskeyPerson, existing?: PasskeyPublic): Promise<{ id: string; options: Record<string, unknown>; expiresAt: number; proof?: Record<string, unknown> }> {
    const now = this.o.now();
    for (const [k, p] of this.pending) if (p.expiresAt <= now) this.pending.delete(k);
    if (!this.pending.has(person.key) && this.pending.size >= MAX_PENDING_REGISTRATIONS) {
      fail('transient', 'too_many_registrations', `${MAX_PENDING_REGISTRATIONS} passkey registrations are under way on this host`, 'try again in a few minutes');
    }
    const held = await this.o.store.passkeys(person.key);
    if (held.length >= MAX_PASSKEYS_PER_PERSON) {
      fail('authorization', 'too_many_passkeys', `${person.user} holds ${held.length} passkeys, the most one person may`, 'remove one you no longer use first');
    }
    const s = this.o.settings();
    if (existing) return this.beginExisting(person, existing, held, now);
    const generated = await (await lib()).generateRegistrationOptions({
      rpName: `Airlock on ${this.o.hostName}`,
      rpID: s.rpId,
      userName: `${person.user}@${this.o.hostName}`,
      userDisplayName: person.user,
      userID: this.userHandle(person) as Uint8Array<ArrayBuffer>,
      attestationType: 'none',
      excludeCredentials: held.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
      timeout: CEREMONY_TIMEOUT_MS,
    });
    const options = generated as unknown as Record<string, unknown>;
    // A person who holds a passkey vouches for the new one with it (a TOTP code no longer adds one).
    const proof = held.length ? await this.requestOptions(held, registrationProofChallenge(generated.challenge)) : undefined;
    const r: Registration = { id: randomBytes(16).toString('base64url'), person, challenge: generated.challenge, expiresAt: now + REGISTRATION_TTL_MS, options, ...(proof ? { proof } : {}) };
    this.pending.set(person.key, r);
    return { id: r.id, options, expiresAt: r.expiresAt, ...(proof ? { proof } : {}) };
  }

  private async beginExisting(person: PasskeyPerson, existing: PasskeyPublic, held: PasskeyRecord[], now: number) {
    const rpId = this.o.settings().rpId;
    // A passkey is bound to its RP ID: one made for another signs nothing this host's policy accepts.
    if (existing.rp_id !== rpId) fail('validation', 'rp_id_mismatch', `that passkey was made for the RP ID ${existing.rp_id}, and this host's policy names ${rpId}`, 'give the hosts of one fleet the same [passkeys] rp_id and origins, or register a new passkey here');
    if (await this.o.store.passkeyByCredential(existing.credential_id)) fail('validation', 'passkey_exists', 'this passkey is registered on this host already', 'use it: nothing else is needed');
    const challenge = randomBytes(32).toString('base64url');
    const options = await this.requestOptions([{ credentialId: existing.credential_id, transports: existing.transports }], challenge);
    const proof = held.length ? await this.requestOptions(held, registrationProofChallenge(challenge)) : undefined;
    const r: Registration = {
      id: randomBytes(16).toString('base64url'),
      person,
      challenge,
      expiresAt: now + REGISTRATION_TTL_MS,
      options,
      ...(proof ? { proof } : {}),
      existing: { credentialId: existing.credential_id, publicKey: Buffer.from(existing.public_key, 'base64url'), transports: existing.transports, name: existing.name },
    };
    this.pending.set(person.key, r);
    return { id: r.id, options, expiresAt: r.expiresAt, ...(proof ? { proof } : {}) };
  }

  /** The registration the console names by its id (from the person's link), not expired. */
  registration(id: string): Registration {
    const now = this.o.now();
    const r = [...this.pending.values()].find((p) => p.id === id && p.expiresAt > now);
    if (!r) fail('authorization', 'registration_not_begun', 'no passkey registration under way has that id (it expired, was finished, or was begun again)', 'run `airlock passkey add` again at your terminal and open the link it prints');
    return r!;
  }

  /**
   * The console relays the browser's answer to registration `id`: the new credential, or for a
   * registration begun with `existing` that passkey's assertion over its challenge, is verified
   * (and, for a person who holds a passkey, the assertion vouching for it) and parked until the
   * person's own connection finishes it (passkey.register). Answered once; an answer of the
   * other kind than the registration's is refused.
   */
  async park(id: string, answer: RegistrationAnswer, assertion: PasskeyAssertion | undefined): Promise<Registration> {
    const r = this.registration(id);
    if (r.parked) fail('validation', 'registration_answered', 'this registration was answered already', 'finish it at your terminal, or begin again');
    const { response, existing_assertion: signed } = answer;
    if ((response === undefined) === (signed === undefined)) fail('validation', 'bad_registration', 'give a new credential (`response`) or the assertion of a passkey from another host (`existing_assertion`): exactly one', 'send the one this registration was begun for');
    if (r.existing && response) fail('validation', 'bad_registration', 'this registration is of a passkey registered on another host: it is answered by that passkey\'s assertion (`existing_assertion`), not a new credential', 'sign with the passkey you registered on the other host');
    if (!r.existing && signed) fail('validation', 'bad_registration', 'this registration is of a new passkey: it is answered by the credential the browser creates (`response`), not an assertion', 'create the new passkey on this page');
    const fresh = signed ? await this.verifyExistingAssertion(r, signed) : await this.verifyCredential(r, response!);
    let proof: (PasskeyUse & { passkeyId: string }) | undefined;
    if (r.proof) {
      if (!assertion) fail('authorization', 'passkey_proof_required', `${r.person.user} holds a passkey: a new one is vouched for by an assertion of one they hold`, 'sign the proof options with a passkey you hold');
      proof = await this.verifyProof(r.person, assertion!, r.challenge);
    }
    // Answered meanwhile (two pages at once, each verified in turn): the first stands.
    if (r.parked) fail('validation', 'registration_answered', 'this registration was answered already', 'finish it at your terminal, or begin again');
    r.parked = { fresh, ...(proof ? { proof } : {}), ...(r.existing ? { existing: true as const } : {}) };
    return r;
  }

  /** The parked answer of `person`'s registration, or authorization/registration_not_ready while the browser has not answered. */
  parked(person: PasskeyPerson): Parked {
    const r = this.pending.get(person.key);
    if (!r || r.expiresAt <= this.o.now()) fail('authorization', 'registration_not_begun', `no passkey registration of ${person.user} is under way${r ? ' (it expired)' : ''}`, 'run `airlock passkey add` again');
    if (!r!.parked) fail('authorization', 'registration_not_ready', 'the browser has not answered this registration yet', 'open the link `airlock passkey add` printed, in your browser, and create the passkey there');
    return r!.parked!;
  }

  /** Forgets `person`'s registration (stored, or given up). */
  finish(person: PasskeyPerson): void {
    this.pending.delete(person.key);
  }

  /**
   * Verifies the credential a browser created for `person` and sent on their own connection,
   * against the challenge `begin` gave them (spent now, whatever comes of it).
   */
  async verifyRegistration(person: PasskeyPerson, response: PasskeyRegistration): Promise<NewPasskey & { challenge: string }> {
    const r = this.take(person);
    if (r.existing) fail('validation', 'bad_registration', 'this registration is of a passkey registered on another host: it is answered by that passkey\'s assertion (`existing_assertion`), not a new credential', 'begin again');
    return { ...(await this.verifyCredential(r, response)), challenge: r.challenge };
  }

  /**
   * Verifies that the passkey a registration named as `existing` signed its challenge (from an
   * allowed origin, for the policy's RP ID, with user verification): the person holds it. The
   * challenge is spent whatever comes of it. Returns it as a new passkey of this host, its
   * counter where the assertion left it.
   */
  async verifyExisting(person: PasskeyPerson, assertion: PasskeyAssertion): Promise<NewPasskey & { challenge: string }> {
    const r = this.take(person);
    if (!r.existing) return fail('validation', 'bad_registration', 'this registration is of a new passkey: it is answered by the credential the browser creates (`response`)', 'begin again with `existing` to register a passkey from another host');
    return { ...(await this.verifyExistingAssertion(r, assertion)), challenge: r.challenge };
  }

  /**
   * The one check of a passkey from another host, whichever way its assertion came (the person's
   * connection, verifyExisting; the console, park): by the credential `r` names (its id, and a
   * rawId that is the same), verifying with the public key brought from the other host over
   * `r`'s challenge, from an allowed origin, for the policy's RP ID, with user verification.
   */
  private async verifyExistingAssertion(r: Registration, assertion: PasskeyAssertion): Promise<NewPasskey> {
    const e = r.existing!;
    if (assertion.id !== e.credentialId || assertion.rawId !== assertion.id) fail('authorization', 'bad_registration', 'the assertion is not by the passkey this registration names', 'sign with the passkey you exported');
    const s = this.o.settings();
    let verified;
    try {
      verified = await (await lib()).verifyAuthenticationResponse({
        response: assertion as never,
        expectedChallenge: r.challenge,
        expectedOrigin: s.origins,
        expectedRPID: s.rpId,
        credential: { id: e.credentialId, publicKey: new Uint8Array(e.publicKey), counter: 0, transports: e.transports as never },
        requireUserVerification: true,
      });
    } catch (err) {
      return fail('authorization', 'bad_registration', `the passkey from another host does not verify: ${brief(err)}`, `sign this registration's options from ${s.origins.join(' or ')}, with your PIN or biometrics; then try again`);
    }
    if (!verified.verified) fail('authorization', 'bad_registration', 'the passkey from another host does not verify', 'begin again');
    return { credentialId: e.credentialId, publicKey: e.publicKey, counter: verified.authenticationInfo.newCounter, transports: e.transports };
  }

  /** `person`'s registration under way, taken (spent) whatever comes of it; refused when there is none or it expired. */
  private take(person: PasskeyPerson): Registration {
    const r = this.pending.get(person.key);
    this.pending.delete(person.key);
    if (!r || r.expiresAt <= this.o.now()) {
      fail('authorization', 'registration_not_begun', `no passkey registration of ${person.user} is under way${r ? ' (it expired)' : ''}`, 'start again: ask for new registration options (passkey.begin), then answer them within 5 minutes');
    }
    return r!;
  }

  /** The new credential against the registration's challenge, the policy's RP ID and origins, and user verification. */
  private async verifyCredential(r: Registration, response: PasskeyRegistration): Promise<NewPasskey> {
    const s = this.o.settings();
    let verified;
    try {
      verified = await (await lib()).verifyRegistrationResponse({
        response: response as never,
        expectedChallenge: r.challenge,
        expectedOrigin: s.origins,
        expectedRPID: s.rpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (e) {
      return fail('authorization', 'bad_registration', `the new passkey does not verify: ${brief(e)}`, `create it from ${s.origins.join(' or ')}, with your PIN or biometrics (user verification); then try again`);
    }
    if (!verified.verified) fail('authorization', 'bad_registration', 'the new passkey does not verify', 'create it again');
    const c = verified.registrationInfo!.credential;
    if (c.id !== response.id) fail('authorization', 'bad_registration', 'the credential id does not match the one the authenticator attested');
    return { credentialId: c.id, publicKey: Buffer.from(c.publicKey), counter: c.counter, transports: response.response.transports ?? [] };
  }

  /**
   * A console sign-in: whose passkey signed `challenge` (the store finds it by its credential id),
   * verified as any assertion of theirs. Returns that person.
   */
  async signIn(assertion: PasskeyAssertion, challenge: string): Promise<PasskeyPerson & { uid: number }> {
    const person = await this.signer(assertion);
    await this.verifyAssertion(person, assertion, challenge, 'sign you in', 'start the sign-in again');
    return person;
  }

  /** navigator.credentials.get() options for a sign-in over `challenge`: no credentials listed, the person's authenticator offers their (discoverable) passkey. */
  signInOptions(challenge: string): Promise<Record<string, unknown>> {
    return this.requestOptions([], challenge);
  }

  /** What a browser asks the person's authenticator to sign to approve `tx`: the derived challenge and their passkeys. */
  async approvalOptions(person: PasskeyPerson, tx: TxRecord, sessionMinutes?: number): Promise<Record<string, unknown>> {
    const held = await this.o.store.passkeys(person.key);
    if (!held.length) fail('authorization', 'no_passkey', `${person.user} has no passkey on this host`, 'register one first, from the console');
    return this.requestOptions(held, approvalChallenge(tx.id, tx.previewDigest, tx.expiresAt, sessionMinutes));
  }

  /** navigator.credentials.get() options over `challenge` (base64url) for these passkeys, user verification required. */
  private async requestOptions(held: Array<Pick<PasskeyRecord, 'credentialId' | 'transports'>>, challenge: string): Promise<Record<string, unknown>> {
    const options = await (await lib()).generateAuthenticationOptions({
      rpID: this.o.settings().rpId,
      challenge: Buffer.from(challenge, 'base64url') as Uint8Array<ArrayBuffer>,
      allowCredentials: held.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      userVerification: 'required',
      timeout: CEREMONY_TIMEOUT_MS,
    });
    return options as unknown as Record<string, unknown>;
  }

  /**
   * Verifies that `assertion` is `person`'s approval of exactly this preview of `tx`: one of
   * their passkeys, signed over the derived challenge from an allowed origin for the policy's
   * RP ID, with user verification. With `sessionMinutes`, the person signed a session of that
   * length too (the challenge covers it). With `fleet`, the challenge of a fleet plan whose
   * entries name this preview of `tx` (the caller checked that: approve-fleet.ts). Returns the
   * counter move the approval must make.
   */
  verifyApproval(person: PasskeyPerson, assertion: PasskeyAssertion, tx: TxRecord, o: { sessionMinutes?: number; fleet?: FleetApproval } = {}): Promise<PasskeyUse & { passkeyId: string }> {
    if (o.fleet) return this.verifyAssertion(person, assertion, o.fleet.digest, `approve the fleet plan of ${o.fleet.entries} hosts that names ${tx.id}`, 'sign the fleet list again, as it stands now, and send that assertion');
    const what = o.sessionMinutes === undefined ? `approve ${tx.id}` : `approve ${tx.id} with a session of ${o.sessionMinutes} minutes`;
    return this.verifyAssertion(person, assertion, approvalChallenge(tx.id, tx.previewDigest, tx.expiresAt, o.sessionMinutes), what, `ask for this transaction's approval options again (with the same session length) and approve it`);
  }

  /**
   * Whose passkey made `assertion`, as this host knows them: the person the store registered the
   * credential to (a console sign-in, and a fleet approval, whose carrier is not that person).
   * Verifies nothing yet: the caller verifies the assertion with that person's passkeys.
   */
  async signer(assertion: PasskeyAssertion): Promise<PasskeyPerson & { uid: number }> {
    const cred = await this.o.store.passkeyByCredential(assertion.id);
    const who = cred ? parsePersonKey(cred.approver) : null;
    if (!cred || !who) return fail('authorization', 'unknown_passkey', 'that passkey is not registered on this host', 'register it here first: `airlock passkey add` at your terminal (with `--existing FILE`, one registered on another host: `airlock passkey export ID` there)');
    return { key: cred.approver, user: who.user, uid: who.uid };
  }

  /** The same for a passkey the person holds vouching for the new one of a registration whose challenge was `registrationChallenge`. */
  verifyProof(person: PasskeyPerson, assertion: PasskeyAssertion, registrationChallenge: string): Promise<PasskeyUse & { passkeyId: string }> {
    return this.verifyAssertion(person, assertion, registrationProofChallenge(registrationChallenge), 'vouch for the new passkey', 'begin the registration again and sign its proof options with a passkey you hold');
  }

  private async verifyAssertion(person: PasskeyPerson, assertion: PasskeyAssertion, challenge: string, what: string, again: string): Promise<PasskeyUse & { passkeyId: string }> {
    const held = await this.o.store.passkeys(person.key);
    const cred = held.find((p) => p.credentialId === assertion.id);
    if (!cred || assertion.rawId !== assertion.id) {
      fail('authorization', 'unknown_passkey', `that passkey is not one of ${person.user}'s on this host`, 'use a passkey you registered here, signed in as yourself');
    }
    // The assertion's userHandle is not read: the authenticator's signature does not cover it (it
    // signs authenticatorData and the hash of clientDataJSON), and a passkey registered here from
    // another host (passkey.register with `existing`) carries the handle that host gave it. Whose
    // passkey it is, is the store's row, written when the person proved they hold it.
    const s = this.o.settings();
    let verified;
    try {
      verified = await (await lib()).verifyAuthenticationResponse({
        response: assertion as never,
        expectedChallenge: challenge,
        expectedOrigin: s.origins,
        expectedRPID: s.rpId,
        credential: { id: cred!.credentialId, publicKey: new Uint8Array(cred!.publicKey), counter: cred!.counter, transports: cred!.transports },
        requireUserVerification: true,
      });
    } catch (e) {
      return fail('authorization', 'bad_assertion', `the passkey assertion does not ${what}: ${brief(e)}`, `${again} from ${s.origins.join(' or ')}, with your PIN or biometrics`);
    }
    if (!verified.verified) fail('authorization', 'bad_assertion', `the passkey assertion does not ${what}`);
    return { credentialId: cred!.credentialId, approver: person.key, counter: verified.authenticationInfo.newCounter, passkeyId: passkeyId(cred!.credentialId) };
  }
}

/** The library's reason, one line, bounded: it may quote what the client sent (the client escapes it before a terminal). */
function brief(e: unknown): string {
  return String((e as Error)?.message ?? e).replace(/\s+/g, ' ').slice(0, 240);
}
