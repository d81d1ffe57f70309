/** The policy's results, as schemas: `policy.show` and `policy.reload`. */
import { z } from 'zod';
import { RiskSchema } from './fields.js';

const source = z.enum(['default', 'file']);

/** `policy.show`: the policy in force (nothing secret in it). */
export const PolicyViewSchema = z.strictObject({
  digest: z.string(),
  /** `file` (read from `path`) or `default` (no file: the built-in default). */
  source,
  path: z.string(),
  reads: z.enum(['auto', 'ask']),
  second_factor_from: z.enum(['high', 'medium']),
  unattended: z.array(z.string()),
  /** The ids of its rules, in file order. */
  rules: z.array(z.string()),
  risk_overrides: z.record(z.string(), RiskSchema),
  /** What besides secrets becomes a keyed pseudonym in what clients see ([masking]). */
  pseudonyms: z.array(z.string()),
  /** Where passkey ceremonies come from, and which approvals accept only a passkey ([passkeys]). */
  passkeys: z.strictObject({ rp_id: z.string(), origins: z.array(z.string()), required_from: RiskSchema.nullable(), own_requests: z.boolean() }),
});
export type PolicyView = z.infer<typeof PolicyViewSchema>;

/** `policy.reload`: the digests of the policy replaced and the one now in force. */
export const PolicyReloadedSchema = z.strictObject({ old_digest: z.string(), new_digest: z.string(), source });
export type PolicyReloaded = z.infer<typeof PolicyReloadedSchema>;
