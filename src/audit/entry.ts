/**
 * Audit log entries. An entry's canonical bytes are JCS of the entry object, which
 * carries its sequence number and the previous entry's hash; the signature covers
 * the log-entry domain tag and those bytes. The entry hash (SHA-256 of the bytes)
 * chains the next entry and will serve as a Merkle leaf.
 */
import { hash } from 'node:crypto';
import { canonicalize } from '../protocol/canonical.js';
import type { Risk, Role } from '../protocol/risk.js';
import { DOMAIN_LOG_ENTRY } from './domains.js';
import { ed25519Sign, ed25519Verify, SIGNATURE_HEX, type SigningKey } from './keys.js';
import type { EntryDetails, EntryKind } from './entry-details.js';
import type { KeyObject } from 'node:crypto';

export { ENTRY_KINDS, type EntryKind } from './entry-details.js';

export interface EntryPrincipal {
  uid: number;
  user: string;
  role: Role;
  /** For a uid-0 peer: the person behind it ("alice(uid 1001) via sudo"), or "none: why". */
  person?: string;
  /** For a uid-0 peer: the witnesses read through its pidfd (null when unset). */
  sudo_uid?: number | null;
  login_uid?: number | null;
  /**
   * "console": the person acted through the web console, signed in with their passkey (their uid
   * is theirs, the connection the console's); "fleet": their passkey's assertion of a fleet
   * approval named them, carried by another connection (the entry's details name the carrier).
   */
  via?: 'console' | 'fleet';
}

/** What every entry says besides its kind and details: the transaction it concerns, and who acted. */
export interface EntryHeader {
  transaction_id: string | null;
  action_name: string | null;
  risk: Risk | null;
  request_hash: string | null;
  principal: EntryPrincipal | null;
}

/** The header of an entry that concerns no transaction and is the daemon's own act. */
export const DAEMON_ACT: EntryHeader = { transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null };

/** A draft of one kind: its details typed by that kind's schema (entry-details.ts). */
export type EntryDraftOf<K extends EntryKind> = EntryHeader & {
  kind: K;
  /** Authorization facts only: never command output, never secrets. */
  details: EntryDetails[K];
};

/** What a caller supplies; the log fills in seq, time, key id and the chain. A union over kind: a wrong detail does not compile. */
export type EntryDraft = { [K in EntryKind]: EntryDraftOf<K> }[EntryKind];

/** The one way to build a draft from a kind, a header and that kind's details. */
export function entryDraft<K extends EntryKind>(kind: K, header: EntryHeader, details: EntryDetails[K]): EntryDraft {
  // TypeScript does not see that EntryDraftOf<K> for one K is a member of the union over all K.
  return { ...header, kind, details } as EntryDraftOf<K> as EntryDraft;
}

/** A value of an entry's details as a log holds it. */
export type DetailValue = string | number | boolean | null | string[];

/**
 * An entry as sealed, or as read back from a log: its details are whatever the signed bytes
 * hold (a log keeps entries of earlier shapes), so a reader checks each value it uses.
 */
export interface LogEntry extends EntryHeader {
  kind: EntryKind;
  details: Readonly<Record<string, DetailValue>>;
  seq: number;
  ts: string;
  key_id: string;
  prev_hash: string;
}

export interface SealedEntry {
  seq: number;
  /** Canonical JSON of the LogEntry: the exact signed bytes. */
  body: string;
  /** Hex Ed25519 signature. */
  sig: string;
  /** Hex SHA-256 of body. */
  hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

export function sealEntry(key: SigningKey, draft: EntryDraft, seq: number, prevHash: string, now = new Date()): SealedEntry {
  const entry: LogEntry = { ...draft, seq, ts: now.toISOString(), key_id: key.keyId, prev_hash: prevHash };
  const body = canonicalize(entry);
  const sig = ed25519Sign(key, entryMessage(body)).toString('hex');
  return { seq, body, sig, hash: entryHash(body) };
}

/** What an entry's signature covers: the log-entry domain tag, then the stored body's UTF-8 bytes. */
export function entryMessage(body: string): Buffer {
  // One allocation, the body written in place (a verifier builds one per entry).
  const message = Buffer.allocUnsafe(DOMAIN_LOG_ENTRY.length + Buffer.byteLength(body, 'utf8'));
  DOMAIN_LOG_ENTRY.copy(message, 0);
  message.write(body, DOMAIN_LOG_ENTRY.length, 'utf8');
  return message;
}

/** Hex SHA-256 of the stored body: what the next entry's prev_hash and checkpoints carry. */
export function entryHash(body: string): string {
  return hash('sha256', body, 'hex'); // the one-shot form: half the cost of a createHash chain
}

export function entrySignatureValid(publicKey: KeyObject, body: string, sigHex: string): boolean {
  return SIGNATURE_HEX.test(sigHex) && ed25519Verify(publicKey, entryMessage(body), Buffer.from(sigHex, 'hex'));
}
