/**
 * Every method the daemon serves, with its parameters and its result, in one table.
 * The two sides of the socket cannot disagree about it: the client's `call` takes
 * its parameter and result types from here, the daemon's door (src/daemon/door.ts) must
 * serve each method and answer with what it says, and the welcome's `capabilities` are its
 * keys, in this order. The table is data as well as types, so test/unit/protocol-doc.test.ts
 * can hold docs/protocol.md to it (section 6 documents each method and each parameter).
 *
 * A method's parameters are a strict zod object: the daemon parses every request with it
 * before the method's verb runs (src/daemon/dispatch.ts), and a value that fails it is
 * refused with its field's code, or the method's own (`refusal`), saying what was expected
 * and what came (param-schemas.ts). A parameter is required when a correct client always
 * sends it; optional ones have a default or a meaning when absent. Each result is a zod
 * schema too (`returns`, src/protocol/wire/), from which its type is inferred.
 */
import { z } from 'zod';
import { ActionName, ActionParams, BAD_PARAMS, DenyReason, EnrolmentCheck, field, LOGIN_NAME, LoginName, LogSize, MAX_APPROVED_AT_ONCE, MAX_ENTRIES, TotpCode, TransactionId, WaitTimeout, type MethodRefusal } from './param-schemas.js';
import { MAX_PLAN_STEPS } from './plan.js';
import { JOB_STATES, type TxState } from './risk.js';
import { ActionDescriptionSchema, ActionListSchema } from './wire/action.js';
import { ApproveResultSchema, WaitOutcomeSchema } from './wire/approval.js';
import { AuditCheckpointsPageSchema, AuditEntriesPageSchema, AuditPublicKeySchema, AuditTreeHeadSchema, ConsistencyProofDocSchema, InclusionProofDocSchema, KeyRotatedSchema } from './wire/audit.js';
import { PolicyReloadedSchema, PolicyViewSchema } from './wire/policy.js';
import { PreviewResultSchema } from './wire/preview.js';
import { StoreCheckSchema } from './wire/store.js';
import { MAX_SESSION_MINUTES, SESSION_GRANT_ID, SessionGrantListSchema, SessionRevokedSchema } from './wire/session.js';
import {
  ConsoleCallResultSchema,
  ConsoleRegisteredSchema,
  ConsoleRegistrationSchema,
  ConsoleSignedInSchema,
  ConsoleSignedOutSchema,
  ConsoleSignInOptionsSchema,
  FleetApprovedSchema,
  FleetEntriesSchema,
  PasskeyApprovalOptionsSchema,
  PasskeyAssertionSchema,
  PasskeyCreationSchema,
  PasskeyName,
  PasskeyPublicSchema,
  PasskeyRegisteredSchema,
  PasskeyRegistrationSchema,
} from './wire/passkey.js';
import { TotpApprovedSchema, TotpConfirmedSchema, TotpIssuedSchema, TotpResetDoneSchema } from './wire/totp.js';
import { ResultEnvelopeSchema, TransactionDetailSchema, TransactionListSchema, TransactionViewSchema } from './wire/transaction.js';

/** One method: its parameters' schema, the code (and hint) a parameter without its own refusal gets, and its result's schema. */
interface Row<P extends z.core.$ZodShape, R extends z.ZodType> {
  params: z.ZodObject<P, z.core.$strict>;
  refusal: MethodRefusal;
  returns: R;
}
const row = <P extends z.core.$ZodShape, R extends z.ZodType>(shape: P, returned: R, refusal = BAD_PARAMS): Row<P, R> => ({ params: z.strictObject(shape), refusal, returns: returned });

const TX_STATES = ['Previewed', ...JOB_STATES] as const satisfies readonly TxState[];

/**
 * What a person signed in at the web console may do there (console.call): list what waits
 * (`history` with state Previewed; `inbox`, unattended proposals), read one with whether they
 * may approve it, approve it with a passkey (and let identical requests through for a while),
 * deny it; list the session grants in force and revoke one; request and run (`preview`,
 * `execute`) the actions that declare `requestedAtConsole` (grants for configuration edits), and
 * no other (src/daemon/verbs/console.ts).
 */
export const CONSOLE_RELAYED = ['history', 'inbox', 'transaction.get', 'passkey.approval_options', 'approve', 'deny', 'session.list', 'session.revoke', 'preview', 'execute'] as const;
/** An opaque id the daemon issued (a session token, a challenge or registration id): base64url, bounded. */
/** How long an approval lets identical requests through (the "this session" lane), in whole minutes. */
const SessionMinutes = field(z.number().int().min(1).max(MAX_SESSION_MINUTES), { category: 'validation', code: 'bad_session_minutes', expected: `whole minutes from 1 to ${MAX_SESSION_MINUTES} (8 hours)` });
const OpaqueId = (code: string) => field(z.string().min(16).max(64).regex(/^[A-Za-z0-9_-]+$/), { category: 'authorization', code, expected: 'the id the daemon issued' });

