/**
 * Every message on the socket. Field names are snake_case as in LACS; see
 * docs/protocol.md for the normative description an independent client follows.
 */
import type { Risk, Role, JobState, TxState } from './risk.js';
import type { WireError } from './errors.js';
import type { Method } from './methods.js';

export const PROTOCOL = 'lacs/0.1';
export const SERVER_NAME = 'airlock';

export interface HelloMessage {
  type: 'hello';
  protocol: string;
  client?: string;
  /** On TCP and the token socket only: the client's token (ignored on the Unix socket, where the kernel says who is asking). */
  token?: string;
}

export interface Principal {
  uid: number;
  user: string;
  /** How the peer was identified: "unix" (kernel peer credentials). */
  via: 'unix' | 'token';
  role: Role;
  approver: boolean;
  /** For a root peer: the person the daemon sees behind it ("alice(uid 1001) via sudo"), or null for nobody. */
  person?: string | null;
}

export interface WelcomeMessage {
  type: 'welcome';
  protocol: string;
  server: string;
  version: string;
  /** The methods this daemon serves: METHODS (src/protocol/methods.ts), in its order. */
  capabilities: Method[];
  principal: Principal;
  limits: { max_frame: number; idle_timeout_ms: number; max_output_lines: number };
}

export interface RequestMessage {
  type: 'request';
  id: string;
  method: Method;
  params?: Record<string, unknown>;
}

export type ResponseMessage =
  | { type: 'response'; id: string; ok: true; result: unknown }
  | { type: 'response'; id: string | null; ok: false; error: WireError };

/** LACS §5 preview envelope. */
export interface PreviewEnvelope {
  transaction_id: string;
  action_name: string;
  params: Record<string, unknown>;
  request_hash: string;
  summary: string;
  risk: Risk;
  min_role: Role;
  current_state: unknown;
  proposed_change: ProposedChange;
  side_effects: string[];
  reboot_required: boolean;
  rollback_available: boolean;
  warnings: string[];
  requested_by: string;
  /**
   * Present (true) when the desired state already holds: the summary says "no change: ...",
   * the proposed change is null with no mechanism step, nothing runs, and the daemon approves
   * it itself (rule "no-change"). Covered by the preview digest like every field.
   */
  no_change?: true;
  /** Present (true) when the requester is unattended: a proposal no receipt is ever minted for. */
  unattended?: true;
  /** Present (true) for an unmasking preview: High, approved by its requester with their factor, output in clear to them alone. */
  unmask?: true;
  /** Present when this re-previews an unattended principal's proposal (`airlock inbox run`): that transaction's id. */
  from_proposal?: string;
  created_at: string;
  expires_at: string;
  /** SHA-256 of JCS of this envelope without this field: what the approver is shown. */
  preview_digest: string;
}

/**
 * What execution must reproduce: the action's statement of the change, each mechanism
 * step as the approver sees it, and `digest`, which binds every byte of both as the daemon
 * built them (before any text was escaped for display). See docs/protocol.md.
 */
export interface ProposedChange {
  change: unknown;
  mechanism: MechanismEntry[];
  /** Hex SHA-256 of JCS {change, steps}: each step in full, file contents included, except the part an action declares it rebuilds at execution. */
  digest: string;
}

export type MechanismEntry = CommandEntry | FileScanEntry | FileWriteEntry | FilePatchEntry | FileDeleteEntry;

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

export interface FileScanEntry {
  kind: 'fileScan';
  path: string;
}

/** A file as the daemon read it: its size and the SHA-256 of its content. */
export interface FileFacts {
  bytes: number;
  sha256: string;
  /** Bytes of the file that are not valid UTF-8 (absent: none); they show as \xNN and are kept as they are. */
  not_utf8?: number;
}

/** Lines a file step removes and adds, for a person to read (a line's missing final newline is a line of its own, as in diff). */
export interface ShownDiff {
  removed: string[];
  added: string[];
  /** Lines left out of this view; the digest still covers them. */
  not_shown: number;
  /**
   * The same change as `diff -u` shows it, for a file write whose old content the daemon read:
   * hunks with up to 3 unchanged lines of context around the changes. Absent when the view
   * would be longer than 200 lines (then `removed` and `added` alone, cut, as above).
   */
  hunks?: ShownHunk[];
}

/** One `@@ -old_start,old_lines +new_start,new_lines @@` hunk; each line starts with ' ', '-', '+', or is `\ No newline at end of file`. */
export interface ShownHunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  lines: string[];
}

