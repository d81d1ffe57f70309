/**
 * The pieces the tools' output schemas share: what the daemon's envelopes look like to an
 * agent. Outputs are plain `z.object`s (the daemon may add fields in a later version; the
 * tools copy the fields they promise), inputs are `z.strictObject`s in each tool's file.
 */
import { z } from 'zod';
import { ERROR_CATEGORIES } from '../protocol/errors.js';
import { JOB_STATES, RISKS, ROLES } from '../protocol/risk.js';

export const risk = z.enum(RISKS);
export const role = z.enum(ROLES);
export const txState = z.enum(['Previewed', ...JOB_STATES]);
export const transactionId = z.string().regex(/^tx_[0-9a-f]{24}$/, 'a transaction id: tx_ and 24 hex digits');

/**
 * A typed error as the daemon sends it. The keys are quoted on purpose: this is a schema,
 * and test/support/error-codes.ts reads an object literal with the identifier keys
 * category and code as an error being constructed.
 */
export const wireError = z.object({
  'category': z.enum(ERROR_CATEGORIES),
  'code': z.string(),
  message: z.string(),
  hint: z.string().optional(),
});

/** TransactionView (src/protocol/messages.ts), as history and cancel return it. */
export const transactionView = z.object({
  transaction_id: z.string(),
  action_name: z.string(),
  risk,
  state: txState,
  request_hash: z.string(),
  requested_by: z.string(),
  approved_by: z.string().nullable(),
  denied_by: z.string().optional(),
  deny_reason: z.string().optional(),
  /** Once the store's retention compacted it: when (its preview and parameters are gone). */
  compacted_at: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string(),
  summary: z.string(),
});

/** ActionDescription (src/protocol/messages.ts): one catalogue action as this host's daemon describes it. */
export const actionDescription = z.object({
  name: z.string(),
  family: z.string(),
  description: z.string(),
  risk,
  min_role: role,
  read_only: z.boolean(),
  sensitive: z.boolean(),
  reaches_network: z.boolean(),
  reboot_required: z.boolean(),
  rollback_available: z.boolean(),
  platforms: z.array(z.string()),
  /** null: no daemon answered, so whether this host supports it is unknown. */
  supported_here: z.boolean().nullable(),
  params_schema: z.record(z.string(), z.unknown()),
  example: z.record(z.string(), z.unknown()),
});

/*
 * The pickers copy exactly the fields a schema names: a JSON Schema converted from a
 * z.object forbids other properties, and a client checks the structured result against it.
 */

export function pickAction(a: Omit<import('../protocol/messages.js').ActionDescription, 'supported_here'> & { supported_here: boolean | null }): z.infer<typeof actionDescription> {
  const { name, family, description, risk, min_role, read_only, sensitive, reaches_network, reboot_required, rollback_available, platforms, supported_here, params_schema, example } = a;
  return { name, family, description, risk, min_role, read_only, sensitive, reaches_network, reboot_required, rollback_available, platforms, supported_here, params_schema, example };
}

export function pickView(v: import('../protocol/messages.js').TransactionView): z.infer<typeof transactionView> {
  const { transaction_id, action_name, risk, state, request_hash, requested_by, approved_by, created_at, updated_at, expires_at, summary } = v;
  return {
    transaction_id, action_name, risk, state, request_hash, requested_by, approved_by, created_at, updated_at, expires_at, summary,
    ...(v.denied_by !== undefined ? { denied_by: v.denied_by } : {}),
    ...(v.deny_reason !== undefined ? { deny_reason: v.deny_reason } : {}),
    ...(v.compacted_at !== undefined ? { compacted_at: v.compacted_at } : {}),
  };
}
