/**
 * The policy's `reads` rule: which reads the daemon approves by itself. It rests on
 * what each action declares (src/catalogue/action.ts, ReadDeclaration), never on a
 * guess from its name, risk or mechanism: a read qualifies when it is declared
 * non-sensitive, its effective risk is Low and the policy keeps `reads = "auto"`.
 * A read that reaches the network also needs a principal the kernel named (a Unix
 * user on this host, who could open that connection anyway); a token principal
 * (TCP, vsock) asks a person before it uses this host's place on the network.
 */
import type { ActionNature } from '../catalogue/action.js';
import type { Risk } from '../protocol/risk.js';
import type { Policy } from './policy.js';

/** How the daemon knows the principal: the kernel's peer credentials, or a token from the root-owned file. */
export interface LanePrincipal {
  via?: 'unix' | 'token';
}

/** Whether the `reads` rule approves this request by itself. Pure: the daemon and the tests call the same function. */
export function readsLaneApplies(action: ActionNature, risk: Risk, policy: Pick<Policy, 'reads'>, principal: LanePrincipal): boolean {
  if (policy.reads !== 'auto' || risk !== 'low') return false;
  if (!action.readOnly || action.sensitive) return false;
  if (action.reachesNetwork && principal.via === 'token') return false;
  return true;
}
