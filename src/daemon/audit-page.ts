/**
 * `audit.entries`: the signed log, a page at a time, exactly as stored. The daemon adds
 * nothing and checks nothing here: a client verifies every signature and the chain itself
 * with the public key (src/audit/verify.ts verifyLog), so a daemon that lied would be caught,
 * and the client needs no read access to the database.
 */
import { fail } from '../protocol/errors.js';
import { MAX_ENTRIES } from '../protocol/param-schemas.js';
import { MAX_FRAME } from '../protocol/framing.js';
import type { AuditEntriesPage } from '../protocol/messages.js';
import type { Store } from '../store/store.js';

export const DEFAULT_ENTRIES = 500;
export { MAX_ENTRIES };
/**
 * A page stops before its rows would pass this many bytes of JSON, whatever `limit` says, so
 * its answer always fits a frame (an entry is a few hundred bytes; a preview entry with long
 * warnings can be far more). At least one row is always sent.
 */
export const PAGE_BYTES = MAX_FRAME - 64 * 1024;

export async function auditPage(store: Store, req: { after_seq?: unknown; limit?: unknown }): Promise<AuditEntriesPage> {
  const after = req.after_seq === undefined ? 0 : req.after_seq;
  const limit = req.limit === undefined ? DEFAULT_ENTRIES : req.limit;
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) fail('validation', 'bad_audit_query', 'after_seq must be an integer >= 0 (the seq of the last entry you have; 0 for the start)');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_ENTRIES) fail('validation', 'bad_audit_query', `limit must be an integer from 1 to ${MAX_ENTRIES}`);
  // One more than asked for says whether the log goes on.
  const found = await store.logRows(after as number, (limit as number) + 1);
  const rows: AuditEntriesPage['rows'] = [];
  let bytes = 0;
  for (const r of found.slice(0, limit as number)) {
    const row = { seq: r.seq, body: r.body, sig: r.sig };
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (rows.length > 0 && bytes > PAGE_BYTES) break;
    rows.push(row);
  }
  const more = found.length > rows.length;
  // A page that begins at or before the archived base says where the live log starts.
  const base = store.logBase();
  return { rows, next_after_seq: more ? rows[rows.length - 1]!.seq : null, ...(base.seq > 0 && (after as number) <= base.seq ? { base } : {}) };
}
