/**
 * One sink's own line of work: a bounded queue of heads and one worker that hands them
 * to the sink in order. Every sink has its own lane, so a slow or failing sink never
 * holds up another, nor the daemon (offer() never waits).
 *
 * On a failure the head is tried again after a backoff, unless a newer head is already
 * waiting: then the failed one is dropped (and counted), since the newer head covers it.
 * So a sink that refuses one head for good (a witness that saw a fork) still gets every
 * later one, and its failures are logged, rate-limited, with its name.
 */
import { drained } from './drained.js';
import { BoundedQueue } from './bounded-queue.js';
import { FailureLog } from './rate-limit.js';
import { printable, type Sink, type TreeHead } from './sink.js';

export interface LaneOptions {
  queueMax?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  log: (msg: string) => void;
}

export class Lane {
  private readonly queue: BoundedQueue<TreeHead>;
  private readonly failures: FailureLog;
  private running = false;
  private stopped = false;
  private wake: (() => void) | null = null;
  private idleWaiters: Array<() => void> = [];
  /** Heads the sink took; heads given up after a failure (a newer one replaced them). */
  published = 0;
  failed = 0;

  constructor(
    readonly sink: Sink,
    private readonly o: LaneOptions,
  ) {
    this.queue = new BoundedQueue(o.queueMax ?? 1000);
    this.failures = new FailureLog(sink.name, o.log);
  }

  get queued(): number {
    return this.queue.length;
  }

  get dropped(): number {
    return this.queue.dropped;
  }

  offer(head: TreeHead): void {
    if (this.stopped) return;
    this.queue.push(head);
    if (this.wake) this.wake();
    if (!this.running) void this.run();
  }

  /** Resolves when the queue is empty and nothing is in the sink's hands, or after timeoutMs. */
  idle(timeoutMs: number): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return drained(this.idleWaiters, timeoutMs);
  }

  /** No more heads; a backoff in progress ends now. */
  stop(): void {
    this.stopped = true;
    if (this.wake) this.wake();
  }

  private async run(): Promise<void> {
    this.running = true;
    let backoff = this.o.backoffMinMs ?? 1_000;
    try {
      while (!this.stopped && this.queue.length > 0) {
        const head = this.queue.peek()!;
        try {
          await this.sink.publish(head);
          if (this.queue.peek() === head) this.queue.shift();
          this.published++;
          backoff = this.o.backoffMinMs ?? 1_000;
          this.failures.ok();
        } catch (e) {
          const why = printable((e as Error).message ?? String(e), 300);
          if (this.queue.length > 1 && this.queue.peek() === head) {
            this.queue.shift();
            this.failed++;
            this.failures.fail(`could not publish the head of size ${head.size}: ${why} (a newer head is next)`);
            continue;
          }
          this.failures.fail(`could not publish the head of size ${head.size}: ${why} (retrying in ${backoff} ms)`);
          await new Promise<void>((r) => {
            const t = setTimeout(r, backoff);
            // A newer head (or stop) cuts the wait short: the newer head is what matters.
            this.wake = () => {
              clearTimeout(t);
              r();
            };
          });
          this.wake = null;
          // A newer head came in while waiting: it covers this one, which is not tried again.
          if (this.queue.length > 1 && this.queue.peek() === head) {
            this.queue.shift();
            this.failed++;
          }
          backoff = Math.min(backoff * 2, this.o.backoffMaxMs ?? 60_000);
        }
      }
    } finally {
      this.running = false;
      for (const w of [...this.idleWaiters]) w();
    }
  }
}
