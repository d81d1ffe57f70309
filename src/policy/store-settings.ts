/**
 * The [store] section of the policy: how long the store keeps what it does not need forever,
 * when the signed log moves to the archive, and how much disk it keeps free.
 *
 *   [store]
 *   keep_details = "7d"                # previews, parameters and results of finished transactions
 *   keep_history = "90d"               # the compacted transactions `airlock history` lists
 *   archive_segment_entries = 100000   # the log is archived a segment of this many entries at a time
 *   archive_after = "30d"              # ... or once a segment's first entry is this old
 *   archive_dir = "/var/lib/airlock/archive"
 *   min_free_mb = 256                  # under this much free space, new previews are refused
 *   reserve_mb = 64                    # set aside for approved executes and the log's own writes
 *
 * Durations are a number and a unit: s, m, h or d. Validated here, so `airlock policy check`
 * and the daemon read it the same way.
 */
import { z } from 'zod';

export interface StoreSettings {
  /** A finished transaction's preview, parameters and result are compacted this long after it finished. */
  keepDetailsMs: number;
  /** A compacted transaction is deleted from the store (its entries stay in the log) this long after it finished. */
  keepHistoryMs: number;
  /** Entries per archived segment of the log. */
  archiveSegmentEntries: number;
  /** A segment is archived once its first entry is this old, full or not. */
  archiveAfterMs: number;
  /** null: the daemon's default (an `archive` directory beside its store). */
  archiveDir: string | null;
  /** Under this much free space in the state directory, previews are refused. */
  minFreeBytes: number;
  /** Set aside (a reserve file) for approved executes and the log: released when the disk is full. */
  reserveBytes: number;
}

const DAY_MS = 86_400_000;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS } as const;
const DURATION = /^([0-9]{1,6})(s|m|h|d)$/;
const ABSOLUTE_PATH = /^\/[^\u0000-\u001f]{0,4095}$/;
const MB = 1024 * 1024;

export const DEFAULT_STORE_SETTINGS: StoreSettings = {
  keepDetailsMs: 7 * DAY_MS,
  keepHistoryMs: 90 * DAY_MS,
  archiveSegmentEntries: 100_000,
  archiveAfterMs: 30 * DAY_MS,
  archiveDir: null,
  minFreeBytes: 256 * MB,
  reserveBytes: 64 * MB,
};

/** "7d" -> milliseconds; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : null;
}

/** Milliseconds as the largest whole unit: 604800000 -> "7d". */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [...Object.entries(UNIT_MS)].reverse()) if (ms % size === 0 && ms >= size) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}

const duration = z.string().refine((s) => parseDuration(s) !== null, 'a duration is a number and a unit: "30s", "15m", "12h" or "7d"');

export const StoreSchema = z
  .strictObject({
    keep_details: duration.optional(),
    keep_history: duration.optional(),
    archive_segment_entries: z.number().int().min(16).max(10_000_000).optional(),
    archive_after: duration.optional(),
    archive_dir: z.string().regex(ABSOLUTE_PATH, 'archive_dir is an absolute path').optional(),
    min_free_mb: z.number().int().min(1).max(1_048_576).optional(),
    reserve_mb: z.number().int().min(1).max(1_048_576).optional(),
  })
  .default({});

/** The section's meaning, or a sentence saying what is wrong (the caller adds where). */
export function storeSettings(s: z.infer<typeof StoreSchema>): StoreSettings | string {
  const d = DEFAULT_STORE_SETTINGS;
  const out: StoreSettings = {
    keepDetailsMs: s.keep_details !== undefined ? parseDuration(s.keep_details)! : d.keepDetailsMs,
    keepHistoryMs: s.keep_history !== undefined ? parseDuration(s.keep_history)! : d.keepHistoryMs,
    archiveSegmentEntries: s.archive_segment_entries ?? d.archiveSegmentEntries,
    archiveAfterMs: s.archive_after !== undefined ? parseDuration(s.archive_after)! : d.archiveAfterMs,
    archiveDir: s.archive_dir ?? d.archiveDir,
    minFreeBytes: s.min_free_mb !== undefined ? s.min_free_mb * MB : d.minFreeBytes,
    reserveBytes: s.reserve_mb !== undefined ? s.reserve_mb * MB : d.reserveBytes,
  };
  if (out.keepHistoryMs < out.keepDetailsMs) return `keep_history (${formatDuration(out.keepHistoryMs)}) is shorter than keep_details (${formatDuration(out.keepDetailsMs)}): a transaction is compacted before it is deleted`;
  if (out.reserveBytes >= out.minFreeBytes) return `reserve_mb (${out.reserveBytes / MB}) must be less than min_free_mb (${out.minFreeBytes / MB}): previews stop before the reserve is touched`;
  return out;
}

/** What `airlock policy check` says of the section. */
export function explainStore(s: StoreSettings): string[] {
  return [
    `store: a finished transaction's preview, parameters and result are kept ${formatDuration(s.keepDetailsMs)}, then compacted to what history and audits need; it is listed by history for ${formatDuration(s.keepHistoryMs)}`,
    `store: the signed log moves to ${s.archiveDir ?? 'the archive directory beside the store'} in verifiable segments of ${s.archiveSegmentEntries.toLocaleString('en-US')} entries (or once a segment is ${formatDuration(s.archiveAfterMs)} old); each archival is a signed entry`,
    `store: new previews are refused under ${s.minFreeBytes / MB} MB free; ${s.reserveBytes / MB} MB are set aside for approved executes and the log`,
  ];
}
