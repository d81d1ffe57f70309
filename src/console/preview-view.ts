/**
 * One transaction as the console page shows it: the preview rendered exactly as the CLI renders
 * it (render-preview.ts, which escapes every host and agent text), as plain text without colour,
 * for the page to put in a <pre> with textContent; and the match code the requester's preview
 * showed, to set beside the Approve button. A compacted transaction has no preview left to show.
 */
import { CATALOGUE } from '../catalogue/index.js';
import { renderPreview } from '../client/render-preview.js';
import { isCompactedPreview } from '../protocol/compacted.js';
import { matchCode } from '../protocol/match-code.js';
import type { TransactionDetail } from '../protocol/wire/transaction.js';

/** SGR sequences (colour, bold): the console's own process may have a terminal, the page must not get them. */
const SGR = /\x1b\[[0-9;]*m/g;

export interface TransactionPage {
  transaction_id: string;
  action_name: string;
  risk: string;
  state: string;
  requested_by: string;
  summary: string;
  created_at: string;
  expires_at: string;
  preview_digest: string | null;
  match_code: string | null;
  text: string;
  may_approve: boolean;
  /** The approval may also let the requester's identical requests through for a while (never High). */
  session_allowed: boolean;
  refusal: { code: string; message: string; hint?: string } | null;
  /** The person's own approved request of an action the console may request (a grant): the page runs it (POST /api/tx/ID/run). */
  runnable: boolean;
  /** Where the policy asks for more than one person ([approval] high = 2): how many, and who approved already. */
  approvals?: { needed: number; have: number; by: string[] };
  denied_by?: string;
  deny_reason?: string;
}

export function transactionPage(t: TransactionDetail): TransactionPage {
  const live = isCompactedPreview(t.preview) ? null : t.preview;
  const advice = t.your_approval;
  return {
    transaction_id: t.transaction_id,
    action_name: t.action_name,
    risk: t.risk,
    state: t.state,
    requested_by: t.requested_by,
    summary: t.summary,
    created_at: t.created_at,
    expires_at: t.expires_at,
    preview_digest: live ? live.preview_digest : null,
    match_code: live && !live.unattended ? matchCode(live.preview_digest) : null,
    text: live ? renderPreview(live).replace(SGR, '') : `${t.transaction_id} finished and was compacted: its preview is no longer stored\n`,
    may_approve: advice.may_approve && t.state === 'Previewed',
    session_allowed: advice.session_allowed === true,
    refusal: advice.refusal ? { code: advice.refusal.code, message: advice.refusal.message, ...(advice.refusal.hint ? { hint: advice.refusal.hint } : {}) } : null,
    runnable: t.state === 'Queued' && t.receipt !== undefined && live !== null && CATALOGUE.get(t.action_name)?.requestedAtConsole === true,
    ...(advice.approvals ? { approvals: advice.approvals } : {}),
    ...(t.denied_by ? { denied_by: t.denied_by } : {}),
    ...(t.deny_reason ? { deny_reason: t.deny_reason } : {}),
  };
}
