/**
 * A FIFO with a hard length: pushing onto a full queue drops the oldest item and
 * counts it. For tree heads that is the right end to lose: a later head covers every
 * earlier one (its consistency proof extends any of them), so dropping old heads while a
 * sink is unreachable loses no evidence about the log; dropping the newest would.
 */
export class BoundedQueue<T> {
  private items: T[] = [];
  /** Items dropped because the queue was full, since it was made. */
  dropped = 0;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`queue bound must be a positive integer, not ${max}`);
  }

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    while (this.items.length > this.max) {
      this.items.shift();
      this.dropped++;
    }
  }

  /** Puts items back at the front (a failed send), oldest first; the bound still holds, and what overflows is the oldest. */
  unshift(...front: T[]): void {
    this.items.unshift(...front);
    while (this.items.length > this.max) {
      this.items.shift();
      this.dropped++;
    }
  }

  peek(): T | undefined {
    return this.items[0];
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  clear(): void {
    this.items = [];
  }
}
