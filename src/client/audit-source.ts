/**
 * The daemon as a source of the signed log (src/audit/source.ts): its checkpoint file through
 * `audit.checkpoints` and its entries through `audit.entries`, page by page, as stored. Any
 * principal with a role may read them, so an auditor needs no read access to /var/lib/airlock;
 * and nothing here is trusted: the verifier checks every entry and checkpoint with the auditor's
 * own copy of the public key.
 */
import { AirlockError } from '../protocol/errors.js';
import { MAX_CHECKPOINT_BYTES, type AuditSource } from '../audit/source.js';
import type { LogRow } from '../audit/verify.js';
import { checkLogBase, logArchived, startOfBase } from '../audit/log-base.js';
import type { AirlockClient } from './client.js';

/** The daemon's largest page of entries (audit.entries `limit` at most 2000). */
export const ENTRY_PAGE = 2000;

export function daemonSource(cl: AirlockClient, where: string): AuditSource {
  /** The base start() saw: the pages must start there (an archival since moves it). */
  let startedAt: number | undefined;
  return {
    name: `the daemon at ${where}`,
    checkpoints: async () => [{ from: `the daemon's checkpoint file`, text: await daemonCheckpoints(cl) }],
    entries: () => daemonEntries(cl, startedAt),
    start: async () => {
      const page = await cl.call('audit.entries', { after_seq: 0, limit: 1 });
      const started = page.base ? startOfBase(checkLogBase(page.base)) : null;
      startedAt = started?.start.seq ?? 0;
      return started;
    },
  };
}

/**
 * The daemon's whole live log as stored, page by page, in seq order; a page that does not move
 * forward is an error. `base`: where the reader was told the live log starts (its start()).
 *
 * The daemon's sweep may archive a segment while the pages are read: the rows this reader is
 * about to ask for then left the store (with a signed `archived` entry), and the next page would
 * start past them, which a verifier must call entries deleted. A page says where the live log
 * starts whenever it begins at or before the base; one that names a base other than the one this
 * reader started from is `transient/log_archived`: run again, nothing is missing.
 */
export async function* daemonEntries(cl: AirlockClient, base?: number): AsyncGenerator<LogRow> {
  let after = 0;
  let startedAt = base;
  for (;;) {
    const page = await cl.call('audit.entries', { after_seq: after, limit: ENTRY_PAGE });
    const now = page.base ? checkLogBase(page.base).seq : after === 0 ? 0 : null;
    startedAt ??= now ?? 0;
    if (now !== null && now !== startedAt) {
      throw logArchived(now, startedAt, "the daemon's log");
    }
    yield* page.rows;
    if (page.next_after_seq === null || page.rows.length === 0) return;
    if (page.next_after_seq <= after) throw new AirlockError('integrity', 'bad_audit_page', `the daemon's page after entry ${after} does not move forward (next ${page.next_after_seq})`);
    after = page.next_after_seq;
  }
}

/** The daemon's checkpoint file as stored, its lines joined. */
export async function daemonCheckpoints(cl: AirlockClient): Promise<string> {
  const lines: string[] = [];
  let bytes = 0;
  let offset = 0;
  for (;;) {
    const page = await cl.call('audit.checkpoints', { offset });
    for (const l of page.lines) bytes += l.length + 1;
    if (bytes > MAX_CHECKPOINT_BYTES) throw new AirlockError('validation', 'too_many_checkpoints', `the daemon's checkpoint file is larger than ${MAX_CHECKPOINT_BYTES} bytes`, 'verify a copy of the database with its checkpoint file instead (--db, --checkpoints)');
    lines.push(...page.lines);
    if (page.next_offset === null) return lines.join('\n');
    if (page.next_offset <= offset) throw new AirlockError('integrity', 'bad_audit_page', `the daemon's checkpoint page at offset ${offset} does not move forward (next ${page.next_offset})`);
    offset = page.next_offset;
  }
}
