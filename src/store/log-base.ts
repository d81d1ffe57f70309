/**
 * The base of the live log (store.ts LogBase) as both stores keep it: one meta row of JSON,
 * written in the archival's transaction, read and checked at open.
 */
import { AirlockError } from '../protocol/errors.js';
import { LOG_BASE_KEY, parseLogBase, type LogBase } from '../audit/log-base.js';

export { LOG_BASE_KEY };

/** The stored base, checked for shape: a store whose base is unreadable does not open. */
export const readBase = parseLogBase;

export const archiveRange = (upTo: number, base: LogBase, size: number) =>
  new AirlockError('conflict', 'archive_range', `cannot archive up to entry ${upTo}: the live log holds entries ${base.seq + 1} to ${size}`);