/** Mode (octal, e.g. "0644") and owner a new file or directory gets; an existing file keeps its own. */
export interface NewFileAttributes {
  mode: string;
  owner: { uid: number; gid: number } | null;
  parent: { mode: string; owner: { uid: number; gid: number } | null } | null;
}

/**
 * binds 'content': the whole new content is bound (sha256 and bytes are the content's, as
 * `sha256sum` would print them), and so is the file it replaces (`before`, null when absent).
 * binds 'own_lines': the action rebuilds the file from its content at execution, keeping
 * lines other programs changed meanwhile; bound are exactly the lines it removes and adds
 * (`diff`, complete) with the path, mode and owner, and sha256 is the digest of that part.
 */
export type FileWriteEntry = { kind: 'fileWrite'; path: string } & NewFileAttributes &
  ({ binds: 'content'; bytes: number; sha256: string; before: FileFacts | null; diff: ShownDiff | null } | { binds: 'own_lines'; sha256: string; diff: ShownDiff }) &
  NotUtf8;

/** Bytes of what a file step writes (for a patch: its search and replace texts) that are not valid UTF-8, shown as \xNN (absent: none). */
export interface NotUtf8 {
  not_utf8?: number;
}

export interface FilePatchEntry extends NotUtf8 {
  kind: 'filePatch';
  path: string;
  /** Digest of the exact search and replace texts; the diff shows them line by line. */
  sha256: string;
  diff: ShownDiff;
}

export interface FileDeleteEntry {
  kind: 'fileDelete';
  path: string;
  /** The file that is deleted, as read at preview (bound), or null when it was absent. */
  before: FileFacts | null;
}

/** LACS §5 result envelope. */
export interface ResultEnvelope {
  transaction_id: string;
  action_name: string;
  request_hash: string;
  state: JobState;
  summary: string;
  needs_reboot: boolean;
  /** Whether the host was changed (for a failed job: may have been): false for a read and for a no-change request. */
  changed: boolean;
  rollback_ref: string | null;
  output: string[];
  output_truncated: boolean;
  error?: WireError;
}

/**
 * Sent on the requesting connection while its `execute` runs: output lines as they come,
 * masked and escaped like the result's (docs/protocol.md, "Output notifications"). It has no
 * `id`, so a client that does not know it ignores it; the result still carries the output.
 */
export interface OutputNotice {
  type: 'notification';
  event: 'output';
  /** The `id` of the execute request this output belongs to. */
  request_id: string;
  transaction_id: string;
  lines: string[];
  /** Lines left out just before these (the client was behind, or the stream's cap was reached). */
  not_streamed: number;
  /** Present (true) on the last notice of the execution. */
  last?: true;
}

/** A receipt the daemon minted under a policy rule ("reads" for non-sensitive reads), returned with the preview. */
export type AutoApprovalGrant = ApprovalGrant & { rule: string; policy_digest: string };

export interface ApprovalGrant {
  transaction_id: string;
  request_hash: string;
  receipt: string;
  approved_by: string;
  executor: string;
  expires_at: string;
}

export interface TransactionView {
  transaction_id: string;
  action_name: string;
  risk: Risk;
  state: TxState;
  request_hash: string;
  requested_by: string;
  approved_by: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  summary: string;
  /** Present when a person refused it (`deny`): who, as `user(uid N)`. */
  denied_by?: string;
  /** Present when the person who denied it gave a reason (escaped text). */
  deny_reason?: string;
  /** Present once its details were compacted by the store's retention: when (its preview, parameters and result messages are gone). */
  compacted_at?: string;
}

/**
 * What `transaction.get` gives for the preview of a compacted transaction: which transaction
 * and preview it was (the digest the approver approved, which its log entries carry), and a
 * sentence saying the rest is gone. `compacted: true` tells it from a PreviewEnvelope.
 */
export interface CompactedPreview {
  compacted: true;
  transaction_id: string;
  action_name: string;
  request_hash: string;
  preview_digest: string;
  statement: string;
}

/** Whether the caller may approve a transaction, and with which factor: the daemon's own decision, told before anyone is asked. */
export interface ApprovalAdvice {
  may_approve: boolean;
  /** An authenticator code is needed (High, Medium where configured, and every approval of one's own request). */
  second_factor: boolean;
  /** The request was made under the caller's own account (or by root on their behalf). */
  self_approval: boolean;
  /** Why not, when may_approve is false: the error approve would return. */
  refusal?: WireError;
}

