/**
 * The console's one cookie: a random id naming a browser session the console keeps in memory
 * (sessions.ts); the daemon's session token never reaches the browser. HttpOnly (no script
 * reads it), SameSite=Strict (no other site's page sends it), Path=/, Secure when the console is
 * served over https (over http://localhost a Secure cookie would not be kept).
 */
import type { IncomingMessage } from 'node:http';

export const COOKIE = 'airlock_console';
const ID = /^[A-Za-z0-9_-]{43}$/;

/** The session id the request carries, or null (a malformed one is no session). */
export function sessionCookie(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length > 4096) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== COOKIE) continue;
    const v = part.slice(eq + 1).trim();
    return ID.test(v) ? v : null;
  }
  return null;
}

export function setCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure ? '; Secure' : ''}`;
}

export function clearCookie(secure: boolean): string {
  return setCookie('', 0, secure);
}
