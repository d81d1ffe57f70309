/**
 * `audit.checkpoints`: the daemon's checkpoint file, whole lines as stored, a page at a time
 * from a byte offset. As with `audit.entries` (audit-page.ts) the daemon adds and checks
 * nothing: every line is signed, and the client verifies each with the public key and compares
 * the log with them (src/audit/verify.ts). An auditor who is not root gets the checkpoints
 * together with the entries, through the socket, without read access to the host's files.
 * (The file is world-readable on the host; this serves an auditor who is elsewhere, or who
 * wants the daemon's copy to compare with one it trusts more.)
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { fail } from '../protocol/errors.js';
import type { AuditCheckpointsPage } from '../protocol/messages.js';

/**
 * At most this many bytes of the file per page (a checkpoint line is about 260 bytes, so
 * about a thousand lines): an answer always fits a frame. A line longer than a page is not
 * a checkpoint the daemon wrote, and is refused rather than cut.
 */
export const CHECKPOINT_PAGE_BYTES = 256 * 1024;

export async function checkpointPage(path: string, req: { offset?: unknown }): Promise<AuditCheckpointsPage> {
  const offset = req.offset === undefined ? 0 : req.offset;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) fail('validation', 'bad_audit_query', 'offset must be an integer >= 0 (the next_offset of the last page; 0 for the start)');
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    // No file yet: no checkpoint yet (the writer creates it at start; a verifier then warns that a cut tail cannot be seen).
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], next_offset: null };
    return fail('integrity', 'checkpoints_unreadable', `the daemon cannot read its checkpoint file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const size = (await fh.stat()).size;
    if ((offset as number) > size) fail('integrity', 'checkpoints_shrank', `the checkpoint file is ${size} bytes, shorter than the offset ${offset} asked for: it was truncated or replaced since the last page`, 'read the checkpoints again from offset 0, and find out who shortened an append-only file');
    const want = Math.min(CHECKPOINT_PAGE_BYTES, size - (offset as number));
    const buf = Buffer.alloc(want);
    const { bytesRead } = await fh.read(buf, 0, want, offset as number);
    // Whole lines only: a line being appended right now waits for the next read.
    const cut = buf.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
    if (cut === 0) {
      if (bytesRead === CHECKPOINT_PAGE_BYTES) fail('integrity', 'bad_checkpoint_file', `the checkpoint file holds a line longer than ${CHECKPOINT_PAGE_BYTES} bytes at offset ${offset}: no checkpoint is that long`);
      return { lines: [], next_offset: null };
    }
    const lines = buf.subarray(0, cut - 1).toString('utf8').split('\n');
    const next = (offset as number) + cut;
    return { lines, next_offset: next < size ? next : null };
  } finally {
    await fh.close();
  }
}
