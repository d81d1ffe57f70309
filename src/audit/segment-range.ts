/**
 * The range an archived segment holds, signed: the archiver (src/daemon/archiver.ts) signs
 * "log L, entries FIRST to LAST" with the audit key, and the segment's header carries it. A
 * segment verified on its own sets aside heads of later sizes as about later entries; only a
 * range the log's key signed may make it do so, or a segment cut short and relabelled would pass.
 */
import { DOMAIN_SEGMENT, frameFields } from './domains.js';
import { ed25519Sign, ed25519Verify, publicKeyFromRaw, SIGNATURE_HEX, type SigningKey } from './keys.js';

export interface SegmentRange {
  log_id: string;
  first_seq: number;
  last_seq: number;
  /** Hex Ed25519 signature over DOMAIN_SEGMENT and the framed log id, first and last seq. */
  sig: string;
}

const message = (logId: string, first: number, last: number) => Buffer.concat([DOMAIN_SEGMENT, frameFields([logId, String(first), String(last)])]);

export function signSegmentRange(key: SigningKey, logId: string, first: number, last: number): SegmentRange {
  return { log_id: logId, first_seq: first, last_seq: last, sig: ed25519Sign(key, message(logId, first, last)).toString('hex') };
}

/**
 * What is wrong with a segment's range, given what its walk found (the log it belongs to, its
 * first and last entry), or null: signed by one of `keys`, of this log, and exactly these entries.
 */
export function segmentRangeProblem(r: SegmentRange, keys: readonly Buffer[], walked: { logId: string; first: number; last: number }): string | null {
  if (!segmentRangeValid(r, keys)) return `its range (entries ${r.first_seq} to ${r.last_seq}) is not signed by the log's key: the header was changed`;
  if (r.log_id !== walked.logId) return `it is a segment of log ${r.log_id}, not of this one (${walked.logId})`;
  if (r.first_seq !== walked.first) return `its range begins at entry ${r.first_seq}, but its entries begin at ${walked.first}`;
  if (walked.last < r.last_seq) return `its range ends at entry ${r.last_seq}, but it holds entries only to ${walked.last}: the rest were cut`;
  if (walked.last > r.last_seq) return `it holds entries past the end of its range (${r.last_seq})`;
  return null;
}

/** Whether one of `keys` signed this range. */
export function segmentRangeValid(r: SegmentRange, keys: readonly Buffer[]): boolean {
  if (!SIGNATURE_HEX.test(r.sig)) return false;
  const m = message(r.log_id, r.first_seq, r.last_seq);
  const sig = Buffer.from(r.sig, 'hex');
  return keys.some((k) => ed25519Verify(publicKeyFromRaw(k), m, sig));
}
