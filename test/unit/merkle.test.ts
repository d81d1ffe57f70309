/**
 * The log's Merkle tree against three independent references: the transparency-dev/merkle
 * vector suite (every file of test/data/merkle, each must give its wantErr exactly), the
 * RFC 9162 roots of TOOLCHAIN.md, and a naive recursive MTH written here. Proofs come from
 * a node map built by the frontier, as a store would keep it; mutated proofs must fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EMPTY_ROOT,
  MerkleFrontier,
  consistencyProof,
  inclusionProof,
  leafHash,
  nodeHash,
  rootAt,
  verifyConsistency,
  verifyInclusion,
  verifySubtreeConsistency,
  verifySubtreeInclusion,
  type NodeId,
  type NodeReader,
} from '../../src/audit/merkle.js';
import { AirlockError } from '../../src/protocol/errors.js';

/** The suite, kept in the repository with its licence (test/data/merkle/README.md). */
const VECTORS = join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'merkle');

// --- the vector suite ---

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : [],
  );
}

const b64 = (s: unknown): Buffer => Buffer.from(typeof s === 'string' ? s : '', 'base64');
const proofOf = (p: unknown): Buffer[] => (Array.isArray(p) ? p.map(b64) : []);

type Case = Record<string, unknown> & { wantErr: boolean; desc: string };
const kinds: Record<string, (c: Case) => boolean> = {
  inclusion: (c) => verifyInclusion(c.leafIdx as number, c.treeSize as number, b64(c.leafHash), proofOf(c.proof), b64(c.root)),
  consistency: (c) => verifyConsistency(c.size1 as number, c.size2 as number, proofOf(c.proof), b64(c.root1), b64(c.root2)),
  subtreeinclusion: (c) =>
    verifySubtreeInclusion(c.leafIdx as number, c.start as number, c.end as number, b64(c.leafHash), proofOf(c.proof), b64(c.root)),
  subtreeconsistency: (c) =>
    verifySubtreeConsistency(c.start as number, c.end as number, c.size as number, proofOf(c.proof), b64(c.root1), b64(c.root2)),
};

for (const [kind, verify] of Object.entries(kinds)) {
  test(`vector suite: every ${kind} file gives its wantErr`, () => {
    const files = jsonFiles(join(VECTORS, kind));
    assert.ok(files.length >= 50, `${kind}: the suite is there (${files.length} files)`);
    let happy = 0;
    for (const file of files) {
      const c = JSON.parse(readFileSync(file, 'utf8')) as Case;
      assert.equal(typeof c.wantErr, 'boolean', `${file}: has wantErr`);
      const ok = verify(c);
      assert.equal(!ok, c.wantErr, `${relative(VECTORS, file)} (${c.desc}): verified=${ok}, wantErr=${c.wantErr}`);
      if (ok) happy += 1;
    }
    assert.ok(happy > 0, `${kind}: some files are meant to verify`);
  });
}

// --- RFC 9162 roots (TOOLCHAIN.md "Merkle test vectors") ---

const RFC_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) =>
  Buffer.from(h, 'hex'),
);

/** MTH of RFC 9162 2.1.1, written directly from its definition. */
function naiveRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leafHash(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(naiveRoot(leaves.slice(0, k)), naiveRoot(leaves.slice(k)));
}

/** A store's node map, filled from what the frontier returns, and a reader that counts its calls. */
function buildTree(leaves: readonly Buffer[]) {
  const nodes = new Map<string, Buffer>();
  const frontier = MerkleFrontier.empty();
  const roots: Buffer[] = [frontier.root()];
  for (const leaf of leaves) {
    for (const n of frontier.append(leafHash(leaf))) {
      const key = `${n.level}/${n.index}`;
      assert.ok(!nodes.has(key), `node ${key} is finished once`);
      nodes.set(key, n.hash);
    }
    roots.push(frontier.root());
  }
  let reads = 0;
  const read: NodeReader = async (ids: readonly NodeId[]) => {
    reads += 1;
    return ids.map((id) => {
      const hash = nodes.get(`${id.level}/${id.index}`);
      if (!hash) throw new AirlockError('integrity', 'merkle_node_missing', `no node ${id.level}/${id.index}`);
      return hash;
    });
  };
  return { nodes, frontier, roots, read, reads: () => reads };
}

