/**
 * RFC 9162 section 2.1.1 hashing: leaves and interior nodes are domain-separated by a
 * one-byte prefix so that no leaf can pass for a node (second-preimage resistance).
 */
import { createHash } from 'node:crypto';

export const HASH_SIZE = 32;

/** The hash of the empty tree: SHA-256 of no bytes. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** SHA-256(0x00 || data); a string is hashed as its UTF-8 bytes. */
export function leafHash(data: Buffer | string): Buffer {
  // A string goes to the hash as UTF-8 directly: no copy of the body (the verifier hashes every entry).
  return typeof data === 'string' ? createHash('sha256').update(LEAF_PREFIX).update(data, 'utf8').digest() : createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}
const LEAF_PREFIX = Buffer.of(0);

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
}

/** A value from outside is a hash only if it is a Buffer of exactly HASH_SIZE bytes. */
export function isHash(value: unknown): value is Buffer {
  return Buffer.isBuffer(value) && value.length === HASH_SIZE;
}
