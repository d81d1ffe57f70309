/**
 * `deny`: who may refuse a transaction the door decided (authz.ts mayDeny, the `denier` rule);
 * the reason was checked by the method's schema (at most MAX_DENY_REASON UTF-16 code units).
 */
import { fail } from '../../protocol/errors.js';
import type { TransactionView } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { principalName } from '../identity.js';
import { maskForClient } from '../output.js';
import type { DenialResult } from '../wait-outcome.js';
import type { TxRequest, VerbContext } from './context.js';
import { refuseIfExpired } from './expiry.js';
import { view } from './views.js';

/**
 * A person who may approve the transaction refuses it instead, with a reason the requester
 * is shown: it is canceled, with a signed `denied` entry (who and why) in the same store
 * operation, and a requester waiting for it is told at once. Only a transaction still
 * waiting for approval can be denied; an approved one is canceled (`cancel`).
 */
export async function deny(ctx: VerbContext, r: TxRequest<ParsedParams<'deny'>>): Promise<TransactionView> {
  const { caller: who, params: req, tx } = r;
  // Shown to the requester and to anyone reading the log: masked and escaped like all text, never refused for it.
  const reason = typeof req.reason === 'string' && req.reason.trim() !== '' ? await maskForClient(req.reason.trim()) : null;
  const now = ctx.now();
  await refuseIfExpired(ctx, tx, now);
  if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`, tx.state === 'Queued' ? `it is approved already: an admin approver or its requester cancels it (\`airlock cancel ${tx.id}\`)` : undefined);
  const by = principalName(who);
  const result: DenialResult = { state: 'Canceled', summary: `denied by ${by}${reason ? `: ${reason}` : ''}`, denied_by: by, reason };
  const ok = await ctx.store.cancel(tx.id, now, ctx.entry('denied', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { by, reason, preview_digest: tx.previewDigest }), { result: { ...result }, onlyFrom: 'Previewed' });
  if (!ok) {
    await refuseIfExpired(ctx, await ctx.transaction(tx.id), now);
    fail('stale_approval', 'not_pending', `transaction ${tx.id} is no longer waiting for approval`);
  }
  ctx.changed(tx.id);
  return view((await ctx.store.getTransaction(tx.id))!);
}
