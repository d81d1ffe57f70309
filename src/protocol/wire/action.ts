/** `actions.list` and `actions.describe`'s result, as a schema. */
import { z } from 'zod';
import { RiskSchema, RoleSchema } from './fields.js';
import { RollbackShownSchema } from './preview.js';

/** `actions.list` (one per action) and `actions.describe`: an action as clients see it, with the host's policy applied. */
export const ActionDescriptionSchema = z.strictObject({
  name: z.string(),
  /** One of FAMILIES (src/catalogue/action.ts). */
  family: z.string(),
  description: z.string(),
  /** The effective risk: the catalogue's, or higher where the policy's [risk] table raises it. */
  risk: RiskSchema,
  min_role: RoleSchema,
  reboot_required: z.boolean(),
  rollback_available: z.boolean(),
  /** How a change is undone (exact, compensating by an inverse action, or none and why); absent for reads. */
  rollback: RollbackShownSchema.optional(),
  read_only: z.boolean(),
  /** A read whose output a person should see first; false for changes. */
  sensitive: z.boolean(),
  /** A read that sends packets to a host the request names; false for changes. */
  reaches_network: z.boolean(),
  /** Distribution ids (`debian`, `ubuntu`, `fedora`, `rhel`). */
  platforms: z.array(z.string()),
  supported_here: z.boolean(),
  /** JSON Schema (draft 2020-12) of the parameter object. */
  params_schema: z.record(z.string(), z.unknown()),
  /** A valid parameter object. */
  example: z.record(z.string(), z.unknown()),
});
export type ActionDescription = z.infer<typeof ActionDescriptionSchema>;

/** `actions.list`. */
export const ActionListSchema = z.array(ActionDescriptionSchema);
