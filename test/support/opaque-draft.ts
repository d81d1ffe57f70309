/**
 * A draft whose details the code under test treats as opaque (a store, the sealer, the verifier):
 * any fields, for any kind. The daemon builds its drafts with entryDraft (src/audit/entry.ts),
 * typed per kind by src/audit/entry-details.ts; a test of what a store or a verifier does with
 * whatever entry it is given, or with an entry of an earlier shape, builds it with this.
 */
import type { DetailValue, EntryDraft, EntryHeader, EntryKind } from '../../src/audit/entry.js';

export type OpaqueDetails = Record<string, DetailValue>;

export function opaqueDraft(d: EntryHeader & { kind: EntryKind; details: OpaqueDetails }): EntryDraft {
  return d as unknown as EntryDraft;
}
