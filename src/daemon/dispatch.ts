/**
 * The one dispatcher: every request of a greeted connection passes here, in this order:
 * 1. decode: a request message, with an id, naming a method of the table, with an object of params;
 * 2. the caller, built once: the connection's identity, and whether the policy marks it unattended;
 * 3. the parameters parsed by the method's schema (src/protocol/methods.ts), and the transaction
 *    the method's row names (src/daemon/door.ts) loaded when its id is well formed;
 * 4. one ordered decision of who may (authz.ts decide): the method's access, then its
 *    transaction rule. Role checks come first: a refusal of who may is said before any
 *    parameter is refused, and before whether the transaction exists;
 * 5. then a parameter that failed its schema, then validation/no_such_transaction (said here only);
 * 6. the verb, with parsed, authorized input, its programs counted against the principal.
 * A refusal of who may do what, or of a stale or forged approval, goes into the signed log
 * (coalesced: refusals.ts). Anything unexpected fails closed with no internals leaked.
 */
import { AirlockError, textOfWireValue } from '../protocol/errors.js';
import type { ResponseMessage } from '../protocol/messages.js';
import { METHOD_TABLE, METHODS, type Method } from '../protocol/methods.js';
import { paramsRefusal, TRANSACTION_ID } from '../protocol/param-schemas.js';
import { decide, enforce } from './authz.js';
import { DOOR, type DoorRow } from './door.js';
import type { Identity } from './identity.js';
import { errorForClient } from './output.js';
import type { NoticeSink } from './output-stream.js';
import type { RefusalLog } from './refusals.js';
import { onBehalfOf } from './run-context.js';
import { facts } from './stored-preview.js';
import { entryPrincipal, noSuchTransaction, type Request, type TxRequest, type VerbContext } from './verbs/context.js';

export type Dispatch = (who: Identity, msg: unknown, signal: AbortSignal, notices: (id: string) => NoticeSink) => Promise<ResponseMessage>;

export function dispatcher(ctx: VerbContext, refusals: RefusalLog): Dispatch {
  // console.call runs its inner request as the signed-in person through this same door.
  ctx.useRelay((who, method, raw, signal, notice) => serve(ctx, method, who, raw, signal, notice));
  return async (who, msg, signal, notices) => {
    const m = msg as { type?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = typeof m?.id === 'string' && m.id.length <= 64 ? m.id : null;
    try {
      if (m === null || typeof m !== 'object' || Array.isArray(m) || m.type !== 'request') {
        throw new AirlockError('validation', 'unknown_type', 'expected a message of type "request"');
      }
      if (id === null) throw new AirlockError('validation', 'bad_id', 'request id must be a string of at most 64 characters');
      if (typeof m.method !== 'string' || !(METHODS as readonly string[]).includes(m.method)) {
        throw new AirlockError('validation', 'unknown_method', `unknown method ${JSON.stringify(textOfWireValue(m.method, 40))}; known: ${METHODS.join(', ')}`);
      }
      const raw = m.params ?? {};
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AirlockError('validation', 'bad_params', 'params must be an object');
      const result = await serve(ctx, m.method as Method, who, raw as Record<string, unknown>, signal, notices(id));
      return { type: 'response', id, ok: true, result };
    } catch (e) {
      if (e instanceof AirlockError) {
        // Refusals of who may do what, and of stale or forged approvals, go into the signed log (coalesced).
        if (e.category === 'authorization' || e.category === 'stale_approval') {
          const tx = e.more.transactionId ?? (m.params as { transaction_id?: unknown } | undefined)?.transaction_id;
          refusals.record({ principal: entryPrincipal(who), method: textOfWireValue(m.method, 40), category: e.category, code: e.code, transactionId: typeof tx === 'string' && TRANSACTION_ID.test(tx) ? tx : null });
        }
        return { type: 'response', id, ok: false, error: await errorForClient(e, String(who.uid)) };
      }
      // A write refused for want of space: typed, and the store kept nothing of it (disk-space.ts).
      const full = ctx.space?.writeFailed(e)?.error;
      if (full) return { type: 'response', id, ok: false, error: await errorForClient(full, String(who.uid)) };
      // Anything unexpected fails closed with no internals leaked to the client.
      ctx.log(`internal error on ${textOfWireValue(m?.method, 40)}: ${(e as Error).stack ?? e}`);
      return { type: 'response', id, ok: false, error: { category: 'integrity', code: 'internal', message: 'the daemon hit an internal error and changed nothing further; see its log' } };
    }
  };
}

/** Steps 2 to 6 for one decoded request of `method`. */
async function serve<M extends Method>(ctx: VerbContext, method: M, who: Identity, raw: Record<string, unknown>, signal: AbortSignal, notice: NoticeSink): Promise<unknown> {
  const row = DOOR[method] as DoorRow<M>;
  const table = METHOD_TABLE[method];
  const caller = ctx.caller(who);
  const parsed = table.params.safeParse(raw);
  const txId = row.tx !== 'none' && typeof raw.transaction_id === 'string' && TRANSACTION_ID.test(raw.transaction_id) ? raw.transaction_id : null;
  const tx = txId === null ? null : await ctx.store.getTransaction(txId);
  const verdict = decide(method, row, caller, tx && facts(tx), ctx.policy.secondFactorFrom);
  enforce(verdict);
  if (!parsed.success) throw paramsRefusal(method, table.params, raw, parsed.error, table.refusal);
  const request: Request<unknown> = { caller, params: parsed.data, signal, notice };
  // Programs this request runs count against its principal's share of the process slots.
  if (row.tx === 'none') return onBehalfOf(String(who.uid), () => row.serve(ctx, request as never));
  const loaded: TxRequest<unknown> = { ...request, tx: tx ?? noSuchTransaction(String(raw.transaction_id)), ...(verdict.ok && verdict.approval ? { approval: verdict.approval } : {}) };
  return onBehalfOf(String(who.uid), () => row.serve(ctx, loaded as never));
}
