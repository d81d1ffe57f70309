/**
 * `audit.tree_head`, `audit.prove` and `audit.consistency`: signed tree heads of the log, and the
 * RFC 9162 proofs that tie entries and older heads to them (src/audit/proof.ts says what a client
 * checks). Any role may ask: the log is public evidence, and every answer is checked by the client
 * with the public key, so a daemon that lied would be caught.
 *
 * A head is signed fresh, for the size asked (the current size by default): a tree head is the
 * statement "the first N entries make this root", as true when signed later as when signed then.
 * Heads signed for proofs are not published: the publisher (sinks) keeps the log's own schedule.
 */
import { fail } from '../protocol/errors.js';
import { MAX_PROVEN_ENTRIES, b64, CONSISTENCY_TYPE, INCLUSION_TYPE, PROOF_VERSION, type ConsistencyProofDoc, type InclusionProofDoc } from '../audit/proof.js';
import { consistencyProof, inclusionProof, rootAt } from '../audit/merkle.js';
import type { Store } from '../store/store.js';

/** Signs a tree head of the log (the current audit key, the log's origin): the note text. */
export type HeadSigner = (size: number, root: Buffer) => string;

export class TreeHeads {
  constructor(
    private readonly store: Store,
    private readonly sign: HeadSigner,
  ) {}

  /**
   * The root of the first `size` entries, from the stored nodes; at the head, it must be the root
   * this daemon computed as it wrote them: nodes changed under it (another writer of a shared
   * database, a hand edit) are never signed.
   */
  private async root(size: number): Promise<Buffer> {
    const head = this.store.logHead();
    const root = await rootAt(size, this.store.merkleNodes);
    if (size === head.size && root.toString('hex') !== head.root) {
      fail('integrity', 'merkle_nodes_changed', `the stored Merkle nodes of the first ${size} entries do not give the root this daemon wrote: nothing is signed`, 'keep a copy of the store as evidence, and run `airlock audit verify`');
    }
    return root;
  }

  private size(v: unknown, what: string, dflt: number): number {
    const current = this.store.logHead().size;
    const n = v === undefined ? dflt : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) fail('validation', 'bad_audit_query', `${what} must be a whole number from 0 to ${current} (the log's size now)`);
    if ((n as number) > current) fail('validation', 'bad_audit_query', `${what} ${n} is past the end of the log: it has ${current} entries`, 'ask for a size up to the current one (`airlock audit tree-head` shows it)');
    const base = this.store.logBase().seq;
    if ((n as number) > 0 && (n as number) < base) fail('validation', 'archived', `${what} ${n} is inside the archived part of the log: entries 1 to ${base} left the live store`, 'verify it with the archive: `airlock audit verify --archive DIR` (the segments beside the store)');
    return n as number;
  }

  async head(req: { size?: unknown }): Promise<{ size: number; root: string; note: string }> {
    const size = this.size(req.size, 'size', this.store.logHead().size);
    const root = await this.root(size);
    return { size, root: root.toString('hex'), note: this.sign(size, root) };
  }

  /** `transaction_id` is well formed (the method's schema checked it). */
  async prove(req: { transaction_id: string }): Promise<InclusionProofDoc> {
    const id = req.transaction_id;
    // The head first: every entry found after it is at most its size (entries are only appended).
    const size = this.store.logHead().size;
    const root = await this.root(size);
    const rows = (await this.store.transactionEntries(id, MAX_PROVEN_ENTRIES)).filter((r) => r.seq <= size);
    const base = this.store.logBase().seq;
    if (rows.length === 0) {
      const archive = 'verify the archive with `airlock audit verify --archive DIR` (the segments beside the store)';
      // A transaction the store still has, with no live entry: its entries went to the archive.
      if (base > 0 && (await this.store.getTransaction(id))) fail('validation', 'archived', `every entry of ${id} is in the archived part of the log (entries 1 to ${base}): a proof covers live entries only`, archive);
      fail('validation', 'no_such_transaction', `the live log holds no entry of ${id}${base > 0 ? ` (entries 1 to ${base} are archived: a transaction removed from the store after its entries were archived is there)` : ''}`, base > 0 ? `${archive}, or see \`airlock history\`` : 'see `airlock history`');
    }
    const entries = [];
    for (const r of rows) entries.push({ seq: r.seq, body: r.body, sig: r.sig, proof: b64(await inclusionProof(r.seq - 1, size, this.store.merkleNodes)) });
    return { type: INCLUSION_TYPE, version: PROOF_VERSION, transaction_id: id, tree_head: this.sign(size, root), entries };
  }

  async consistency(req: { old_size?: unknown; new_size?: unknown }): Promise<ConsistencyProofDoc> {
    const current = this.store.logHead().size;
    const newSize = this.size(req.new_size, 'new_size', current);
    const oldSize = this.size(req.old_size, 'old_size', 0);
    if (oldSize > newSize) fail('validation', 'bad_audit_query', `old_size ${oldSize} is larger than new_size ${newSize}`);
    const [oldRoot, newRoot] = [await rootAt(oldSize, this.store.merkleNodes), await this.root(newSize)];
    const proof = await consistencyProof(oldSize, newSize, this.store.merkleNodes);
    return { type: CONSISTENCY_TYPE, version: PROOF_VERSION, old_head: this.sign(oldSize, oldRoot), new_head: this.sign(newSize, newRoot), proof: b64(proof) };
  }
}
