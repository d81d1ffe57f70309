/**
 * A preview read back from the store, checked rather than cast: it must parse as a preview
 * envelope, belong to its transaction, and still hash to the digest the approver approved.
 * Anything else is a store that was altered or written by another version, and the daemon
 * refuses to act on it (fail closed).
 */
import { z } from 'zod';
import { fail } from '../protocol/errors.js';
import { previewDigestMatches } from '../protocol/hash.js';
import type { PreviewEnvelope } from '../protocol/messages.js';
import { PreviewEnvelopeSchema } from '../protocol/preview-schema.js';
import type { TxRecord } from '../store/store.js';
import type { TxFacts } from './authz.js';

export function storedPreview(tx: TxRecord): PreviewEnvelope {
  const parsed = PreviewEnvelopeSchema.safeParse(tx.preview);
  if (!parsed.success) {
    return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} is not a valid preview envelope: ${z.prettifyError(parsed.error).replace(/\n/g, '; ').slice(0, 300)}`, 'preview the action again; if this persists, check the store with `airlock audit verify`');
  }
  const p = parsed.data;
  if (p.transaction_id !== tx.id || p.action_name !== tx.actionName || p.request_hash !== tx.requestHash || p.preview_digest !== tx.previewDigest || !previewDigestMatches(tx.preview)) {
    return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} does not match its transaction or its digest`, 'preview the action again; if this persists, check the store with `airlock audit verify`');
  }
  return p;
}

/**
 * The flags of a stored preview that decide who may act on it (authz.ts), read without
 * re-hashing the preview (the inbox lists up to a thousand): a typed read of those flags
 * alone. A row that does not even carry well-formed flags fails closed.
 */
const Flags = z.looseObject({ unattended: z.literal(true).optional(), unmask: z.literal(true).optional() });
export function storedFlags(tx: TxRecord): { unattended: boolean; unmask: boolean } {
  const r = Flags.safeParse(tx.preview);
  if (!r.success) fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} is not a valid preview envelope`, 'check the store with `airlock audit verify`');
  return { unattended: r.data!.unattended === true, unmask: r.data!.unmask === true };
}

/** Whether a stored preview is an unattended proposal (the inbox shows views, never preview content). */
export const isUnattendedProposal = (tx: TxRecord): boolean => storedFlags(tx).unattended;

/** What authz.ts needs to know about a stored transaction. */
export function facts(tx: TxRecord): TxFacts {
  return { id: tx.id, risk: tx.risk, requesterUid: tx.requesterUid, requesterName: tx.requesterName, requesterPersonUid: tx.requesterPersonUid, action: tx.actionName, ...storedFlags(tx) };
}
