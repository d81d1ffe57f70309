/**
 * What a configuration checker (visudo --check, sshd -t) said, as a preview quotes it:
 * the privilege and ssh families' checks both report through this.
 */
import { clip } from './text.js';

/** At most this many diagnostic lines of a check are quoted in a preview. */
export const MAX_DIAGNOSTICS = 10;

/**
 * The lines of a checker's stderr worth quoting: those `keep` accepts, at most MAX_DIAGNOSTICS,
 * each cut to 300 characters (never inside a word: clip); the exit status when none is.
 */
export function diagnostics(r: { code: number; stderr: string }, keep: RegExp): string[] {
  if (r.code === 0) return [];
  const lines = r.stderr.split('\n').filter((l) => keep.test(l)).slice(0, MAX_DIAGNOSTICS).map((l) => clip(l, 300));
  return lines.length ? lines : [`exit status ${r.code}, no diagnosis`];
}
