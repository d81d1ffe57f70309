/**
 * How a list of steps is proposed to the daemon, for every client: airlock_propose and
 * airlock_plan (MCP), `airlock plan` and `airlock do` (src/planner/door.ts). One rule:
 *
 *   steps holding TWO OR MORE CHANGES go as ONE plan (`plan.preview`, docs/protocol.md
 *   section 6.21): each step previewed against the host as the steps before it leave it (so
 *   "create group ops, add bob to ops" is not refused as `no_such_group`), one approval for
 *   the whole, executed as one with the steps done rolled back at a failure;
 *   otherwise each step goes alone (`preview`): a read keeps its approval by the host's policy
 *   and its output, and a single change needs one approval either way.
 *
 * A step is a change unless the daemon's catalogue says it is a read (an action it does not
 * know counts as a change: the daemon refuses it either way). An unattended principal may not
 * send a plan (`authorization/unattended_plan`: its proposals are re-previewed one action at
 * a time at the inbox), so its steps go one at a time, as proposals for the inbox.
 */
import { AirlockError, type WireError } from '../protocol/errors.js';
import type { ActionDescription, PreviewResult } from '../protocol/messages.js';
import type { Method, ParamsOf, ResultOf } from '../protocol/methods.js';

/** What proposing needs of a daemon connection: typed calls (an AirlockClient; in tests, a principal's process). */
export interface DaemonCalls {
  call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

/** A step as it is proposed: the action and its parameters (airlock_propose's steps; a plan file's). */
export interface ProposalStep {
  action_name: string;
  params: Record<string, unknown>;
}

/** The daemon's preview, or its typed refusal. */
export type Previewed = { ok: true; preview: PreviewResult } | { ok: false; error: WireError };

/** `plan`: one transaction for every step; `steps`: one per step, in order. */
export type Proposal = { kind: 'plan'; result: Previewed } | { kind: 'steps'; results: Previewed[] };

/** How many of the steps change the host (a step the catalogue does not call a read is a change). */
export function changeCount(steps: readonly ProposalStep[], actions: readonly Pick<ActionDescription, 'name' | 'read_only'>[]): number {
  const reads = new Set(actions.filter((a) => a.read_only).map((a) => a.name));
  return steps.filter((s) => !reads.has(s.action_name)).length;
}

/** The rule: two or more changes go as one plan. */
export const goesAsPlan = (steps: readonly ProposalStep[], actions: readonly Pick<ActionDescription, 'name' | 'read_only'>[]): boolean => changeCount(steps, actions) >= 2;

const wireOf = (e: unknown): WireError => AirlockError.of(e).toWire();

async function previewed(work: Promise<PreviewResult>): Promise<Previewed> {
  try {
    return { ok: true, preview: await work };
  } catch (e) {
    return { ok: false, error: wireOf(e) };
  }
}

/**
 * Proposes the steps by the rule. `actions`: the daemon's catalogue when the caller has it
 * already (else it is asked for). A preview's error is returned as its typed error, never
 * thrown (the other steps still preview); the catalogue's is thrown.
 */
export async function propose(client: DaemonCalls, steps: readonly ProposalStep[], actions?: readonly ActionDescription[]): Promise<Proposal> {
  const catalogue = actions ?? (await client.call('actions.list', {}));
  if (goesAsPlan(steps, catalogue)) {
    const result = await previewed(client.call('plan.preview', { steps: steps.map((s) => ({ action_name: s.action_name, params: s.params })) }));
    if (result.ok || result.error.code !== 'unattended_plan') return { kind: 'plan', result };
  }
  const results: Previewed[] = [];
  for (const s of steps) results.push(await previewed(client.call('preview', { action_name: s.action_name, params: s.params })));
  return { kind: 'steps', results };
}
