/**
 * Failure messages of one sink, at most one line per window: a collector that is down
 * for a day must not fill the daemon's log, yet the first failure, the count of the
 * ones not shown, and the recovery are all said.
 */
export class FailureLog {
  private lastShown = -Infinity;
  private suppressed = 0;
  private failing = false;

  constructor(
    private readonly name: string,
    private readonly log: (msg: string) => void,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  fail(what: string): void {
    this.failing = true;
    const t = this.now();
    if (t - this.lastShown < this.windowMs) {
      this.suppressed++;
      return;
    }
    const more = this.suppressed ? ` (${this.suppressed} more failure(s) since the last message)` : '';
    this.suppressed = 0;
    this.lastShown = t;
    this.log(`checkpoint sink ${this.name}: ${what}${more}`);
  }

  ok(): void {
    if (!this.failing) return;
    this.failing = false;
    const more = this.suppressed ? ` after ${this.suppressed} more failure(s)` : '';
    this.suppressed = 0;
    this.lastShown = -Infinity;
    this.log(`checkpoint sink ${this.name}: working again${more}`);
  }
}
