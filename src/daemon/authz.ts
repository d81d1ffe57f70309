/**
 * Every "who may do this" decision, as pure functions of who is asking and what the
 * store says about the transaction. The dispatcher asks `decide` once per request, before
 * the verb runs, and turns a refusal into an error; the few decisions that need what only
 * the verb knows (the action's risk at preview, an enrolment's owner) are asked by that verb.
 * Nothing else in the daemon decides who may do what. A table-driven unit
 * test (test/unit/authz.test.ts) covers them without root or a daemon.
 *
 * The approval model (docs/security.md):
 * - an approver is a person in airlock-approvers, judged by their own groups: a root
 *   peer counts as the person whose login session it runs in (the kernel's login uid),
 *   and root with nobody behind it previews and denies, never approves, enrols, resets
 *   a factor or reloads the policy;
 * - a token never approves, nor does a principal the policy marks unattended;
 * - approving needs the role the transaction's risk needs, read once at preview;
 * - approving a request made under one's own account (the agent runs as the human)
 *   needs the person's second factor, at every risk; otherwise the policy's
 *   second_factor_from decides.
 */
import type { ActionNature } from '../catalogue/action.js';
import { AirlockError, type NextStep, type WireError } from '../protocol/errors.js';
import type { Method } from '../protocol/methods.js';
import { APPROVER_GROUP, minRoleForRisk, riskRank, ROLE_GROUPS, roleSatisfies, type Risk, type Role } from '../protocol/risk.js';
import { principalName, type Identity, type Person } from './identity.js';

/** A refusal, ready to become an AirlockError. */
export type Refusal = Omit<WireError, 'category'> & { category: 'authorization' };
export type Decision = { ok: true } | { ok: false; refusal: Refusal };

/** The caller as the service sees it: its identity and whether the policy marks it unattended. */
/** The connection's identity as the door judges it: `console`, the web console's own account ([console] user), which only relays. */
export type Caller = Identity & { unattended: boolean; console?: boolean };

/** What the store says about a transaction that matters for who may touch it. */
export interface TxFacts {
  id: string;
  risk: Risk;
  requesterUid: number;
  requesterName: string;
  /** The person behind the requester (a root requester through sudo); null when none. */
  requesterPersonUid: number | null;
  unattended: boolean;
  /** An unmasking approval (the read's clear output): only its requester, a person, approves it, with their factor. */
  unmask: boolean;
  /** Its action (named in a refusal of a role too low to execute it). */
  action?: string;
}

/** Who may call a method at all; finer, per-transaction rules follow in the functions below. */
export type Access =
  /** any principal the daemon talks to (its role admitted it) */
  | 'principal'
  /** a person at their own account (not a token; root only with a person behind it) */
  | 'person'
  /** a person who may hold a second factor: an approver (mayEnrol) */
  | 'enroller'
  /** a person in airlock-approvers, or an admin: sees proposals and other people's previews */
  | 'reviewer'
  /** a person (never a token, never root with nobody behind it) with the admin role */
  | 'admin-person'
  /** root with a person behind it in airlock-admin and airlock-approvers (the service then checks their own factor) */
  | 'root-admin-approver'
  /** the web console's own account ([console] user in the policy), which relays passkey ceremonies and nothing else */
  | 'console';

/**
 * What a method asks of the transaction it names, after its access (the door table,
 * src/daemon/door.ts, gives each method both):
 * - `none`: it names none;
 * - `reader`: the requester, an approver or an admin (mayRead);
 * - `requester`: only the requester, with the role the transaction's risk needs (mayExecute);
 * - `approver`: a person who may approve it, and with which factor (mayApprove);
 * - `denier`: a person who may approve it, or root with nobody behind it (mayDeny);
 * - `canceler`: the requester or an admin approver (mayCancel);
 * - `waiter`: only the requester (mayWait).
 */
export type TxRule = 'none' | 'reader' | 'requester' | 'approver' | 'denier' | 'canceler' | 'waiter';

/** Who may call a method: its access, then its transaction rule. */
export interface DoorRule {
  access: Access;
  tx: TxRule;
}

/** Who may approve: the door's row of `approve`, and the same rule for the person a fleet approval's passkey names (verbs/approve-fleet.ts). */
export const APPROVE_RULE = { access: 'person', tx: 'approver' } as const satisfies DoorRule;

/** What an approver may do, when the rule is `approver`: with a factor or not, their own request or not, as which person. */
export type Approval = { secondFactor: boolean; selfApproval: boolean; person: Person };
export type Verdict = { ok: true; approval?: Approval } | { ok: false; refusal: Refusal };

