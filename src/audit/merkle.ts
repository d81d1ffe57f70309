/**
 * The log's Merkle tree (RFC 9162 section 2.1): every log entry is a leaf, its data the
 * entry's stored body (the signed bytes). Leaf hash SHA-256(0x00 || data), node hash
 * SHA-256(0x01 || left || right), the empty tree SHA-256(""). The per-entry hash chain
 * stays beside it (LACS section 7); the tree lets anyone check one entry's inclusion, or
 * that one tree head extends another, with O(log n) hashes and the public key alone.
 *
 * Stores keep the hash of every complete subtree (a "node": level L, index I covers
 * leaves [I * 2^L, (I + 1) * 2^L)), written with the entries in the same transaction.
 * Proofs are assembled from those nodes: every proof hash is the hash of a range of
 * leaves, and every range splits into at most 2 log n complete subtrees.
 *
 * SKELETON: interface agreed for issue 14; implementation lands with the merkle branch.
 */

export interface NodeId {
  level: number;
  index: number;
}

export interface StoredNode extends NodeId {
  hash: Buffer;
}

/** Reads the hashes of complete subtrees, in the order asked; throws when one is missing. */
export type NodeReader = (nodes: readonly NodeId[]) => Promise<Buffer[]>;

export declare const EMPTY_ROOT: Buffer;
export declare function leafHash(data: Buffer | string): Buffer;
export declare function nodeHash(left: Buffer, right: Buffer): Buffer;

/**
 * The right edge of a tree being built: O(log n) hashes. Appending a leaf returns the
 * complete-subtree nodes that leaf finished (the leaf itself at level 0 first), which a
 * store writes with the entry.
 */
export declare class MerkleFrontier {
  get size(): number;
  append(leaf: Buffer): StoredNode[];
  root(): Buffer;
  /** The frontier of a tree of `size` leaves, from its stored nodes. */
  static load(size: number, read: NodeReader): Promise<MerkleFrontier>;
}

/** The root of the first `size` leaves of a stored tree. */
export declare function rootAt(size: number, read: NodeReader): Promise<Buffer>;
/** RFC 9162 2.1.3.1: the inclusion proof of leaf `index` in the tree of `size`. */
export declare function inclusionProof(index: number, size: number, read: NodeReader): Promise<Buffer[]>;
/** RFC 9162 2.1.4.1: the consistency proof from the tree of size1 to the tree of size2. */
export declare function consistencyProof(size1: number, size2: number, read: NodeReader): Promise<Buffer[]>;
/** RFC 9162 2.1.3.2. */
export declare function verifyInclusion(index: number, size: number, leaf: Buffer, proof: readonly Buffer[], root: Buffer): boolean;
/** RFC 9162 2.1.4.2. */
export declare function verifyConsistency(size1: number, size2: number, proof: readonly Buffer[], root1: Buffer, root2: Buffer): boolean;
