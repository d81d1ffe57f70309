/**
 * What a passkey (WebAuthn) approval is bound to, computed the same way by the daemon that
 * verifies it and by any client that asks for it (the console): the challenge of an approval is
 * derived from the transaction, the digest of the preview the person was shown (a plan's covers
 * every step: src/protocol/plan.ts) and the approval's deadline. The authenticator signs over
 * it, so an assertion approves that preview of that transaction and nothing else; a preview
 * made again is another transaction, with another challenge.
 */
import { createHash } from 'node:crypto';
import { matchCode } from './match-code.js';

/** Domain separation: these bytes are never the input of another hash of the protocol. */
const APPROVAL_DOMAIN = 'airlock-passkey-approval-v1\0';

/** Domain separation of an approval that also grants a session (the "this session" lane). */
const SESSION_DOMAIN = 'airlock-passkey-session-v1\0';

/**
 * The challenge (base64url, 32 bytes) an approval of this preview is signed over. With
 * `sessionMinutes`, the approval also lets identical requests of the same requester through for
 * that long (src/daemon/session-grants.ts): another domain, and the minutes are signed too, so an
 * assertion made for one approval cannot be turned into a session, nor a short one into a longer.
 */
export function approvalChallenge(txId: string, previewDigest: string, expiresAtMs: number, sessionMinutes?: number): string {
  const input = sessionMinutes === undefined ? `${APPROVAL_DOMAIN}${txId}\0${previewDigest}\0${expiresAtMs}` : `${SESSION_DOMAIN}${txId}\0${previewDigest}\0${expiresAtMs}\0${sessionMinutes}`;
  return createHash('sha256').update(input).digest('base64url');
}

/** Domain separation of a registration's proof by a passkey the person holds already. */
const REGISTRATION_PROOF_DOMAIN = 'airlock-passkey-registration-proof-v1\0';

/**
 * The challenge a passkey the person holds signs to vouch for a new one: derived from the new
 * registration's own random challenge, so the proof is good for that registration only.
 */
export function registrationProofChallenge(registrationChallenge: string): string {
  return createHash('sha256').update(`${REGISTRATION_PROOF_DOMAIN}${registrationChallenge}`).digest('base64url');
}

/**
 * A passkey's short name in the log, the doctor and the console: the first 16 hex digits of the
 * SHA-256 of its credential id (an id is up to 1,023 bytes, chosen by the authenticator).
 */
export function passkeyId(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('hex').slice(0, 16);
}

/**
 * The check code of a registration begun at a terminal and answered in a browser: the terminal
 * and the console page show the same one, so the person sees the page is finishing their own
 * registration (a link sent by someone else shows another code). Not a secret.
 */
export function registrationCheck(registrationId: string): string {
  return matchCode(createHash('sha256').update(`airlock-passkey-registration-check-v1\0${registrationId}`).digest('hex'));
}
