/**
 * A transaction's results, as schemas: the view every list and state change returns, what
 * `transaction.get` adds to it, and the LACS §5 result envelope `execute` returns.
 */
import { z } from 'zod';
import { WireErrorSchema } from './error.js';
import { ApprovalAdviceSchema } from './approval.js';
import { JobStateSchema, RiskSchema, TxStateSchema } from './fields.js';
import { CompactedPreviewSchema, PreviewEnvelopeSchema } from './preview.js';

/** `cancel`, `deny`, and one per transaction in `history` and `inbox`. */
export const TransactionViewSchema = z.strictObject({
  transaction_id: z.string(),
  action_name: z.string(),
  risk: RiskSchema,
  state: TxStateSchema,
  request_hash: z.string(),
  requested_by: z.string(),
  approved_by: z.string().nullable(),
  /** Present when a person refused it (`deny`): who, as `user(uid N)`. */
  denied_by: z.string().optional(),
  /** Present when the person who denied it gave a reason (escaped text). */
  deny_reason: z.string().optional(),
  /** Present once its details were compacted by the store's retention: when (its preview, parameters and result messages are gone). */
  compacted_at: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string(),
  summary: z.string(),
});
export type TransactionView = z.infer<typeof TransactionViewSchema>;

/** `history` and `inbox`. */
export const TransactionListSchema = z.array(TransactionViewSchema);

/** `transaction.get`: the stored preview, the result, and what the caller may do with it. */
export const TransactionDetailSchema = TransactionViewSchema.extend({
  /** The stored preview; for a compacted transaction (`compacted_at`), what is left of it. */
  preview: z.union([PreviewEnvelopeSchema, CompactedPreviewSchema]),
  result: z.unknown(),
  your_approval: ApprovalAdviceSchema,
  /** For the requester of an approved (Queued) transaction: the receipt the approver received, to execute with. */
  receipt: z.string().optional(),
});
export type TransactionDetail = z.infer<typeof TransactionDetailSchema>;

/** LACS §5 result envelope: `execute`. */
export const ResultEnvelopeSchema = z.strictObject({
  transaction_id: z.string(),
  action_name: z.string(),
  request_hash: z.string(),
  state: JobStateSchema,
  summary: z.string(),
  needs_reboot: z.boolean(),
  /** Whether the host was changed (for a failed job: may have been): false for a read and for a no-change request. */
  changed: z.boolean(),
  rollback_ref: z.string().nullable(),
  output: z.array(z.string()),
  output_truncated: z.boolean(),
  error: WireErrorSchema.optional(),
  /** A plan's: what became of each step, in order (docs/protocol.md section 6.21). */
  /**
   * After an automatic rollback (`expected: before`) or a revert (`expected: reverted`): whether
   * the state the change touches reads as it must, and which probes do not (docs/protocol.md 6.25).
   */
  state_check: z
    .strictObject({
      expected: z.enum(['before', 'reverted']),
      /** What was read: a file's path, or a read-only program and its arguments. */
      probes: z.array(z.union([z.strictObject({ file: z.string(), lines: z.string().optional() }), z.strictObject({ program: z.string(), args: z.array(z.string()) })])),
      matches: z.boolean(),
      differs: z.array(z.string()),
      expected_digest: z.string(),
      state_digest: z.string(),
    })
    .optional(),
  plan_steps: z.array(z.strictObject({ step: z.number().int().min(1), action_name: z.string(), state: z.enum(['succeeded', 'no_change', 'failed', 'stopped', 'rolled_back', 'not_rolled_back', 'not_run']) })).optional(),
});
export type ResultEnvelope = z.infer<typeof ResultEnvelopeSchema>;
