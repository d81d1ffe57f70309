/**
 * Who is signed in at the web console: the daemon's side of it. The console (its own account)
 * never learns who a person is by itself: a person signs in with a passkey assertion over a
 * random, once-only challenge issued here, the daemon verifies it (passkeys.ts) and issues an
 * opaque session token, kept here as a hash. Every console.call names the session; the daemon
 * then acts as that person, through the ordinary door. A restart forgets every session (the
 * person signs in again); so does the person's sign-out, and time.
 *
 * Bounded: MAX_CHALLENGES challenges waiting (each lives CHALLENGE_TTL_MS), MAX_SESSIONS
 * sessions in all and MAX_SESSIONS_PER_PERSON each (the oldest goes).
 */
import { createHash, randomBytes } from 'node:crypto';
import { fail } from '../protocol/errors.js';

export const CHALLENGE_TTL_MS = 2 * 60_000;
export const MAX_CHALLENGES = 64;
export const MAX_SESSIONS = 256;
export const MAX_SESSIONS_PER_PERSON = 8;

/** A signed-in person: whose passkey signed (their key alice(uid 1001), their uid and name). */
export interface ConsoleSession {
  approver: string;
  uid: number;
  user: string;
  expiresAt: number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class ConsoleSessions {
  private readonly challenges = new Map<string, { challenge: string; expiresAt: number }>();
  /** By the SHA-256 of the token: the token itself is only ever in the console's memory. */
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(private readonly now: () => number) {}

  /** A new sign-in challenge (base64url, 32 random bytes) and its once-only id. */
  challenge(): { id: string; challenge: string } {
    const now = this.now();
    for (const [k, c] of this.challenges) if (c.expiresAt <= now) this.challenges.delete(k);
    if (this.challenges.size >= MAX_CHALLENGES) fail('transient', 'too_many_sign_ins', `${MAX_CHALLENGES} console sign-ins are under way`, 'try again in a minute');
    const id = randomBytes(16).toString('base64url');
    const challenge = randomBytes(32).toString('base64url');
    this.challenges.set(id, { challenge, expiresAt: now + CHALLENGE_TTL_MS });
    return { id, challenge };
  }

  /** Takes a challenge by its id: once only, whatever comes of the sign-in. */
  take(id: string): string {
    const c = this.challenges.get(id);
    this.challenges.delete(id);
    if (!c || c.expiresAt <= this.now()) fail('authorization', 'sign_in_expired', 'that sign-in is unknown, used or expired', 'start the sign-in again');
    return c!.challenge;
  }

  /** Opens a session for a person whose passkey was verified; returns its token. */
  open(person: Omit<ConsoleSession, 'expiresAt'>, lengthMs: number): { token: string; session: ConsoleSession } {
    this.sweep();
    const mine = [...this.sessions].filter(([, s]) => s.approver === person.approver);
    if (mine.length >= MAX_SESSIONS_PER_PERSON) this.sessions.delete(mine[0]![0]);
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const token = randomBytes(32).toString('base64url');
    const session = { ...person, expiresAt: this.now() + lengthMs };
    this.sessions.set(hash(token), session);
    return { token, session };
  }

  /** The session a token names, or authorization/not_signed_in. */
  get(token: string): ConsoleSession {
    const s = this.sessions.get(hash(token));
    if (!s || s.expiresAt <= this.now()) {
      if (s) this.sessions.delete(hash(token));
      fail('authorization', 'not_signed_in', 'this console session is unknown or expired', 'sign in again with your passkey');
    }
    return s!;
  }

  close(token: string): boolean {
    return this.sessions.delete(hash(token));
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(k);
  }
}