/**
 * The one ordered decision of who may call `method` (src/daemon/dispatch.ts asks it once per
 * request, before the verb runs): its access first, then, once its transaction is loaded, the
 * transaction rule. `tx` is null before the transaction is known (its id malformed, or no such
 * transaction): then only the access is decided, and the request is refused for that next.
 * `factorFrom` is the lowest risk the policy in force asks a code for.
 */
export function decide(method: Method, rule: DoorRule, who: Caller, tx: TxFacts | null, factorFrom: Risk): Verdict {
  const access = mayCall(who, rule.access, method);
  if (!access.ok || tx === null) return access;
  switch (rule.tx) {
    case 'none':
      return ok;
    case 'reader':
      return mayRead(who, tx);
    case 'requester':
      return mayExecute(who, tx, tx.action ?? tx.id);
    case 'approver': {
      const d = mayApprove(who, tx, factorFrom);
      return d.ok ? { ok: true, approval: { secondFactor: d.secondFactor, selfApproval: d.selfApproval, person: d.person } } : d;
    }
    case 'denier':
      return mayDeny(who, tx);
    case 'canceler':
      return mayCancel(who, tx);
    case 'waiter':
      return mayWait(who, tx);
  }
}

const ok: Decision = { ok: true };

/** Throws the refusal of a decision; the one way a "no" from this file becomes an error. */
export function enforce(d: Decision): void {
  if (!d.ok) throw new AirlockError(d.refusal.category, d.refusal.code, d.refusal.message, d.refusal.hint, d.refusal.next ? { next: d.refusal.next } : {});
}
const no = (code: string, message: string, hint?: string, next?: NextStep): Decision => ({ ok: false, refusal: { category: 'authorization', code, message, ...(hint ? { hint } : {}), ...(next ? { next } : {}) } });

const isReviewer = (who: Caller) => who.approver || who.role === 'admin';

/** Whether `who` may call `method`, whose access (the door table's) is `access`. */
export function mayCall(who: Caller, access: Access, method: Method): Decision {
  // The console's account relays people's passkey ceremonies, and does nothing of its own.
  if (who.console && access !== 'console') return no('console_relays_only', `${principalName(who)} is the web console's account: it relays people's passkey sign-ins and approvals (console.*) and calls nothing else`);
  switch (access) {
    case 'console':
      return who.console ? ok : no('not_the_console', `${method} is for the web console's own account; ${principalName(who)} is not it`, 'a person uses the console in their browser (`airlock console`), or the CLI');
    case 'principal':
      return ok;
    case 'person':
      return personProblem(who) ?? ok;
    case 'enroller': {
      const d = mayEnrol(who);
      return d.ok ? ok : d;
    }
    case 'reviewer':
      return isReviewer(who) ? ok : no('not_an_approver', `${method} is for approvers and admins; ${principalName(who)} is neither`);
    case 'admin-person':
      if (who.via === 'token') return no('token_not_a_person', `${who.user} is a token: ${method} is done by a person`, 'an administrator runs it from their own account or through sudo');
      if (who.unattended) return no('unattended_approver', `${principalName(who)} is unattended in the policy: it proposes and never rotates keys`);
      if (who.role !== 'admin') return no('not_an_admin', `${method} is for the admin role; ${principalName(who)} is not an admin`, 'an administrator runs it: `sudo airlock keys rotate ...`');
      return personProblem(who) ?? ok;
    case 'root-admin-approver':
      return rootAdminApproverProblem(who, method) ?? ok;
  }
}

/**
 * Why `who` may not act as the host's administrator (reset a factor, reload the policy), or
 * null: root, with a person behind it who is an admin approver. Their own code follows.
 */
function rootAdminApproverProblem(who: Caller, what: string): Decision | null {
  if (who.uid !== 0 || who.via === 'token') return no('root_only', `${what} is for root only`, 'an admin approver runs it through sudo: `sudo airlock ...`');
  const notPerson = personProblem(who);
  if (notPerson) return notPerson;
  const p = who.person!;
  if (!(p.approver && p.role === 'admin') || who.unattended) {
    return no('not_an_admin_approver', `${what} needs a person in ${ROLE_GROUPS.admin} and ${APPROVER_GROUP}; ${principalName(who)} is not one${who.unattended ? ' (unattended in the policy)' : ''}`, 'an admin approver runs it through sudo from their own login session, with their second factor');
  }
  return null;
}