test('RFC 9162 vectors: the empty tree, and the roots of sizes 1, 3 and 8', async () => {
  assert.equal(EMPTY_ROOT.toString('hex').slice(0, 8), 'e3b0c442');
  const { roots, read } = buildTree(RFC_LEAVES);
  assert.equal(roots[0]!.toString('hex').slice(0, 8), 'e3b0c442');
  assert.equal(roots[1]!.toString('hex').slice(0, 8), '6e340b9c');
  assert.equal(roots[3]!.toString('hex').slice(0, 8), 'aeb6bcfe');
  assert.equal(roots[8]!.toString('hex').slice(0, 8), '5dc9da79');
  for (let n = 0; n <= 8; n += 1) {
    assert.deepEqual(await rootAt(n, read), naiveRoot(RFC_LEAVES.slice(0, n)), `rootAt(${n})`);
  }
  assert.equal(leafHash('a').toString('hex'), leafHash(Buffer.from('a')).toString('hex'), 'a string is hashed as UTF-8');
});

// --- randomized cross-check ---

/** A small deterministic PRNG (xorshift32) so a failure names a reproducible case. */
function prng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

const LEAVES = Array.from({ length: 2000 }, (_, i) => Buffer.from(`{"seq":${i},"body":"entry ${i}"}`));
const tree = buildTree(LEAVES);

/** Every way a proof can be tampered with; each must be refused. */
function mutations(proof: readonly Buffer[], rand: (n: number) => number): Buffer[][] {
  const out: Buffer[][] = [];
  if (proof.length > 0) {
    const i = rand(proof.length);
    const flipped = proof.map((p) => Buffer.from(p));
    flipped[i]![rand(32)]! ^= 1 << rand(8);
    out.push(flipped);
    out.push(proof.slice(0, -1)); // truncated
    out.push(proof.slice(1)); // first hash dropped
    if (proof.length > 1) out.push([proof[1]!, proof[0]!, ...proof.slice(2)]); // reordered
  }
  out.push([...proof, EMPTY_ROOT]); // trailing hash
  out.push([EMPTY_ROOT, ...proof]); // preceding hash
  return out;
}

test('naive MTH agrees with the frontier, rootAt and a loaded frontier for every size up to 130 and random sizes to 2000', async () => {
  const rand = prng(7);
  const sizes = [...Array.from({ length: 131 }, (_, n) => n), ...Array.from({ length: 20 }, () => rand(2001)), 2000];
  for (const n of sizes) {
    const want = naiveRoot(LEAVES.slice(0, n));
    assert.deepEqual(tree.roots[n], want, `frontier root at ${n}`);
    assert.deepEqual(await rootAt(n, tree.read), want, `rootAt(${n})`);
    const loaded = await MerkleFrontier.load(n, tree.read);
    assert.equal(loaded.size, n);
    assert.deepEqual(loaded.root(), want, `loaded frontier root at ${n}`);
    if (n < LEAVES.length) {
      // A loaded frontier goes on exactly as the original did, finishing the same nodes.
      for (const node of loaded.append(leafHash(LEAVES[n]!))) assert.deepEqual(node.hash, tree.nodes.get(`${node.level}/${node.index}`));
      assert.deepEqual(loaded.root(), tree.roots[n + 1]);
    }
  }
});

test('the frontier returns the nodes each leaf finishes, and clones independently', () => {
  const f = MerkleFrontier.empty();
  for (let i = 0; i < 1000; i += 1) f.append(leafHash(String(i)));
  const copy = f.clone();
  copy.append(leafHash('more'));
  assert.equal(f.size, 1000);
  assert.equal(copy.size, 1001);
  assert.notDeepEqual(f.root(), copy.root(), 'appending to the clone leaves the original alone');
  assert.equal(JSON.stringify(f).length < 100, true, 'no per-leaf state is exposed');
  const done = f.append(leafHash('x'));
  assert.deepEqual(
    done.map((n) => [n.level, n.index]),
    [[0, 1000]],
  );
  const done2 = f.append(leafHash('y')); // leaf 1001 completes 1000..1001
  assert.deepEqual(
    done2.map((n) => [n.level, n.index]),
    [
      [0, 1001],
      [1, 500],
    ],
  );
  assert.throws(() => f.append(Buffer.alloc(31)), /32-byte/);
});

