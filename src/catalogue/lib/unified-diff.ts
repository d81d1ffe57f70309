/**
 * A unified diff applied with no fuzz (jsdiff parses and applies it): PatchGrantedFile's edit,
 * made against the file's exact current text.
 */
import { applyPatch, parsePatch } from 'diff';

/**
 * `text` with the unified diff applied exactly: one file's diff, each hunk's context and removed
 * lines equal to the file's lines at the place the hunk names (no fuzz, no search elsewhere).
 * Linear in the sizes of the file and the diff.
 */
export function patched(text: string, diff: string): { text: string } | { problem: string } {
  let patches;
  try {
    patches = parsePatch(diff);
  } catch (e) {
    return { problem: `the diff is not a unified diff (${(e as Error).message.slice(0, 200)})` };
  }
  if (patches.length !== 1 || patches[0]!.hunks.length === 0) return { problem: `the diff must change exactly one file, with at least one hunk (it has ${patches.length} file(s))` };
  const lines = text.split('\n');
  for (const h of patches[0]!.hunks) {
    let at = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue;
      if (l.startsWith('+')) continue;
      if (lines[at] !== l.slice(1)) return { problem: `hunk @@ -${h.oldStart},${h.oldLines} @@ does not match the file at line ${at + 1}: the diff must be made against the file's exact current text` };
      at++;
    }
  }
  const out = applyPatch(text, patches[0]!, { fuzzFactor: 0 });
  return out === false ? { problem: 'the diff does not apply to the file as it is' } : { text: out };
}
