/**
 * The "this session" lane: a person who approves a request with their passkey may let the same
 * requester's identical requests (same action, same parameters: the same request hash) through
 * for up to 8 hours, never at High risk. The grant is the approval's signed `session_granted`
 * entry; each use is an `approval_granted` entry naming it; a revocation is `session_revoked`.
 *
 * Kept in memory only, on purpose: a daemon restart or a policy reload ends every grant (fail
 * closed: the next identical request waits for a person again), and the log says when each
 * happened (`daemon_started`, `policy_reloaded`). A grant approves only while its approver still
 * stands as one (in airlock-approvers, with the role the risk needs: /etc/group is read at each
 * use), and only a repeat whose preview warns of nothing the first did not. Bounded per approver
 * and in all: a place is reserved before the approval spends anything, so approvals at once
 * cannot pass the bound together.
 */
import { randomBytes } from 'node:crypto';
import { fail } from '../protocol/errors.js';
import { riskRank, type Risk } from '../protocol/risk.js';
import { approverStanding } from './authz.js';
import { personByUid } from './identity.js';

/** Grants in force at once per approver, and in all: a grant is a standing approval, and each is reviewed by a person. */
export const MAX_GRANTS_PER_APPROVER = 8;
export const MAX_GRANTS = 64;

export interface SessionGrant {
  id: string;
  /** Who granted it (principalName), their person key (personKey) and uid: who revokes, whom the bound counts, whose standing is checked at each use. */
  approver: string;
  approverKey: string;
  approverUid: number;
  /** Whose identical requests it approves: the first request's executor (principalName; never root). */
  requester: string;
  actionName: string;
  requestHash: string;
  /** The highest risk it approves: the first request's, as previewed (a reload that raises the action's risk stops it). */
  risk: Risk;
  /** The first preview's warnings: a repeat that warns of anything else waits for a person. */
  warnings: string[];
  /** The request's parameters as its preview showed them (masked, escaped): what `airlock sessions` lists. */
  shownParams: Record<string, unknown>;
  firstTransaction: string;
  grantedAt: number;
  expiresAt: number;
  uses: number;
}

/** A place held for a grant while its approval is recorded (reserve, then activate or release). */
export interface Reservation {
  approverKey: string;
  generation: number;
  open: boolean;
}

/** Whether a person still stands as an approver for this risk (the daemon's own reading of /etc/passwd and /etc/group). */
export type Standing = (uid: number, risk: Risk) => boolean;
export const standsAsApprover: Standing = (uid, risk) => {
  const p = personByUid(uid, 'self');
  return p !== null && approverStanding(p, risk) === null;
};

export class SessionGrants {
  private readonly grants = new Map<string, SessionGrant>();
  private readonly reserved = new Set<Reservation>();
  /** Moves at every clear (a policy reload): an approval begun before it starts no grant after it. */
  private generation = 0;

  constructor(
    private readonly now: () => number,
    private readonly standing: Standing = standsAsApprover,
  ) {}

  /** A new grant's id (issued before the approval, so its entry can name it). */
  static newId(): string {
    return 'sg_' + randomBytes(12).toString('hex');
  }

  /** Holds a place for a grant of this approver, or refuses (before anything is spent) when they or everyone hold as many as allowed. */
  reserve(approverKey: string): Reservation {
    const active = this.active();
    const held = [...this.reserved];
    const mine = active.filter((g) => g.approverKey === approverKey).length + held.filter((r) => r.approverKey === approverKey).length;
    if (mine >= MAX_GRANTS_PER_APPROVER) {
      fail('authorization', 'too_many_sessions', `you hold the most session grants allowed at once (${MAX_GRANTS_PER_APPROVER})`, 'revoke one you no longer need (`airlock sessions`, then `airlock sessions revoke ID`), or approve this request alone');
    }
    if (active.length + held.length >= MAX_GRANTS) {
      fail('authorization', 'too_many_sessions', `this host holds the most session grants allowed at once (${MAX_GRANTS})`, 'revoke one no longer needed (`airlock sessions`, then `airlock sessions revoke ID`), or approve this request alone');
    }
    const r = { approverKey, generation: this.generation, open: true };
    this.reserved.add(r);
    return r;
  }

  /** Gives the place back (the approval failed, or the grant started). Idempotent. */
  release(r: Reservation): void {
    r.open = false;
    this.reserved.delete(r);
  }

  /**
   * Starts the reserved grant: `write` (its signed entry), then the grant in force. Nothing is
   * written, and undefined returned, when a policy reload came since the place was reserved; a
   * reload during the write leaves the grant out of force too (its entry then says more than
   * happened, never less).
   */
  async activate(r: Reservation, grant: Omit<SessionGrant, 'uses'>, write: () => Promise<void>): Promise<SessionGrant | undefined> {
    try {
      if (!r.open || r.generation !== this.generation) return undefined;
      await write();
      if (r.generation !== this.generation) return undefined;
      const g = { ...grant, uses: 0 };
      this.grants.set(g.id, g);
      return g;
    } finally {
      this.release(r);
    }
  }

  /**
   * The grant in force that approves this request of this requester at this risk, if any: never
   * High, never for root, only while its approver stands as one, and only when the new preview
   * warns of nothing the first did not.
   */
  match(requester: string, requestHash: string, risk: Risk, warnings: readonly string[]): SessionGrant | undefined {
    if (risk === 'high') return undefined;
    return this.active().find(
      (g) => g.requester === requester && g.requestHash === requestHash && riskRank(risk) <= riskRank(g.risk) && warnings.every((w) => g.warnings.includes(w)) && this.standing(g.approverUid, risk),
    );
  }

  /** Counts a use (before its approval is recorded: a revocation meanwhile reports it). */
  used(id: string): void {
    const g = this.grants.get(id);
    if (g) g.uses += 1;
  }

  /** The grants in force now, oldest first; expired ones are dropped. */
  active(): SessionGrant[] {
    const now = this.now();
    for (const [id, g] of this.grants) if (g.expiresAt <= now) this.grants.delete(id);
    return [...this.grants.values()];
  }

  get(id: string): SessionGrant | undefined {
    return this.active().find((g) => g.id === id);
  }

  /** Ends a grant; returns it, or undefined when none is in force under that id. */
  revoke(id: string): SessionGrant | undefined {
    const g = this.get(id);
    if (g) this.grants.delete(id);
    return g;
  }

  /** Ends every grant, and every approval under way starts none (a policy reload): returns how many were in force. */
  clear(): number {
    const n = this.active().length;
    this.grants.clear();
    this.generation++;
    return n;
  }
}
