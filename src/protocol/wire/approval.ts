/**
 * Approval's results, as schemas: the receipt `approve` grants (and the policy mints with a
 * preview), whether the caller may approve a transaction, and how a `transaction.wait` ended.
 */
import { z } from 'zod';
import { WireErrorSchema } from './error.js';
import { TxStateSchema } from './fields.js';
import { SessionGrantRefSchema } from './session.js';

/** `approve`: the receipt, bound to this transaction, its request and its executor. */
export const ApprovalGrantSchema = z.strictObject({
  transaction_id: z.string(),
  request_hash: z.string(),
  receipt: z.string(),
  approved_by: z.string(),
  executor: z.string(),
  expires_at: z.string(),
  /** The session grant this approval made (the person asked for one) or used (an identical request of the same requester). */
  session_grant: SessionGrantRefSchema.optional(),
});
export type ApprovalGrant = z.infer<typeof ApprovalGrantSchema>;

/** Where more than one person must approve ([approval] high = 2): how many, and who approved already (principal names, oldest first). */
export const ApprovalCountSchema = z.strictObject({ needed: z.number().int(), have: z.number().int(), by: z.array(z.string()) });

/**
 * `approve` where the policy asks for more persons than have approved: this approval is recorded
 * (the factor spent, an approval_recorded entry) and no receipt is minted; the transaction waits
 * for another person. Told apart from a grant by `recorded` (a grant has none).
 */
export const ApprovalRecordedSchema = z.strictObject({
  transaction_id: z.string(),
  recorded: z.literal(true),
  approved_by: z.string(),
  approvals: ApprovalCountSchema,
});
export type ApprovalRecorded = z.infer<typeof ApprovalRecordedSchema>;

/** What `approve` returns: the receipt, or (needing another person) the approval recorded. */
export const ApproveResultSchema = z.union([ApprovalGrantSchema, ApprovalRecordedSchema]);
export type ApproveResult = z.infer<typeof ApproveResultSchema>;

/** Whether an approve result is only recorded, waiting for another person (no receipt). */
export const isRecorded = (r: ApproveResult): r is ApprovalRecorded => 'recorded' in r && r.recorded === true;

/**
 * A receipt the daemon minted under a policy rule ("reads" for non-sensitive reads), returned with
 * the preview; or under a person's session grant (rule `session`, with `session_grant`).
 */
export const AutoApprovalGrantSchema = ApprovalGrantSchema.extend({ rule: z.string(), policy_digest: z.string() });
export type AutoApprovalGrant = z.infer<typeof AutoApprovalGrantSchema>;

/** Whether the caller may approve a transaction, and with which factor: the daemon's own decision, told before anyone is asked. */
export const ApprovalAdviceSchema = z.strictObject({
  may_approve: z.boolean(),
  /** An authenticator code is needed (High, Medium where configured, and every approval of one's own request). */
  second_factor: z.boolean(),
  /** The request was made under the caller's own account (or by root on their behalf). */
  self_approval: z.boolean(),
  /** The policy accepts only a passkey for this approval ([passkeys]): a TOTP code is refused, the console approves it. */
  passkey_required: z.literal(true).optional(),
  /** The approval may also let identical requests of the same requester through for a while, with a passkey (`approve` session_minutes). */
  session_allowed: z.literal(true).optional(),
  /** Where more than one person must approve: how many, and who did already (one who did is refused: authorization/same_approver). */
  approvals: ApprovalCountSchema.optional(),
  /** Why not, when may_approve is false: the error approve would return. */
  refusal: WireErrorSchema.optional(),
});
export type ApprovalAdvice = z.infer<typeof ApprovalAdviceSchema>;

/**
 * `transaction.wait`: how the requester's own transaction stands when the wait ends.
 * `pending`: timeout_ms passed and it still waits for a person. `finished`: its receipt
 * was used already (it runs or ran: Running, Succeeded, NeedsReboot, Failed, RolledBack).
 */
export const WaitOutcomeSchema = z.discriminatedUnion('outcome', [
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('approved'), receipt: z.string(), approved_by: z.string(), expires_at: z.string() }),
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('denied'), denied_by: z.string(), reason: z.string().nullable() }),
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('expired') }),
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('canceled') }),
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('pending'), expires_at: z.string() }),
  z.strictObject({ transaction_id: z.string(), outcome: z.literal('finished'), state: TxStateSchema }),
]);
export type WaitOutcome = z.infer<typeof WaitOutcomeSchema>;