/** Why no person stands behind this caller, or null when one does. */
function personProblem(who: Caller): Decision | null {
  if (who.via === 'token') return no('token_not_a_person', `${who.user} is a token: tokens never approve or enrol`, 'a person approves from their own account: `airlock approve ID`');
  if (!who.person) {
    return no('no_person', `this root process stands for nobody the daemon can name (${who.rootPeer?.noPerson ?? 'unknown'}), and only a person does this`, 'run it as yourself, or through sudo from your own login session (the kernel\'s login uid names you)');
  }
  return null;
}

const ENROL_AS_YOURSELF = 'enrol as yourself, without sudo: `airlock totp enroll`';

export type EnrolDecision = { ok: true; person: { uid: number; user: string } } | { ok: false; refusal: Refusal };

/**
 * Whose factor an enrolment is: the person behind the connection (through sudo, the person
 * who ran it), and only an approver, since a factor approves nothing otherwise. A token,
 * or root with nobody behind it, holds no factor.
 */
export function mayEnrol(who: Caller): EnrolDecision {
  if (who.via === 'token' || who.uid < 0) return no('enrol_as_yourself', `${who.user} is a token principal, and a second factor belongs to a person`, ENROL_AS_YOURSELF) as EnrolDecision;
  const p = who.person;
  if (!p) return no('enrol_as_yourself', `root has no second factor of its own, and nobody the daemon can name stands behind this root process (${who.rootPeer?.noPerson ?? 'unknown'})`, ENROL_AS_YOURSELF) as EnrolDecision;
  if (!p.approver) return no('not_an_approver', `${p.user} is not in ${APPROVER_GROUP}, so a second factor would approve nothing`, `an administrator adds them first: \`sudo gpasswd -a ${p.user} ${APPROVER_GROUP}\` (then they log in again)`) as EnrolDecision;
  return { ok: true, person: { uid: p.uid, user: p.user } };
}

/**
 * Who may delete a person's factor: root with an admin approver behind it (who then gives
 * their own code), never its owner: an agent running as alice with alice's sudo would
 * otherwise reset her factor and enrol one of its own. Root with nobody behind it never.
 */
export function mayReset(who: Caller, owner: { uid: number; user: string }): Decision {
  const problem = rootAdminApproverProblem(who, `resetting ${owner.user}'s second factor`);
  if (problem) return problem;
  const p = who.person!;
  if (p.uid === owner.uid) {
    return no('reset_own_factor', `${p.user} may not reset their own second factor, even through sudo: an agent running as ${p.user} could then enrol a factor of its own`, 'another admin approver resets it: `sudo airlock totp reset --user NAME`');
  }
  return ok;
}

/**
 * Who may approve another person's first enrolment: a person in airlock-approvers (from their
 * own account or through sudo), not unattended, never its owner (then their own code follows).
 * An agent that enrols a factor for an account it runs as gets nothing until somebody else,
 * holding a factor already, vouches for that account's person.
 */
export function mayApproveEnrolment(who: Caller, owner: { uid: number; user: string }): Decision {
  const notPerson = personProblem(who);
  if (notPerson) return notPerson;
  const p = who.person!;
  if (!p.approver || who.unattended) {
    return no('not_an_approver', `approving ${owner.user}'s enrolment needs a person in ${APPROVER_GROUP} with a second factor; ${principalName(who)} is not one${who.unattended ? ' (unattended in the policy)' : ''}`, 'another approver runs `airlock totp approve --user NAME`');
  }
  if (p.uid === owner.uid) {
    return no('approve_own_enrolment', `${p.user} may not approve their own enrolment: an agent running as ${p.user} could then enrol a factor of its own`, `another approver runs \`airlock totp approve --user ${owner.user}\``);
  }
  return ok;
}

/**
 * Whether `who` may enrol the host's very first factor: only through sudo from a login session
 * (root, with the kernel's login uid naming the person), as `airlock install` does at the
 * installing terminal. From the person's own account an agent running as them could do it.
 */
export function mayEnrolFirstApprover(who: Caller | Identity): Decision {
  if (who.uid === 0 && who.via !== 'token' && who.person) return ok;
  return no(
    'first_approver_through_sudo',
    'this host has no approver with a second factor yet, and the first one is enrolled only through sudo, at the installing terminal: from your own account an agent running as you could enrol a factor of its own',
    'in your own login session, at the installing terminal, run `sudo airlock totp enroll`; later approvers enrol from their own accounts and an existing approver approves them',
  );
}

/** Previewing needs the role the action's risk needs (before any parameter is looked at). */
export function mayPreview(who: Caller, action: string, risk: Risk): Decision {
  const need = minRoleForRisk(risk);
  if (roleSatisfies(who.role, need)) return ok;
  return no('role_too_low', `${action} is ${risk} risk and needs the ${need} role; ${principalName(who)} is ${who.role}`, `ask an administrator to add you to ${ROLE_GROUPS[need]} (then log in again)`);
}

