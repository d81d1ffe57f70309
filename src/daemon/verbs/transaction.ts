/**
 * Reading transactions: `transaction.get` (one, in full, with whether the caller may approve
 * it and, for its requester, the receipt held for them), `history` (views, newest first) and
 * `inbox` (proposals of unattended principals, for a person to re-preview).
 */
import type { TransactionDetail, TransactionView } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { isRequester } from '../authz.js';
import { facts, isUnattendedProposal, storedPreview } from '../stored-preview.js';
import { approvalAdvice } from './approve.js';
import { resultForClient } from '../kept-change.js';
import type { Request, TxRequest, VerbContext } from './context.js';
import { compactedPreview, view } from './views.js';

/** Proposals by unattended principals, newest first, for a person to re-preview (`airlock inbox run`). */
export async function inbox(ctx: VerbContext): Promise<TransactionView[]> {
  const rows = await ctx.store.history({ limit: 1000 });
  return rows.filter(isUnattendedProposal).slice(0, 200).map(view);
}

/** The preview shows host state (key lines, account flags): only the requester, approvers and admins see it (the door's `reader` rule). */
export async function transaction(ctx: VerbContext, r: TxRequest<ParsedParams<'transaction.get'>>): Promise<TransactionDetail> {
  const { caller: who, tx } = r;
  const held = isRequester(who, facts(tx)) && tx.state === 'Queued' ? ctx.heldReceipts.get(tx.id, ctx.now()) : undefined;
  return { ...view(tx), preview: tx.compactedAt !== null ? compactedPreview(tx) : storedPreview(tx), result: resultForClient(tx.result), your_approval: await approvalAdvice(ctx, who, tx), ...(held ? { receipt: held } : {}) };
}

export async function history(ctx: VerbContext, r: Request<ParsedParams<'history'>>): Promise<TransactionView[]> {
  const { state, action, since, limit } = r.params;
  const rows = await ctx.store.history({ state, action, sinceMs: since ? Date.parse(since) : undefined, limit: limit ?? 50 });
  return rows.map(view);
}
