/**
 * The signed log's results, as schemas: its keys (`audit.pubkey`, `keys.rotate`), its pages
 * (`audit.entries`, `audit.checkpoints`), its tree heads and proofs (`audit.tree_head`,
 * `audit.prove`, `audit.consistency`).
 */
import { z } from 'zod';

/** `audit.pubkey`: the audit log's public key, `ed25519:` and 64 hex digits. */
export const AuditPublicKeySchema = z.strictObject({
  public_key: z.string(),
  /**
   * Every audit key the log has had, oldest first, one "ed25519:<hex>  <key id>  from seq N"
   * line each (the state directory's audit-keys.pub): what an auditor needs to verify a log whose
   * key rotated when they hold only a later key. Absent from a daemon before rotation.
   */
  key_history: z.string().optional(),
  /** The log's id: the key id of its first audit key, which checkpoint origins name. */
  log_id: z.string().optional(),
  /** The log's origin, "<host>/airlock/<log id>": the key name of its tree heads (and of its vkey, for a witness's config). */
  origin: z.string().optional(),
  /** The file the daemon appends its checkpoints to (its --log-dir): what a verifier on this host reads as its own record. */
  checkpoint_file: z.string().optional(),
});
export type AuditPublicKey = z.infer<typeof AuditPublicKeySchema>;

/** `keys.rotate`: which key was replaced, by which, and the log entry (`seq`, a key_rotated entry) that says so. */
export const KeyRotatedSchema = z.strictObject({ key: z.enum(['audit', 'approval']), old_key_id: z.string(), new_key_id: z.string(), seq: z.number() });
export type KeyRotated = z.infer<typeof KeyRotatedSchema>;

/** `audit.entries`: a page of the signed log as stored (LogRow of src/audit/verify.ts), in seq order. */
export const AuditEntriesPageSchema = z.strictObject({
  rows: z.array(z.strictObject({ seq: z.number(), body: z.string(), sig: z.string() })),
  /** The `after_seq` of the next page, or null when this page ends the log (as it stood). */
  next_after_seq: z.number().nullable(),
  /**
   * On a page asked for at or before it: where the live log starts, entries 1..base.seq having
   * been archived (the chain hash and Merkle frontier there, and the signed tree head of that size).
   */
  base: z.strictObject({ seq: z.number(), hash: z.string(), frontier: z.array(z.string()), tree_head: z.string().nullable() }).optional(),
});
export type AuditEntriesPage = z.infer<typeof AuditEntriesPageSchema>;

/** `audit.tree_head`: a signed tree head (C2SP tlog-checkpoint note) of the log at `size`. */
export const AuditTreeHeadSchema = z.strictObject({
  size: z.number(),
  /** Hex RFC 9162 Merkle root of the first `size` entries. */
  root: z.string(),
  /** The signed note: origin, size, base64 root, `time ...`, a blank line, the log's signature line. */
  note: z.string(),
});
export type AuditTreeHead = z.infer<typeof AuditTreeHeadSchema>;

/** One entry of an inclusion proof: the row as stored and its RFC 9162 audit path (base64 hashes), leaf index seq - 1. */
export const ProvenEntrySchema = z.strictObject({ seq: z.number(), body: z.string(), sig: z.string(), proof: z.array(z.string()) });
export type ProvenEntry = z.infer<typeof ProvenEntrySchema>;

/** `audit.prove` (and `airlock audit prove`): every entry of a transaction, proven against one signed tree head. */
export const InclusionProofDocSchema = z.strictObject({
  type: z.literal('airlock-inclusion-proof'),
  version: z.literal(1),
  transaction_id: z.string(),
  tree_head: z.string(),
  entries: z.array(ProvenEntrySchema),
});
export type InclusionProofDoc = z.infer<typeof InclusionProofDocSchema>;

/** `audit.consistency` (and `airlock audit consistency`): the tree of the new head extends the tree of the old one. */
export const ConsistencyProofDocSchema = z.strictObject({
  type: z.literal('airlock-consistency-proof'),
  version: z.literal(1),
  old_head: z.string(),
  new_head: z.string(),
  proof: z.array(z.string()),
});
export type ConsistencyProofDoc = z.infer<typeof ConsistencyProofDocSchema>;

/** `audit.checkpoints`: whole lines of the daemon's checkpoint file as stored, from a byte offset. */
export const AuditCheckpointsPageSchema = z.strictObject({
  lines: z.array(z.string()),
  /** The `offset` of the next page, or null when this page reached the end of the file (as it stood). */
  next_offset: z.number().nullable(),
});
export type AuditCheckpointsPage = z.infer<typeof AuditCheckpointsPageSchema>;
