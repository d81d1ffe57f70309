/**
 * Masking off the daemon's event loop: a few worker threads (worker.ts; two to four, by the
 * host's cores) mask text for it, so one hard input delays only its own answer, never
 * another client's. (A task of a few kilobytes costs the loop less than a round trip here:
 * the daemon masks those itself, the same way, src/daemon/output.ts INLINE_CHARS.)
 *
 * - Deadline: each task gets BASE_DEADLINE_MS plus a microsecond per character it carries
 *   (a masker a thousand times slower than ordinary text needs). A worker that misses it is
 *   terminated and replaced, and the task's text is answered by WITHHELD: nothing unmasked
 *   ever leaves, and nobody waits longer than the deadline.
 * - Fairness: tasks wait in one queue per principal, served in turn; a principal runs at
 *   most `perPrincipal` tasks at once (all workers but one when there are several), so a
 *   caller whose texts take each worker to its deadline still leaves one to everyone else.
 * - Bounds: at most MAX_QUEUED_PER_PRINCIPAL tasks and MAX_QUEUED_CHARS_PER_PRINCIPAL
 *   characters wait for one principal, MAX_QUEUED tasks in all; past them a task is refused
 *   (PoolBusy) and its caller fails closed.
 * - Streams (a program's output in pieces, MaskStream): their state lives in one worker, so
 *   every piece of a stream goes to that worker, in order. A stream whose worker was replaced
 *   (or that the worker evicted) has lost what it held: from then on it is withheld.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorkerBeside } from '../protocol/worker-thread.js';
import { addCounts, type MaskCounts } from './mask.js';

/** What replaces text whose masking missed its deadline (or could not run): it says so, and hides all of it. */
export const WITHHELD = '⟦withheld: not masked in time⟧';
/** How withheld text is counted with the masked kinds (the signed log's `masked` counts: `withheld:N`). */
export const WITHHELD_KIND = 'withheld';
/** What ends a stream that lost its state: the rest of that output is not shown. */
export const WITHHELD_REST = '⟦withheld: the rest of this output was not masked in time⟧';

export const BASE_DEADLINE_MS = 1000;
/** Characters a task may carry per millisecond of its deadline beyond the base (1 MB/s: 45 times slower than the masker on ordinary text). */
export const DEADLINE_CHARS_PER_MS = 1000;
export const MAX_QUEUED_PER_PRINCIPAL = 256;
export const MAX_QUEUED_CHARS_PER_PRINCIPAL = 32 * 1024 * 1024;
export const MAX_QUEUED = 4096;
/** Heap of one worker: a task's text and the masker's work on it, with room; a worker past it dies and is replaced. */
const WORKER_HEAP_MB = 256;

/** The policy's pseudonyms as a worker rebuilds them (the key travels with each task; workers hold nothing else). */
export interface PseudonymSpec {
  keyHex: string;
  classes: readonly string[];
}

/** A task whose whole text comes at once (task.ts does it): texts one by one, a JSON value's strings, or pieces as one stream. */
export type WholeMaskOp =
  | { op: 'texts'; texts: string[]; pseudonyms: PseudonymSpec | null }
  | { op: 'deep'; value: unknown; pseudonyms: PseudonymSpec | null }
  | { op: 'pieces'; pieces: string[]; pseudonyms: PseudonymSpec | null };

/** A message for a worker (worker.ts answers each): a whole task, or a piece of a stream that lives in the worker. */
export type MaskOp =
  | WholeMaskOp
  | { op: 'push'; stream: number; first: boolean; piece: string; pseudonyms: PseudonymSpec | null }
  | { op: 'end'; stream: number; first: boolean; pseudonyms: PseudonymSpec | null };

export interface MaskReply {
  texts?: string[];
  value?: unknown;
  text?: string;
  counts: MaskCounts;
  /** The stream is not in this worker (evicted, or the worker is new). */
  lost?: boolean;
}

/** A task refused because its principal (or everyone) has too much waiting. */
export class PoolBusy extends Error {}

/** Missed its deadline, or its worker died: the caller shows WITHHELD instead. */
export const TIMED_OUT = Symbol('timed out');

interface Task {
  principal: string;
  msg: MaskOp;
  chars: number;
  /** The slot a stream lives in, and that slot's worker generation when the stream began there. */
  pin?: { slot: number; generation: number };
  done: (r: MaskReply | typeof TIMED_OUT) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  generation: number;
  task: Task | null;
  timer: NodeJS.Timeout | null;
  /** Streams started in this worker: a new one goes to the slot with fewest. */
  streams: number;
  /**
   * The principal whose task overran the worker this one replaces: until it is ready, that
   * principal still counts it as running, so it cannot take another worker meanwhile.
   */
  heldFor: string | null;
}

export class MaskPool {
  private readonly slots: Slot[] = [];
  /** Waiting tasks per principal; the Map's order is the turn order (a served principal moves to the end). */
  private readonly queues = new Map<string, Task[]>();
  private readonly queuedChars = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private queued = 0;
  private nextStream = 1;
  private closed = false;
  readonly perPrincipal: number;
  /** Tasks that missed their deadline (or lost their worker), for tests and the daemon's log. */
  overruns = 0;

