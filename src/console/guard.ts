/**
 * Who may change anything through the console: a POST from the console's own page. Both must
 * hold, so that neither a forged cross-site request nor a same-site page without the token gets
 * through: the Origin header is the console's origin (browsers send it on every POST and a page
 * cannot forge it), and X-Airlock-CSRF carries the token the page read from GET /api/me for its
 * own session (another site's page can neither read it nor, SameSite=Strict, send the cookie).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BrowserSession } from './sessions.js';

export const CSRF_HEADER = 'x-airlock-csrf';

/** Why the request is refused (403), or null when it may go on. */
export function forgedReason(req: IncomingMessage, origin: string, session: BrowserSession | null): string | null {
  if (req.headers.origin !== origin) return `the request did not come from the console's page (Origin ${JSON.stringify(req.headers.origin ?? null)}, expected ${origin})`;
  if (!session) return 'no console session: load the page again';
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !same(sent, session.csrf)) return 'the request lacks the page\'s CSRF token: load the page again';
  return null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
