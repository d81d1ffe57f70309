/**
 * The pieces the tools' output schemas share: what the daemon's envelopes look like to an
 * agent, taken from the wire's own schemas (src/protocol/wire/), never declared again here.
 * Outputs are closed objects (their JSON Schema says additionalProperties: false, and a client
 * checks the structured result against it), so the tools copy exactly the fields they promise;
 * inputs are `z.strictObject`s in each tool's file.
 */
import { z } from 'zod';
import { WireErrorSchema } from '../protocol/wire/error.js';
import { ActionDescriptionSchema, TransactionViewSchema, type TransactionView } from '../protocol/messages.js';

export { RiskSchema as risk, RoleSchema as role, TxStateSchema as txState, transactionIdSchema as transactionId } from '../protocol/wire/fields.js';

/** A typed error as the daemon sends it. */
export const wireError = WireErrorSchema;

/** TransactionView, as history and cancel return it. */
export const transactionView = TransactionViewSchema;

/** ActionDescription: one catalogue action as this host's daemon describes it; supported_here null: no daemon answered, so whether this host supports it is unknown. */
export const actionDescription = ActionDescriptionSchema.extend({ supported_here: ActionDescriptionSchema.shape.supported_here.nullable() });
/** An action as the MCP server shows it: from the daemon, or from the built-in catalogue with supported_here null. */
export type Described = z.infer<typeof actionDescription>;

/*
 * The pickers copy exactly the fields a schema names: a JSON Schema converted from a
 * z.object forbids other properties, and a client checks the structured result against it.
 */

export function pickAction(a: Described): Described {
  const { name, family, description, risk, min_role, read_only, sensitive, reaches_network, reboot_required, rollback_available, platforms, supported_here, params_schema, example } = a;
  return { name, family, description, risk, min_role, read_only, sensitive, reaches_network, reboot_required, rollback_available, platforms, supported_here, params_schema, example };
}

export function pickView(v: TransactionView): TransactionView {
  const { transaction_id, action_name, risk, state, request_hash, requested_by, approved_by, created_at, updated_at, expires_at, summary } = v;
  return {
    transaction_id, action_name, risk, state, request_hash, requested_by, approved_by, created_at, updated_at, expires_at, summary,
    ...(v.denied_by !== undefined ? { denied_by: v.denied_by } : {}),
    ...(v.deny_reason !== undefined ? { deny_reason: v.deny_reason } : {}),
    ...(v.compacted_at !== undefined ? { compacted_at: v.compacted_at } : {}),
  };
}

/** A host the relay knows, by name (src/protocol/relay.ts); absent: the host this MCP server runs on. */
export const hostIn = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a host name as `airlock hosts` lists it')
  .optional()
  .describe("the host to run this on, by the name the relay knows it by (see airlock_hosts); omit for this MCP server's own host");
