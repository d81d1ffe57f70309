/**
 * Group commit, once, for both stores: operations run with the signed entries they call for,
 * atomically and durably; a promise settles only after the commit that holds its operation.
 *
 * Operations that arrive while a batch is being written (and those of the same turn of the
 * event loop: the first batch starts in a microtask, so a lone operation waits for no timer or
 * I/O poll) wait for the next batch. A batch (at most `maxBatch`, in arrival order) is one store
 * transaction, each operation inside a savepoint of its own. One that throws rolls back to its
 * savepoint alone, as if it had been a transaction of its own; the others commit. One fsync then
 * covers the whole batch, which is what lets concurrent writers append many times faster than
 * the disk syncs. A failed COMMIT (or a lost connection) rejects every operation of the batch:
 * nothing of it is reported stored. The head and frontier move only once the batch is
 * committed, and nobody learns an operation's outcome before then; heads reach onAppend in
 * commit order.
 *
 * A dialect whose COMMIT does not wait for the disk (SQLite's, which syncs its write-ahead log
 * on the thread pool instead: `durable`) lets the next batch run while the last one syncs; the
 * outcomes of a batch are told only once its sync and every earlier batch's are done. A sync
 * that fails breaks the group for good: what it holds, and everything after, is refused.
 */
import type { EntryDraft, SealedEntry } from '../audit/entry.js';
import { leafHash, type MerkleFrontier, type StoredNode } from '../audit/merkle.js';
import { AirlockError } from '../protocol/errors.js';
import { call, drive, type Awaitable, type Steps } from './steps.js';
import type { LogHead, Sealer } from './store.js';

/** The log's end as a batch appends to it. */
export interface Tip {
  head: LogHead;
  /** The Merkle tree's right edge at head. */
  frontier: MerkleFrontier;
}

/** What differs between the stores: their transactions, their locks and how entries are written. */
export interface BatchDialect<C> {
  /** A connection for one batch. */
  connect(): Awaitable<C>;
  /** Gives it back after the batch; `failed`: why the batch (or its rollback) failed, undefined when it committed. */
  release(c: C, failed: unknown): void;
  /**
   * Begins the batch's transaction, serializing it with every other writer of the log, and
   * returns the tip to append after (the committed one, or the database's when it moved).
   */
  begin(c: C, committed: Tip): Awaitable<Tip>;
  savepoint(c: C): Awaitable<unknown>;
  releaseSavepoint(c: C): Awaitable<unknown>;
  rollbackToSavepoint(c: C): Awaitable<unknown>;
  commit(c: C): Awaitable<unknown>;
  /**
   * After a COMMIT: a promise that settles once what it committed is on disk, when COMMIT itself
   * returned before that; nothing when COMMIT is durable by itself.
   */
  durable?(c: C): Promise<void> | void;
  rollback(c: C): Awaitable<unknown>;
  /** Inserts sealed entries and the Merkle nodes they complete; `prevHash`: the hash the first entry chains to. */
  write(c: C, entries: readonly SealedEntry[], nodes: readonly StoredNode[], prevHash: string): Awaitable<void>;
  /** What a failure becomes for its caller (a store error naming the database, say). */
  failure(e: unknown): unknown;
}

/**
 * Thrown by an operation to roll itself back and answer `outcome` (a refusal found after it
 * changed something: a spent step after the approval's update). Not an error: it resolves.
 */
export class RollBack<T> {
  constructor(readonly outcome: T) {}
}

/** The operation: the tip it appends after (read-only), and its connection. */
export type Operation<C, T> = (c: C, tip: Readonly<Tip>) => Awaitable<T> | Steps<T>;

