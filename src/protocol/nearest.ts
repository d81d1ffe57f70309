/**
 * The names nearest to a mistyped one, for "did you mean ...?": one function for every
 * caller (unknown actions in the CLI and the daemon, unknown parameters). A name that
 * differs only in case is the answer on its own; otherwise names within a small edit
 * distance, then names that contain the typed one or that it contains, closest first.
 * Pure; bounded by its inputs (names are short, the catalogue is a few hundred).
 */

/** At most this many suggestions: a hint, not a listing. */
export const MAX_SUGGESTIONS = 3;
/** Typed text longer than this is not compared (nobody mistypes a name that long). */
const MAX_TYPED = 128;

/** Levenshtein distance, case-insensitive, on inputs already bounded by MAX_TYPED. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The names of `known` nearest to `typed`, best first: [the one name equal to it but for
 * case] when there is exactly one, else up to MAX_SUGGESTIONS within an edit distance of
 * a third of the name (at least 2), or holding it / held by it (3 letters or more), and
 * no more than one edit worse than the nearest.
 */
export function nearestNames(typed: string, known: readonly string[]): string[] {
  if (typed.length === 0 || typed.length > MAX_TYPED) return [];
  const t = typed.toLowerCase();
  const sameButCase = known.filter((k) => k.toLowerCase() === t);
  if (sameButCase.length > 0) return sameButCase.slice(0, MAX_SUGGESTIONS);
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of known) {
    const k = name.toLowerCase();
    if (k.length > MAX_TYPED) continue;
    const d = distance(t, k);
    if (d <= Math.max(2, Math.floor(k.length / 3))) scored.push({ name, score: d });
    else if (t.length >= 3 && (k.includes(t) || t.includes(k))) scored.push({ name, score: 100 + Math.abs(k.length - t.length) });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  // A clearly nearer name stands alone: RestartServce suggests RestartService, not StartService too.
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score <= best + 1)
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name);
}

/** " (did you mean X?)", " (did you mean X or Y?)" with each name rendered by `quote`; "" when nothing is near. */
export function didYouMean(typed: string, known: readonly string[], quote: (name: string) => string = (n) => n): string {
  const near = nearestNames(typed, known).map(quote);
  if (near.length === 0) return '';
  const list = near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`;
  return ` (did you mean ${list}?)`;
}
