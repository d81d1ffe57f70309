/**
 * The log's Merkle tree kept in SQLite: one row per complete subtree (src/audit/merkle.ts),
 * written in the same IMMEDIATE transaction as the entries it covers. A node never changes
 * once written (a complete subtree's leaves are fixed), so readers need no snapshot: any
 * node a proof for size N asks for is the same before and after later appends.
 *
 * Leaf i of the tree is audit_log row seq = i + 1, its data the row's body (the signed bytes).
 */
import Database from 'better-sqlite3';
import { MerkleFrontier, leafHash, type NodeId, type NodeReader, type StoredNode } from '../audit/merkle.js';
import { AirlockError } from '../protocol/errors.js';
import { decodeRow, STORED_ROWS, type StoredLogRow } from '../audit/sqlite-log.js';

export const MERKLE_SCHEMA = `
CREATE TABLE IF NOT EXISTS merkle_nodes (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
`;

/** The most nodes one read may ask for: a proof needs O(log n) (under 200 for any safe-integer size). */
export const MAX_NODE_READ = 4096;
/** Rows hashed per query when building the tree of an older store: bounds the memory of an upgrade. */
const UPGRADE_BATCH = 1000;
/** Levels of a tree of fewer than 2^53 leaves. */
const MAX_LEVEL = 53;

type Db = Database.Database;

/** Reads node hashes synchronously, in the order asked; a missing or malformed one is an integrity error. */
export function nodeReaderSync(db: Db): (ids: readonly NodeId[]) => Buffer[] {
  const get = db.prepare('SELECT hash FROM merkle_nodes WHERE level = ? AND idx = ?').pluck();
  return (ids) => {
    if (!Array.isArray(ids) || ids.length > MAX_NODE_READ) {
      throw new AirlockError('validation', 'merkle_read_too_large', `at most ${MAX_NODE_READ} Merkle nodes per read`);
    }
    return ids.map(({ level, index }) => {
      if (!Number.isSafeInteger(level) || level < 0 || level > MAX_LEVEL || !Number.isSafeInteger(index) || index < 0) {
        throw new AirlockError('validation', 'merkle_node_id', `no Merkle node ${String(level)}/${String(index)}`);
      }
      const hash = get.get(level, index);
      if (!Buffer.isBuffer(hash) || hash.length !== 32) {
        throw new AirlockError('integrity', 'merkle_node_missing', `Merkle node ${level}/${index} is missing from the store`);
      }
      return hash;
    });
  };
}

/** The NodeReader over a connection (the store's, or a read-only one). */
export function sqliteNodeReader(db: Db): NodeReader {
  const read = nodeReaderSync(db);
  return async (ids) => read(ids);
}

/** Writes the nodes a frontier's append returned; called inside the entries' transaction. */
export function nodeWriter(db: Db): (nodes: readonly StoredNode[]) => void {
  // Plain INSERT: a node already there means two writers built the same leaf, which must fail the transaction.
  const insert = db.prepare('INSERT INTO merkle_nodes (level, idx, hash) VALUES (?, ?, ?)');
  return (nodes) => {
    for (const n of nodes) insert.run(n.level, n.index, n.hash);
  };
}

/** How many leaves the stored tree has: one past the highest leaf node (nodes are written in order). */
export function storedLeaves(db: Db): number {
  const max = db.prepare('SELECT MAX(idx) FROM merkle_nodes WHERE level = 0').pluck().get() as number | null;
  return max === null ? 0 : max + 1;
}

/**
 * The frontier of the store's tree, which must cover `size` entries. A store from before
 * the tree (or one a downgraded daemon appended to) has fewer leaves than entries: the
 * missing nodes are built from the entries' bodies, in one IMMEDIATE transaction. A tree
 * with more leaves than the log has entries means entries were cut from the log's end:
 * refused, not repaired.
 */
export function openFrontier(db: Db, size: number): MerkleFrontier {
  const read = nodeReaderSync(db);
  const load = (n: number) => MerkleFrontier.fromEdge(n, read(MerkleFrontier.edgeIds(n)));
  const leaves = storedLeaves(db);
  if (leaves === size) return load(size);
  if (leaves > size) {
    throw new AirlockError('integrity', 'merkle_nodes_ahead', `the Merkle tree has ${leaves} leaves but the log only ${size} entries: entries are missing from its end`);
  }
  const rows = db.prepare(`${STORED_ROWS} WHERE a.seq > ? ORDER BY a.seq LIMIT ?`);
  const write = nodeWriter(db);
  const build = db.transaction((): MerkleFrontier => {
    // Re-read inside the transaction: another process may have built it meanwhile.
    const start = storedLeaves(db);
    const tree = load(start);
    for (;;) {
      const batch = (rows.all(tree.size, UPGRADE_BATCH) as StoredLogRow[]).map(decodeRow);
      if (batch.length === 0) break;
      for (const row of batch) {
        // Leaf i is entry i + 1: a gap would put every later entry under the wrong index.
        if (row.seq !== tree.size + 1) {
          throw new AirlockError('integrity', 'merkle_log_gap', `the log has no entry ${tree.size + 1} (next is ${row.seq}): cannot build its Merkle tree`);
        }
        write(tree.append(leafHash(row.body)));
      }
    }
    if (tree.size !== size) throw new AirlockError('integrity', 'merkle_log_gap', `built ${tree.size} Merkle leaves for a log of ${size} entries`);
    return tree;
  });
  return build.immediate();
}

/**
 * For offline readers (an auditor's proof from a copy of the database): the stored tree,
 * read-only. `size` is the number of leaves the tree covers; nodes for any size up to it
 * are there.
 */
export function openSqliteTree(dbPath: string): { size: number; read: NodeReader; close: () => void } {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'merkle_nodes'").pluck().get();
    if (!exists) throw new AirlockError('integrity', 'merkle_nodes_absent', `${dbPath} has no Merkle tree yet (open it once with the daemon to build it)`);
    return { size: storedLeaves(db), read: sqliteNodeReader(db), close: () => db.close() };
  } catch (e) {
    db.close();
    throw e;
  }
}