  constructor(
    /** Two at least, even on one core (the workers yield to the event loop): one principal must leave one to the others. */
    readonly size = Math.max(2, Math.min(4, availableParallelism())),
    private readonly onOverrun: (principal: string, chars: number) => void = () => {},
    /** The deadline's parts (tests shorten them to make any text overrun). */
    private readonly deadline = { baseMs: BASE_DEADLINE_MS, charsPerMs: DEADLINE_CHARS_PER_MS },
  ) {
    this.perPrincipal = Math.max(1, size - 1);
    for (let i = 0; i < size; i++) this.slots.push(this.startSlot(i, 0));
  }

  /** Masks with a deadline: the worker's answer, or TIMED_OUT. Throws PoolBusy when the principal's queue is full. */
  run(principal: string, msg: MaskOp, chars: number, pin?: Task['pin']): Promise<MaskReply | typeof TIMED_OUT> {
    if (this.closed) return Promise.resolve(TIMED_OUT);
    const q = this.queues.get(principal) ?? [];
    const waitingChars = this.queuedChars.get(principal) ?? 0;
    if (q.length >= MAX_QUEUED_PER_PRINCIPAL || waitingChars + chars > MAX_QUEUED_CHARS_PER_PRINCIPAL || this.queued >= MAX_QUEUED) {
      return Promise.reject(new PoolBusy(`masking has ${q.length} tasks (${waitingChars} characters) waiting for this principal and ${this.queued} in all`));
    }
    return new Promise((done) => {
      q.push({ principal, msg, chars, ...(pin ? { pin } : {}), done });
      this.queues.set(principal, q);
      this.queuedChars.set(principal, waitingChars + chars);
      this.queued++;
      this.dispatch();
    });
  }

  /** A stream of pieces masked as one text (MaskStream in a worker), for one principal. */
  stream(principal: string, pseudonyms: PseudonymSpec | null): PooledStream {
    return new PooledStream(this, principal, this.nextStream++, pseudonyms);
  }

  /** Where a new stream lives: the slot holding fewest streams. */
  pinStream(): { slot: number; generation: number } {
    let best = 0;
    for (let i = 1; i < this.slots.length; i++) if (this.slots[i]!.streams < this.slots[best]!.streams) best = i;
    const s = this.slots[best]!;
    s.streams++;
    return { slot: best, generation: s.generation };
  }

  /** A stream pinned to this slot ended (or was given up). */
  unpinStream(pin: { slot: number; generation: number }): void {
    const s = this.slots[pin.slot]!;
    if (s.generation === pin.generation && s.streams > 0) s.streams--;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queues.values()) for (const t of q) t.done(TIMED_OUT);
    this.queues.clear();
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private startSlot(index: number, generation: number, heldFor: string | null = null): Slot {
    const slot: Slot = { worker: startMaskWorker(), ready: false, generation, task: null, timer: null, streams: 0, heldFor };
    slot.worker.on('message', (m: { ready?: true; reply?: MaskReply; error?: string }) => {
      if (this.slots[index] !== slot) return;
      if (m.ready) {
        slot.ready = true;
        if (slot.heldFor !== null) this.release(slot.heldFor);
        slot.heldFor = null;
        return this.dispatch();
      }
      const t = slot.task;
      if (!t) return;
      this.finish(slot, t, m.reply ?? TIMED_OUT);
    });
    // A worker that dies (out of memory, a bug) fails its task closed and is replaced.
    slot.worker.on('error', () => this.replace(index, slot));
    slot.worker.on('exit', () => this.replace(index, slot));
    if (!this.busy()) slot.worker.unref(); // after the listeners, which ref it
    return slot;
  }

