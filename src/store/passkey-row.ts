/** A passkeys row as both stores hold it, and the record it is. */
import type { PasskeyRecord } from './store.js';

export interface PasskeyRow {
  credential_id: string;
  approver: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number | string;
  transports: string;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

export function passkeyOfRow(r: PasskeyRow): PasskeyRecord {
  const transports: unknown = JSON.parse(r.transports);
  return {
    credentialId: r.credential_id,
    approver: r.approver,
    publicKey: Buffer.from(r.public_key, 'base64url'),
    counter: Number(r.counter),
    transports: Array.isArray(transports) ? transports.filter((t): t is string => typeof t === 'string') : [],
    name: r.name,
    createdAt: Number(r.created_at),
    lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
  };
}
