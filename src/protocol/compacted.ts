/**
 * A compacted transaction, as clients see it: `transaction.get` gives a CompactedPreview in
 * place of the preview once the store's retention dropped it (docs/protocol.md). Commands that
 * act on a transaction's preview (approve, execute, unmask, inbox run) take it through
 * livePreview, which refuses a compacted one with a sentence instead of reading holes.
 */
import { AirlockError } from './errors.js';
import type { CompactedPreview, PreviewEnvelope } from './messages.js';

export const isCompactedPreview = (p: PreviewEnvelope | CompactedPreview): p is CompactedPreview => (p as Partial<CompactedPreview>).compacted === true;

/** The preview of a transaction about to be acted on; throws stale_approval/transaction_compacted for a compacted one. */
export function livePreview(t: { transaction_id: string; preview: PreviewEnvelope | CompactedPreview }): PreviewEnvelope {
  if (isCompactedPreview(t.preview)) {
    throw new AirlockError('stale_approval', 'transaction_compacted', `${t.transaction_id} finished and was compacted: its preview and parameters are no longer stored`, 'preview the action again');
  }
  return t.preview;
}
