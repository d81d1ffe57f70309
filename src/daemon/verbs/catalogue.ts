/**
 * `actions.list` and `actions.describe`: the catalogue as clients see it, with what only the
 * daemon knows (the policy's risk for each action, and whether this host supports it); and the
 * lookups other verbs share (an action by name, its risk under the policy in force, why this
 * host cannot run it).
 */
import type { AnyAction } from '../../catalogue/action.js';
import { CATALOGUE } from '../../catalogue/index.js';
import { actionMetadata } from '../../catalogue/metadata.js';
import { unknownActionError } from '../../protocol/catalogue-metadata.js';
import type { ActionDescription } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { minRoleForRisk, type Risk } from '../../protocol/risk.js';
import type { Policy } from '../../policy/policy.js';
import type { Request, VerbContext } from './context.js';

export function action(name: unknown): AnyAction {
  const a = typeof name === 'string' ? CATALOGUE.get(name) : undefined;
  if (!a) throw unknownActionError(name, [...CATALOGUE.keys()]);
  return a;
}

export function riskOf(ctx: VerbContext, a: AnyAction): Risk {
  return ctx.policy.riskOverrides.get(a.name) ?? a.risk;
}

export function platformProblem(ctx: VerbContext, a: AnyAction): string | null {
  const p = ctx.host.platform;
  if (p !== null && a.platforms.includes(p)) return null;
  // Low-risk reads are offered everywhere: at worst a file or program is missing, which is a typed error.
  if (a.readOnly && riskOf(ctx, a) === 'low') return null;
  return p === null
    ? 'this distribution is not recognised (/etc/os-release): only low-risk read-only actions are available'
    : `${a.name} supports ${a.platforms.join(', ')}, not ${p}`;
}

export function describeAction(ctx: VerbContext, name: string): ActionDescription {
  const a = action(name);
  const risk = riskOf(ctx, a);
  // The declaration's own description (src/catalogue/metadata.ts, also what clients read with
  // no daemon), with what only the daemon knows: the policy's risk and this host's support.
  return { ...actionMetadata(a), risk, min_role: minRoleForRisk(risk), supported_here: platformProblem(ctx, a) === null };
}

/**
 * The catalogue as clients see it, built once per policy (risks come from the policy's
 * [risk] table, and a reload replaces the policy object) from each action's metadata.
 */
const listings = new WeakMap<VerbContext, { policy: Policy; actions: ActionDescription[] }>();

export async function listActions(ctx: VerbContext): Promise<ActionDescription[]> {
  await ctx.metadataReady;
  let listing = listings.get(ctx);
  if (listing?.policy !== ctx.policy) listings.set(ctx, (listing = { policy: ctx.policy, actions: [...CATALOGUE.values()].map((a) => describeAction(ctx, a.name)) }));
  return listing.actions;
}

export async function describe(ctx: VerbContext, r: Request<ParsedParams<'actions.describe'>>): Promise<ActionDescription> {
  return describeAction(ctx, r.params.action_name);
}
