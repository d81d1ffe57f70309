/**
 * The "this session" lane: a person who approves a request with their passkey may let the same
 * requester's identical requests (same action, same parameters: the same request hash) through
 * for up to 8 hours, never at High risk. The grant is the approval's signed `session_granted`
 * entry; each use is an `approval_granted` entry naming it; a revocation is `session_revoked`.
 *
 * Kept in memory only, on purpose: a daemon restart or a policy reload ends every grant (fail
 * closed: the next identical request waits for a person again), and the log says when each
 * happened (`daemon_started`, `policy_reloaded`). Bounded per approver and in all.
 */
import { randomBytes } from 'node:crypto';
import { fail } from '../protocol/errors.js';
import { riskRank, type Risk } from '../protocol/risk.js';

/** Grants in force at once per approver, and in all: a grant is a standing approval, and each is reviewed by a person. */
export const MAX_GRANTS_PER_APPROVER = 8;
export const MAX_GRANTS = 64;

export interface SessionGrant {
  id: string;
  /** Who granted it (principalName) and their person key (personKey): who revokes, and whom the bound counts. */
  approver: string;
  approverKey: string;
  /** Whose identical requests it approves: the first request's executor (principalName). */
  requester: string;
  actionName: string;
  requestHash: string;
  /** The highest risk it approves: the first request's, as previewed (a reload that raises the action's risk stops it). */
  risk: Risk;
  /** The request's parameters as its preview showed them (masked, escaped): what `airlock sessions` lists. */
  shownParams: Record<string, unknown>;
  firstTransaction: string;
  grantedAt: number;
  expiresAt: number;
  uses: number;
}

export class SessionGrants {
  private readonly grants = new Map<string, SessionGrant>();
  /** Grants start one at a time (the bound is checked, the entry written, the grant added), so two approvals at once cannot pass the bound together. */
  private starting: Promise<unknown> = Promise.resolve();

  constructor(private readonly now: () => number) {}

  /** A new grant's id (issued before the approval, so its entry can name it). */
  static newId(): string {
    return 'sg_' + randomBytes(12).toString('hex');
  }

  /**
   * Starts a grant: `write` (its signed entry) and then the grant in force, unless the bound was
   * reached meanwhile (then nothing is written and undefined returned). One start at a time.
   */
  start(grant: Omit<SessionGrant, 'uses'>, write: () => Promise<void>): Promise<SessionGrant | undefined> {
    const run = async () => {
      if (!this.hasRoom(grant.approverKey)) return undefined;
      await write();
      return this.add(grant);
    };
    const started = this.starting.then(run, run);
    this.starting = started.catch(() => undefined);
    return started;
  }

  private hasRoom(approverKey: string): boolean {
    const active = this.active();
    return active.filter((g) => g.approverKey === approverKey).length < MAX_GRANTS_PER_APPROVER && active.length < MAX_GRANTS;
  }

  /** Refuses before anything is spent when this approver (or everyone) holds as many grants as allowed. */
  refuseIfFull(approverKey: string): void {
    if (this.hasRoom(approverKey)) return;
    const mine = this.active().filter((g) => g.approverKey === approverKey).length;
    if (mine >= MAX_GRANTS_PER_APPROVER || this.active().length >= MAX_GRANTS) {
      fail('authorization', 'too_many_sessions', `${mine >= MAX_GRANTS_PER_APPROVER ? 'you hold' : 'this host holds'} the most session grants allowed at once (${mine >= MAX_GRANTS_PER_APPROVER ? MAX_GRANTS_PER_APPROVER : MAX_GRANTS})`, 'revoke one you no longer need (`airlock sessions`, then `airlock sessions revoke ID`), or approve this request alone');
    }
  }

  /** Puts a grant in force (after its signed entry was written: start()). */
  add(grant: Omit<SessionGrant, 'uses'>): SessionGrant {
    const g = { ...grant, uses: 0 };
    this.grants.set(g.id, g);
    return g;
  }

  /** The grant in force that approves this request of this requester at this risk, if any. */
  match(requester: string, requestHash: string, risk: Risk): SessionGrant | undefined {
    return this.active().find((g) => g.requester === requester && g.requestHash === requestHash && riskRank(risk) <= riskRank(g.risk) && risk !== 'high');
  }

  /** Counts a use (the approval it made was recorded). */
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

  /** Ends every grant (a policy reload): returns how many were in force. */
  clear(): number {
    const n = this.active().length;
    this.grants.clear();
    return n;
  }
}
