/**
 * The web console's methods (`airlock console`, its own account: the door's `console` access).
 * The console relays and decides nothing: a person signs in with a passkey assertion the daemon
 * verifies (passkeys.ts signIn) over a once-only challenge (console-sessions.ts), and every
 * request of theirs then goes through the ordinary door as that person (`console.call`,
 * dispatch.ts), an approval only with a fresh assertion over that transaction's challenge; the
 * one kind of request a person makes there is a grant for configuration edits (the actions that
 * declare `requestedAtConsole`), approved with their passkey like any other. A
 * registration a person began at their own terminal (passkey.begin) is answered here by their
 * browser (a new credential, or a passkey of theirs from another host signing) and parked until
 * their terminal finishes it (passkey.register).
 */
import { fail } from '../../protocol/errors.js';
import { escapeText } from '../../protocol/escape-text.js';
import type { ParsedParams, ResultOf } from '../../protocol/methods.js';
import { passkeyId, registrationCheck } from '../../protocol/passkey.js';
import { CATALOGUE } from '../../catalogue/index.js';
import { consoleIdentity } from '../identity.js';
import { iso, type Request, type VerbContext } from './context.js';

/** The actions a person may request from the console's own form (their declaration). */
const AT_CONSOLE = [...CATALOGUE.values()].filter((a) => a.requestedAtConsole).map((a) => a.name);

/** A sign-in's options: a random challenge, once only, for whichever of the person's passkeys (a passkey is discoverable). */
export async function signInOptions(ctx: VerbContext, _r: Request<ParsedParams<'console.sign_in_options'>>): Promise<ResultOf<'console.sign_in_options'>> {
  const { id, challenge } = ctx.consoleSessions.challenge();
  return { challenge_id: id, options: await ctx.passkeys.signInOptions(challenge) };
}

/** A person signs in: whose passkey signed the challenge, verified; the session token goes to the console alone. */
export async function signIn(ctx: VerbContext, r: Request<ParsedParams<'console.sign_in'>>): Promise<ResultOf<'console.sign_in'>> {
  const challenge = ctx.consoleSessions.take(r.params.challenge_id);
  const person = await ctx.passkeys.signIn(r.params.assertion, challenge);
  if (!consoleIdentity(person.uid, r.caller.pid)) fail('authorization', 'no_role', `${person.user} has no account or no airlock role on this host any more`, 'an administrator adds them to an airlock group');
  const { token, session } = ctx.consoleSessions.open({ approver: person.key, uid: person.uid, user: person.user }, ctx.policy.console.sessionMs);
  return { session: token, approver: person.key, user: person.user, expires_at: iso(session.expiresAt) };
}

export async function signOut(ctx: VerbContext, r: Request<ParsedParams<'console.sign_out'>>): Promise<ResultOf<'console.sign_out'>> {
  return { signed_out: ctx.consoleSessions.close(r.params.session) };
}

/**
 * One request of the signed-in person, through the door as them (their own groups decide, as if
 * they had connected themselves). An approval relayed here is a passkey assertion, never a code:
 * a code typed into a page proves less than the passkey the person signed in with.
 */
export async function call(ctx: VerbContext, r: Request<ParsedParams<'console.call'>>): Promise<unknown> {
  const s = ctx.consoleSessions.get(r.params.session);
  const who = consoleIdentity(s.uid, r.caller.pid);
  if (!who) return fail('authorization', 'no_role', `${s.user} has no account or no airlock role on this host any more`, 'an administrator adds them to an airlock group');
  const params = r.params.params ?? {};
  if (r.params.method === 'approve' && (params.assertion === undefined || params.totp_code !== undefined)) {
    fail('authorization', 'assertion_required', 'an approval through the console is a passkey assertion of that transaction, never a code', "ask for the transaction's approval options (passkey.approval_options) and approve with your passkey");
  }
  if ((r.params.method === 'preview' || r.params.method === 'execute') && !(typeof params.action_name === 'string' && CATALOGUE.get(params.action_name)?.requestedAtConsole)) {
    fail('authorization', 'not_relayed', `the console requests only ${AT_CONSOLE.join(', ')}`, 'request any other action at a terminal or through an agent; the console approves it');
  }
  return ctx.relay(who, r.params.method, params, r.signal, r.notice);
}

/** The options of a registration a person began at their terminal, for the page their link opened (the name an exported file gave a passkey from another host escaped, as any text a client shows). */
export async function registrationOptions(ctx: VerbContext, r: Request<ParsedParams<'console.registration_options'>>): Promise<ResultOf<'console.registration_options'>> {
  const reg = ctx.passkeys.registration(r.params.registration_id);
  return { approver: reg.person.key, user: reg.person.user, options: reg.options, ...(reg.proof ? { proof: reg.proof } : {}), ...(reg.existing ? { existing: true as const, existing_passkey: { passkey_id: passkeyId(reg.existing.credentialId), name: escapeText(reg.existing.name) } } : {}), expires_at: iso(reg.expiresAt), check: registrationCheck(reg.id) };
}

/**
 * The browser's answer to that registration (a new credential, or the assertion of a passkey
 * registered on another host when it was begun with `existing`): verified, and parked for the
 * person's terminal to finish.
 */
export async function registrationResponse(ctx: VerbContext, r: Request<ParsedParams<'console.registration_response'>>): Promise<ResultOf<'console.registration_response'>> {
  const reg = await ctx.passkeys.park(r.params.registration_id, r.params, r.params.assertion);
  return { approver: reg.person.key, check: registrationCheck(reg.id) };
}
