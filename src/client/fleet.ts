/**
 * One request to many hosts, for every client that speaks to a fleet (the CLI, the MCP tools,
 * the planner, the benchmark): the same work on each host, at most `concurrency` at once, each
 * host's answer its own. A host that cannot be reached, or refuses, is that host's answer; the
 * others go on. Hosts are answered in the order they were given, whatever order they finish in.
 *
 * Steps that name hosts are grouped by host, each group in its own order: each host previews
 * its own steps against its own state, as its own transaction (one plan when its steps hold two
 * or more changes: src/client/proposal.ts).
 */
import { AirlockError, type WireError } from '../protocol/errors.js';

/** Hosts spoken to at once: below the relay's per-account bound (16), so one fleet request never fills it. */
export const DEFAULT_FLEET_CONCURRENCY = 8;
export const MAX_FLEET_CONCURRENCY = 16;

export type HostAnswer<T> = { host: string; ok: true; value: T } | { host: string; ok: false; error: WireError };

/** `work` for each host, at most `concurrency` at once; every host answers, in the order given. */
export async function eachHost<T>(hosts: readonly string[], work: (host: string) => Promise<T>, concurrency = DEFAULT_FLEET_CONCURRENCY): Promise<HostAnswer<T>[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_FLEET_CONCURRENCY) throw new AirlockError('validation', 'bad_concurrency', `the concurrency is 1 to ${MAX_FLEET_CONCURRENCY}`);
  const answers: HostAnswer<T>[] = new Array(hosts.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < hosts.length; i = next++) {
      const host = hosts[i]!;
      try {
        answers[i] = { host, ok: true, value: await work(host) };
      } catch (e) {
        answers[i] = { host, ok: false, error: AirlockError.of(e).toWire() };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, hosts.length) }, lane));
  return answers;
}

/** The steps grouped by their host (none: the host the client speaks to by default), hosts in the order they first appear, each host's steps in their order. */
export function stepsByHost<S extends { host?: string | null }>(steps: readonly S[]): Map<string | null, S[]> {
  const groups = new Map<string | null, S[]>();
  for (const s of steps) {
    const key = s.host ?? null;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return groups;
}

/**
 * Waves, when asked: the first host alone, then the rest once it succeeded. `succeeded` says
 * whether a host's answer lets the rollout go on; the rest are answered as not run.
 */
export async function inWaves<T>(hosts: readonly string[], work: (host: string) => Promise<T>, succeeded: (a: HostAnswer<T>) => boolean, concurrency = DEFAULT_FLEET_CONCURRENCY): Promise<HostAnswer<T>[]> {
  if (hosts.length <= 1) return eachHost(hosts, work, concurrency);
  const [first] = await eachHost(hosts.slice(0, 1), work, 1);
  if (!succeeded(first!)) {
    const halted = new AirlockError('execution', 'wave_halted', `not run: the first wave (${first!.host}) did not succeed`, `look at ${first!.host}'s answer; run the rest when it is fixed`).toWire();
    return [first!, ...hosts.slice(1).map((host) => ({ host, ok: false as const, error: halted }))];
  }
  return [first!, ...(await eachHost(hosts.slice(1), work, concurrency))];
}
