/**
 * What each kind of log entry carries in `details`: one schema per kind, in this one place. The
 * types the daemon builds entries with are inferred from these schemas (EntryDraft in entry.ts is
 * a union over kind, so a detail of the wrong kind does not compile), docs/protocol.md section 14
 * lists exactly these fields (test/unit/entry-details.test.ts holds it to them), and tests check
 * stored entries against them.
 *
 * Details are authorization facts only: never command output, never secrets. Their values are
 * strings, numbers, booleans, null or arrays of strings.
 *
 * The verifier does not parse details with these schemas: a log keeps entries written by earlier
 * versions (a `totp_enrolled` with `approver` only, a `daemon_started` without `enrolment_rules`),
 * and a signed entry of an older shape is evidence all the same. Readers of details from a log
 * (lifecycle.ts, journal.ts) check each value they use.
 */
import { z } from 'zod';
import { StorageSpaceSchema } from '../protocol/wire/store.js';

/** Every kind of log entry; each kind's details are below (ENTRY_DETAILS). */
export const ENTRY_KINDS = [
  'daemon_started',
  'preview',
  'approval_granted',
  'approval_consumed',
  'execution_started',
  'outcome',
  'canceled',
  /** A person refused a previewed transaction (`deny`): who, and the reason they gave; it is canceled. */
  'denied',
  'expired',
  'reconciled',
  /**
   * A factor counts from here: confirmed by a first code, and for a first enrolment on a host that
   * has an approver already, approved by another approver (details.approved_by).
   */
  'totp_enrolled',
  'totp_lockout',
  /** A pending secret was issued to a person; it approves nothing until totp_enrolled. */
  'totp_issued',
  /** Root deleted a person's factor. */
  'totp_reset',
  /** A person's first code proved their pending secret; it waits for another approver's `totp.approve`. */
  'totp_awaiting_approval',
  'policy_reloaded',
  'refused',
  /**
   * The audit or the approval key was replaced (src/audit/rotation.ts): both keys sign the
   * statement in its details; sealed by the audit key current before it, and for an audit
   * rotation every later entry is signed by the new key.
   */
  'key_rotated',
  /**
   * A segment of the log (entries first_seq..last_seq) was written to the archive as a
   * verifiable bundle and removed from the live store (src/daemon/archiver.ts): its file, the
   * file's SHA-256 and the root of the tree at last_seq. Appended in the removal's transaction.
   */
  'archived',
  /**
   * Free space in the state directory changed state (src/daemon/disk-pressure.ts): `low`
   * (previews refused), `full` (the reserve released), `ok` (previews allowed again). One
   * entry per change, never one per refused preview.
   */
  'storage_pressure',
  /**
   * A person approved a transaction that needs more than one ([approval] high = 2): their factor
   * was spent with this entry, and no receipt was minted; the transaction still waits
   * (`have` of `needed`). The approval_granted of the last approver names them (co_approvers).
   */
  'approval_recorded',
  /** Retention: finished transactions' details were compacted (src/store/compaction.ts); details {count, finished_before, ids_sha256}. */
  'compacted',
  /** Retention: compacted transactions were deleted from the store (their entries stay here); same details. */
  'history_pruned',
  /**
   * One step of a plan (docs/protocol.md section 6.21), linked to the plan's transaction: what
   * became of it, and the digest of the mechanism that ran (bound at execution for a step
   * computed after an earlier one). The plan's own `outcome` follows its steps' entries.
   */
  'plan_step',
  /**
   * A person registered a passkey (src/daemon/passkeys.ts), proving their current factor: from
   * here it approves for them. Details: whose, its short id, the name they gave it.
   */
  'passkey_registered',
  /**
   * A person approved a request with their passkey and let the same requester's identical
   * requests (same action, same parameters) through until `until` (src/daemon/session-grants.ts);
   * each later approval it makes is an approval_granted entry naming `grant_id`.
   */
  'session_granted',
  /** A session grant was ended before its time by a person (`airlock sessions revoke`, or the console). */
  'session_revoked',
  /**
   * A transaction left NeedsReboot (a reboot action that changed the host) finished by the daemon:
   * Succeeded when it started in another boot than the one the change ran in (the host rebooted
   * and came back), Failed when the reboot command itself failed (src/daemon/reboots.ts).
   */
  'reboot_reconciled',
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const iso = z.string();
const txId = z.string();
/** `user(uid N)`, `... via sudo`, or a token principal's name: principalName (authz.ts). */
const who = z.string();
/** What masking replaced, per kind: `KIND:COUNT` strings (countsForLog). */
const maskCounts = z.array(z.string());
const retention = z.strictObject({ count: z.number().int(), finished_before: iso, ids_sha256: hex64 });

/**
 * An approval has one shape, whoever granted it: a person (the entry's principal) or the policy
 * (principal null). The lane's own fields are present either way: a person's approval has
 * `rule_id` and `policy_digest` null; the policy's has `second_factor` `none` and
 * `self_approval` false. Either way it binds the preview digest to the receipt's commitment.
 */
/**
 * A person's approval made by one passkey assertion over a fleet plan (approve.fleet): the
 * challenge it signed (src/protocol/passkey.ts fleetChallenge, which covers every host's entry),
 * how many entries that list held, and the connection that carried it (the relay's account on
 * this host; the entry's principal is the person whose passkey signed).
 */
const FleetFields = {
  fleet_digest: z.string().optional(),
  fleet_entries: z.number().int().optional(),
  fleet_carrier: who.optional(),
};

const ApprovalGranted = z.strictObject({
  preview_digest: hex64,
  receipt_commitment: hex64,
  executor: who,
  receipt_expires_at: iso,
  second_factor: z.enum(['totp', 'passkey', 'none']),
  /** With second_factor passkey: which one (src/protocol/passkey.ts passkeyId). */
  passkey_id: z.string().optional(),
  self_approval: z.boolean(),
  rule_id: z.string().nullable(),
  policy_digest: z.string().nullable(),
  /** Where more than one person had to approve: the earlier approvers (their approval_recorded entries), in order. */
  co_approvers: z.array(who).optional(),
  /** The session grant this approval made (a person's approval that granted it) or used (principal null, approved by the grant). */
  session_grant: z.string().optional(),
  ...FleetFields,
});

export const ENTRY_DETAILS = {
  daemon_started: z.strictObject({
    version: z.string(),
    platform: z.string(),
    policy_digest: z.string(),
    policy_source: z.string(),
    audit_key_id: z.string(),
    approval_key_id: z.string(),
    log_id: z.string(),
    reconciled: z.number().int(),
    enrolment_rules: z.number().int(),
    /** Started for tests with --test-fault-file: every change fails after its last step while this file exists. */
    test_fault_file: z.string().optional(),
  }),
  preview: z.strictObject({
    preview_digest: hex64,
    summary: z.string(),
    warnings: z.array(z.string()),
    masked: maskCounts,
    unmask: z.literal(true).optional(),
    from_proposal: txId.optional(),
  }),
  approval_granted: ApprovalGranted,
  approval_recorded: z.strictObject({
    preview_digest: hex64,
    approver: who,
    needed: z.number().int(),
    have: z.number().int(),
    second_factor: z.enum(['totp', 'passkey', 'none']),
    passkey_id: z.string().optional(),
    self_approval: z.boolean(),
    ...FleetFields,
  }),
  approval_consumed: z.strictObject({ preview_digest: hex64, receipt_commitment: hex64 }),
  /** boot_id: the boot the change runs in, for an action that needs a reboot (its reboot_reconciled compares it). */
  execution_started: z.strictObject({ steps: z.number().int(), boot_id: z.string().optional() }),
  outcome: z.strictObject({
    state: z.string(),
    changed: z.boolean(),
    error_category: z.string().nullable(),
    error_code: z.string().nullable(),
    rolled_back: z.boolean(),
    /** An automatic rollback's undos, last step first: "step N ok|FAILED: what it did" (a path restored, a program run). */
    undone: z.array(z.string()).optional(),
    /** SHA-256 digests of the state the change touches, read before its first step and after it (or after its rollback). */
    state_before: hex64.optional(),
    state_after: hex64.optional(),
    /** After a rollback: the state reads as before; after a revert: as before the change it reverts. */
    state_matches: z.boolean().optional(),
    output_lines: z.number().int(),
    masked: maskCounts,
    unmasked: z.literal(true).optional(),
  }),
  canceled: z.strictObject({ by: who, superseded_by: txId.optional() }),
  denied: z.strictObject({ by: who, reason: z.string().nullable(), preview_digest: hex64 }),
  /** previous_state: Previewed or Queued (the only states that expire). */
  expired: z.strictObject({ previous_state: z.string(), deadline: iso }),
  reconciled: z.strictObject({ previous_state: z.literal('Running'), new_state: z.literal('Failed'), reason: z.string() }),
  totp_enrolled: z.strictObject({ approver: z.string(), replaced: z.boolean(), first_approver: z.literal(true).optional(), approved_by: who.optional() }),
  totp_lockout: z.strictObject({ approver: z.string(), failures: z.number().int(), locked_until: iso }),
  totp_issued: z.strictObject({ approver: z.string(), replaces: z.enum(['none', 'awaiting', 'confirmed']), pending_expires_at: iso }),
  totp_reset: z.strictObject({ approver: z.string(), factor: z.boolean(), pending: z.boolean(), passkeys: z.number().int().optional() }),
  totp_awaiting_approval: z.strictObject({ approver: z.string(), user: z.string(), expires_at: iso }),
  policy_reloaded: z.strictObject({ old_digest: z.string(), new_digest: z.string(), source: z.string(), tokens: z.number().int() }),
  refused: z.strictObject({
    method: z.string(),
    category: z.string(),
    code: z.string(),
    count: z.number().int(),
    since: iso,
    until: iso.optional(),
    coalesced: z.literal(true).optional(),
  }),
  key_rotated: z.strictObject({
    key: z.enum(['audit', 'approval']),
    log_id: z.string(),
    old_key_id: z.string(),
    new_key_id: z.string(),
    old_public_key: z.string(),
    new_public_key: z.string(),
    old_key_signature: z.string(),
    new_key_signature: z.string(),
  }),
  archived: z.strictObject({ first_seq: z.number().int(), last_seq: z.number().int(), entries: z.number().int(), file: z.string(), bytes: z.number().int(), sha256: hex64, root: hex64 }),
  // The state directory's space as `store.check` reports it, at the moment the state changed.
  storage_pressure: StorageSpaceSchema,
  compacted: retention,
  history_pruned: retention,
  plan_step: z.strictObject({
    step: z.number().int(),
    step_action: z.string(),
    step_request_hash: hex64,
    state: z.enum(['succeeded', 'no_change', 'failed', 'stopped', 'rolled_back', 'not_rolled_back']),
    mechanism_digest: hex64.nullable(),
    error_code: z.string().nullable(),
  }),
  /** existing: a passkey the person registered on another host first, proven here by its own assertion (passkey.begin `existing`). */
  passkey_registered: z.strictObject({ approver: z.string(), passkey_id: z.string(), name: z.string(), rp_id: z.string(), factor: z.enum(['totp', 'passkey']), existing: z.literal(true).optional() }),
  session_granted: z.strictObject({ grant_id: z.string(), approver: who, requester: who, preview_digest: hex64, passkey_id: z.string(), until: iso }),
  session_revoked: z.strictObject({ grant_id: z.string(), by: who, granted_by: who, uses: z.number().int() }),
  reboot_reconciled: z.strictObject({ previous_state: z.literal('NeedsReboot'), new_state: z.enum(['Succeeded', 'Failed']), boot_id_before: z.string(), boot_id_after: z.string(), reason: z.string() }),
} satisfies { [K in EntryKind]: z.ZodObject };

/** The details of each kind of entry. */
export type EntryDetails = { [K in EntryKind]: z.infer<(typeof ENTRY_DETAILS)[K]> };

/** The fields a kind's details may carry, in the schema's order; optional ones end in `?` (as docs/protocol.md lists them). */
export function detailFields(kind: EntryKind): string[] {
  const shape = ENTRY_DETAILS[kind].shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, type]) => (type.safeParse(undefined).success ? `${name}?` : name));
}

