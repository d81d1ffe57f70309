/**
 * What an action would do on the host as it is now: the one place preview and execute
 * turn an action's check, preview and mechanism into a plan, so both decide "no change"
 * the same way (what is approved is what runs, and "nothing" is approved as nothing).
 */
import type { AnyAction, Host, PreviewParts } from '../catalogue/action.js';
import type { Step } from '../catalogue/mechanism.js';
import { fail } from '../protocol/errors.js';
import { bindMechanism, type Binding } from './mechanism-binding.js';

export type Plan =
  /** The change the action states and the steps that make it. */
  | { changed: true; parts: PreviewParts; steps: Step[] }
  /** The desired state already holds (check returned unchanged): nothing runs. */
  | { changed: false; parts: PreviewParts; steps: [] };

/** The summary of a no-change preview starts with this, as a person reads "ok" in apt and Ansible. */
export const NO_CHANGE_PREFIX = 'no change: ';

/** Throws the action's refusal (check), or returns its plan for this state. */
export function planOf(a: AnyAction, params: Record<string, unknown>, current: unknown): Plan {
  const held = a.check?.(params, current);
  // A no-change plan states no change and runs no step; its reason is the whole summary.
  if (held) return { changed: false, parts: { summary: NO_CHANGE_PREFIX + held.unchanged, change: null }, steps: [] };
  return { changed: true, parts: a.preview(params, current), steps: a.mechanism(params, current) };
}

/**
 * The host read, the plan made and its mechanism bound, as one: how a preview (a single
 * action's, a plan step's against the projected host) and an execute (from the real host now)
 * build a change, so the two are built the same way and their digests can be compared.
 */
export async function buildChange(a: AnyAction, params: Record<string, unknown>, host: Host, requester: Requester, read?: (current: unknown) => void): Promise<{ current: unknown; plan: Plan; bound: Binding }> {
  const current = await a.current(params, host);
  // `read`: what the caller must know of the state before the action's check speaks (preview: a risk read from it).
  read?.(current);
  refuseOtherRequester(a, current, requester, false);
  const plan = planOf(a, params, current);
  // A state that names no requester is refused by the action's own check, with its reason; should that check pass, it is refused here.
  refuseOtherRequester(a, current, requester, true);
  const bound = await bindMechanism(a, plan.parts.change, plan.steps, host);
  return { current, plan, bound };
}

/** Who asks for a change, as the kernel named them: what an action that names its requester (`requestedOnlyBy`) is held to. */
export interface Requester {
  uid: number;
}

/** Refuses anyone but the account an action's state names as its one requester (an edit under a grant: the account granted). */
function refuseOtherRequester(a: AnyAction, current: unknown, requester: Requester, checked: boolean): void {
  if (!a.requestedOnlyBy) return;
  const only = a.requestedOnlyBy(current);
  if ((only && only.uid === requester.uid) || (!only && !checked)) return;
  fail('authorization', 'not_the_grantee', only ? `${a.name}: ${only.why}` : `${a.name} names no account that may request it here`, only ? `ask ${only.account} to propose it, or a person grants your account` : undefined);
}
