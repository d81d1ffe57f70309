/**
 * Browser sessions, kept by the console and nowhere else: a random cookie id maps to a CSRF
 * token and, once the person signed in, the daemon's session token (which never leaves this
 * process). Two bounded maps, so that anonymous visits (a page load gets a CSRF token before
 * sign-in) can never evict a signed-in person: each keeps at most `max`, the oldest evicted.
 * A signed-in session ends when the daemon's does (its expires_at) or at sign-out.
 */
import { randomBytes } from 'node:crypto';

export interface BrowserSession {
  id: string;
  csrf: string;
  /** The daemon's token; absent before sign-in. */
  daemon?: { token: string; approver: string; user: string; expiresAt: number };
  createdAt: number;
}

const token = () => randomBytes(32).toString('base64url');
/** An anonymous session lives long enough for a sign-in or a registration ceremony. */
const ANONYMOUS_MS = 15 * 60_000;

export class Sessions {
  private readonly anonymous = new Map<string, BrowserSession>();
  private readonly signedIn = new Map<string, BrowserSession>();
  constructor(
    private readonly max = 256,
    private readonly now: () => number = Date.now,
  ) {}

  get(id: string | null): BrowserSession | null {
    if (!id) return null;
    const s = this.signedIn.get(id) ?? this.anonymous.get(id);
    if (!s) return null;
    const until = s.daemon ? s.daemon.expiresAt : s.createdAt + ANONYMOUS_MS;
    if (this.now() >= until) {
      this.drop(id);
      return null;
    }
    return s;
  }

  /** A new session before sign-in: a CSRF token for the sign-in and registration pages. */
  anonymousSession(): BrowserSession {
    const s: BrowserSession = { id: token(), csrf: token(), createdAt: this.now() };
    put(this.anonymous, s, this.max);
    return s;
  }

  /** After a sign-in: a new id and a new CSRF token (the anonymous ones are dropped: no fixation). */
  signIn(previous: string | null, daemon: NonNullable<BrowserSession['daemon']>): BrowserSession {
    if (previous) this.drop(previous);
    const s: BrowserSession = { id: token(), csrf: token(), daemon, createdAt: this.now() };
    put(this.signedIn, s, this.max);
    return s;
  }

  drop(id: string): void {
    this.anonymous.delete(id);
    this.signedIn.delete(id);
  }

  /** Seconds the cookie should live. */
  maxAge(s: BrowserSession): number {
    return ((s.daemon ? s.daemon.expiresAt : s.createdAt + ANONYMOUS_MS) - this.now()) / 1000;
  }
}

function put(m: Map<string, BrowserSession>, s: BrowserSession, max: number): void {
  while (m.size >= max) m.delete(m.keys().next().value!);
  m.set(s.id, s);
}
