/**
 * Every step the offline planner proposes is checked against the action's own parameter
 * schema, as this host's catalogue describes it, before the plan leaves the planner: a rule
 * that filled a value wrongly drops its step (said in the notes) instead of sending the
 * daemon something it would refuse. The daemon validates again; this is the planner being honest.
 */
import { z } from 'zod';
import type { ActionDescription } from '../../protocol/messages.js';

const compiled = new WeakMap<object, z.ZodType>();

/** null when the parameters fit the action's schema, else the first problem in words. */
export function paramsProblem(action: ActionDescription, params: Record<string, unknown>): string | null {
  let schema = compiled.get(action.params_schema);
  if (schema === undefined) {
    schema = z.fromJSONSchema(action.params_schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(action.params_schema, schema);
  }
  const result = schema.safeParse(params);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return `${issue.path.join('.') || 'parameters'}: ${issue.message}`;
}
