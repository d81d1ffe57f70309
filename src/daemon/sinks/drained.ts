/**
 * A wait for a sink to drain: resolves when `waiters`' owner calls every waiter (it drained), or
 * after timeoutMs, whichever comes first; a waiter that timed out removes itself.
 */
export function drained(waiters: Array<() => void>, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(t);
      const i = waiters.indexOf(done);
      if (i >= 0) waiters.splice(i, 1);
      resolve();
    }
    waiters.push(done);
  });
}
