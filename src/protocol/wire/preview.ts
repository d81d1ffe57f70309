/**
 * `preview`'s result, as schemas: the LACS §5 preview envelope with its proposed change and
 * mechanism, and what `transaction.get` shows of a compacted one. A preview read back from
 * the store (src/daemon/stored-preview.ts) or received by a client is checked against
 * PreviewEnvelopeSchema, not cast, so its fields are stated with their precise forms
 * (digests, modes, times) and no other field is accepted. See docs/protocol.md.
 */
import { z } from 'zod';
import { AutoApprovalGrantSchema } from './approval.js';
import { RiskSchema, RoleSchema, count, hex64, isoTime, transactionIdSchema } from './fields.js';

const octalMode = z.string().regex(/^[0-7]{4,6}$/);
const owner = z.strictObject({ uid: z.number().int().min(0), gid: z.number().int().min(0) }).nullable();

/** Bytes of what a file step writes (for a patch: its search and replace texts) that are not valid UTF-8, shown as \xNN (absent: none). */
const NotUtf8Schema = z.strictObject({ not_utf8: z.number().int().min(1).optional() });
export type NotUtf8 = z.infer<typeof NotUtf8Schema>;
const notUtf8 = NotUtf8Schema.shape;

/** A file as the daemon read it: its size and the SHA-256 of its content; `not_utf8`: bytes of it that are not valid UTF-8, shown as \xNN and kept as they are. */
export const FileFactsSchema = z.strictObject({ bytes: count, sha256: hex64, ...notUtf8 });
export type FileFacts = z.infer<typeof FileFactsSchema>;

/** One `@@ -old_start,old_lines +new_start,new_lines @@` hunk; each line starts with ' ', '-', '+', or is `\ No newline at end of file`. */
export const ShownHunkSchema = z.strictObject({ old_start: count, old_lines: count, new_start: count, new_lines: count, lines: z.array(z.string()) });
export type ShownHunk = z.infer<typeof ShownHunkSchema>;

/**
 * Lines a file step removes and adds, for a person to read (a line's missing final newline is
 * a line of its own, as in diff). `not_shown`: lines left out of this view; the digest still
 * covers them. `hunks`: the same change as `diff -u` shows it, for a file write whose old
 * content the daemon read: hunks with up to 3 unchanged lines of context around the changes;
 * absent when the view would be longer than 200 lines (then `removed` and `added` alone, cut).
 */
export const ShownDiffSchema = z.strictObject({ removed: z.array(z.string()), added: z.array(z.string()), not_shown: count, hunks: z.array(ShownHunkSchema).optional() });
export type ShownDiff = z.infer<typeof ShownDiffSchema>;

/** Mode (octal, e.g. "0644") and owner a new file or directory gets; an existing file keeps its own. */
const NewFileAttributesSchema = z.strictObject({ mode: octalMode, owner, parent: z.strictObject({ mode: octalMode, owner }).nullable() });
export type NewFileAttributes = z.infer<typeof NewFileAttributesSchema>;
const newFile = NewFileAttributesSchema.shape;

/** A command step. Recursive (its `undo` is a command step), so its type is written out and the schema checked against it. */
export interface CommandEntry {
  kind: 'command';
  program: string;
  args: string[];
  ok_codes?: number[];
  timeout_ms?: number;
  resource?: string;
  env?: Record<string, string>;
  unprivileged?: boolean;
  /** Paths the program acts on by name: each passed the trusted-path rule, and is checked again right before it runs. */
  paths?: string[];
  /** A file the daemon opens (creates, with this mode) and hands the program as descriptor 3. */
  file?: { path: string; create?: { mode: string } };
  /** Before a program that only takes a name: the path must still be the file this job created. */
  expect?: { path: string; mode: string };
  /** A check that exits 0 on warnings: the line that means success, and the warnings tolerated. */
  verdict?: { success: string; tolerated?: string[] };
  /** Run if a later step fails (automatic rollback). */
  undo?: CommandEntry;
}