interface Pending<C> {
  fn: Operation<C, unknown>;
  entries: (result: unknown) => EntryDraft[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
type Done<C> = { op: Pending<C>; ok: true; result: unknown; drafts: EntryDraft[]; head: LogHead } | { op: Pending<C>; ok: false; error: unknown };

export interface GroupLimits {
  /** The most operations one batch holds: bounds the batch's time and memory (and a lock's hold). */
  maxBatch: number;
  /** The most operations waiting; more are refused (transient/store_busy). */
  maxPending: number;
}

export class GroupCommit<C> {
  private readonly pending: Pending<C>[] = [];
  private writing = false;
  private readonly idle: Array<() => void> = [];
  /** The last committed batch's outcomes, told once it and every batch before it are on disk. */
  private told: Promise<void> = Promise.resolve();
  /** Why a commit could not be made durable: from then on the group refuses everything. */
  private broken: unknown = null;

  constructor(
    private readonly dialect: BatchDialect<C>,
    private readonly seal: Sealer,
    private readonly limits: GroupLimits,
    /** After each commit that appended entries: the new head and those entries, in order. */
    private readonly onAppend: (head: LogHead, entries: readonly EntryDraft[]) => void,
    private tip: Tip,
  ) {}

  get head(): LogHead {
    return this.tip.head;
  }

  /** Runs fn and appends the entries it calls for (entries(result)), in the next batch. */
  run<T>(entries: (result: T) => EntryDraft[], fn: Operation<C, T>): Promise<T> {
    if (this.broken !== null) return Promise.reject(this.dialect.failure(this.broken));
    if (this.pending.length >= this.limits.maxPending) {
      return Promise.reject(new AirlockError('transient', 'store_busy', `more than ${this.limits.maxPending} store writes are waiting`, 'retry in a moment'));
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn: fn as Operation<C, unknown>, entries: entries as Pending<C>['entries'], resolve: resolve as Pending<C>['resolve'], reject });
      if (!this.writing) {
        this.writing = true;
        queueMicrotask(() => this.next());
      }
    });
  }

  /** Resolves once every operation asked for so far has settled. */
  drain(): Promise<void> {
    if (!this.writing && this.pending.length === 0) return this.told;
    return new Promise<void>((wake) => this.idle.push(wake)).then(() => this.told);
  }

  /**
   * Writes the next batch. When more were waiting than it holds, the one after it waits for a
   * turn of the event loop (I/O runs between); otherwise what arrived meanwhile (the callers'
   * next steps) follows at once.
   */
  private next(): void {
    if (this.pending.length === 0) {
      this.writing = false;
      for (const wake of this.idle.splice(0)) wake();
      return;
    }
    const batch = this.pending.splice(0, this.limits.maxBatch);
    const backlog = this.pending.length > 0;
    const then = () => (backlog ? setImmediate(() => this.next()) : this.next());
    // A synchronous dialect (SQLite) writes the whole batch here, with nothing in between.
    let written: Promise<void> | void;
    try {
      written = drive(this.write(batch));
    } catch (e) {
      then();
      throw e; // a callback's bug (onAppend): not swallowed
    }
    if (written instanceof Promise) void written.finally(then);
    else then();
  }

  private *write(batch: Pending<C>[]): Steps<void> {
    const d = this.dialect;
    let c: C;
    try {
      c = yield* call(d.connect());
    } catch (e) {
      for (const op of batch) op.reject(d.failure(e));
      return;
    }
    const done: Done<C>[] = [];
    let tip = this.tip;
    try {
      tip = yield* call(d.begin(c, tip));
      for (const op of batch) {
        yield* call(d.savepoint(c));
        const before = tip;
        try {
          const result = yield* call(op.fn(c, tip));
          const drafts = op.entries(result);
          if (drafts.length) tip = yield* this.append(c, tip, drafts);
          yield* call(d.releaseSavepoint(c));
          done.push({ op, ok: true, result, drafts, head: tip.head });
        } catch (error) {
          // A statement that failed leaves the transaction aborted until this; a lost connection
          // makes this throw too, which fails the whole batch below.
          yield* call(d.rollbackToSavepoint(c));
          yield* call(d.releaseSavepoint(c));
          tip = before;
          if (error instanceof RollBack) done.push({ op, ok: true, result: error.outcome, drafts: [], head: tip.head });
          else done.push({ op, ok: false, error });
        }
      }
      yield* call(d.commit(c));
    } catch (e) {
      // A failed ROLLBACK means the connection is gone (the server rolls back on its own), or that
      // the database rolled back already (SQLite's failed COMMIT on a full disk does).
      let failed = e;
      try {
        yield* call(d.rollback(c));
      } catch (re) {
        failed = re;
      }
      d.release(c, failed);
      for (const op of batch) op.reject(d.failure(e));
      return;
    }
    d.release(c, undefined);
    if (tip.head.size > this.tip.head.size) this.tip = tip;
    const tell = () => {
      for (const r of done) {
        if (this.broken !== null) r.op.reject(d.failure(this.broken));
        else if (!r.ok) r.op.reject(d.failure(r.error));
        else {
          if (r.drafts.length) this.onAppend(r.head, r.drafts);
          r.op.resolve(r.result);
        }
      }
    };
    const synced = d.durable?.(c);
    if (!synced) {
      tell();
      return;
    }
    // The next batch may commit meanwhile; its outcomes wait for this one's (told in order).
    const earlier = this.told;
    this.told = Promise.all([earlier, synced.catch((e: unknown) => void (this.broken ??= e))]).then(tell);
  }

  /**
   * Seals the entries after the tip and writes them with the Merkle nodes they complete.
   * Appends to a copy of the frontier: rolling this operation back must leave the batch's as it was.
   */
  private *append(c: C, tip: Tip, drafts: readonly EntryDraft[]): Steps<Tip> {
    const frontier = tip.frontier.clone();
    let { size, hash } = tip.head;
    const sealed: SealedEntry[] = [];
    const nodes: StoredNode[] = [];
    for (const draft of drafts) {
      const entry = this.seal(draft, size + 1, hash);
      // Leaf i is entry i + 1; a sealer that numbered otherwise would misplace every later leaf.
      if (entry.seq !== frontier.size + 1) throw new AirlockError('integrity', 'merkle_seq', `entry ${entry.seq} sealed where leaf ${frontier.size + 1} belongs`);
      sealed.push(entry);
      nodes.push(...frontier.append(leafHash(entry.body)));
      size = entry.seq;
      hash = entry.hash;
    }
    yield* call(this.dialect.write(c, sealed, nodes, tip.head.hash));
    return { head: { size, hash, root: frontier.root().toString('hex') }, frontier };
  }
}
