/**
 * The log's Merkle tree kept in PostgreSQL: one merkle_nodes row per complete subtree
 * (src/audit/merkle.ts) of one log, written in the same transaction as the entries it covers.
 * A node never changes once written, so a proof read needs no snapshot. Leaf i is audit_log
 * row seq = i + 1 of the same log; its data is the row's body (the signed bytes).
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { MerkleFrontier, leafHash, type NodeId, type NodeReader, type StoredNode } from '../audit/merkle.js';
import { AirlockError } from '../protocol/errors.js';
import { MAX_NODE_READ } from './sqlite-merkle.js';

type Queryable = pg.Pool | PoolClient;
/** Levels of a tree of fewer than 2^53 leaves. */
const MAX_LEVEL = 53;
/** Rows hashed per query when building missing nodes at open: bounds the memory. */
const BUILD_BATCH = 1000;

/** Reads node hashes in one query, in the order asked; a missing or malformed one is an integrity error. */
export function pgNodeReader(q: Queryable, logId: string, wrap: (e: unknown) => Error = (e) => e as Error): NodeReader {
  return async (ids: readonly NodeId[]) => {
    if (!Array.isArray(ids) || ids.length > MAX_NODE_READ) throw new AirlockError('validation', 'merkle_read_too_large', `at most ${MAX_NODE_READ} Merkle nodes per read`);
    for (const { level, index } of ids) {
      if (!Number.isSafeInteger(level) || level < 0 || level > MAX_LEVEL || !Number.isSafeInteger(index) || index < 0) {
        throw new AirlockError('validation', 'merkle_node_id', `no Merkle node ${String(level)}/${String(index)}`);
      }
    }
    if (ids.length === 0) return [];
    let rows: Array<{ level: number; idx: number; hash: Buffer }>;
    try {
      rows = (
        await q.query<{ level: number; idx: number; hash: Buffer }>(
          'SELECT n.level, n.idx, n.hash FROM merkle_nodes n JOIN unnest($2::int[], $3::bigint[]) AS w(level, idx) ON n.level = w.level AND n.idx = w.idx WHERE n.log_id = $1',
          [logId, ids.map((i) => i.level), ids.map((i) => i.index)],
        )
      ).rows;
    } catch (e) {
      throw wrap(e);
    }
    const found = new Map(rows.map((r) => [`${r.level}/${r.idx}`, r.hash]));
    return ids.map(({ level, index }) => {
      const hash = found.get(`${level}/${index}`);
      if (!Buffer.isBuffer(hash) || hash.length !== 32) throw new AirlockError('integrity', 'merkle_node_missing', `Merkle node ${level}/${index} of log ${logId} is missing from the store`);
      return hash;
    });
  };
}

/** Writes the nodes appends returned, in one statement, inside the entries' transaction. */
export async function writeNodes(c: PoolClient, logId: string, nodes: readonly StoredNode[]): Promise<void> {
  if (nodes.length === 0) return;
  // Plain INSERT: a node already there means two writers built the same leaf, which must fail the transaction.
  await c.query('INSERT INTO merkle_nodes (log_id, level, idx, hash) SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::bytea[])', [
    logId,
    nodes.map((n) => n.level),
    nodes.map((n) => n.index),
    nodes.map((n) => n.hash),
  ]);
}

/** How many leaves the stored tree of this log has: one past its highest leaf node. */
async function storedLeaves(q: Queryable, logId: string): Promise<number> {
  const r = await q.query<{ max: number | null }>('SELECT MAX(idx) AS max FROM merkle_nodes WHERE log_id = $1 AND level = 0', [logId]);
  return r.rows[0]?.max === null || r.rows[0]?.max === undefined ? 0 : r.rows[0].max + 1;
}

/**
 * The frontier of the log's tree at `size` entries, inside the caller's transaction (which
 * holds the log's row lock). Missing nodes (a log whose tree is behind its entries) are built
 * from the bodies; a tree with more leaves than the log has entries means entries were cut
 * from the log's end: refused, not repaired.
 */
export async function frontierAt(c: PoolClient, logId: string, size: number): Promise<MerkleFrontier> {
  const leaves = await storedLeaves(c, logId);
  if (leaves > size) throw new AirlockError('integrity', 'merkle_nodes_ahead', `the Merkle tree of log ${logId} has ${leaves} leaves but the log only ${size} entries: entries are missing from its end`);
  const tree = await MerkleFrontier.load(leaves, pgNodeReader(c, logId));
  while (tree.size < size) {
    const batch = (await c.query<{ seq: number; body: string }>('SELECT seq, body FROM audit_log WHERE log_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [logId, tree.size, BUILD_BATCH])).rows;
    if (batch.length === 0) break;
    const nodes: StoredNode[] = [];
    for (const row of batch) {
      if (row.seq !== tree.size + 1) throw new AirlockError('integrity', 'merkle_log_gap', `log ${logId} has no entry ${tree.size + 1} (next is ${row.seq}): cannot build its Merkle tree`);
      nodes.push(...tree.append(leafHash(row.body)));
    }
    await writeNodes(c, logId, nodes);
  }
  if (tree.size !== size) throw new AirlockError('integrity', 'merkle_log_gap', `built ${tree.size} Merkle leaves for log ${logId} of ${size} entries`);
  return tree;
}