/** `transaction.get`: the stored preview, the result, and what the caller may do with it. */
export interface TransactionDetail extends TransactionView {
  /** The stored preview; for a compacted transaction (`compacted_at`), what is left of it. */
  preview: PreviewEnvelope | CompactedPreview;
  result: unknown;
  your_approval: ApprovalAdvice;
  /** For the requester of an approved (Queued) transaction: the receipt the approver received, to execute with. */
  receipt?: string;
}

/** `actions.list` (one per action) and `actions.describe`: an action as clients see it, with the host's policy applied. */
export interface ActionDescription {
  name: string;
  /** One of FAMILIES (src/catalogue/action.ts). */
  family: string;
  description: string;
  /** The effective risk: the catalogue's, or higher where the policy's [risk] table raises it. */
  risk: Risk;
  min_role: Role;
  reboot_required: boolean;
  rollback_available: boolean;
  read_only: boolean;
  /** A read whose output a person should see first; false for changes. */
  sensitive: boolean;
  /** A read that sends packets to a host the request names; false for changes. */
  reaches_network: boolean;
  /** Distribution ids (`debian`, `ubuntu`, `fedora`, `rhel`). */
  platforms: string[];
  supported_here: boolean;
  /** JSON Schema (draft 2020-12) of the parameter object. */
  params_schema: Record<string, unknown>;
  /** A valid parameter object. */
  example: Record<string, unknown>;
}

/**
 * `preview`: the envelope, and the receipt the daemon minted when the policy approved it;
 * otherwise `policy_notes`, when a rule came close, saying which rule did not approve it and why.
 */
export type PreviewResult = PreviewEnvelope & { auto_approval?: AutoApprovalGrant; policy_notes?: string[] };

/** `policy.show`: the policy in force (nothing secret in it). */
export interface PolicyView {
  digest: string;
  /** `file` (read from `path`) or `default` (no file: the built-in default). */
  source: 'default' | 'file';
  path: string;
  reads: 'auto' | 'ask';
  second_factor_from: 'high' | 'medium';
  unattended: string[];
  /** The ids of its rules, in file order. */
  rules: string[];
  risk_overrides: Record<string, Risk>;
  /** What besides secrets becomes a keyed pseudonym in what clients see ([masking]). */
  pseudonyms: string[];
}

/** `policy.reload`: the digests of the policy replaced and the one now in force. */
export interface PolicyReloaded {
  old_digest: string;
  new_digest: string;
  source: 'default' | 'file';
}

/** `totp.enroll`: a pending secret, on this connection only; it approves nothing until confirmed. */
export interface TotpIssued {
  approver: string;
  user: string;
  state: 'pending';
  expires_at: string;
  secret: string;
  /** otpauth:// URI of the secret, for a QR code. */
  uri: string;
}

/**
 * `totp.confirm`: the pending secret is the person's factor now ('confirmed'), or, for a first
 * enrolment on a host that has an approver already, it is proven and waits until `expires_at`
 * for another approver's `totp.approve` ('awaiting_approval').
 */
export type TotpConfirmed =
  | { approver: string; user: string; state: 'confirmed' }
  /** `check`: the secret's check code (XXXX-XXXX), for this person to read out to the approver; on this connection only. */
  | { approver: string; user: string; state: 'awaiting_approval'; expires_at: string; check: string };

/** `totp.approve`: another approver vouched for these people's proven enrolments; they count now. */
export interface TotpApproved {
  approved: { approver: string; user: string }[];
  state: 'confirmed';
  approved_by: string;
}

/** `totp.reset`: what there was to delete. */
export interface TotpResetDone {
  approver: string;
  user: string;
  factor: boolean;
  pending: boolean;
}

/** `audit.pubkey`: the audit log's public key, `ed25519:` and 64 hex digits. */
export interface AuditPublicKey {
  public_key: string;
  /**
   * Every audit key the log has had, oldest first, one "ed25519:<hex>  <key id>  from seq N"
   * line each (the state directory's audit-keys.pub): what an auditor needs to verify a log whose
   * key rotated when they hold only a later key. Absent from a daemon before rotation.
   */
  key_history?: string;
  /** The log's id: the key id of its first audit key, which checkpoint origins name. */
  log_id?: string;
  /** The log's origin, "<host>/airlock/<log id>": the key name of its tree heads (and of its vkey, for a witness's config). */
  origin?: string;
  /** The file the daemon appends its checkpoints to (its --log-dir): what a verifier on this host reads as its own record. */
  checkpoint_file?: string;
}