test('inclusion proofs: every leaf of every size up to 130, and random pairs up to 2000, verify; mutations fail', async () => {
  const rand = prng(11);
  const pairs: [number, number][] = [];
  for (let size = 1; size <= 130; size += 1) for (let i = 0; i < size; i += 1) pairs.push([i, size]);
  for (let k = 0; k < 500; k += 1) {
    const size = 1 + rand(2000);
    pairs.push([rand(size), size]);
  }
  for (const [index, size] of pairs) {
    const before = tree.reads();
    const proof = await inclusionProof(index, size, tree.read);
    assert.ok(tree.reads() - before <= 1, 'one batched read per proof');
    const leaf = leafHash(LEAVES[index]!);
    const root = tree.roots[size]!;
    assert.ok(verifyInclusion(index, size, leaf, proof, root), `inclusion ${index} in ${size}`);
    if (rand(8) !== 0 && size > 130) continue; // mutate all small cases, a sample of the large ones
    for (const bad of mutations(proof, rand)) assert.ok(!verifyInclusion(index, size, leaf, bad, root), `mutated ${index}/${size}`);
    assert.ok(!verifyInclusion(index, size, leafHash('other'), proof, root), 'another leaf');
    assert.ok(!verifyInclusion(index, size, leaf, proof, tree.roots[size - 1]!), 'another root');
    assert.ok(!verifyInclusion(index, size, leaf, proof, Buffer.concat([root, Buffer.of(0)])), 'a 33-byte root');
    if (index + 1 < size) assert.ok(!verifyInclusion(index + 1, size, leaf, proof, root) || proof.length === 0, 'another index');
    assert.ok(!verifyInclusion(size, size, leaf, proof, root), 'index = size');
    assert.ok(!verifyInclusion(index, size * 2, leaf, proof, root) || size * 2 === 0, 'another size');
  }
});

test('consistency proofs: every pair of sizes up to 130 and random pairs up to 2000 verify; mutations fail', async () => {
  const rand = prng(13);
  const pairs: [number, number][] = [];
  for (let size2 = 1; size2 <= 130; size2 += 1) for (let size1 = 1; size1 <= size2; size1 += 1) pairs.push([size1, size2]);
  for (let k = 0; k < 500; k += 1) {
    const size2 = 1 + rand(2000);
    pairs.push([1 + rand(size2), size2]);
  }
  for (const [size1, size2] of pairs) {
    const before = tree.reads();
    const proof = await consistencyProof(size1, size2, tree.read);
    assert.ok(tree.reads() - before <= 1, 'one batched read per proof');
    const [root1, root2] = [tree.roots[size1]!, tree.roots[size2]!];
    assert.ok(verifyConsistency(size1, size2, proof, root1, root2), `consistency ${size1} -> ${size2}`);
    // The same proof read as a subtree-consistency proof of [0, size1).
    assert.ok(verifySubtreeConsistency(0, size1, size2, proof, root1, root2), `subtree form ${size1} -> ${size2}`);
    if (size1 === size2) {
      assert.equal(proof.length, 0);
      assert.ok(!verifyConsistency(size1, size2, [EMPTY_ROOT], root1, root2), 'equal sizes take no proof');
      continue;
    }
    if (rand(8) !== 0 && size2 > 130) continue;
    for (const bad of mutations(proof, rand)) assert.ok(!verifyConsistency(size1, size2, bad, root1, root2), `mutated ${size1}/${size2}`);
    assert.ok(!verifyConsistency(size1, size2, proof, root2, root1), 'swapped roots');
    assert.ok(!verifyConsistency(size1, size2, proof, tree.roots[size1 - 1]!, root2), 'another old root');
    assert.ok(!verifyConsistency(size2, size1, proof, root2, root1), 'size1 > size2');
    assert.ok(!verifyConsistency(0, size2, proof, EMPTY_ROOT, root2), 'from the empty tree');
    if (rand(4) !== 0) continue;
    // A fork: a tree that differs in one old leaf must not pass as an extension.
    const forked = naiveRoot([...LEAVES.slice(0, size1 - 1), Buffer.from('forged'), ...LEAVES.slice(size1, size2)]);
    assert.ok(!verifyConsistency(size1, size2, proof, root1, forked), 'forked new root');
  }
});

