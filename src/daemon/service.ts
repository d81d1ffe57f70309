/**
 * What the daemon's other parts hold besides the door (door.ts, dispatch.ts): the verbs'
 * context (the policy and token table in force), the signed, coalesced refusal entries the
 * dispatcher and the listeners record, the sweep that expires what ran out, and the
 * reconciliation of jobs a stop interrupted. main.ts builds the context and this; server.ts
 * serves `dispatch`.
 */
import type { Policy } from '../policy/policy.js';
import { dispatcher, type Dispatch } from './dispatch.js';
import { RefusalLog } from './refusals.js';
import type { TokenTable } from './tokens.js';
import type { VerbContext } from './verbs/context.js';
import { expireDue, reconcile } from './verbs/expiry.js';

export class AirlockService {
  /** Signed, coalesced entries for refused requests (the dispatcher and the listeners record them; the sweep flushes their counts). */
  readonly refusals: RefusalLog;
  /** Every request of a greeted connection (dispatch.ts). */
  readonly dispatch: Dispatch;

  constructor(readonly ctx: VerbContext) {
    this.refusals = new RefusalLog(async (entries) => void (await ctx.store.appendEntries(entries)), ctx.now, ctx.log);
    this.dispatch = dispatcher(ctx, this.refusals);
  }

  get tokens(): TokenTable {
    return this.ctx.tokens;
  }

  get currentPolicy(): Policy {
    return this.ctx.policy;
  }

  /** Sweep: flushes refusal counts, then cancels previews and receipts past their deadline, one signed entry each. */
  async sweep(): Promise<string[]> {
    await this.refusals.flush();
    return expireDue(this.ctx);
  }

  /** At start: jobs the last stop interrupted are Failed, effect unknown. */
  reconcile(): Promise<string[]> {
    return reconcile(this.ctx);
  }
}
