/**
 * The door: who may call each method, what it asks of the transaction it names, and the verb
 * that serves it, one row per method of the protocol table (src/protocol/methods.ts, which
 * holds each method's parameter schema). The dispatcher (dispatch.ts) reads a row and nothing
 * else: access, then the transaction rule (authz.ts decide), then the verb with parsed,
 * authorized input. A method served and not in the protocol table, or in it and not served,
 * does not compile, and each verb must answer with the type the table declares.
 *
 * Access (authz.ts Access): principal = any principal the daemon talks to; person = a person at
 * their own account or through sudo; enroller = an approver, for their own factor; reviewer =
 * an approver or an admin; admin-person = a person with the admin role; root-admin-approver =
 * root with an admin approver behind it (who then gives their own code). Transaction rules:
 * authz.ts TxRule.
 */
import type { Method, ParsedParams, ResultOf } from '../protocol/methods.js';
import { APPROVE_RULE, type Access, type TxRule } from './authz.js';
import type { Request, TxRequest, VerbContext } from './verbs/context.js';
import { approve } from './verbs/approve.js';
import { approveFleet } from './verbs/approve-fleet.js';
import * as audit from './verbs/audit.js';
import { cancel } from './verbs/cancel.js';
import { describe, listActions } from './verbs/catalogue.js';
import { deny } from './verbs/deny.js';
import { execute } from './verbs/execute.js';
import * as keys from './verbs/keys.js';
import * as passkey from './verbs/passkey.js';
import * as consoleRelay from './verbs/console.js';
import * as policy from './verbs/policy.js';
import { planPreview } from './verbs/plan-preview.js';
import { preview } from './verbs/preview.js';
import * as session from './verbs/session.js';
import { storeCheck } from './verbs/store-check.js';
import * as totp from './verbs/totp.js';
import { history, inbox, transaction } from './verbs/transaction.js';
import { wait } from './verbs/wait.js';

type Serve<R, M extends Method> = (ctx: VerbContext, r: R) => Promise<ResultOf<M>>;
/** A row: a method that names no transaction, or one whose transaction is loaded and judged before its verb. */
export type DoorRow<M extends Method> =
  | { access: Access; tx: 'none'; serve: Serve<Request<ParsedParams<M>>, M> }
  | { access: Access; tx: Exclude<TxRule, 'none'>; serve: Serve<TxRequest<ParsedParams<M> & { transaction_id: string }>, M> };

export const DOOR: { [M in Method]: DoorRow<M> } = {
  'actions.list': { access: 'principal', tx: 'none', serve: listActions },
  'actions.describe': { access: 'principal', tx: 'none', serve: describe },
  preview: { access: 'principal', tx: 'none', serve: preview }, // the verb then asks the role the action's risk needs (mayPreview, mayUnmask)
  'transaction.get': { access: 'principal', tx: 'reader', serve: transaction },
  approve: { ...APPROVE_RULE, serve: approve },
  'totp.enroll': { access: 'enroller', tx: 'none', serve: totp.enroll },
  'totp.confirm': { access: 'enroller', tx: 'none', serve: totp.confirm },
  'totp.reset': { access: 'root-admin-approver', tx: 'none', serve: totp.reset }, // then mayReset (the owner is named), and the caller's own code
  'totp.approve': { access: 'person', tx: 'none', serve: totp.approveEnrolments }, // then mayApproveEnrolment per owner, and the caller's own code
  'policy.show': { access: 'principal', tx: 'none', serve: policy.show },
  'policy.reload': { access: 'root-admin-approver', tx: 'none', serve: policy.reload }, // then the caller's own code
  inbox: { access: 'reviewer', tx: 'none', serve: inbox },
  execute: { access: 'principal', tx: 'requester', serve: execute },
  cancel: { access: 'principal', tx: 'canceler', serve: cancel },
  history: { access: 'principal', tx: 'none', serve: history },
  'audit.pubkey': { access: 'principal', tx: 'none', serve: audit.publicKey },
  'transaction.wait': { access: 'principal', tx: 'waiter', serve: wait },
  deny: { access: 'principal', tx: 'denier', serve: deny }, // root with nobody behind it may deny: refusing only stops a request
  'audit.entries': { access: 'principal', tx: 'none', serve: audit.entries }, // the signed log as stored: a client verifies it with the public key
  'audit.checkpoints': { access: 'principal', tx: 'none', serve: audit.checkpoints }, // signed checkpoint lines as stored: verified with the public key too
  'store.check': { access: 'reviewer', tx: 'none', serve: storeCheck }, // for `airlock doctor`: says nothing of any transaction
  'audit.tree_head': { access: 'principal', tx: 'none', serve: audit.treeHead }, // signed tree heads and proofs: each checked by the client with the public key
  'audit.prove': { access: 'principal', tx: 'none', serve: audit.prove }, // a proof of the log's entries, not a read of the transaction
  'audit.consistency': { access: 'principal', tx: 'none', serve: audit.consistency },
  'keys.rotate': { access: 'admin-person', tx: 'none', serve: keys.rotate }, // a key rotation is a person's act, signed into the log under their name
  'plan.preview': { access: 'principal', tx: 'none', serve: planPreview }, // each step then asks the role its risk needs (mayPreview); the plan's id then goes through approve, execute, deny, cancel and transaction.wait
  'passkey.begin': { access: 'enroller', tx: 'none', serve: passkey.begin }, // the caller's own passkey, as for their own TOTP factor
  'passkey.register': { access: 'enroller', tx: 'none', serve: passkey.register }, // then the caller's own current code
  'passkey.export': { access: 'enroller', tx: 'none', serve: passkey.exportPasskey }, // the caller's own passkeys only
  'passkey.approval_options': { access: 'person', tx: 'approver', serve: passkey.approvalOptions }, // only to who may approve it, with their own passkeys
  // Any principal carries it (in a fleet, the relay's account): the passkey's person approves, judged by APPROVE_RULE in the verb.
  'approve.fleet': { access: 'principal', tx: 'none', serve: approveFleet },
  // The web console's account ([console] user) relays; a signed-in person's requests then go through this door as them.
  'console.sign_in_options': { access: 'console', tx: 'none', serve: consoleRelay.signInOptions },
  'console.sign_in': { access: 'console', tx: 'none', serve: consoleRelay.signIn },
  'console.sign_out': { access: 'console', tx: 'none', serve: consoleRelay.signOut },
  'console.call': { access: 'console', tx: 'none', serve: consoleRelay.call },
  'console.registration_options': { access: 'console', tx: 'none', serve: consoleRelay.registrationOptions },
  'console.registration_response': { access: 'console', tx: 'none', serve: consoleRelay.registrationResponse },
  // The "this session" lane's grants: seen by approvers and admins; any of them may end one (that only takes an approval away).
  'session.list': { access: 'reviewer', tx: 'none', serve: session.list },
  'session.revoke': { access: 'reviewer', tx: 'none', serve: session.revoke },
};
