/**
 * The parameter fields methods share, each written once, and how a parameter that fails its
 * schema is refused. Every field may carry its refusal (registered in FIELD_REFUSALS): the
 * typed code a client has always got for it (`bad_transaction_id`, `bad_unmask`...) and, in
 * words, what it expects. The refusal then says what was expected and what came (`port` got
 * the string "443"), so a client can fix its call without reading the daemon's source; a field
 * without one is refused with its method's code.
 */
import { z } from 'zod';
import { AirlockError, textOfWireValue, type ErrorCategory } from './errors.js';

/** `transaction.wait`'s timeout_ms: its default when absent, and the most a wait may ask for (5 minutes). */
export const WAIT_DEFAULT_MS = 30_000;
export const WAIT_MAX_MS = 300_000;

/** How a method refuses parameters that fail its schema, when the failing field has no refusal of its own. */
export interface MethodRefusal {
  category: ErrorCategory;
  code: string;
  hint?: string;
}
export const BAD_PARAMS: MethodRefusal = { category: 'validation', code: 'bad_params' };
/** How a field is refused: its category and code, and what it expects, in words. */
export interface FieldRefusal extends MethodRefusal {
  expected: string;
}
export const FIELD_REFUSALS = z.registry<FieldRefusal>();

/** `schema`, refused as `refusal` says when a value fails it. */
export function field<S extends z.ZodType>(schema: S, refusal: FieldRefusal): S {
  FIELD_REFUSALS.add(schema, refusal);
  return schema;
}

/** A login name on the host (the same rule as the catalogue's user names, src/catalogue/params.ts). */
export const LOGIN_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
/** The longest reason a person may give for a denial, in UTF-16 code units (the string's length). */
export const MAX_DENY_REASON = 500;
/** The most enrolments one code approves: a team's onboarding, bounded. */
export const MAX_APPROVED_AT_ONCE = 16;
/** The most entries one audit.entries page holds. */
export const MAX_ENTRIES = 2000;

export const TRANSACTION_ID = /^tx_[0-9a-f]{24}$/;
export const TransactionId = field(z.string().regex(TRANSACTION_ID), { category: 'validation', code: 'bad_transaction_id', expected: 'tx_ followed by 24 hex digits' });
/** A code from an authenticator app (6 digits; a little room for what a person types around them). */
export const TotpCode = z.string().max(16);
/** An action's parameters: an object here; the action's own schema checks them in the verb (src/daemon/request-params.ts). */
export const ActionParams = field(z.record(z.string(), z.unknown()), { category: 'validation', code: 'bad_params', expected: "an object of the action's parameters" });
export const ActionName = field(z.string().max(64), { category: 'validation', code: 'unknown_action', expected: 'the name of an action (`airlock actions` lists them)' });
/** A position in the log or a size of it: a whole number from 0. */
export const LogSize = field(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), { category: 'validation', code: 'bad_audit_query', expected: 'a whole number from 0' });
export const WaitTimeout = field(z.number().int().min(0).max(WAIT_MAX_MS), {
  category: 'validation',
  code: 'bad_wait_timeout',
  expected: `an integer from 0 to ${WAIT_MAX_MS} (5 minutes)`,
  hint: 'wait again when it ends: a wait that ends "pending" changed nothing',
});
export const DenyReason = field(z.string().max(MAX_DENY_REASON), { category: 'validation', code: 'bad_reason', expected: `text of at most ${MAX_DENY_REASON} UTF-16 code units (an emoji counts two)` });
export const LoginName = field(z.string().regex(LOGIN_NAME), { category: 'validation', code: 'bad_user', expected: 'a login name such as alice' });
export const EnrolmentCheck = z.string().regex(/^[A-Z2-7]{4}-[A-Z2-7]{4}$/);

/** A value as a refusal names it: its type, and a short, bounded view of it. */
function described(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(textOfWireValue(v, 40))}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `the ${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** The schema a field was registered with (an optional field wraps it). */
const registered = (s: z.ZodType | undefined): FieldRefusal | undefined => {
  for (let t: unknown = s; t instanceof z.ZodType; t = t instanceof z.ZodOptional ? t.unwrap() : undefined) {
    const r = FIELD_REFUSALS.get(t);
    if (r) return r;
  }
  return undefined;
};

/**
 * The refusal of `raw` as the parameters of `method`: the first issue, as the field's own
 * refusal when it has one, else as the method's (`fallback`), saying what was expected and
 * what came.
 */
export function paramsRefusal(method: string, schema: z.ZodObject, raw: Record<string, unknown>, error: z.ZodError, fallback: MethodRefusal): AirlockError {
  const issue = error.issues[0]!;
  const names = Object.keys(schema.shape);
  if (issue.code === 'unrecognized_keys') {
    const extra = issue.keys.map((k) => JSON.stringify(textOfWireValue(k, 40))).join(', ');
    return new AirlockError(fallback.category, fallback.code, `${method} takes ${names.length ? names.join(', ') : 'no parameters'}; ${extra} is not one of them`, fallback.hint);
  }
  const key = String(issue.path[0] ?? '');
  const own = registered(schema.shape[key] as z.ZodType | undefined);
  // A field's place inside the value (an element of a list) is named after the field.
  const where = key + issue.path.slice(1).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const got = described(valueAt(raw, issue.path));
  if (!own) return new AirlockError(fallback.category, fallback.code, `${method}: ${where}: ${issue.message}; it got ${got}`, fallback.hint);
  return new AirlockError(own.category, own.code, `${method}: ${where} must be ${own.expected}; it got ${got}`, own.hint);
}

function valueAt(v: unknown, path: readonly PropertyKey[]): unknown {
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}
