/**
 * Every message on the socket. Field names are snake_case as in LACS; see
 * docs/protocol.md for the normative description an independent client follows.
 */
import type { Risk, Role, JobState, TxState } from './risk.js';
import type { WireError } from './errors.js';

export const PROTOCOL = 'lacs/0.1';
export const SERVER_NAME = 'airlock';

export const METHODS = [
  'actions.list',
  'actions.describe',
  'preview',
  'transaction.get',
  'approve',
  'totp.enroll',
  'totp.confirm',
  'totp.reset',
  'policy.show',
  'policy.reload',
  'inbox',
  'execute',
  'cancel',
  'history',
  'audit.pubkey',
] as const;
export type Method = (typeof METHODS)[number];

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
  capabilities: string[];
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
  proposed_change: unknown;
  side_effects: string[];
  reboot_required: boolean;
  rollback_available: boolean;
  warnings: string[];
  requested_by: string;
  /** Present (true) when the requester is unattended: a proposal no receipt is ever minted for. */
  unattended?: true;
  /** Present when this re-previews an unattended principal's proposal (`airlock inbox run`): that transaction's id. */
  from_proposal?: string;
  created_at: string;
  expires_at: string;
  /** SHA-256 of JCS of this envelope without this field: what the approver is shown. */
  preview_digest: string;
}

/** LACS §5 result envelope. */
export interface ResultEnvelope {
  transaction_id: string;
  action_name: string;
  request_hash: string;
  state: JobState;
  summary: string;
  needs_reboot: boolean;
  rollback_ref: string | null;
  output: string[];
  output_truncated: boolean;
  error?: WireError;
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
  preview: PreviewEnvelope;
  result: unknown;
  your_approval: ApprovalAdvice;
  /** For the requester of an approved (Queued) transaction: the receipt the approver received, to execute with. */
  receipt?: string;
}
