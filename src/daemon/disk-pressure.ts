/**
 * Disk pressure, judged (pure): from the free space of the state directory and the policy's
 * [store] thresholds, whether new previews are refused, whether the reserve file is released
 * or re-created, and which state the daemon is in. disk-space.ts measures and acts on it.
 *
 *   ok    free >= min_free: everything works
 *   low   free < min_free: new previews are refused; approved executes, cancels, expiries and
 *         the log go on, and the reserve file still holds reserve_mb
 *   full  free < min_free and no reserve left to release: the disk was (nearly) full and the
 *         reserve file was released, so that approved executes and the log's entries can still
 *         be written (or it could not be written at all); previews stay refused
 *
 * Free space is what the kernel gives an unprivileged writer (statfs bavail): root-reserved
 * blocks are not counted, so the daemon (root) stops new work before it eats them.
 */

export type PressureState = 'ok' | 'low' | 'full';

export interface SpaceThresholds {
  minFreeBytes: number;
  reserveBytes: number;
}

export interface PressureInput extends SpaceThresholds {
  /** Free bytes now (bavail x bsize), with the reserve file, when held, counted as used. */
  freeBytes: number;
  /** The state judged last time. */
  state: PressureState;
  /** Whether the reserve file holds reserveBytes now. */
  reserveHeld: boolean;
}

export interface PressureDecision {
  state: PressureState;
  /** Delete the reserve file now: the disk is essentially full. */
  release: boolean;
  /** Write the reserve file again: there is room for it and for min_free besides. */
  recreate: boolean;
}

/**
 * Under this much free space the disk counts as full and the reserve is released: a quarter of
 * the reserve, which is still more than an execute's few entries, so the release comes before a
 * write fails, not after.
 */
export const fullFloor = (t: SpaceThresholds): number => Math.floor(t.reserveBytes / 4);

/**
 * Previews are allowed again only this far above min_free: a disk hovering at the threshold
 * would otherwise flip the state (and write a signed entry) at every sample.
 */
export const recoveryMargin = (t: SpaceThresholds): number => Math.floor(t.reserveBytes / 8);

export function judgePressure(i: PressureInput): PressureDecision {
  const release = i.reserveHeld && i.freeBytes < fullFloor(i);
  // The reserve comes back only when writing it leaves min_free still free (and the margin, so
  // that writing it cannot itself refuse previews).
  const recreate = !i.reserveHeld && i.freeBytes >= i.minFreeBytes + i.reserveBytes + recoveryMargin(i);
  const refusing = i.state === 'ok' ? i.freeBytes < i.minFreeBytes : i.freeBytes < i.minFreeBytes + recoveryMargin(i);
  const held = release ? false : recreate ? true : i.reserveHeld;
  // What a release frees is measured at the next sample; until previews are allowed again, a
  // daemon with no reserve left to release is `full`.
  const state: PressureState = !refusing ? 'ok' : held ? 'low' : 'full';
  return { state, release, recreate };
}

/** Previews are refused in every state but ok. */
export const refusesPreviews = (s: PressureState): boolean => s !== 'ok';
