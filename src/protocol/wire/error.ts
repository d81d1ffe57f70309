/**
 * A typed error as a schema, for the results that carry one (an execute's result, an approval
 * advice's refusal) and the MCP output schemas. The types are plain interfaces in
 * src/protocol/errors.ts, which the CLI loads at every start-up without zod; each schema here
 * is annotated with its type, so the compiler keeps the two in step.
 */
import { z } from 'zod';
import { ERROR_CATEGORIES, JSON_TYPES, type NextStep, type WireError, type WrongType } from '../errors.js';

export const NextStepSchema: z.ZodType<NextStep> = z.strictObject({ method: z.string(), params: z.record(z.string(), z.string()) });

export const WrongTypeSchema: z.ZodType<WrongType> = z.strictObject({
  param: z.string(),
  expected: z.array(z.enum(JSON_TYPES)),
  got: z.enum(JSON_TYPES),
  as_json: z.string().optional(),
});

/**
 * The keys are quoted on purpose: test/support/error-codes.ts reads an object literal with the
 * identifier keys category and code as an error being constructed.
 */
export const WireErrorSchema: z.ZodType<WireError> = z.strictObject({
  'category': z.enum(ERROR_CATEGORIES),
  'code': z.string(),
  message: z.string(),
  hint: z.string().optional(),
  wrong_types: z.array(WrongTypeSchema).optional(),
  next: NextStepSchema.optional(),
});
