/**
 * Where a live log starts once its first segments were archived (src/daemon/archiver.ts): the
 * base both stores keep (one row of JSON), the daemon pages out with audit.entries and a
 * database copy holds. A verifier takes its walk up there (verify.ts LogStart), and a signed
 * tree head of the base's size must vouch for it.
 */
import { AirlockError } from '../protocol/errors.js';
import { GENESIS_HASH } from './entry.js';
import type { LogStart } from './verify.js';

/** meta log_base: where the live log starts (LogBase), as JSON; absent until a segment was archived. */
export const LOG_BASE_KEY = 'log_base';

export interface LogBase {
  /** Entries 1..seq were archived (0: none). */
  seq: number;
  /** Hex hash of entry seq; GENESIS_HASH for 0. */
  hash: string;
  /** The Merkle frontier at seq: the hashes of MerkleFrontier.edgeIds(seq), largest first, hex. */
  frontier: string[];
  /** The signed tree head note of size seq (null for 0: nothing was archived). */
  tree_head: string | null;
}

export const NO_BASE: LogBase = Object.freeze({ seq: 0, hash: GENESIS_HASH, frontier: [], tree_head: null }) as LogBase;

const hex = (s: unknown, n: number) => typeof s === 'string' && s.length === n && /^[0-9a-f]+$/.test(s);
const ORIGIN_LOG = /\/airlock\/([0-9a-f]{16})$/;

/** A base as stored (JSON, or absent for NO_BASE), checked for shape: one that is malformed is an integrity error. */
export function parseLogBase(json: string | null | undefined): LogBase {
  if (json === null || json === undefined) return NO_BASE;
  let b: LogBase;
  try {
    b = JSON.parse(json) as LogBase;
  } catch {
    throw new AirlockError('integrity', 'log_base_invalid', 'the stored base of the log is not JSON');
  }
  return checkLogBase(b);
}

/** The same check for a base that came as a value (the daemon's audit.entries page). */
export function checkLogBase(b: unknown): LogBase {
  const v = b as LogBase;
  if (v === null || typeof v !== 'object' || !Number.isSafeInteger(v.seq) || v.seq < 1 || !hex(v.hash, 64) || !Array.isArray(v.frontier) || v.frontier.length > 64 || !v.frontier.every((h) => hex(h, 64)) || typeof v.tree_head !== 'string' || !ORIGIN_LOG.test(v.tree_head.split('\n')[0] ?? '')) {
    throw new AirlockError('integrity', 'log_base_invalid', 'the base of the log (where its archived entries end) is malformed');
  }
  return { seq: v.seq, hash: v.hash, frontier: [...v.frontier], tree_head: v.tree_head };
}

/**
 * A reader's rows moved on under it: the daemon archived entries up to `now` after the reader
 * learned the log starts after `startedAt`. Nothing is missing, so it is never a verdict.
 */
export function logArchived(now: number, startedAt: number, what: string): AirlockError {
  return new AirlockError('transient', 'log_archived', `the log's entries up to ${now} were archived while ${what} was being read (from entry ${startedAt + 1}): nothing is missing, the live log moved on`, 'run it again; or verify the whole history, archive included, with `airlock audit verify --archive DIR`');
}

/** A source's start (audit/source.ts) from a base: null for a log that starts at entry 1. */
export function startOfBase(base: LogBase | null | undefined): { start: LogStart; treeHead: string } | null {
  if (!base || base.seq === 0 || base.tree_head === null) return null;
  const logId = ORIGIN_LOG.exec(base.tree_head.split('\n')[0] ?? '')![1]!;
  return { start: { seq: base.seq, hash: base.hash, frontier: base.frontier, logId }, treeHead: base.tree_head };
}