/** The requester: the same account, and for root the same person behind it (one person's sudo request is not another's). */
export const isRequester = (who: Identity, tx: Pick<TxFacts, 'requesterUid' | 'requesterPersonUid'>) =>
  who.uid === tx.requesterUid && (who.uid !== 0 || (who.person?.uid ?? null) === tx.requesterPersonUid);
/** One key per requester, as isRequester tells them apart: the account, and for root the person behind it. */
export const requesterKey = (tx: Pick<TxFacts, 'requesterUid' | 'requesterPersonUid'>) => (tx.requesterUid === 0 ? `0/${tx.requesterPersonUid ?? 'none'}` : String(tx.requesterUid));
/** The same person made the request: their own account, or root on their behalf (either side). */
const samePerson = (person: Person, tx: TxFacts) => person.uid === tx.requesterUid || person.uid === tx.requesterPersonUid;

/** The full preview shows host state: only the requester, approvers and admins read it. */
export function mayRead(who: Caller, tx: TxFacts): Decision {
  if (isRequester(who, tx) || isReviewer(who)) return ok;
  return no('not_yours', `only ${tx.requesterName}, approvers and admins may read ${tx.id} in full`, 'see `airlock history` for its summary', { method: 'history', params: {} });
}

export function mayCancel(who: Caller, tx: TxFacts): Decision {
  if (isRequester(who, tx) || (who.approver && who.role === 'admin')) return ok;
  return no('not_yours', `only the requester or an admin approver may cancel ${tx.id}`);
}

/** Only the requester executes, and still needs the role for the transaction's risk. */
export function mayExecute(who: Caller, tx: TxFacts, action: string): Decision {
  const role = mayPreview(who, action, tx.risk);
  if (!role.ok) return role;
  return requesterOnly(who, tx);
}

/**
 * Only the requester waits for its transaction: the wait hands over the receipt, which serves
 * the requester alone. Anyone else is refused as execute refuses them, so a wait tells a
 * stranger no more than an execute would.
 */
export function mayWait(who: Caller, tx: TxFacts): Decision {
  return requesterOnly(who, tx);
}

const requesterOnly = (who: Caller, tx: TxFacts): Decision =>
  isRequester(who, tx) ? ok : no('not_the_requester', `only ${tx.requesterName} (uid ${tx.requesterUid}), who requested ${tx.id}, may execute it`);

export type ApprovalDecision = { ok: true; secondFactor: boolean; selfApproval: boolean; person: Person } | { ok: false; refusal: Refusal };

/**
 * May `who` approve `tx`, and with which factor? `factorFrom` is the lowest risk the
 * policy asks a code for; an approval of one's own request always needs one.
 */
export function mayApprove(who: Caller, tx: TxFacts, factorFrom: Risk): ApprovalDecision {
  const problem = approverProblem(who, tx, 'approve');
  if (problem) return problem as ApprovalDecision;
  const person = who.person!;
  if (tx.unattended) {
    return no('unattended_proposal', `${tx.id} was proposed by ${tx.requesterName}, an unattended principal: no receipt is ever minted for it`, `a person re-previews it against the current state with \`airlock inbox run ${tx.id}\``) as ApprovalDecision;
  }
  const selfApproval = samePerson(person, tx);
  if (tx.unmask && !selfApproval) {
    return no('unmask_not_yours', `${tx.id} asks for clear output, which goes only to the person who approves it; ${principalName(who)} did not request it`, `whoever needs the clear output runs \`airlock unmask\` as themselves`) as ApprovalDecision;
  }
  if (tx.unmask) return { ok: true, selfApproval, secondFactor: true, person };
  // A request by root with nobody behind it could be anyone's, the approver's agent included: it takes the factor too.
  const anonymousRoot = tx.requesterUid === 0 && tx.requesterPersonUid === null;
  return { ok: true, selfApproval, secondFactor: selfApproval || anonymousRoot || riskRank(tx.risk) >= riskRank(factorFrom), person };
}

/**
 * May `who` refuse `tx`? The people who may approve it, judged the same way, but with no
 * second factor (refusing is the safe direction: the worst a denial does is stop a request),
 * and an unattended principal's proposal may be refused too (it is never approved).
 */
export function mayDeny(who: Caller, tx: TxFacts): Decision {
  if (who.uid === 0 && who.via !== 'token' && !who.person) return ok; // root with nobody behind it: the host's own stop
  return approverProblem(who, tx, 'deny') ?? ok;
}

