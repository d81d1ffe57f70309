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
import { PreviewEnvelopeSchema } from '../protocol/wire/preview.js';
import type { TxRecord } from '../store/store.js';
import type { Caller, TxFacts } from './authz.js';

/**
 * What the store keeps of a preview: the envelope less the fields that storedPreview has always
 * required to equal its transaction's columns (id, action, request hash, digest). Each was a
 * second copy of the same bytes in every row; storedPreview puts them back from the row, and the
 * digest check then covers those columns too.
 */
export function previewForStore(p: PreviewEnvelope): Record<string, unknown> {
  const { transaction_id: _id, action_name: _a, request_hash: _h, preview_digest: _d, ...rest } = p;
  return rest;
}

/** The transaction a preview starts (a single action's or a plan's): Previewed, its envelope stored, nothing approved yet. */
export function previewedTransaction(envelope: PreviewEnvelope, params: Record<string, unknown>, who: Caller, createdAt: number, expiresAt: number): TxRecord {
  return {
    id: envelope.transaction_id,
    actionName: envelope.action_name,
    params,
    requestHash: envelope.request_hash,
    risk: envelope.risk,
    state: 'Previewed',
    requesterUid: who.uid,
    requesterName: who.user,
    requesterRole: who.role,
    requesterPersonUid: who.person?.uid ?? null,
    preview: previewForStore(envelope),
    previewDigest: envelope.preview_digest,
    summary: envelope.summary,
    createdAt,
    updatedAt: createdAt,
    expiresAt,
    approvedBy: null,
    receiptCommitment: null,
    result: null,
    compactedAt: null,
  };
}

/**
 * The whole envelope of a stored preview: what previewForStore left out, from the row. A row
 * written by an earlier version holds those fields in its JSON as well, and there they must
 * agree with the columns (null when one does not). Anything but an object is returned as it
 * is, for the schema to refuse.
 */
function previewOfRow(tx: TxRecord): unknown {
  const kept: unknown = tx.preview;
  if (typeof kept !== 'object' || kept === null || Array.isArray(kept)) return kept;
  const row: Record<string, unknown> = { transaction_id: tx.id, action_name: tx.actionName, request_hash: tx.requestHash, preview_digest: tx.previewDigest };
  const clash = Object.keys(row).some((k) => k in kept && (kept as Record<string, unknown>)[k] !== row[k]);
  return clash ? null : { ...kept, ...row };
}

export function storedPreview(tx: TxRecord): PreviewEnvelope {
  const whole = previewOfRow(tx);
  if (whole === null) return mismatch(tx);
  const parsed = PreviewEnvelopeSchema.safeParse(whole);
  if (!parsed.success) {
    return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} is not a valid preview envelope: ${z.prettifyError(parsed.error).replace(/\n/g, '; ').slice(0, 300)}`, 'preview the action again; if this persists, check the store with `airlock audit verify`');
  }
  const p = parsed.data;
  if (p.transaction_id !== tx.id || p.action_name !== tx.actionName || p.request_hash !== tx.requestHash || p.preview_digest !== tx.previewDigest || !previewDigestMatches(whole as { preview_digest?: unknown })) return mismatch(tx);
  return p;
}

function mismatch(tx: TxRecord): never {
  return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} does not match its transaction or its digest`, 'preview the action again; if this persists, check the store with `airlock audit verify`');
}

/**
 * The flags of a stored preview that decide who may act on it (authz.ts), read without
 * re-hashing the preview (the inbox lists up to a thousand): a typed read of those flags
 * alone, each absent or `true`, as the envelope's schema has them. A row that does not even
 * carry well-formed flags fails closed. Checked by hand: it runs for every request that names
 * a transaction, and a schema would copy every other field of the preview to read two.
 */
export function storedFlags(tx: TxRecord): { unattended: boolean; unmask: boolean } {
  const p: unknown = tx.preview;
  const flags = typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as { unattended?: unknown; unmask?: unknown }) : null;
  if (!flags || !absentOrTrue(flags.unattended) || !absentOrTrue(flags.unmask)) {
    return fail('integrity', 'bad_stored_preview', `the stored preview of ${tx.id} is not a valid preview envelope`, 'check the store with `airlock audit verify`');
  }
  return { unattended: flags.unattended === true, unmask: flags.unmask === true };
}

const absentOrTrue = (v: unknown) => v === undefined || v === true;

/** Whether a stored preview is an unattended proposal (the inbox shows views, never preview content). */
export const isUnattendedProposal = (tx: TxRecord): boolean => storedFlags(tx).unattended;

/** What authz.ts needs to know about a stored transaction. */
export function facts(tx: TxRecord): TxFacts {
  return { id: tx.id, risk: tx.risk, requesterUid: tx.requesterUid, requesterName: tx.requesterName, requesterPersonUid: tx.requesterPersonUid, action: tx.actionName, ...storedFlags(tx) };
}
