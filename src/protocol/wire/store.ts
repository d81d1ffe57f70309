/** The store's result, as a schema: `store.check`. */
import { z } from 'zod';

export const STORE_CHECK_MAX_LINES = 20;

/**
 * Disk pressure in the state directory (src/daemon/disk-pressure.ts): `ok`; `low` (under
 * min_free: new previews are refused); `full` (also no reserve left to release: it was released
 * so that approved executes and the log could still be written).
 */
export const StorageSpaceSchema = z.strictObject({
  state: z.enum(['ok', 'low', 'full']),
  state_dir: z.string(),
  /** What an unprivileged writer gets (statfs bavail x bsize), the reserve file counted as used. */
  free_bytes: z.number(),
  min_free_bytes: z.number(),
  reserve_bytes: z.number(),
  /** Whether the reserve file holds reserve_bytes now. */
  reserve_held: z.boolean(),
});
export type StorageSpace = z.infer<typeof StorageSpaceSchema>;

/** `store.check`: the store's own consistency check (SQLite's quick_check). */
export const StoreCheckSchema = z.strictObject({
  ok: z.boolean(),
  /** ["ok"], or what is wrong (at most STORE_CHECK_MAX_LINES lines). */
  result: z.array(z.string()),
  /** Free space in the daemon's state directory against the policy's [store] thresholds (absent from daemons before it). */
  space: StorageSpaceSchema.optional(),
});
export type StoreCheck = z.infer<typeof StoreCheckSchema>;
