/**
 * `cancel`: the requester or an admin approver (the door's `canceler` rule) cancels a
 * transaction still Previewed or Queued, with its signed `canceled` entry in the same store
 * operation; a requester waiting for it is told.
 */
import { fail } from '../../protocol/errors.js';
import type { TransactionView } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { principalName } from '../identity.js';
import type { TxRequest, VerbContext } from './context.js';
import { view } from './views.js';

export async function cancel(ctx: VerbContext, r: TxRequest<ParsedParams<'cancel'>>): Promise<TransactionView> {
  const { caller: who, tx } = r;
  const ok = await ctx.store.cancel(tx.id, ctx.now(), ctx.entry('canceled', who, tx.actionName, tx.risk, tx.requestHash, tx.id, { by: principalName(who) }));
  if (!ok) fail('conflict', 'not_cancelable', `transaction ${tx.id} is ${tx.state}; only Previewed or Queued transactions can be canceled`);
  ctx.changed(tx.id);
  return view((await ctx.store.getTransaction(tx.id))!);
}