export const CommandEntrySchema: z.ZodType<CommandEntry> = z.lazy(() =>
  z.strictObject({
    kind: z.literal('command'),
    program: z.string(),
    args: z.array(z.string()),
    ok_codes: z.array(z.number().int()).optional(),
    timeout_ms: z.number().int().min(0).optional(),
    resource: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    unprivileged: z.boolean().optional(),
    paths: z.array(z.string()).optional(),
    file: z.strictObject({ path: z.string(), create: z.strictObject({ mode: octalMode }).optional() }).optional(),
    expect: z.strictObject({ path: z.string(), mode: octalMode }).optional(),
    verdict: z.strictObject({ success: z.string(), tolerated: z.array(z.string()).optional() }).optional(),
    undo: CommandEntrySchema.optional(),
  }),
);

export const FileScanEntrySchema = z.strictObject({ kind: z.literal('fileScan'), path: z.string() });
export type FileScanEntry = z.infer<typeof FileScanEntrySchema>;

/**
 * binds 'content': the whole new content is bound (sha256 and bytes are the content's, as
 * `sha256sum` would print them), and so is the file it replaces (`before`, null when absent).
 * binds 'own_lines': the action rebuilds the file from its content at execution, keeping
 * lines other programs changed meanwhile; bound are exactly the lines it removes and adds
 * (`diff`, complete) with the path, mode and owner, and sha256 is the digest of that part.
 */
export const FileWriteEntrySchema = z.union([
  z.strictObject({ kind: z.literal('fileWrite'), path: z.string(), ...newFile, binds: z.literal('content'), bytes: count, sha256: hex64, before: FileFactsSchema.nullable(), diff: ShownDiffSchema.nullable(), ...notUtf8 }),
  z.strictObject({ kind: z.literal('fileWrite'), path: z.string(), ...newFile, binds: z.literal('own_lines'), sha256: hex64, diff: ShownDiffSchema, ...notUtf8 }),
]);
export type FileWriteEntry = z.infer<typeof FileWriteEntrySchema>;

/** `sha256`: digest of the exact search and replace texts; the diff shows them line by line. */
export const FilePatchEntrySchema = z.strictObject({ kind: z.literal('filePatch'), path: z.string(), sha256: hex64, diff: ShownDiffSchema, ...notUtf8 });
export type FilePatchEntry = z.infer<typeof FilePatchEntrySchema>;

/** `before`: the file that is deleted, as read at preview (bound), or null when it was absent. */
/** `then_empty_dirs`: directories removed after the file when empty (a revert's, of those a change made for it). */
export const FileDeleteEntrySchema = z.strictObject({ kind: z.literal('fileDelete'), path: z.string(), before: FileFactsSchema.nullable(), then_empty_dirs: z.array(z.string()).optional() });
export type FileDeleteEntry = z.infer<typeof FileDeleteEntrySchema>;

export type MechanismEntry = CommandEntry | FileScanEntry | FileWriteEntry | FilePatchEntry | FileDeleteEntry;
export const MechanismEntrySchema: z.ZodType<MechanismEntry> = z.union([CommandEntrySchema, FileScanEntrySchema, FileWriteEntrySchema, FilePatchEntrySchema, FileDeleteEntrySchema]);

/**
 * What execution must reproduce: the action's statement of the change, each mechanism
 * step as the approver sees it, and `digest` (hex SHA-256 of JCS {change, steps}: each step
 * in full, file contents included, except the part an action declares it rebuilds at
 * execution), which binds every byte of both as the daemon built them (before any text was
 * escaped for display). See docs/protocol.md.
 */
export const ProposedChangeSchema = z.strictObject({ change: z.unknown(), mechanism: z.array(MechanismEntrySchema), digest: hex64 });
export type ProposedChange = z.infer<typeof ProposedChangeSchema>;

/**
 * How a change is undone (src/catalogue/rollback.ts): `exact`, `compensating` (by `inverse`) or
 * `none` (with the `reason` the approver reads before approving). Absent for reads.
 */
export const RollbackShownSchema = z.strictObject({
  class: z.enum(['exact', 'compensating', 'none']),
  inverse: z.string().optional(),
  reason: z.string().optional(),
});

/**
 * A plan's preview (docs/protocol.md section 6.21): each step as the approver sees it, in order,
 * previewed against the host as the steps before it leave it, and the plan's aggregated effects.
 * It is the `plan` member of the plan transaction's preview envelope, so the preview digest the
 * approver approves covers every step; `digest` is the plan digest (src/protocol/plan.ts).
 */
