/**
 * Client tokens for the listeners where the kernel cannot name the peer (TCP, vsock).
 * A token is 32 random bytes in base64url; the daemon's token file keeps only its SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const newToken = (): string => randomBytes(32).toString('base64url');
export const tokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
