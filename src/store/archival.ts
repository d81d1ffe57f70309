/**
 * Archival's step in the store, once, for both stores (Store.archiveSegment): the archived
 * segment's rows and the Merkle nodes no later proof needs leave the live store, in one group
 * commit with the signed `archived` entry, and the log's base moves to the segment's end.
 */
import type { EntryDraft } from '../audit/entry.js';
import { MerkleFrontier, type NodeId, type StoredNode } from '../audit/merkle.js';
import { AirlockError } from '../protocol/errors.js';
import type { GroupCommit } from './group-commit.js';
import { archiveRange, LOG_BASE_KEY } from './log-base.js';
import { call, type Awaitable, type Steps } from './steps.js';
import type { LogBase } from './store.js';

/** A store's rows of the log and its tree, inside a write. */
export interface ArchiveDialect<C> {
  /** " of log <id>" for a store of several logs; "" for one. */
  readonly ofLog: string;
  entryHash(c: C, seq: number): Awaitable<string | undefined>;
  deleteEntriesUpTo(c: C, seq: number): Awaitable<void>;
  /** Node hashes in the order asked; a missing one is integrity/merkle_node_missing. */
  readNodes(c: C, ids: readonly NodeId[]): Awaitable<Buffer[]>;
  /** Deletes the nodes of `level` whose index is below `index`. */
  deleteNodesBelow(c: C, level: number, index: number): Awaitable<void>;
  writeNodes(c: C, nodes: readonly StoredNode[]): Awaitable<void>;
  putMeta(c: C, key: string, value: string): Awaitable<void>;
}

/**
 * Removes the segment base.seq+1..upTo (Store.archiveSegment says when it refuses); resolves
 * to the new base once committed, which the store then keeps as its base.
 */
export function archiveSegment<C>(group: GroupCommit<C>, d: ArchiveDialect<C>, currentBase: () => LogBase, upTo: number, treeHead: string, entry: EntryDraft): Promise<LogBase> {
  return group.run(
    () => [entry],
    function* (c, tip): Steps<LogBase> {
      const size = tip.head.size;
      const base = currentBase(); // as it is when the operation runs, after any archival before it
      if (!Number.isSafeInteger(upTo) || upTo <= base.seq || upTo > size) throw archiveRange(upTo, base, size);
      const hash = yield* call(d.entryHash(c, upTo));
      if (hash === undefined) throw new AirlockError('integrity', 'archive_entry_missing', `entry ${upTo}${d.ofLog} is not in the store`);
      yield* call(d.deleteEntriesUpTo(c, upTo));
      const frontier = (yield* pruneArchivedNodes(c, d, upTo)).map((h) => h.toString('hex'));
      const next: LogBase = { seq: upTo, hash, frontier, tree_head: treeHead };
      yield* call(d.putMeta(c, LOG_BASE_KEY, JSON.stringify(next)));
      return next;
    },
  );
}

/**
 * After entries 1..upTo were archived: deletes the nodes that lie wholly among them, except the
 * frontier at upTo, which is every such node a proof for a later entry or a later size can ask
 * for (a proof's left siblings of a leaf past upTo, and the old-tree nodes of a size past upTo,
 * are complete subtrees of upTo's binary decomposition). Returns that frontier's hashes, in
 * MerkleFrontier.edgeIds order. Runs inside the archival's transaction.
 */
function* pruneArchivedNodes<C>(c: C, d: ArchiveDialect<C>, upTo: number): Steps<Buffer[]> {
  const ids = MerkleFrontier.edgeIds(upTo);
  const keep = yield* call(d.readNodes(c, ids));
  // Node (L, i) covers leaves [i * 2^L, (i + 1) * 2^L): wholly archived when i < floor(upTo / 2^L).
  // upTo is a safe integer, so the levels end below 2^53.
  for (let level = 0; 2 ** level <= upTo; level++) yield* call(d.deleteNodesBelow(c, level, Math.floor(upTo / 2 ** level)));
  yield* call(d.writeNodes(c, ids.map((id, i) => ({ ...id, hash: keep[i]! }))));
  return keep;
}
