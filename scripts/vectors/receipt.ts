/**
 * receipt.json: docs/protocol.md §13. The approval key is the seed-0x01 key of the other
 * vectors for brevity (the daemon refuses to run with equal audit and approval keys).
 */
import { DOMAIN_LOG_ENTRY, DOMAIN_RECEIPT, frameFields } from '../../src/audit/domains.js';
import { ed25519Sign } from '../../src/audit/keys.js';
import { mintReceipt, receiptCommitment, receiptMessage, type ReceiptClaims } from '../../src/audit/receipt.js';
import { flipHex, header, hex, KEY, OTHER_KEY } from './common.js';

const NONCE = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

const CLAIMS: ReceiptClaims = {
  transactionId: 'tx_000000000000000000000001',
  requestHash: '1f054988b908ed780bd88b5313939d1054c2d78e23061721701c7d4ddb66762c',
  approver: 'alice(uid 1002)',
  executor: 'agent(uid 1001)',
  expiresAt: '2026-01-01T00:15:00.000Z',
};

/** The claims as the file spells them (the protocol's snake_case). */
export const claimsJson = (c: ReceiptClaims) => ({ transaction_id: c.transactionId, request_hash: c.requestHash, approver: c.approver, executor: c.executor, expires_at: c.expiresAt });

/** A receipt string from a nonce and raw signature bytes, as mintReceipt encodes it. */
const encode = (nonce: Buffer, sig: Buffer) => 'alr1.' + Buffer.concat([nonce, sig]).toString('base64url');
const decode = (receipt: string) => Buffer.from(receipt.slice(5), 'base64url');

function validCase(name: string, claims: ReceiptClaims, nonce: Buffer) {
  const { receipt, commitment } = mintReceipt(KEY.key, claims, nonce);
  const sig = decode(receipt).subarray(16);
  return { name, claims: claimsJson(claims), nonce_hex: hex(nonce), signed_message_hex: hex(receiptMessage(claims, nonce)), signature_hex: hex(sig), receipt, commitment };
}

export function receiptVectors(): unknown {
  const { receipt } = mintReceipt(KEY.key, CLAIMS, NONCE);
  const raw = decode(receipt);
  const sig = raw.subarray(16);
  const valid = [
    validCase('a receipt (the vector of docs/protocol.md §13)', CLAIMS, NONCE),
    validCase('a non-ASCII approver: each frame counts UTF-8 bytes, not characters', { ...CLAIMS, approver: 'zoë(uid 1003)' }, Buffer.alloc(16, 0xff)),
  ];
  const claim = (name: string, why: string, r: string, c: ReceiptClaims = CLAIMS) => ({ name, why, claims: claimsJson(c), receipt: r });
  const frames = frameFields([CLAIMS.transactionId, CLAIMS.requestHash, CLAIMS.approver, CLAIMS.executor, CLAIMS.expiresAt, NONCE.toString('hex')]);
  const plain = Buffer.from([CLAIMS.transactionId, CLAIMS.requestHash, CLAIMS.approver, CLAIMS.executor, CLAIMS.expiresAt, NONCE.toString('hex')].join(''), 'utf8');
  // The last base64url character carries 4 bits of the signature and 2 padding bits that must be zero.
  const last = receipt.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const sloppy = receipt.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
  const invalid = [
    claim('a bit flipped in the signature', 'the signature no longer verifies', encode(NONCE, Buffer.from(flipHex(hex(sig), 0), 'hex'))),
    claim('a bit flipped in the nonce', 'the nonce is signed', encode(Buffer.from(flipHex(hex(NONCE), 15), 'hex'), sig)),
    claim('another transaction', 'the receipt is for tx_...01 only', receipt, { ...CLAIMS, transactionId: 'tx_000000000000000000000002' }),
    claim('another request hash (one bit)', 'the receipt is for exactly these parameters', receipt, { ...CLAIMS, requestHash: flipHex(CLAIMS.requestHash, 31) }),
    claim('another approver', 'who approved is signed', receipt, { ...CLAIMS, approver: 'mallory(uid 1003)' }),
    claim('another executor', 'only the executor named may spend it', receipt, { ...CLAIMS, executor: 'other(uid 1004)' }),
    claim('a later expiry (one millisecond)', 'the expiry is signed', receipt, { ...CLAIMS, expiresAt: '2026-01-01T00:15:00.001Z' }),
    claim('signed under the log-entry domain', 'domain separation: a signature made for another purpose never verifies as a receipt', encode(NONCE, ed25519Sign(KEY.key, Buffer.concat([DOMAIN_LOG_ENTRY, frames])))),
    claim('signed without a domain tag', 'the tag is part of the message', encode(NONCE, ed25519Sign(KEY.key, frames))),
    claim('claims concatenated without length frames', 'the frames make the encoding injective', encode(NONCE, ed25519Sign(KEY.key, Buffer.concat([DOMAIN_RECEIPT, plain])))),
    claim('signed by another key', 'only the approval key mints receipts', mintReceipt(OTHER_KEY.key, CLAIMS, NONCE).receipt),
    claim('non-zero padding bits in the last character', 'it decodes to the same bytes, but base64url must round-trip: one receipt has one spelling', sloppy),
    claim('padding appended', 'base64url without padding, exactly 107 characters', receipt + '='),
    claim('the standard base64 alphabet', '"+" and "/" are not base64url', 'alr1.' + raw.toString('base64').replace(/=+$/, '')),
    claim('one character short', 'a receipt decodes to exactly 80 bytes', receipt.slice(0, -1)),
    claim('another prefix', 'the prefix names this format', 'alr2.' + receipt.slice(5)),
  ];
  const commitment = receiptCommitment(receipt);
  return {
    ...header('approval receipt', '#13-approval-receipts'),
    key: KEY.json,
    other_key: OTHER_KEY.json,
    formula: 'receipt = "alr1." || base64url_nopad(nonce[16] || Ed25519(approval_key, "airlock/v1/approval-receipt" 0x00 || F(transaction_id) || F(request_hash) || F(approver) || F(executor) || F(expires_at) || F(hex(nonce)))); F(s) = uint32_be(len(UTF8(s))) || UTF8(s); commitment = hex(SHA-256(UTF8(receipt)))',
    valid,
    invalid,
    invalid_commitments: [{ name: 'a bit flipped in the commitment', why: 'the store spends a receipt only when SHA-256 of it equals the stored commitment', receipt, claimed_commitment: flipHex(commitment, 31) }],
  };
}