export const PlanStepSchema = z.strictObject({
  /** 1-based position in the plan. */
  step: z.number().int().min(1),
  action_name: z.string(),
  params: z.record(z.string(), z.unknown()),
  request_hash: hex64,
  summary: z.string(),
  risk: RiskSchema,
  current_state: z.unknown(),
  /**
   * The change and mechanism, bound; null for a step computed after an earlier one (its state
   * cannot be projected: a program's output once the earlier step ran), whose mechanism is built
   * and bound at execution, with its action, parameters and risk fixed now.
   */
  proposed_change: ProposedChangeSchema.nullable(),
  /** Present for a step that cannot be previewed before step N has run (1-based). */
  computed_after: z.number().int().min(1).optional(),
  side_effects: z.array(z.string()),
  reboot_required: z.boolean(),
  rollback_available: z.boolean(),
  rollback: RollbackShownSchema.optional(),
  warnings: z.array(z.string()),
  no_change: z.literal(true).optional(),
  /** SHA-256 of the step domain and JCS of this step without this field (planStepDigest). */
  preview_digest: hex64,
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

export const PlanSchema = z.strictObject({
  steps: z.array(PlanStepSchema).min(1),
  /** Whether any step needs a reboot to take effect. */
  reboot_required: z.boolean(),
  /** Units a step stops or restarts while the plan runs (from the effects the actions declare). */
  services_interrupted: z.array(z.string()),
  /** Steps computed after an earlier one (their `computed_after`), 1-based. */
  computed_at_execution: z.array(count),
  /** The plan digest: every step's request hash and preview digest, in order (src/protocol/plan.ts). */
  digest: hex64,
});
export type Plan = z.infer<typeof PlanSchema>;

/** LACS §5 preview envelope. */
export const PreviewEnvelopeSchema = z.strictObject({
  transaction_id: transactionIdSchema,
  action_name: z.string(),
  params: z.record(z.string(), z.unknown()),
  request_hash: hex64,
  summary: z.string(),
  risk: RiskSchema,
  min_role: RoleSchema,
  current_state: z.unknown(),
  proposed_change: ProposedChangeSchema,
  side_effects: z.array(z.string()),
  reboot_required: z.boolean(),
  rollback_available: z.boolean(),
  /** How the change is undone; the approver reads it before approving. Absent for reads. */
  rollback: RollbackShownSchema.optional(),
  warnings: z.array(z.string()),
  requested_by: z.string(),
  /**
   * Present (true) when the desired state already holds: the summary says "no change: ...",
   * the proposed change is null with no mechanism step, nothing runs, and the daemon approves
   * it itself (rule "no-change"). Covered by the preview digest like every field.
   */
  no_change: z.literal(true).optional(),
  /** Present (true) when the requester is unattended: a proposal no receipt is ever minted for. */
  unattended: z.literal(true).optional(),
  /** Present (true) for an unmasking preview: High, approved by its requester with their factor, output in clear to them alone. */
  unmask: z.literal(true).optional(),
  /** Present when this re-previews an unattended principal's proposal (`airlock inbox run`): that transaction's id. */
  from_proposal: transactionIdSchema.optional(),
  /** Present for a plan (action_name `Plan`): its steps, previewed in sequence, and the plan digest. */
  plan: PlanSchema.optional(),
  created_at: isoTime,
  expires_at: isoTime,
  /** SHA-256 of JCS of this envelope without this field: what the approver is shown. */
  preview_digest: hex64,
});
export type PreviewEnvelope = z.infer<typeof PreviewEnvelopeSchema>;

/**
 * What `transaction.get` gives for the preview of a compacted transaction: which transaction
 * and preview it was (the digest the approver approved, which its log entries carry), and a
 * sentence saying the rest is gone. `compacted: true` tells it from a PreviewEnvelope.
 */
export const CompactedPreviewSchema = z.strictObject({
  compacted: z.literal(true),
  transaction_id: z.string(),
  action_name: z.string(),
  request_hash: z.string(),
  preview_digest: z.string(),
  statement: z.string(),
});
export type CompactedPreview = z.infer<typeof CompactedPreviewSchema>;

/**
 * `preview`: the envelope, and the receipt the daemon minted when the policy approved it;
 * otherwise `policy_notes`, when a rule came close, saying which rule did not approve it and why.
 */
export const PreviewResultSchema = PreviewEnvelopeSchema.extend({ auto_approval: AutoApprovalGrantSchema.optional(), policy_notes: z.array(z.string()).optional() });
export type PreviewResult = z.infer<typeof PreviewResultSchema>;