export const METHOD_TABLE = {
  'actions.list': row({}, ActionListSchema),
  'actions.describe': row({ action_name: ActionName }, ActionDescriptionSchema),
  preview: row(
    {
      action_name: ActionName,
      params: ActionParams.optional(),
      proposal_id: TransactionId.optional(),
      unmask: field(z.boolean(), { category: 'validation', code: 'bad_unmask', expected: 'true or false' }).optional(),
    },
    PreviewResultSchema,
  ),
  'transaction.get': row({ transaction_id: TransactionId }, TransactionDetailSchema),
  approve: row(
    {
      transaction_id: TransactionId,
      // A digest that is not the stored one, of whatever type, is a stale approval (the approver saw something else).
      preview_digest: field(z.string(), { category: 'stale_approval', code: 'digest_mismatch', expected: 'the preview_digest of the preview you were shown', hint: 'fetch the transaction again and approve what it shows' }),
      totp_code: TotpCode.optional(),
      // A passkey's approval of this preview (src/daemon/passkeys.ts): instead of the code, or where the policy asks for one.
      assertion: PasskeyAssertionSchema.optional(),
      // With an assertion signed over it too: identical requests of the same requester are approved for this long (never High).
      session_minutes: SessionMinutes.optional(),
    },
    // The receipt, or where the policy asks for another person's approval too, this one recorded (wire/approval.ts).
    ApproveResultSchema,
  ),
  'totp.enroll': row(
    { current_code: TotpCode.optional() },
    TotpIssuedSchema,
    {
      category: 'validation',
      code: 'bad_params',
      hint: "it enrols the caller, and nobody enrols another person: a person enrols with `airlock totp enroll` from their own account; to delete somebody's factor, root runs `sudo airlock totp reset --user NAME`",
    },
  ),
  'totp.confirm': row(
    {
      // Without it the answer is the one a missing approval code gets: the enrolment needs the code (second-factor.ts).
      code: field(TotpCode.clone(), { category: 'authorization', code: 'totp_required', expected: 'the first 6-digit code the authenticator app shows', hint: 'run `airlock totp enroll` in a terminal: it asks for the code' }),
    },
    TotpConfirmedSchema,
  ),
  'totp.reset': row(
    // passkeys: delete the person's passkeys too (a lost phone holds both factors).
    { user: LoginName, totp_code: TotpCode.optional(), passkeys: field(z.boolean(), { category: 'validation', code: 'bad_params', expected: 'true or false' }).optional() },
    TotpResetDoneSchema,
    { category: 'validation', code: 'bad_user' },
  ),
  'totp.approve': row(
    { enrolments: z.array(z.strictObject({ user: z.string().regex(LOGIN_NAME), check: EnrolmentCheck })).min(1).max(MAX_APPROVED_AT_ONCE), totp_code: TotpCode.optional() },
    TotpApprovedSchema,
    { category: 'validation', code: 'bad_user' },
  ),
  'policy.show': row({}, PolicyViewSchema),
  'policy.reload': row({ totp_code: TotpCode.optional() }, PolicyReloadedSchema),
  inbox: row({}, TransactionListSchema),
  execute: row(
    {
      transaction_id: TransactionId,
      // The action and receipt are checked against the stored approval: any other value is a stale one, as today's clients are told.
      action_name: field(z.string(), { category: 'stale_approval', code: 'request_mismatch', expected: 'the action the transaction previewed' }),
      params: ActionParams.optional(),
      receipt: field(z.string(), { category: 'stale_approval', code: 'bad_receipt', expected: 'the receipt `airlock approve` printed for this transaction', hint: 'use the receipt printed by `airlock approve` for this transaction' }),
    },
    ResultEnvelopeSchema,
  ),
  cancel: row({ transaction_id: TransactionId }, TransactionViewSchema),
  history: row(
    {
      state: z.enum(TX_STATES).optional(),
      action: z.string().max(64).regex(/^[A-Za-z0-9]+$/).optional(),
      since: z.iso.datetime({ offset: true }).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    },
    TransactionListSchema,
    { category: 'validation', code: 'bad_history_query' },
  ),
  'audit.pubkey': row({}, AuditPublicKeySchema),
  'transaction.wait': row({ transaction_id: TransactionId, timeout_ms: WaitTimeout.optional() }, WaitOutcomeSchema),
  deny: row({ transaction_id: TransactionId, reason: DenyReason.optional() }, TransactionViewSchema),
  'audit.entries': row({ after_seq: LogSize.optional(), limit: z.number().int().min(1).max(MAX_ENTRIES).optional() }, AuditEntriesPageSchema, { category: 'validation', code: 'bad_audit_query' }),
  'audit.checkpoints': row({ offset: LogSize.optional() }, AuditCheckpointsPageSchema, { category: 'validation', code: 'bad_audit_query' }),
  'store.check': row({}, StoreCheckSchema),
  'audit.tree_head': row({ size: LogSize.optional() }, AuditTreeHeadSchema, { category: 'validation', code: 'bad_audit_query' }),
  'audit.prove': row({ transaction_id: TransactionId }, InclusionProofDocSchema),
  'audit.consistency': row({ old_size: LogSize, new_size: LogSize.optional() }, ConsistencyProofDocSchema, { category: 'validation', code: 'bad_audit_query' }),
  'keys.rotate': row({ key: z.enum(['audit', 'approval']) }, KeyRotatedSchema, { category: 'validation', code: 'bad_key_name' }),
  'plan.preview': row(
    {
      steps: field(z.array(z.strictObject({ action_name: ActionName, params: ActionParams.optional() })).min(1).max(MAX_PLAN_STEPS), {
        category: 'validation',
        code: 'bad_plan',
        expected: `1 to ${MAX_PLAN_STEPS} steps, each {action_name, params}`,
      }),
    },
    PreviewResultSchema,
  ),
  // existing: a passkey of the caller's registered on another host (passkey.export there), registered here once it signs this registration's challenge.
  'passkey.begin': row({ existing: PasskeyPublicSchema.optional() }, PasskeyCreationSchema),
  'passkey.register': row(
    {
      response: PasskeyRegistrationSchema.optional(),
      name: PasskeyName.optional(),
      totp_code: TotpCode.optional(),
      assertion: PasskeyAssertionSchema.optional(),
      // The passkey named by passkey.begin's `existing`, signing that registration's challenge: it proves the person holds it.
      existing_assertion: PasskeyAssertionSchema.optional(),
    },
    PasskeyRegisteredSchema,
    { category: 'validation', code: 'bad_registration', hint: 'pass the new credential exactly as PublicKeyCredential.toJSON() gives it, and the code your authenticator app shows' },
  ),
  // The public part of one of the caller's own passkeys, by its short id, to register it on another host.
  'passkey.export': row({ passkey_id: field(z.string().regex(/^[0-9a-f]{16}$/), { category: 'validation', code: 'no_such_passkey', expected: 'a passkey id: 16 hex digits, as `airlock doctor` and the log name it' }) }, PasskeyPublicSchema),
  'passkey.approval_options': row({ transaction_id: TransactionId, session_minutes: SessionMinutes.optional() }, PasskeyApprovalOptionsSchema),
  // One passkey assertion over a fleet plan (src/protocol/passkey.ts fleetChallenge): this host approves its own entry, as the person who signed.
  'approve.fleet': row({ entries: FleetEntriesSchema, assertion: PasskeyAssertionSchema }, FleetApprovedSchema),
  'console.sign_in_options': row({}, ConsoleSignInOptionsSchema),
  'console.sign_in': row({ challenge_id: OpaqueId('sign_in_expired'), assertion: PasskeyAssertionSchema }, ConsoleSignedInSchema),
  'console.sign_out': row({ session: OpaqueId('not_signed_in') }, ConsoleSignedOutSchema),
  'console.call': row(
    {
      session: OpaqueId('not_signed_in'),
      method: field(z.enum(CONSOLE_RELAYED), { category: 'authorization', code: 'not_relayed', expected: `one of ${CONSOLE_RELAYED.join(', ')}` }),
      params: z.record(z.string(), z.unknown()).optional(),
    },
    ConsoleCallResultSchema,
  ),
  'console.registration_options': row({ registration_id: OpaqueId('registration_not_begun') }, ConsoleRegistrationSchema),
  // Exactly one of `response` (a new credential) and `existing_assertion` (a passkey from another host, for a registration begun with `existing`): the daemon refuses both or neither (passkeys.ts park).
  'console.registration_response': row(
    { registration_id: OpaqueId('registration_not_begun'), response: PasskeyRegistrationSchema.optional(), existing_assertion: PasskeyAssertionSchema.optional(), assertion: PasskeyAssertionSchema.optional() },
    ConsoleRegisteredSchema,
  ),
  'session.list': row({}, SessionGrantListSchema),
  'session.revoke': row({ grant_id: field(z.string().regex(SESSION_GRANT_ID), { category: 'validation', code: 'no_such_session', expected: 'sg_ followed by 24 hex digits, as `airlock sessions` lists it' }) }, SessionRevokedSchema),
} as const;

export type Method = keyof typeof METHOD_TABLE;

/** The methods in table order: what the welcome advertises as `capabilities`. */
export const METHODS = Object.keys(METHOD_TABLE) as Method[];

/** The parameter object of method M, as a client sends it: its required keys, its optional ones, and no others. */
export type ParamsOf<M extends Method> = [keyof (typeof METHOD_TABLE)[M]['params']['shape']] extends [never] ? Record<string, never> : z.input<(typeof METHOD_TABLE)[M]['params']>;
/** The parameter object of method M as the daemon's verb receives it, parsed. */
export type ParsedParams<M extends Method> = z.output<(typeof METHOD_TABLE)[M]['params']>;

/** What method M answers with. */
export type ResultOf<M extends Method> = z.output<(typeof METHOD_TABLE)[M]['returns']>;

/** The params argument of a call: optional when the method has no required parameter. */
export type ParamsArg<M extends Method> = {} extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

/** The parameter names of a method and whether each is required, as docs/protocol.md must list them. */
export function methodParams(m: Method): Array<{ name: string; required: boolean }> {
  return Object.entries(METHOD_TABLE[m].params.shape as Record<string, z.ZodType>).map(([name, p]) => ({ name, required: !(p instanceof z.ZodOptional) }));
}
