import { createHash } from 'node:crypto';
import { canonicalize } from './canonical.js';

/** LACS §5 request hash: hex SHA-256 of action_name || 0x00 || JCS(params). */
export function requestHash(actionName: string, params: unknown): string {
  return createHash('sha256')
    .update(actionName, 'utf8')
    .update(Buffer.from([0]))
    .update(canonicalize(params), 'utf8')
    .digest('hex');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
