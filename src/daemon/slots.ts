/**
 * A counting semaphore: at most `n` holders at once and, with `perHolder`, at most that
 * many for any one holder key. The others wait in order; a waiter whose key is at its share
 * lets later ones pass, so one principal's backlog never blocks another's turn.
 */
export class Slots {
  private free: number;
  private readonly held = new Map<string, number>();
  private readonly waiting: Array<{ holder: string; go: () => void }> = [];
  constructor(
    n: number,
    private readonly perHolder = n,
  ) {
    this.free = n;
  }

  async take(holder = ''): Promise<() => void> {
    await new Promise<void>((go) => {
      this.waiting.push({ holder, go });
      this.wake();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.free++;
      const n = (this.held.get(holder) ?? 1) - 1;
      if (n <= 0) this.held.delete(holder);
      else this.held.set(holder, n);
      this.wake();
    };
  }

  /** Slots held by this key now. */
  heldBy(holder = ''): number {
    return this.held.get(holder) ?? 0;
  }

  /** Grants, in order, every waiter whose key is under its share, while slots are free. */
  private wake(): void {
    for (let i = 0; i < this.waiting.length && this.free > 0; ) {
      const w = this.waiting[i]!;
      if ((this.held.get(w.holder) ?? 0) >= this.perHolder) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.free--;
      this.held.set(w.holder, (this.held.get(w.holder) ?? 0) + 1);
      w.go();
    }
  }
}
