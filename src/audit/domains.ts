/**
 * Domain-separation tags, one per purpose. Each ends in NUL and none is a prefix of
 * another, so a signature made for one purpose never verifies for another.
 */
export const DOMAIN_LOG_ENTRY = Buffer.from('airlock/v1/log-entry\0', 'utf8');
export const DOMAIN_CHECKPOINT = Buffer.from('airlock/v1/checkpoint\0', 'utf8');
export const DOMAIN_RECEIPT = Buffer.from('airlock/v1/approval-receipt\0', 'utf8');
/** A key's consent to a rotation (src/audit/rotation.ts): both the old and the new key sign the same statement. */
export const DOMAIN_KEY_ROTATION = Buffer.from('airlock/v1/key-rotation\0', 'utf8');

/** Injective framing: each field is a 4-byte big-endian length followed by its UTF-8 bytes. */
export function frameFields(fields: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of fields) {
    const b = Buffer.from(f, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length, 0);
    parts.push(len, b);
  }
  return Buffer.concat(parts);
}
/** An archived segment's range (src/audit/segment-range.ts): which entries of which log one file holds. */
export const DOMAIN_SEGMENT = Buffer.from('airlock/v1/archived-segment\0', 'utf8');
/** A host's MAC over a store row it decides on (src/store/row-mac.ts). */
export const DOMAIN_ROW_MAC = Buffer.from('airlock/v1/store-row\0', 'utf8');
