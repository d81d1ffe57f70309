/**
 * A daemon refusal as an HTTP answer the page shows: its code, message and hint as the daemon
 * wrote them (escaped by the daemon, and set with textContent by the page), and a status the
 * page acts on: 401 means sign in again, 403 not yours to do, 409 it changed meanwhile.
 */
import { AirlockError } from '../protocol/errors.js';

export function statusOf(e: AirlockError): number {
  if (isSessionGone(e)) return 401;
  switch (e.category) {
    case 'authorization':
      return 403;
    case 'validation':
      return 400;
    case 'stale_approval':
    case 'conflict':
      return 409;
    case 'transient':
      return 503;
    default:
      return 500;
  }
}

/** The daemon no longer knows the session (expired, signed out, daemon restarted): the browser's ends too. */
export function isSessionGone(e: AirlockError): boolean {
  return e.category === 'authorization' && (e.code === 'not_signed_in' || /session/.test(e.code));
}
