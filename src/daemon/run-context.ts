/**
 * On whose behalf, and in which lane, the daemon runs a program: set where a request
 * enters (the principal, from the connection) and where a change executes (the change
 * lane), and read by the executor to choose whose process slots a program takes. It
 * travels with the request through every await (AsyncLocalStorage), so the catalogue's
 * state readers need not pass it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Reads: previews' state readers and read-only actions. Changes: an approved change, under the change lock. */
export type Lane = 'read' | 'change';

export interface RunContext {
  /** A key naming the principal (its uid; token principals have their own negative uid). */
  principal: string;
  lane: Lane;
}

const storage = new AsyncLocalStorage<RunContext>();
/** Outside any request (the daemon's own work): the read lane, as the daemon itself. */
const DAEMON: RunContext = { principal: 'daemon', lane: 'read' };

export function runContext(): RunContext {
  return storage.getStore() ?? DAEMON;
}

/** Runs fn on behalf of this principal, in the read lane. */
export function onBehalfOf<T>(principal: string, fn: () => T): T {
  return storage.run({ principal, lane: 'read' }, fn);
}

/** Runs fn in this lane, for the same principal. */
export function inLane<T>(lane: Lane, fn: () => T): T {
  return storage.run({ ...runContext(), lane }, fn);
}