/** A fleet approval as its entries record it (FleetFields). */
export interface FleetApproval {
  digest: string;
  entries: number;
  carrier: string;
}
const fleetDetails = (f: FleetApproval | undefined) => (f ? { fleet_digest: f.digest, fleet_entries: f.entries, fleet_carrier: f.carrier } : {});

/** Who granted an approval: a person (with or without a second factor), or a policy rule. */
export type ApprovalLane =
  | { person: { totp: boolean; passkeyId?: string; selfApproval: boolean; coApprovers?: readonly string[]; sessionGrant?: string; fleet?: FleetApproval } }
  | { policy: { ruleId: string; policyDigest: string } }
  | { session: { grantId: string } };

/** The one builder of an `approval_granted` entry's details, for either lane. */
export function approvalGrantedDetails(
  g: { previewDigest: string; commitment: string; executor: string; expiresAt: string },
  lane: ApprovalLane,
): EntryDetails['approval_granted'] {
  const person = 'person' in lane ? lane.person : null;
  const policy = 'policy' in lane ? lane.policy : null;
  return {
    preview_digest: g.previewDigest,
    receipt_commitment: g.commitment,
    executor: g.executor,
    receipt_expires_at: g.expiresAt,
    second_factor: person?.passkeyId ? 'passkey' : person?.totp ? 'totp' : 'none',
    ...(person?.passkeyId ? { passkey_id: person.passkeyId } : {}),
    self_approval: person?.selfApproval ?? false,
    rule_id: policy?.ruleId ?? null,
    policy_digest: policy?.policyDigest ?? null,
    ...(person?.coApprovers?.length ? { co_approvers: [...person.coApprovers] } : {}),
    ...(person?.sessionGrant ? { session_grant: person.sessionGrant } : 'session' in lane ? { session_grant: lane.session.grantId } : {}),
    ...fleetDetails(person?.fleet),
  };
}

/** The one builder of an `approval_recorded` entry's details: a person's approval that waits for another. */
export function approvalRecordedDetails(
  r: { previewDigest: string; approver: string; needed: number; have: number },
  person: { totp: boolean; passkeyId?: string; selfApproval: boolean; fleet?: FleetApproval },
): EntryDetails['approval_recorded'] {
  return {
    preview_digest: r.previewDigest,
    approver: r.approver,
    needed: r.needed,
    have: r.have,
    second_factor: person.passkeyId ? 'passkey' : person.totp ? 'totp' : 'none',
    ...(person.passkeyId ? { passkey_id: person.passkeyId } : {}),
    self_approval: person.selfApproval,
    ...fleetDetails(person.fleet),
  };
}
