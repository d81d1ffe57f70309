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

/**
 * What the store keeps of a preview: the envelope less the fields its transaction's row holds
 * in columns of its own that never change (id, action, request hash, risk, summary, creation
 * time, digest). Each of them was a second copy of the same bytes in every row; storedPreview
 * puts them back from the row, and the digest check then covers the row's columns too.
 */
export function previewForStore(p: PreviewEnvelope): Record<string, unknown> {
  const { transaction_id: _id, action_name: _a, request_hash: _h, risk: _r, summary: _s, created_at: _c, preview_digest: _d, ...rest } = p;
  return rest;
}

/** The whole envelope of a stored preview: what previewForStore left out, from the row (a row of an older version holds them all). */
function previewOfRow(tx: TxRecord): Record<string, unknown> {
  return { ...tx.preview, transaction_id: tx.id, action_name: tx.actionName, request_hash: tx.requestHash, risk: tx.risk, summary: tx.summary, created_at: new Date(tx.createdAt).toISOString(), preview_digest: tx.previewDigest };
}

export function storedPreview(tx: TxRecord): PreviewEnvelope {
  const whole = previewOfRow(tx);
  const parsed = PreviewEnvelopeSchema.safeParse(whole);
  if (!parsed.success) {
    return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} is not a valid preview envelope: ${z.prettifyError(parsed.error).replace(/\n/g, '; ').slice(0, 300)}`, 'preview the action again; if this persists, check the store with `airlock audit verify`');
  }
  const p = parsed.data;
  if (p.transaction_id !== tx.id || p.action_name !== tx.actionName || p.request_hash !== tx.requestHash || p.preview_digest !== tx.previewDigest || !previewDigestMatches(whole)) {
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
