/**
 * `policy.show` (any principal: the policy holds no secret) and `policy.reload` (an admin
 * approver through sudo, the door's `root-admin-approver` access, with their own code).
 */
import { DAEMON_ACT, entryDraft } from '../../audit/entry.js';
import type { PolicyReloaded, PolicyView } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { loadPolicyFile } from '../policy-file.js';
import { refuseSpentCode } from '../second-factor.js';
import { TokenTable } from '../tokens.js';
import { entryPrincipal, type Request, type VerbContext } from './context.js';

/**
 * An admin approver, through sudo and with their own code, has the daemon re-read the
 * policy file. A file that fails its checks changes nothing (and spends no code); a good
 * one takes effect at once and the signed log records the old and new digests.
 */
export async function reload(ctx: VerbContext, r: Request<ParsedParams<'policy.reload'>>): Promise<PolicyReloaded> {
  const who = r.caller;
  const next = loadPolicyFile(ctx.policyPath);
  const nextTokens = TokenTable.load(ctx.tokensPath);
  const old = ctx.policy;
  const how = 'run `sudo airlock policy reload` in a terminal: it asks for your code';
  const spend = await ctx.enrolment.ownCode(who, r.params.totp_code, { what: 'reloading the policy', how });
  const appended = await ctx.store.appendEntries(
    [entryDraft('policy_reloaded', { ...DAEMON_ACT, principal: entryPrincipal(who) }, { old_digest: old.digest, new_digest: next.digest, source: next.source, tokens: nextTokens.size })],
    spend,
  );
  if (appended === 'step_spent') refuseSpentCode(spend.step, ctx.now());
  ctx.replacePolicy(next, nextTokens);
  return { old_digest: old.digest, new_digest: next.digest, source: next.source };
}

/** The policy's digest and settings, for `airlock policy show` (any principal: it holds no secret). */
export async function show(ctx: VerbContext): Promise<PolicyView> {
  const p = ctx.policy;
  return { digest: p.digest, source: p.source, path: ctx.policyPath, reads: p.reads, second_factor_from: p.secondFactorFrom, unattended: p.unattended, rules: p.rules.map((r) => r.id), risk_overrides: Object.fromEntries(p.riskOverrides), pseudonyms: p.pseudonyms, passkeys: { rp_id: p.passkeys.rpId, origins: p.passkeys.origins, required_from: p.passkeys.requiredFrom, own_requests: p.passkeys.ownRequests } };
}