/**
 * Whether a person stands as an approver at this risk: in airlock-approvers, with the role the
 * risk needs. The one reading of it, for every decision here and for a session grant at each use
 * (session-grants.ts).
 */
export function approverStanding(person: { approver: boolean; role: Role | null }, risk: Risk): 'not_an_approver' | 'role_too_low' | null {
  if (!person.approver) return 'not_an_approver';
  return person.role && roleSatisfies(person.role, minRoleForRisk(risk)) ? null : 'role_too_low';
}

/** Why `who` may not decide on `tx` (approve or deny), or null: a person, an approver, attended, with the role its risk needs. */
function approverProblem(who: Caller, tx: TxFacts, verb: 'approve' | 'deny'): Decision | null {
  const notPerson = personProblem(who);
  if (notPerson) return notPerson;
  const person = who.person!;
  const name = principalName(who);
  const standing = approverStanding(person, tx.risk);
  if (standing === 'not_an_approver') {
    return no('not_an_approver', `${name} may not ${verb}: ${verb === 'approve' ? 'approving' : 'denying'} needs membership of ${APPROVER_GROUP}${who.uid === 0 ? ' (sudo does not make anyone an approver)' : ''}`, `an approver ${verb === 'approve' ? 'approves' : 'denies'} as themselves: \`airlock ${verb} ${tx.id}\``);
  }
  if (who.unattended) return no('unattended_approver', `${name} is unattended in the policy: it proposes and never ${verb === 'approve' ? 'approves' : 'decides'}`);
  const need = minRoleForRisk(tx.risk);
  if (standing === 'role_too_low') {
    return no('role_too_low', `${verb === 'approve' ? 'approving' : 'denying'} a ${tx.risk}-risk action needs the ${need} role; ${name} is ${person.role ?? 'in no airlock role group'}`, `an approver with the ${need} role ${verb === 'approve' ? 'approves' : 'denies'} it`);
  }
  return null;
}

/**
 * May `who` ask for a read's clear output (an unmasking preview)? Only a person who may
 * approve, as themselves: the clear output goes to the approver's connection alone, and the
 * approver is its requester, so an agent (never in ${APPROVER_GROUP}) never sees it.
 */
export function mayUnmask(who: Caller, action: { name: string; readOnly: boolean }): Decision {
  if (!action.readOnly) return no('unmask_not_a_read', `${action.name} changes the host: only a read's output can be unmasked`);
  const notPerson = personProblem(who);
  if (notPerson) return notPerson;
  if (!who.person!.approver || who.unattended) {
    return no('unmask_needs_approver', `${principalName(who)} may not see clear output: unmasking is for a person in ${APPROVER_GROUP}, as themselves`, 'ask a person who approves to run `airlock unmask ID`');
  }
  return { ok: true };
}

/**
 * Which lane of the policy may approve a request without a person. The reads rule: a
 * read declared non-sensitive (src/catalogue/action.ts), of effective risk Low, while the
 * policy keeps `reads = "auto"`; a read that reaches the network also needs a principal the
 * kernel named (a token principal, over TCP or vsock, asks a person before it uses this
 * host's place on the network). Otherwise the exact rules, except for an unattended
 * principal, which only proposes. A change whose desired state already holds (its preview says
 * "no change") gets the no-change lane. `null`: a person decides.
 */
export function autoApprovalLane(who: Caller, action: ActionNature, risk: Risk, reads: 'auto' | 'ask', noChange = false): 'no_change' | 'reads' | 'rules' | null {
  // Nothing runs for a no-change preview (src/daemon/plan.ts), so no person's consent is at
  // stake, at any risk and for any principal: docs/security.md, "No change".
  if (noChange && !action.readOnly) return 'no_change';
  if (reads === 'auto' && risk === 'low' && action.readOnly && !action.sensitive && !(action.reachesNetwork && who.via === 'token')) return 'reads';
  return who.unattended ? null : 'rules';
}

/** The refusal a self-approval gets when the person has no second factor to give. */
export function selfApprovalNeedsFactor(who: Caller, tx: TxFacts): Refusal {
  const user = who.person?.user ?? who.user;
  return {
    category: 'authorization',
    code: 'self_approval_needs_factor',
    message: `${tx.id} was requested under ${user}'s own account, so ${user} may approve it only with their second factor, and has none enrolled`,
    hint: `enrol one as yourself with \`airlock totp enroll\` (the agent's account cannot read it), or run the agent under an account of its own (e.g. \`sudo useradd -m agent && sudo usermod -aG ${ROLE_GROUPS.dev} agent\`)`,
  };
}
