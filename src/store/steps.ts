/**
 * Code written once over both stores' calls, though SQLite's are synchronous and PostgreSQL's
 * return promises: a generator yields each call's result (`yield* call(...)`) and gets it back
 * settled. `drive` runs it synchronously for as long as what it yields is not a promise.
 *
 * Why not simply `await`: an await yields to other microtasks even for a value at hand, and on
 * SQLite's one connection another operation running then (a read, a write outside the group
 * commit) would run inside the batch's open transaction: it could read what is not yet
 * committed, or be rolled back with an operation it has nothing to do with. Driven
 * synchronously, a SQLite batch runs start to finish with nothing in between, as it always did.
 */
export type Awaitable<T> = T | Promise<T>;

/** Steps that end with a T. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** One call's result, inside Steps: `const row = yield* call(dialect.row(c, id))`. */
export function* call<T>(value: Awaitable<T> | Steps<T>): Steps<T> {
  if (isSteps(value)) return yield* value;
  return (yield value) as T;
}

function isSteps<T>(v: unknown): v is Steps<T> {
  return typeof v === 'object' && v !== null && typeof (v as Steps<T>).next === 'function' && typeof (v as Steps<T>).throw === 'function';
}

function isPromise(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';
}

/** Runs the steps: synchronously (returning T, or throwing) until one yields a promise; from there on, asynchronously. */
export function drive<T>(steps: Steps<T>): Awaitable<T> {
  let r = steps.next();
  for (;;) {
    if (r.done) return r.value;
    if (isPromise(r.value)) return resume(steps, r.value);
    r = steps.next(r.value);
  }
}

async function resume<T>(steps: Steps<T>, first: PromiseLike<unknown>): Promise<T> {
  let next: unknown = first;
  for (;;) {
    let settled: unknown;
    let rejected = false;
    try {
      settled = await next;
    } catch (e) {
      settled = e;
      rejected = true;
    }
    // A rejected call is thrown inside the steps, where their try/catch sees it; what the steps throw propagates.
    const r = rejected ? steps.throw(settled) : steps.next(settled);
    if (r.done) return r.value;
    next = r.value;
  }
}