/** `keys.rotate`: which key was replaced, by which, and the log entry that says so. */
export interface KeyRotated {
  key: 'audit' | 'approval';
  old_key_id: string;
  new_key_id: string;
  /** The seq of the key_rotated entry. */
  seq: number;
}

/** `store.check`: the store's own consistency check (SQLite's quick_check). */
export interface StoreCheck {
  ok: boolean;
  /** ["ok"], or what is wrong (at most STORE_CHECK_MAX_LINES lines). */
  result: string[];
  /** Free space in the daemon's state directory against the policy's [store] thresholds (absent from daemons before it). */
  space?: StorageSpace;
}
export const STORE_CHECK_MAX_LINES = 20;

/**
 * Disk pressure in the state directory (src/daemon/disk-pressure.ts): `ok`; `low` (under
 * min_free: new previews are refused); `full` (also no reserve left to release: it was released
 * so that approved executes and the log could still be written).
 */
export interface StorageSpace {
  state: 'ok' | 'low' | 'full';
  state_dir: string;
  /** What an unprivileged writer gets (statfs bavail x bsize), the reserve file counted as used. */
  free_bytes: number;
  min_free_bytes: number;
  reserve_bytes: number;
  /** Whether the reserve file holds reserve_bytes now. */
  reserve_held: boolean;
}

/** `transaction.wait`'s timeout_ms: its default when absent, and the most a wait may ask for (5 minutes). */
export const WAIT_DEFAULT_MS = 30_000;
export const WAIT_MAX_MS = 300_000;

/**
 * `transaction.wait`: how the requester's own transaction stands when the wait ends.
 * `pending`: timeout_ms passed and it still waits for a person. `finished`: its receipt
 * was used already (it runs or ran: Running, Succeeded, NeedsReboot, Failed, RolledBack).
 */
export type WaitOutcome =
  | { transaction_id: string; outcome: 'approved'; receipt: string; approved_by: string; expires_at: string }
  | { transaction_id: string; outcome: 'denied'; denied_by: string; reason: string | null }
  | { transaction_id: string; outcome: 'expired' }
  | { transaction_id: string; outcome: 'canceled' }
  | { transaction_id: string; outcome: 'pending'; expires_at: string }
  | { transaction_id: string; outcome: 'finished'; state: TxState };

/** `audit.entries`: a page of the signed log as stored (LogRow of src/audit/verify.ts), in seq order. */
export interface AuditEntriesPage {
  rows: Array<{ seq: number; body: string; sig: string }>;
  /** The `after_seq` of the next page, or null when this page ends the log (as it stood). */
  next_after_seq: number | null;
  /**
   * On a page asked for at or before it: where the live log starts, entries 1..base.seq having
   * been archived (the chain hash and Merkle frontier there, and the signed tree head of that size).
   */
  base?: { seq: number; hash: string; frontier: string[]; tree_head: string | null };
}

/** `audit.tree_head`: a signed tree head (C2SP tlog-checkpoint note) of the log at `size`. */
export interface AuditTreeHead {
  size: number;
  /** Hex RFC 9162 Merkle root of the first `size` entries. */
  root: string;
  /** The signed note: origin, size, base64 root, `time ...`, a blank line, the log's signature line. */
  note: string;
}

/** One entry of an inclusion proof: the row as stored and its RFC 9162 audit path (base64 hashes), leaf index seq - 1. */
export interface ProvenEntry {
  seq: number;
  body: string;
  sig: string;
  proof: string[];
}

/** `audit.prove` (and `airlock audit prove`): every entry of a transaction, proven against one signed tree head. */
export interface InclusionProofDoc {
  type: 'airlock-inclusion-proof';
  version: 1;
  transaction_id: string;
  tree_head: string;
  entries: ProvenEntry[];
}

/** `audit.consistency` (and `airlock audit consistency`): the tree of the new head extends the tree of the old one. */
export interface ConsistencyProofDoc {
  type: 'airlock-consistency-proof';
  version: 1;
  old_head: string;
  new_head: string;
  proof: string[];
}

/** `audit.checkpoints`: whole lines of the daemon's checkpoint file as stored, from a byte offset. */
export interface AuditCheckpointsPage {
  lines: string[];
  /** The `offset` of the next page, or null when this page reached the end of the file (as it stood). */
  next_offset: number | null;
}
