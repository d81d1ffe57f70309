/**
 * `session.list` and `session.revoke`: the "this session" lane's grants in force
 * (session-grants.ts), for approvers and admins, and ending one. A revocation is a signed
 * `session_revoked` entry, and from it on the grant's identical requests wait for a person again.
 * Anyone the door lets in here may revoke any grant: ending one only takes an approval away.
 */
import type { ParsedParams, ResultOf } from '../../protocol/methods.js';
import { fail } from '../../protocol/errors.js';
import { principalName } from '../identity.js';
import type { SessionGrant } from '../session-grants.js';
import { iso, type Request, type VerbContext } from './context.js';

const view = (g: SessionGrant) => ({
  grant_id: g.id,
  approver: g.approver,
  requester: g.requester,
  action_name: g.actionName,
  params: g.shownParams,
  request_hash: g.requestHash,
  risk: g.risk,
  first_transaction: g.firstTransaction,
  granted_at: iso(g.grantedAt),
  until: iso(g.expiresAt),
  uses: g.uses,
});

export async function list(ctx: VerbContext, _r: Request<ParsedParams<'session.list'>>): Promise<ResultOf<'session.list'>> {
  return { grants: ctx.sessionGrants.active().map(view) };
}

export async function revoke(ctx: VerbContext, r: Request<ParsedParams<'session.revoke'>>): Promise<ResultOf<'session.revoke'>> {
  // Ended before the entry is written: no use slips in while it is written, and a grant whose entry fails stays ended (fail closed).
  const g = ctx.sessionGrants.revoke(r.params.grant_id);
  if (!g) fail('validation', 'no_such_session', `no session grant ${r.params.grant_id} is in force (it expired, was revoked, or the daemon restarted or reloaded its policy since)`, 'list the grants in force with `airlock sessions`');
  const entry = ctx.entry('session_revoked', r.caller, g!.actionName, g!.risk, g!.requestHash, g!.firstTransaction, { grant_id: g!.id, by: principalName(r.caller), granted_by: g!.approver, uses: g!.uses });
  await ctx.store.appendEntries([entry]);
  return { grant_id: g!.id, revoked_at: iso(ctx.now()), uses: g!.uses };
}
