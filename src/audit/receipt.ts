/**
 * Approval receipts: an Ed25519 signature, with the approval key (never the audit
 * key), over the transaction, the request hash, who approved, who may execute, the
 * expiry and a random nonce. The store keeps only SHA-256 of the receipt.
 */
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { DOMAIN_RECEIPT, frameFields } from './domains.js';
import { ed25519Sign, ed25519Verify, type SigningKey } from './keys.js';

export interface ReceiptClaims {
  transactionId: string;
  requestHash: string;
  approver: string;
  executor: string;
  /** ISO-8601 UTC. */
  expiresAt: string;
}

const PREFIX = 'alr1.';
const NONCE_BYTES = 16;

/** What a receipt's signature covers: the receipt domain tag, then each claim and the nonce framed. */
export function receiptMessage(c: ReceiptClaims, nonce: Buffer): Buffer {
  return Buffer.concat([DOMAIN_RECEIPT, frameFields([c.transactionId, c.requestHash, c.approver, c.executor, c.expiresAt, nonce.toString('hex')])]);
}

/**
 * Mints a receipt with a fresh random nonce. Only the known-answer vectors
 * (scripts/gen-vectors.ts) pass a nonce of their own, so that their output is fixed.
 */
export function mintReceipt(key: SigningKey, claims: ReceiptClaims, nonce: Buffer = randomBytes(NONCE_BYTES)): { receipt: string; commitment: string } {
  if (nonce.length !== NONCE_BYTES) throw new RangeError(`a receipt nonce is ${NONCE_BYTES} bytes`);
  const sig = ed25519Sign(key, receiptMessage(claims, nonce));
  const receipt = PREFIX + Buffer.concat([nonce, sig]).toString('base64url');
  return { receipt, commitment: receiptCommitment(receipt) };
}

export function receiptCommitment(receipt: string): string {
  return createHash('sha256').update(receipt, 'utf8').digest('hex');
}

/** True when the receipt is well-formed and signed by the approval key for exactly these claims. */
export function verifyReceipt(key: { readonly publicKey: KeyObject }, claims: ReceiptClaims, receipt: string): boolean {
  if (typeof receipt !== 'string' || !receipt.startsWith(PREFIX) || receipt.length > 200) return false;
  const raw = Buffer.from(receipt.slice(PREFIX.length), 'base64url');
  if (raw.length !== NONCE_BYTES + 64 || raw.toString('base64url') !== receipt.slice(PREFIX.length)) return false;
  return ed25519Verify(key.publicKey, receiptMessage(claims, raw.subarray(0, NONCE_BYTES)), raw.subarray(NONCE_BYTES));
}
