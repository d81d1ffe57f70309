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
 * Everywhere below a "leaf" is a leaf HASH (leafHash(body)), never the body itself: the
 * vector suite and the proofs work on hashes, and one meaning avoids a silent mix-up.
 *
 * Sizes and indexes are JavaScript numbers, so they are checked to be safe integers
 * (< 2^53) and the arithmetic avoids the 32-bit bitwise operators. Verification functions
 * return false for every malformed input (they read text from outside); proof generation
 * throws AirlockError, since its arguments come from our own code or a validated request.
 */
import { AirlockError } from '../protocol/errors.js';
import { EMPTY_ROOT, isHash, nodeHash } from './merkle-hash.js';
import { checkProofShape, isSize, walkPath } from './merkle-path.js';

export interface NodeId {
  level: number;
  index: number;
}

export interface StoredNode extends NodeId {
  hash: Buffer;
}

/** Reads the hashes of complete subtrees, in the order asked; throws when one is missing. */
export type NodeReader = (nodes: readonly NodeId[]) => Promise<Buffer[]>;

export { EMPTY_ROOT, HASH_SIZE, leafHash, nodeHash } from './merkle-hash.js';

/**
 * The right edge of a tree being built: O(log n) hashes. Appending a leaf returns the
 * complete-subtree nodes that leaf finished (the leaf itself at level 0 first), which a
 * store writes with the entry.
 */
export class MerkleFrontier {
  // The complete subtrees of the binary decomposition of size, largest (leftmost) first:
  // one per set bit of size, so at most 53 hashes.
  #edge: Buffer[];
  #size: number;

  private constructor(size: number, edge: Buffer[]) {
    this.#size = size;
    this.#edge = edge;
  }

  static empty(): MerkleFrontier {
    return new MerkleFrontier(0, []);
  }

  get size(): number {
    return this.#size;
  }

