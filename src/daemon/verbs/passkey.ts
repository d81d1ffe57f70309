/**
 * The passkey methods (the ceremonies and their checks: passkeys.ts). The door let in only who
 * may call each: a person registers their own passkeys (`enroller`: the person behind the
 * connection is whose passkey it is), and asks for the options of an approval only where they
 * may approve (the `approver` rule). A new passkey counts only with the person's current factor
 * spent in the same store transaction as its signed `passkey_registered` entry; whoever the
 * policy names is told, since a passkey nobody remembers registering is an agent's.
 */
import { DAEMON_ACT, entryDraft } from '../../audit/entry.js';
import { fail } from '../../protocol/errors.js';
import type { ParsedParams, ResultOf } from '../../protocol/methods.js';
import { passkeyId, registrationCheck } from '../../protocol/passkey.js';
import type { Risk } from '../../protocol/risk.js';
import { needsPasskey } from '../../policy/passkey-settings.js';
import type { Caller } from '../authz.js';
import { principalName } from '../identity.js';
import type { PasskeyPerson } from '../passkeys.js';
import type { PasskeyUse, SpentStep } from '../../store/store.js';
import { personKey } from '../../protocol/person-key.js';
import { entryPrincipal, iso, type Request, type TxRequest, type VerbContext } from './context.js';

/** The person behind the connection (the door's `enroller` access saw one stands there). */
const personOf = (who: Caller): PasskeyPerson => ({ key: personKey(who.person!), user: who.person!.user });

/** Starts a registration: the options the person's browser passes to navigator.credentials.create(). */
export async function begin(ctx: VerbContext, r: Request<ParsedParams<'passkey.begin'>>): Promise<ResultOf<'passkey.begin'>> {
  const person = personOf(r.caller);
  const { id, options, expiresAt, proof } = await ctx.passkeys.begin(person, r.params.existing);
  return { approver: person.key, options, expires_at: iso(expiresAt), ...(proof ? { proof } : {}), registration_id: id, link: `${ctx.policy.console.url}/register#${id}`, check: registrationCheck(id), ...(r.params.existing ? { existing: true as const } : {}) };
}

/** The public part of one of the caller's own passkeys, to register it on another host (passkey.begin `existing` there). */
export async function exportPasskey(ctx: VerbContext, r: Request<ParsedParams<'passkey.export'>>): Promise<ResultOf<'passkey.export'>> {
  const person = personOf(r.caller);
  const p = (await ctx.store.passkeys(person.key)).find((k) => passkeyId(k.credentialId) === r.params.passkey_id);
  if (!p) return fail('validation', 'no_such_passkey', `${person.user} holds no passkey ${r.params.passkey_id} on this host`, 'see your passkeys and their ids with `airlock doctor`');
  return { credential_id: p.credentialId, public_key: p.publicKey.toString('base64url'), rp_id: ctx.policy.passkeys.rpId, name: p.name, transports: p.transports };
}

/**
 * Stores the passkey the person's browser created, vouched for by the factor they hold now: a
 * passkey of theirs when they hold one (then a TOTP code is not enough: a code an agent saw typed
 * adds no passkey), their TOTP code otherwise.
 */
export async function register(ctx: VerbContext, r: Request<ParsedParams<'passkey.register'>>): Promise<ResultOf<'passkey.register'>> {
  const who = r.caller;
  const person = personOf(who);
  const holds = (await ctx.store.passkeys(person.key)).length > 0;
  const { response, existing_assertion: existing } = r.params;
  if (response && existing) fail('validation', 'bad_registration', 'give a new credential (`response`) or the assertion of a passkey from another host (`existing_assertion`), not both', 'send the one your registration was begun for');
  // The browser answered on this connection (`response`, or a passkey from another host signed: `existing_assertion`), or through the console, which parked it (passkeys.ts park).
  const relayed = response || existing ? null : ctx.passkeys.parked(person);
  const direct = response ? await ctx.passkeys.verifyRegistration(person, response) : existing ? await ctx.passkeys.verifyExisting(person, existing) : null;
  const fresh = direct ?? relayed!.fresh;
  let proof: SpentStep | PasskeyUse;
  if (relayed?.proof) proof = relayed.proof;
  else if (holds) {
    if (!r.params.assertion || !direct) {
      fail('authorization', 'passkey_proof_required', `${person.user} holds a passkey: a new one is vouched for by an assertion of one they hold, not by a code`, 'begin again, and sign the `proof` options passkey.begin returns with a passkey you hold; send it as `assertion`');
    }
    proof = await ctx.passkeys.verifyProof(person, r.params.assertion!, direct!.challenge);
  } else {
    proof = await ctx.enrolment.ownCode(who, r.params.totp_code, {
      what: `registering a passkey for ${person.key}`,
      how: 'give the 6-digit code your authenticator app shows now, with the new passkey',
    });
  }
  const now = ctx.now();
  const id = passkeyId(fresh.credentialId);
  const name = r.params.name ?? `passkey ${id.slice(0, 6)}`;
  const factor = 'step' in proof ? 'totp' : 'passkey';
  const entry = entryDraft('passkey_registered', { ...DAEMON_ACT, principal: entryPrincipal(who) }, { approver: person.key, passkey_id: id, name, rp_id: ctx.policy.passkeys.rpId, factor, ...(existing || relayed?.existing ? { existing: true as const } : {}) });
  const { credentialId, publicKey, counter, transports } = fresh;
  const outcome = await ctx.store.addPasskey({ credentialId, publicKey, counter, transports, approver: person.key, name, createdAt: now, lastUsedAt: null }, proof, entry);
  if (relayed && outcome !== 'step_spent') ctx.passkeys.finish(person);
  if (outcome === 'exists') fail('validation', 'passkey_exists', 'this passkey is registered on this host already', 'use it: nothing else is needed');
  if (outcome === 'step_spent') fail('authorization', 'totp_spent', 'that code was already used', 'wait for the next code, then register again (ask for new registration options first)');
  if (outcome === 'passkey_replayed') fail('authorization', 'passkey_replayed', "the vouching passkey's assertion was used already, or its counter went back", 'begin again and sign the new proof options');
  ctx.notify({ event: 'passkey_registered', approver: person.key, by: principalName(who), at: iso(now) });
  return { approver: person.key, passkey_id: id, name, registered_at: iso(now) };
}

/** What the approver's browser asks their authenticator to sign to approve this transaction. */
export async function approvalOptions(ctx: VerbContext, r: TxRequest<ParsedParams<'passkey.approval_options'>>): Promise<ResultOf<'passkey.approval_options'>> {
  const { tx } = r;
  if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`);
  const person = personOf(r.caller);
  const options = await ctx.passkeys.approvalOptions(person, tx, r.params.session_minutes);
  return { transaction_id: tx.id, preview_digest: tx.previewDigest, options, required: passkeyRequired(ctx, r.approval!.selfApproval, tx.risk) };
}

/** Whether the policy in force accepts nothing but a passkey for an approval of this risk, by its requester or not. */
export function passkeyRequired(ctx: VerbContext, selfApproval: boolean, risk: Risk): boolean {
  return needsPasskey(ctx.policy.passkeys, risk, selfApproval);
}