  /** `held`: the task's principal keeps counting it as running (its worker is being replaced). */
  private finish(slot: Slot, t: Task, r: MaskReply | typeof TIMED_OUT, held = false): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    if (!held) this.release(t.principal);
    t.done(r);
    this.dispatch();
  }

  private release(principal: string): void {
    const n = (this.running.get(principal) ?? 1) - 1;
    if (n <= 0) this.running.delete(principal);
    else this.running.set(principal, n);
  }

  /** Terminates a slot's worker (an overrun, or it died) and starts another in its place; its task is withheld. */
  private replace(index: number, slot: Slot): void {
    if (this.slots[index] !== slot || this.closed) return;
    const t = slot.task;
    // A worker that died while it was itself a replacement passes the hold on.
    const heldFor = t?.principal ?? slot.heldFor;
    if (slot.heldFor !== null && t) this.release(slot.heldFor);
    this.slots[index] = this.startSlot(index, slot.generation + 1, heldFor);
    void slot.worker.terminate();
    if (t) {
      this.overruns++;
      this.onOverrun(t.principal, t.chars);
      this.finish(slot, t, TIMED_OUT, true);
    }
  }

  private busy(): boolean {
    return this.queued > 0 || this.slots.some((s) => s.task !== null);
  }

  /** Gives each idle, ready worker the next task in turn that may run on it. */
  private dispatch(): void {
    this.dispatchTasks();
    // Workers keep the process alive only while there is work: an idle pool lets it exit.
    const busy = this.busy();
    for (const s of this.slots) busy ? s.worker.ref() : s.worker.unref();
  }

  private dispatchTasks(): void {
    for (const [index, slot] of this.slots.entries()) {
      if (!slot.ready || slot.task) continue;
      const t = this.nextFor(index);
      if (!t) continue;
      if (t.pin && t.pin.generation !== slot.generation) {
        // Its stream was in a worker that is gone: its state is lost.
        this.running.set(t.principal, (this.running.get(t.principal) ?? 0) + 1);
        slot.task = t;
        this.finish(slot, t, { counts: {}, lost: true });
        return;
      }
      slot.task = t;
      this.running.set(t.principal, (this.running.get(t.principal) ?? 0) + 1);
      slot.timer = setTimeout(() => this.replace(index, slot), this.deadline.baseMs + Math.ceil(t.chars / this.deadline.charsPerMs));
      try {
        slot.worker.postMessage(t.msg);
      } catch {
        // A value that cannot be copied to a worker (not plain data) is withheld, like one that overran.
        this.finish(slot, t, TIMED_OUT);
        return;
      }
    }
  }

  /** The first principal in turn whose head task may run on this slot; it is taken off its queue. */
  private nextFor(index: number): Task | null {
    for (const [principal, q] of this.queues) {
      const head = q[0]!;
      if ((this.running.get(principal) ?? 0) >= this.perPrincipal) continue;
      if (head.pin && head.pin.slot !== index) continue;
      q.shift();
      this.queued--;
      this.queuedChars.set(principal, (this.queuedChars.get(principal) ?? head.chars) - head.chars);
      this.queues.delete(principal); // its turn is used: to the back of the line
      if (q.length > 0) this.queues.set(principal, q);
      else this.queuedChars.delete(principal);
      return head;
    }
    return null;
  }
}

/**
 * One output masked as it comes: pieces go, in order, to the worker that holds the
 * stream's MaskStream. Once a piece could not be masked (deadline, lost state, a full
 * queue), the stream answers WITHHELD_REST once and nothing more.
 */
export class PooledStream {
  readonly counts: MaskCounts = {};
  private pin: { slot: number; generation: number } | null = null;
  private failed = false;
  private ended = false;

  constructor(
    private readonly pool: MaskPool,
    private readonly principal: string,
    private readonly id: number,
    private readonly pseudonyms: PseudonymSpec | null,
  ) {}

  /** The masked text now safe to release ('' while it holds a line's start); callers await each before the next. */
  async push(piece: string): Promise<string> {
    if (this.failed || this.ended || piece === '') return '';
    return this.send({ op: 'push', stream: this.id, first: this.pin === null, piece, pseudonyms: this.pseudonyms }, piece.length + STREAM_HOLD_CHARS);
  }

  /** The rest, masked. */
  async end(): Promise<string> {
    if (this.ended) return '';
    this.ended = true;
    if (this.failed || this.pin === null) return ''; // failed already, or nothing was pushed
    const out = await this.send({ op: 'end', stream: this.id, first: false, pseudonyms: this.pseudonyms }, STREAM_HOLD_CHARS);
    if (this.pin) this.pool.unpinStream(this.pin);
    return out;
  }

  private async send(msg: MaskOp, chars: number): Promise<string> {
    this.pin ??= this.pool.pinStream();
    let r: MaskReply | typeof TIMED_OUT;
    try {
      r = await this.pool.run(this.principal, msg, chars, this.pin);
    } catch {
      r = TIMED_OUT; // the queue is full: fail closed like a deadline
    }
    if (r === TIMED_OUT || r.lost || typeof r.text !== 'string') {
      this.failed = true;
      addCounts(this.counts, { [WITHHELD_KIND]: 1 });
      if (this.pin) this.pool.unpinStream(this.pin);
      return `${WITHHELD_REST}\n`;
    }
    addCounts(this.counts, r.counts);
    return r.text;
  }
}

/** What a stream's worker may hold back besides the piece (MaskStream's HOLD_LIMIT and its margin), counted in its deadline. */
const STREAM_HOLD_CHARS = 288 * 1024;

/** worker.ts (or .js, compiled) in a worker thread, its priority lowered before it loads anything (see WORKER_NICE). */
function startMaskWorker(): Worker {
  return startWorkerBeside(import.meta.url, 'worker', { prelude: `try { require('node:os').setPriority(${WORKER_NICE}); } catch {}`, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
}

/**
 * The workers' nice value. On Linux, setpriority on "this process" from a thread sets that
 * thread alone, so the workers yield the CPU to the event loop: a worker spinning on hard
 * text until its deadline (and a replacement loading) cannot slow another client's answer.
 */
const WORKER_NICE = 10;