test('subtree proofs: inclusion in random valid subtrees, and consistency of subtrees whose node lies on the right edge', async () => {
  const rand = prng(17);
  for (let k = 0; k < 150; k += 1) {
    // A valid subtree [start, end): start a multiple of the power of two holding it.
    const level = rand(8);
    const start = rand(Math.floor(1900 / 2 ** level)) * 2 ** level;
    const end = start + 1 + rand(2 ** level);
    const sub = LEAVES.slice(start, end);
    const subRoot = naiveRoot(sub);
    const local = buildTree(sub);
    const index = start + rand(end - start);
    const proof = await inclusionProof(index - start, end - start, local.read);
    assert.ok(verifySubtreeInclusion(index, start, end, leafHash(LEAVES[index]!), proof, subRoot), `subtree incl ${index} [${start},${end})`);
    assert.ok(!verifySubtreeInclusion(index, start + 1, end + 1, leafHash(LEAVES[index]!), proof, subRoot) || level === 0, 'misaligned');
    // When the subtree ends the tree, its node is complete-or-rightmost, and the proof is
    // the left siblings above it: the path of the subtree's node in the whole tree.
    const size = end;
    const levelOfSub = end - start === 1 ? 0 : Math.ceil(Math.log2(end - start));
    const nodeIndex = start / 2 ** levelOfSub;
    const lefts: Buffer[] = [];
    for (let l = levelOfSub, i = nodeIndex; i > 0; l += 1, i = Math.floor(i / 2)) {
      if (i % 2 === 1) lefts.push(naiveRoot(LEAVES.slice((i - 1) * 2 ** l, i * 2 ** l)));
    }
    const root = tree.roots[size]!;
    assert.ok(verifySubtreeConsistency(start, end, size, lefts, subRoot, root), `subtree consistency [${start},${end}) in ${size}`);
    for (const bad of mutations(lefts, rand)) assert.ok(!verifySubtreeConsistency(start, end, size, bad, subRoot, root), 'mutated');
  }
});

test('subtree consistency of subtrees inside the tree (start > 0, end < size, complete or not), with proofs built naively here', () => {
  const rand = prng(19);
  const hashes = LEAVES.map((l) => leafHash(l));
  /** MTH over leaf hashes [a, b), by the definition. */
  const mth = (a: number, b: number): Buffer => {
    if (b - a === 1) return hashes[a]!;
    let k = 1;
    while (k * 2 < b - a) k *= 2;
    return nodeHash(mth(a, a + k), mth(a + k, b));
  };
  let imperfect = 0;
  for (let k = 0; k < 120; k += 1) {
    const level = 1 + rand(7);
    const start = (1 + rand(Math.floor(1500 / 2 ** level))) * 2 ** level;
    const end = start + 1 + rand(2 ** level);
    const size = end + 1 + rand(2000 - end);
    // The proof: the subtree's rightmost complete node (unless that is the subtree), then
    // the hash of every sibling on that node's path to the root of the tree of `size`.
    let s = 0;
    while ((end - start) % 2 ** (s + 1) === 0) s += 1;
    let idx = Math.floor((end - 1) / 2 ** s);
    const proof: Buffer[] = end - start === 2 ** s ? [] : [mth(idx * 2 ** s, (idx + 1) * 2 ** s)];
    if (proof.length === 1) imperfect += 1;
    for (let l = s, last = Math.floor((size - 1) / 2 ** s); last > 0; l += 1, idx = Math.floor(idx / 2), last = Math.floor(last / 2)) {
      if (idx % 2 === 1) proof.push(mth((idx - 1) * 2 ** l, idx * 2 ** l));
      else if (idx < last) proof.push(mth((idx + 1) * 2 ** l, Math.min((idx + 2) * 2 ** l, size)));
    }
    const subRoot = mth(start, end);
    const root = tree.roots[size]!;
    assert.ok(verifySubtreeConsistency(start, end, size, proof, subRoot, root), `[${start},${end}) in ${size}`);
    for (const bad of mutations(proof, rand)) assert.ok(!verifySubtreeConsistency(start, end, size, bad, subRoot, root), `mutated [${start},${end}) in ${size}`);
    assert.ok(!verifySubtreeConsistency(start, end, size, proof, mth(start, end - 1 > start ? end - 1 : end + 1), root), 'another subtree root');
    assert.ok(!verifySubtreeConsistency(start, end, size, proof, subRoot, tree.roots[size - 1]!), 'another tree root');
  }
  assert.ok(imperfect > 20, 'incomplete subtrees were among the cases');
});

