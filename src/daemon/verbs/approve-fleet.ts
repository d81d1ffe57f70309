/**
 * `approve.fleet`: one passkey assertion approves a fleet plan, a transaction on each of many
 * hosts. The assertion signs fleetChallenge(entries) (src/protocol/passkey.ts): every host's
 * entry, sorted, so each daemon that receives the same list and assertion checks the same
 * signature over the same bytes. Here, this host approves its own entry and nothing else:
 *
 * 1. the list, well formed (its shape, one entry per host, at most MAX_FLEET_HOSTS);
 * 2. this host's entry: the one entry whose transaction this store holds (none: not_in_fleet);
 *    it must wait for approval, within its deadline, and name the digest and the deadline this
 *    host stored, which is what the person was shown and what a single approval signs;
 * 3. the signer: the person this host registered the passkey to, judged by their own groups on
 *    this host as if they had connected themselves (the carrier's account decides nothing);
 * 4. then the one approval verb (approve.ts) as that person, with the fleet's challenge: who
 *    may approve at this risk, not the requester without a factor, the policy's passkey rules,
 *    two persons where asked, the counter moved with the signed entry in one store transaction.
 *
 * Who may carry it: any principal (the door's `principal`), since what approves is the person's
 * signature, verified here; in a fleet the carrier is the relay's account on this host, which
 * holds no approver role. Carrying gives it nothing: no receipt (held for the requester), and a
 * refusal is recorded under the carrier's name with this host's transaction.
 */
import { AirlockError, fail } from '../../protocol/errors.js';
import type { ParsedParams, ResultOf } from '../../protocol/methods.js';
import { fleetChallenge, type FleetEntry } from '../../protocol/passkey.js';
import { isRecorded } from '../../protocol/wire/approval.js';
import { APPROVE_RULE, decide, enforce } from '../authz.js';
import { consoleIdentity, principalName } from '../identity.js';
import { personKey } from '../../protocol/person-key.js';
import { facts } from '../stored-preview.js';
import type { TxRecord } from '../../store/store.js';
import { approve } from './approve.js';
import { iso, type Request, type VerbContext } from './context.js';
import { refuseIfExpired } from './expiry.js';

export async function approveFleet(ctx: VerbContext, r: Request<ParsedParams<'approve.fleet'>>): Promise<ResultOf<'approve.fleet'>> {
  const { entries, assertion } = r.params;
  const digest = fleetChallenge(entries);
  const { entry, tx } = await ownEntry(ctx, entries);
  try {
    await refuseIfExpired(ctx, tx, ctx.now());
    if (tx.state !== 'Previewed') fail('stale_approval', 'not_pending', `transaction ${tx.id} is ${tx.state}, not waiting for approval`);
    if (entry.preview_digest !== tx.previewDigest) {
      fail('stale_approval', 'digest_mismatch', `the fleet list names another preview of ${tx.id} than the one stored on this host`, 'fetch every host\'s preview again, sign the new list, and send that');
    }
    if (entry.expires_at !== tx.expiresAt) {
      fail('stale_approval', 'deadline_mismatch', `the fleet list gives ${tx.id} the deadline ${iso(entry.expires_at)}, and this host's is ${iso(tx.expiresAt)}`, 'take each entry\'s expires_at from its host (transaction.get), sign the new list, and send that');
    }
    const signer = await ctx.passkeys.signer(assertion);
    const named = consoleIdentity(signer.uid, r.caller.pid, 'fleet');
    // The account must still be the one the passkey was registered to (a uid given to another name signs nothing).
    if (!named || personKey(named.person!) !== signer.key) fail('authorization', 'no_role', `${signer.user}, whose passkey signed, has no account or no airlock role on this host any more`, 'an administrator adds them to an airlock group');
    const caller = ctx.caller(named!);
    const verdict = decide('approve', APPROVE_RULE, caller, facts(tx), ctx.policy.secondFactorFrom);
    enforce(verdict);
    const fleet = { digest, entries: entries.length, carrier: principalName(r.caller) };
    const params = { transaction_id: tx.id, preview_digest: entry.preview_digest, assertion };
    const done = await approve(ctx, { caller, params, signal: r.signal, notice: r.notice, tx, ...(verdict.ok && verdict.approval ? { approval: verdict.approval } : {}) }, fleet);
    const base = { transaction_id: tx.id, host: entry.host, approved_by: done.approved_by, fleet_digest: digest, fleet_entries: entries.length };
    return isRecorded(done) ? { ...base, recorded: true, approvals: done.approvals } : base;
  } catch (e) {
    throw e instanceof AirlockError ? e.concerning(tx.id) : e;
  }
}

/**
 * This host's entry of the list: the one whose transaction the store holds (transaction ids are
 * 96 random bits, so another host's never names one of ours by chance). None: the list does not
 * include this host. Two: refused, since one assertion moves a passkey's counter once.
 */
async function ownEntry(ctx: VerbContext, entries: readonly FleetEntry[]): Promise<{ entry: FleetEntry; tx: TxRecord }> {
  const held: Array<{ entry: FleetEntry; tx: TxRecord }> = [];
  for (const entry of entries) {
    const tx = await ctx.store.getTransaction(entry.tx);
    if (tx) held.push({ entry, tx });
  }
  if (held.length === 0) fail('authorization', 'not_in_fleet', `none of the ${entries.length} entries of this fleet approval names a transaction of this host`, 'preview on this host, add its entry to the list, sign the new list, and send that');
  if (held.length > 1) fail('validation', 'bad_fleet', `${held.length} entries of this fleet approval name transactions of this host (${held.map((h) => h.tx.id).join(', ')}): a host has one transaction in a fleet plan`, 'make the changes of one host one plan (plan.preview), and list it once');
  return held[0]!;
}
