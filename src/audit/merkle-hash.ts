/**
 * RFC 9162 section 2.1.1 hashing: leaves and interior nodes are domain-separated by a
 * one-byte prefix so that no leaf can pass for a node (second-preimage resistance).
 */
import { createHash, hash } from 'node:crypto';

export const HASH_SIZE = 32;

/** The hash of the empty tree: SHA-256 of no bytes. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

// The verifier hashes every entry of a million-entry log, and a node for each: the one-shot
// crypto.hash over a reused scratch buffer costs about a third of a createHash chain, and its hex
// output, decoded, is faster than its 'buffer' output on Node 20. Both run synchronously, so one
// scratch buffer per thread is safe.
const LEAF_SCRATCH = Buffer.allocUnsafe(8192);
const NODE_SCRATCH = Buffer.allocUnsafe(1 + 2 * HASH_SIZE);

/** SHA-256(0x00 || data); a string is hashed as its UTF-8 bytes. */
export function leafHash(data: Buffer | string): Buffer {
  // A UTF-8 character is at most 3 bytes per UTF-16 unit: a string this short always fits.
  if (typeof data === 'string' && 1 + 3 * data.length <= LEAF_SCRATCH.length) {
    LEAF_SCRATCH[0] = 0;
    const n = LEAF_SCRATCH.write(data, 1, 'utf8');
    return Buffer.from(hash('sha256', LEAF_SCRATCH.subarray(0, 1 + n), 'hex'), 'hex');
  }
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}
const LEAF_PREFIX = Buffer.of(0);

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
  NODE_SCRATCH[0] = 1;
  left.copy(NODE_SCRATCH, 1);
  right.copy(NODE_SCRATCH, 1 + HASH_SIZE);
  return Buffer.from(hash('sha256', NODE_SCRATCH, 'hex'), 'hex');
}

/** A value from outside is a hash only if it is a Buffer of exactly HASH_SIZE bytes. */
export function isHash(value: unknown): value is Buffer {
  return Buffer.isBuffer(value) && value.length === HASH_SIZE;
}