  /** An independent copy: a store appends to a copy inside a transaction and keeps it only on commit. */
  clone(): MerkleFrontier {
    return new MerkleFrontier(this.#size, [...this.#edge]);
  }

  /** The returned hashes are shared with the frontier's state: write them, do not modify them. */
  append(leaf: Buffer): StoredNode[] {
    if (!isHash(leaf)) throw new AirlockError('validation', 'merkle_leaf_invalid', 'a Merkle leaf must be a 32-byte leaf hash');
    if (!Number.isSafeInteger(this.#size + 1)) throw new AirlockError('validation', 'merkle_tree_full', 'the Merkle tree is at its size limit');
    let index = this.#size;
    let level = 0;
    let hash: Buffer = Buffer.from(leaf); // our own copy: the caller may reuse its buffer
    const done: StoredNode[] = [{ level, index, hash }];
    // Each set low bit of the old size is a complete left sibling now joined by a right one.
    while (index % 2 === 1) {
      const left = this.#edge.pop() as Buffer;
      hash = nodeHash(left, hash);
      index = (index - 1) / 2;
      level += 1;
      done.push({ level, index, hash });
    }
    this.#edge.push(hash);
    this.#size += 1;
    return done;
  }

  /**
   * append() for a reader that stores nothing (a verifier walking a million entries): the same
   * tree, without the list of finished nodes or a copy of the leaf. The leaf must not change after.
   */
  push(leaf: Buffer): void {
    if (!isHash(leaf)) throw new AirlockError('validation', 'merkle_leaf_invalid', 'a Merkle leaf must be a 32-byte leaf hash');
    if (!Number.isSafeInteger(this.#size + 1)) throw new AirlockError('validation', 'merkle_tree_full', 'the Merkle tree is at its size limit');
    let hash = leaf;
    for (let index = this.#size; index % 2 === 1; index = (index - 1) / 2) hash = nodeHash(this.#edge.pop() as Buffer, hash);
    this.#edge.push(hash);
    this.#size += 1;
  }

  root(): Buffer {
    return foldRight(this.#edge);
  }

  /** The frontier of a tree of `size` leaves, from its stored nodes. */
  static async load(size: number, read: NodeReader): Promise<MerkleFrontier> {
    const ids = MerkleFrontier.edgeIds(size);
    return MerkleFrontier.fromEdge(size, await readNodes(read, ids));
  }

  /** The nodes a frontier of `size` leaves holds: the complete subtrees of size's binary decomposition, largest first. */
  static edgeIds(size: number): NodeId[] {
    if (!isSize(size)) throw badRange(`tree size ${size} is not a non-negative safe integer`);
    return rangeNodes(0, size);
  }

  /** For a synchronous store: the frontier from the hashes of edgeIds(size), in that order. */
  static fromEdge(size: number, hashes: readonly Buffer[]): MerkleFrontier {
    const ids = MerkleFrontier.edgeIds(size);
    if (hashes.length !== ids.length || !hashes.every(isHash)) {
      throw new AirlockError('integrity', 'merkle_node_invalid', `a frontier of ${size} leaves needs ${ids.length} 32-byte hashes`);
    }
    return new MerkleFrontier(size, hashes.map((h) => Buffer.from(h)));
  }
}

/** The root of the first `size` leaves of a stored tree. */
export async function rootAt(size: number, read: NodeReader): Promise<Buffer> {
  if (!isSize(size)) throw badRange(`tree size ${size} is not a non-negative safe integer`);
  return foldRight(await readNodes(read, rangeNodes(0, size)));
}

/** RFC 9162 2.1.3.1: the inclusion proof of leaf `index` in the tree of `size`. */
export async function inclusionProof(index: number, size: number, read: NodeReader): Promise<Buffer[]> {
  if (!isSize(index) || !isSize(size) || index >= size) throw badRange(`no leaf ${index} in a tree of ${size}`);
  return assemble(pathRanges(0, index, size), read);
}

/** RFC 9162 2.1.4.1: the consistency proof from the tree of size1 to the tree of size2. */
export async function consistencyProof(size1: number, size2: number, read: NodeReader): Promise<Buffer[]> {
  if (!isSize(size1) || !isSize(size2) || size1 === 0 || size1 > size2) {
    throw badRange(`no consistency proof from size ${size1} to size ${size2} (needs 0 < size1 <= size2)`);
  }
  if (size1 === size2) return [];
  // The old tree's rightmost complete subtree is the seed; the proof is that seed (left out
  // when it is the whole old tree, which the verifier already holds) and then its path to
  // the new root. The old root is the seed folded with the path's left siblings.
  const level = trailingZeros(size1);
  const seed = Math.floor((size1 - 1) / 2 ** level);
  const ranges: Range[] = [];
  if (size1 !== 2 ** level) ranges.push(nodeRange(level, seed));
  ranges.push(...pathRanges(level, seed, size2));
  return assemble(ranges, read);
}

/** RFC 9162 2.1.3.2. */
export function verifyInclusion(index: number, size: number, leaf: Buffer, proof: readonly Buffer[], root: Buffer): boolean {
  if (!isSize(index) || !isSize(size) || index >= size) return false;
  if (!isHash(leaf) || !isHash(root) || !checkProofShape(proof)) return false;
  const walked = walkPath(0, index, size, leaf, proof, 0);
  return walked !== null && walked.root.equals(root);
}

/**
 * RFC 9162 2.1.4.2. Equal sizes are consistent exactly when the roots are the same bytes
 * (with an empty proof); a consistency proof from the empty tree proves nothing and is refused.
 */
export function verifyConsistency(size1: number, size2: number, proof: readonly Buffer[], root1: Buffer, root2: Buffer): boolean {
  if (!isSize(size1) || !isSize(size2) || size1 === 0 || size1 > size2) return false;
  if (!Array.isArray(proof) || !Buffer.isBuffer(root1) || !Buffer.isBuffer(root2)) return false;
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  return verifySubtreeConsistency(0, size1, size2, proof, root1, root2);
}

/**
 * A subtree [start, end) is a "valid subtree" (Merkle Tree Certificates draft, and
 * transparency-dev/merkle's subtree proofs) when its leaves sit under one node of the tree
 * with nothing of that node to their left: start is a multiple of the smallest power of two
 * >= end - start. Its hash is the tree hash of those leaves alone.
 */
export function isValidSubtree(start: number, end: number): boolean {
  if (!isSize(start) || !isSize(end) || start > end) return false;
  if (start === 0 || start === end) return true;
  return start % bitCeil(end - start) === 0;
}

/** Inclusion of leaf `index` in the valid subtree [start, end) whose hash is `root`. */
export function verifySubtreeInclusion(
  index: number,
  start: number,
  end: number,
  leaf: Buffer,
  proof: readonly Buffer[],
  root: Buffer,
): boolean {
  if (!isValidSubtree(start, end) || !isSize(index) || index < start || index >= end) return false;
  // A valid subtree is the tree of its own leaves, so the proof is an ordinary one shifted by start.
  return verifyInclusion(index - start, end - start, leaf, proof, root);
}

/**
 * That the valid subtree [start, end) with hash subRoot is part of the tree of `size` with
 * hash root. For start = 0 this is RFC 9162 consistency (and equal sizes need an empty proof).
 */
export function verifySubtreeConsistency(
  start: number,
  end: number,
  size: number,
  proof: readonly Buffer[],
  subRoot: Buffer,
  root: Buffer,
): boolean {
  if (!isValidSubtree(start, end) || !isSize(size) || end > size) return false;
  if (!Array.isArray(proof) || !Buffer.isBuffer(subRoot) || !Buffer.isBuffer(root)) return false;
  // The empty subtree is in every tree; it must be presented as the empty tree's hash.
  if (start === end) return proof.length === 0 && subRoot.equals(EMPTY_ROOT);
  if (start === 0 && end === size) return proof.length === 0 && subRoot.equals(root);
  if (proof.length === 0 || !checkProofShape(proof) || !isHash(subRoot) || !isHash(root)) return false;
  const subLevel = levelOf(start, end);
  let level: number;
  let seed: Buffer;
  let rest: readonly Buffer[];
  if (end === size) {
    // The subtree's own node lies on the tree's right edge, so its hash there is subRoot:
    // the proof is only the left siblings above it.
    level = subLevel;
    seed = subRoot;
    rest = proof;
  } else {
    // The seed is the subtree's rightmost complete node; the proof carries it unless the
    // subtree is itself complete.
    level = trailingZeros(end - start);
    const complete = end - start === 2 ** level;
    seed = complete ? subRoot : (proof[0] as Buffer); // proof is not empty here
    rest = complete ? proof : proof.slice(1);
  }
  const seedIndex = Math.floor((end - 1) / 2 ** level);
  const walked = walkPath(level, seedIndex, size, seed, rest, subLevel);
  return walked !== null && walked.root.equals(root) && walked.inner.equals(subRoot);
}

// --- proof assembly from stored nodes ---

/** A range of leaves [start, end) whose hash a proof needs. */
interface Range {
  start: number;
  end: number;
}

function nodeRange(level: number, index: number): Range {
  return { start: index * 2 ** level, end: (index + 1) * 2 ** level };
}

/**
 * The ranges of the siblings on the path from node (level, index) to the root of the tree
 * of `size`, lowest first: a left sibling is always complete, a right one may be cut off by
 * size, and a node with no sibling (the tree's last at its level, a left child) is promoted.
 */
function pathRanges(level: number, index: number, size: number): Range[] {
  const ranges: Range[] = [];
  let last = Math.floor((size - 1) / 2 ** level);
  for (; last > 0; level += 1, index = Math.floor(index / 2), last = Math.floor(last / 2)) {
    if (index % 2 === 1) ranges.push(nodeRange(level, index - 1));
    else if (index < last) {
      const r = nodeRange(level, index + 1);
      ranges.push({ start: r.start, end: Math.min(r.end, size) });
    }
  }
  return ranges;
}

/**
 * The complete subtrees of [start, end), left to right, for a range that starts on a
 * boundary of its own size class (every range a proof or a root needs does): greedily the
 * largest aligned power of two that fits.
 */
function rangeNodes(start: number, end: number): NodeId[] {
  const ids: NodeId[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (2 ** (level + 1) <= end - at && at % 2 ** (level + 1) === 0) level += 1;
    ids.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return ids;
}

/** One read for every node of every range, then each range's hash folded from its nodes. */
async function assemble(ranges: readonly Range[], read: NodeReader): Promise<Buffer[]> {
  const perRange = ranges.map((r) => rangeNodes(r.start, r.end));
  const hashes = await readNodes(read, perRange.flat());
  const out: Buffer[] = [];
  let at = 0;
  for (const ids of perRange) {
    out.push(foldRight(hashes.slice(at, at + ids.length)));
    at += ids.length;
  }
  return out;
}

async function readNodes(read: NodeReader, ids: readonly NodeId[]): Promise<Buffer[]> {
  if (ids.length === 0) return [];
  const hashes = await read(ids);
  // The reader is a store: trust nothing about its answer's shape.
  if (!Array.isArray(hashes) || hashes.length !== ids.length || !hashes.every(isHash)) {
    throw new AirlockError('integrity', 'merkle_node_invalid', `the store answered ${ids.length} Merkle node reads with something else`);
  }
  return hashes;
}

/** The tree hash of adjacent complete subtrees, largest first: MTH splits off the left one each time. */
function foldRight(nodes: readonly Buffer[]): Buffer {
  let hash: Buffer | undefined;
  for (let i = nodes.length - 1; i >= 0; i -= 1) {
    const node = nodes[i] as Buffer;
    hash = hash === undefined ? node : nodeHash(node, hash);
  }
  return hash ?? EMPTY_ROOT;
}

// --- integer helpers (safe integers, no 32-bit bitwise operators) ---

function trailingZeros(n: number): number {
  let zeros = 0;
  while (n % 2 === 0) {
    n /= 2;
    zeros += 1;
  }
  return zeros;
}

function bitCeil(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** The level of the node holding the valid subtree [start, end): the bit length of (end - 1) xor start. */
function levelOf(start: number, end: number): number {
  let level = 0;
  for (let a = start, b = end - 1; a !== b; a = Math.floor(a / 2), b = Math.floor(b / 2)) level += 1;
  return level;
}

function badRange(message: string): AirlockError {
  return new AirlockError('validation', 'merkle_proof_range', message);
}
