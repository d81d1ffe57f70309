/** A JSON Web Token with a real header and payload and a random signature of the right size. */
import type { Rng } from './rng.js';

const enc = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

export function jwt(r: Rng, header: Record<string, unknown>, payload: Record<string, unknown>, sigBytes = 32): string {
  return `${enc({ ...header, typ: 'JWT' })}.${enc(payload)}.${r.b64url(sigBytes)}`;
}
