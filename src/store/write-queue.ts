/**
 * Runs asynchronous jobs one at a time, in the order they came, with a bound on how many may
 * wait. The PostgreSQL store's writes of one log are serialized by the database anyway (its
 * row lock); queueing them here first keeps blocked writers from holding pool connections,
 * and makes commits (and so the heads given to onAppend) come back in order.
 */
import { AirlockError } from '../protocol/errors.js';

export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly maxWaiting: number) {}

  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.waiting >= this.maxWaiting) {
      return Promise.reject(new AirlockError('transient', 'store_busy', `more than ${this.maxWaiting} store writes are waiting`, 'retry in a moment'));
    }
    this.waiting++;
    const next = this.tail.then(
      () => job(),
      () => job(),
    );
    const settled = next.finally(() => this.waiting--);
    this.tail = settled.catch(() => {});
    return settled;
  }

  /** Resolves when every job queued so far has finished. */
  async drain(): Promise<void> {
    await this.tail;
  }
}