test('proof generation refuses impossible arguments, and a reader that answers wrongly is an integrity error', async () => {
  await assert.rejects(inclusionProof(5, 5, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(inclusionProof(-1, 5, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(inclusionProof(0.5, 5, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(consistencyProof(0, 5, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(consistencyProof(6, 5, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(rootAt(2 ** 53, tree.read), { code: 'merkle_proof_range' });
  await assert.rejects(rootAt(3000, tree.read), { code: 'merkle_node_missing' });
  const short: NodeReader = async (ids) => (await tree.read(ids)).slice(1);
  await assert.rejects(rootAt(7, short), { code: 'merkle_node_invalid' });
  const truncated: NodeReader = async (ids) => (await tree.read(ids)).map((h) => h.subarray(1));
  await assert.rejects(MerkleFrontier.load(7, truncated), { code: 'merkle_node_invalid' });
  assert.deepEqual(await consistencyProof(9, 9, tree.read), []);
  assert.deepEqual(await rootAt(0, tree.read), EMPTY_ROOT);
});

test('verifiers refuse garbage of every type without throwing', () => {
  const root = tree.roots[5]!;
  const leaf = leafHash(LEAVES[0]!);
  const junk: unknown[] = [null, undefined, 'abc', 1.5, -1, NaN, Infinity, 2 ** 53, {}, [1], [Buffer.alloc(32), 'x']];
  for (const j of junk) {
    assert.equal(verifyInclusion(j as number, 5, leaf, [], root), false);
    assert.equal(verifyInclusion(0, j as number, leaf, [], root), false);
    assert.equal(verifyInclusion(0, 5, j as Buffer, [], root), false);
    assert.equal(verifyInclusion(0, 5, leaf, j as Buffer[], root), false);
    assert.equal(verifyConsistency(j as number, 5, [], root, root), false);
    assert.equal(verifyConsistency(3, 5, j as Buffer[], root, root), false);
    assert.equal(verifySubtreeConsistency(0, 3, 5, j as Buffer[], root, root), false);
    assert.equal(verifySubtreeInclusion(0, 0, j as number, leaf, [], root), false);
  }
  // A proof longer than any tree of safe-integer size is refused before any hashing.
  assert.equal(verifyInclusion(0, 5, leaf, Array.from({ length: 10_000 }, () => leaf), root), false);
});

test('push builds the same tree as append, for a verifier that stores nothing', async () => {
  const { MerkleFrontier: F, leafHash: lh } = await import('../../src/audit/merkle.js');
  const a = F.empty();
  const b = F.empty();
  for (let i = 0; i < 300; i++) {
    const leaf = lh(`leaf ${i}`);
    a.append(leaf);
    b.push(leaf);
    assert.deepEqual(b.root(), a.root(), `size ${i + 1}`);
  }
  assert.equal(b.size, 300);
  assert.throws(() => b.push(Buffer.alloc(31)), /32-byte leaf hash/);
});
