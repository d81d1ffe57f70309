import { createHash } from 'node:crypto';
import { canonicalize } from './canonical.js';

/** What a request hash covers (LACS §5): UTF-8 action_name, a 0x00 byte, UTF-8 JCS(params). */
export function requestHashInput(actionName: string, params: unknown): Buffer {
  return Buffer.concat([Buffer.from(actionName, 'utf8'), Buffer.from([0]), Buffer.from(canonicalize(params), 'utf8')]);
}

/** LACS §5 request hash: hex SHA-256 of action_name || 0x00 || JCS(params). */
export function requestHash(actionName: string, params: unknown): string {
  return createHash('sha256').update(requestHashInput(actionName, params)).digest('hex');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * What a preview digest covers (docs/protocol.md §12): JCS of the preview envelope without
 * its preview_digest member. The daemon also measures this text against its size limit.
 */
export function previewDigestInput(envelope: object): string {
  const { preview_digest: _digest, ...body } = envelope as Record<string, unknown>;
  return canonicalize(body);
}

/** Hex SHA-256 of previewDigestInput: what the approver approves. */
export function previewDigest(envelope: object): string {
  return sha256Hex(previewDigestInput(envelope));
}

/**
 * Whether an envelope's preview_digest is the digest of the rest of it. An envelope JCS
 * refuses (a lone surrogate, a value JSON cannot carry) matches nothing: it cannot be what
 * was approved.
 */
export function previewDigestMatches(envelope: { preview_digest?: unknown }): boolean {
  if (typeof envelope.preview_digest !== 'string') return false;
  try {
    return previewDigest(envelope) === envelope.preview_digest;
  } catch {
    return false;
  }
}
