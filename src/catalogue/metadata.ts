/**
 * An action as clients see it before any host or policy applies: the one mapping from a
 * declaration to the fields of ActionDescription (src/protocol/messages.ts) that depend
 * on the declaration alone. The daemon's `actions.describe` starts from it (and adds the
 * policy's risk and the host's support); scripts/gen-catalogue-metadata.ts writes it for
 * every action to src/protocol/catalogue-metadata.json, which clients read with no daemon.
 * One mapping for both, so the two can never describe an action differently.
 */
import { z } from 'zod';
import type { ActionMetadata } from '../protocol/catalogue-metadata.js';
import { minRoleForRisk } from '../protocol/risk.js';
import type { AnyAction } from './action.js';
import { rollbackAvailable, shownRollback } from './rollback.js';

/**
 * Each action's metadata is made once per process: z.toJSONSchema of the whole catalogue takes
 * hundreds of ms, which a daemon must not spend in one turn of its event loop
 * (warmActionMetadata makes it one action per turn; test/integration/fuzz-daemon.test.ts).
 */
const made = new Map<AnyAction, ActionMetadata>();

export function actionMetadata(a: AnyAction): ActionMetadata {
  let m = made.get(a);
  if (!m) made.set(a, (m = metadataOf(a)));
  return m;
}

/** Makes the metadata of every action given, one action per turn of the event loop, so other work runs between them. */
export async function warmActionMetadata(actions: Iterable<AnyAction>): Promise<void> {
  for (const a of actions) {
    actionMetadata(a);
    await new Promise((r) => setImmediate(r));
  }
}

function metadataOf(a: AnyAction): ActionMetadata {
  return {
    name: a.name,
    family: a.family,
    description: a.description,
    risk: a.risk,
    min_role: minRoleForRisk(a.risk),
    reboot_required: a.reboot,
    rollback_available: rollbackAvailable(a),
    ...(a.readOnly ? {} : { rollback: shownRollback(a.rollback) }),
    read_only: a.readOnly,
    // What the policy's reads rule relies on (autoApprovalLane, src/daemon/authz.ts); false for changes.
    sensitive: a.readOnly && a.sensitive,
    reaches_network: a.readOnly && a.reachesNetwork,
    platforms: a.platforms,
    params_schema: z.toJSONSchema(a.params),
    example: a.example,
  };
}
