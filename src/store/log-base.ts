/**
 * The base of the live log (store.ts LogBase) as both stores keep it: one meta row of JSON,
 * written in the archival's transaction, read and checked at open.
 */
import { AirlockError } from '../protocol/errors.js';
import { NO_BASE, type LogBase, type LogHead } from './store.js';

/** meta log_base: where the live log starts (store.ts LogBase), as JSON; absent until a segment was archived. */
export const LOG_BASE_KEY = 'log_base';

/** The stored base, checked for shape: a store whose base is unreadable does not open. */
export function readBase(json: string | null | undefined): LogBase {
  if (json === null || json === undefined) return NO_BASE;
  let b: LogBase;
  try {
    b = JSON.parse(json) as LogBase;
  } catch {
    throw new AirlockError('integrity', 'log_base_invalid', 'the stored base of the log is not JSON');
  }
  const hex = (s: unknown, n: number) => typeof s === 'string' && s.length === n && /^[0-9a-f]+$/.test(s);
  if (!Number.isSafeInteger(b.seq) || b.seq < 1 || !hex(b.hash, 64) || !Array.isArray(b.frontier) || !b.frontier.every((h) => hex(h, 64)) || typeof b.tree_head !== 'string') {
    throw new AirlockError('integrity', 'log_base_invalid', 'the stored base of the log is malformed');
  }
  return b;
}

export const archiveRange = (upTo: number, base: LogBase, head: LogHead) =>
  new AirlockError('conflict', 'archive_range', `cannot archive up to entry ${upTo}: the live log holds entries ${base.seq + 1} to ${head.size}`);

