/**
 * What a passkey (WebAuthn) approval is bound to, computed the same way by the daemon that
 * verifies it and by any client that asks for it (the console): the challenge of an approval is
 * derived from the transaction, the digest of the preview the person was shown (a plan's covers
 * every step: src/protocol/plan.ts) and the approval's deadline. The authenticator signs over
 * it, so an assertion approves that preview of that transaction and nothing else; a preview
 * made again is another transaction, with another challenge.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from './canonical.js';
import { fail } from './errors.js';
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

/** Domain separation of a fleet approval: one assertion over the entries of many hosts. */
const FLEET_DOMAIN = 'airlock-passkey-fleet-v1\0';

/**
 * The most hosts one fleet approval names: a person reads every entry before they sign, and each
 * host's daemon checks the whole list (the fleet's relay keeps about this many sessions open).
 */
export const MAX_FLEET_HOSTS = 256;
/** A host as the fleet's relay names it (an SSH destination: a name, an IPv4 or IPv6 address), as a label the person reads. */
export const FLEET_HOST = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$/;
/** param-schemas.ts TRANSACTION_ID, not imported from there: that file loads zod, and the command line's start-up loads this one. */
const TX_ID = /^tx_[0-9a-f]{24}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const ENTRY_KEYS = ['expires_at', 'host', 'preview_digest', 'tx'];

/**
 * One host's part of a fleet plan: its transaction, the digest of the preview the person was
 * shown for it, and its approval deadline in milliseconds (what approvalChallenge signs).
 */
export interface FleetEntry {
  host: string;
  tx: string;
  preview_digest: string;
  expires_at: number;
}

/**
 * The challenge (base64url, 32 bytes) one passkey assertion signs to approve a fleet plan: the
 * SHA-256, under its own domain, of the canonical JSON (RFC 8785) of the entries sorted by host
 * then transaction, so the order the relay lists them in does not matter. Each host's daemon
 * approves only its own entry, and the signature covers every other one: an entry added, dropped
 * or changed is another challenge. Refuses (validation/bad_fleet) an empty list, more than
 * MAX_FLEET_HOSTS, an entry of another shape, and a host or a transaction named twice (a host
 * has one transaction in a fleet plan: several changes of one host are one plan).
 */
export function fleetChallenge(entries: readonly FleetEntry[]): string {
  const problem = fleetProblem(entries);
  if (problem) fail('validation', 'bad_fleet', `the fleet approval's entries are refused: ${problem}`, `list 1 to ${MAX_FLEET_HOSTS} entries {host, tx, preview_digest, expires_at}, one per host`);
  const sorted = [...entries].map(({ host, tx, preview_digest, expires_at }) => ({ host, tx, preview_digest, expires_at })).sort((a, b) => compare(a.host, b.host) || compare(a.tx, b.tx));
  return createHash('sha256').update(`${FLEET_DOMAIN}${canonicalize(sorted)}`).digest('base64url');
}

/** What is wrong with a fleet list, in words, or null. */
function fleetProblem(entries: readonly FleetEntry[]): string | null {
  if (!Array.isArray(entries) || entries.length === 0) return 'no entries';
  if (entries.length > MAX_FLEET_HOSTS) return `${entries.length} entries, more than ${MAX_FLEET_HOSTS}`;
  const hosts = new Set<string>();
  const txs = new Set<string>();
  for (const [i, e] of entries.entries()) {
    if (typeof e !== 'object' || e === null || Object.keys(e).sort().join() !== ENTRY_KEYS.join()) return `entry ${i} is not {host, tx, preview_digest, expires_at}`;
    if (typeof e.host !== 'string' || !FLEET_HOST.test(e.host)) return `entry ${i}: the host is not a host name or address`;
    if (typeof e.tx !== 'string' || !TX_ID.test(e.tx)) return `entry ${i}: the transaction is not tx_ and 24 hex digits`;
    if (typeof e.preview_digest !== 'string' || !DIGEST.test(e.preview_digest)) return `entry ${i}: the preview digest is not 64 hex digits`;
    if (!Number.isSafeInteger(e.expires_at) || e.expires_at < 0) return `entry ${i}: expires_at is not a time in milliseconds`;
    if (hosts.has(e.host)) return `host ${e.host} is named twice`;
    if (txs.has(e.tx)) return `transaction ${e.tx} is named twice`;
    hosts.add(e.host);
    txs.add(e.tx);
  }
  return null;
}

/** By UTF-16 code units, as canonical JSON orders keys: the same order in every language. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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
