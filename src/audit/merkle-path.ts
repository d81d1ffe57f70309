/**
 * The one walk every Merkle proof check makes: from a node up to the root of a tree of
 * `size` leaves, taking one proof hash per level where the node has a sibling. Inclusion
 * (from a leaf), RFC 9162 consistency and subtree consistency (from a subtree's rightmost
 * complete node) all reduce to it, so the length rules live in one place.
 */
import { isHash, nodeHash } from './merkle-hash.js';

/** Proofs longer than this cannot belong to a tree of fewer than 2^53 leaves. */
export const MAX_PROOF_HASHES = 2 * 53 + 1;

export function isSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** An array (not just array-like) of at most MAX_PROOF_HASHES 32-byte Buffers. */
export function checkProofShape(proof: unknown): proof is readonly Buffer[] {
  return Array.isArray(proof) && proof.length <= MAX_PROOF_HASHES && proof.every(isHash);
}

export interface Walked {
  /** The tree's root, rebuilt from seed and every proof hash. */
  root: Buffer;
  /**
   * The seed folded with only the left siblings below `innerLevel`: the hash of the leaves
   * from the start of the seed's level-`innerLevel` ancestor up to the seed's end, i.e.
   * the older tree (or subtree) a consistency proof speaks of.
   */
  inner: Buffer;
}

/**
 * Walks from node (level, index), whose hash is seed, to the root of the tree of `size`.
 * At each level: an odd index has a left sibling (complete, inside the older tree when below
 * innerLevel); an even index before the level's last node has a right sibling (possibly cut
 * off by size, never inside the older tree); the last node, when even, has none and rises
 * as it is. Returns null unless the proof has exactly one hash per sibling.
 */
export function walkPath(
  level: number,
  index: number,
  size: number,
  seed: Buffer,
  proof: readonly Buffer[],
  innerLevel: number,
): Walked | null {
  let last = Math.floor((size - 1) / 2 ** level);
  if (index > last) return null;
  let root = seed;
  let inner = seed;
  let used = 0;
  for (; last > 0; level += 1, index = Math.floor(index / 2), last = Math.floor(last / 2)) {
    if (index % 2 === 1) {
      const left = proof[used++];
      if (left === undefined) return null;
      root = nodeHash(left, root);
      if (level < innerLevel) inner = nodeHash(left, inner);
    } else if (index < last) {
      const right = proof[used++];
      if (right === undefined) return null;
      root = nodeHash(root, right);
    }
  }
  return used === proof.length ? { root, inner } : null;
}
