/**
 * Line-based patching of configuration files: the one way the catalogue changes a
 * file line by line while keeping every other line (comments, blank lines, settings
 * it does not own) exactly as written. Two forms:
 *
 * - a filePatch step (`linePatch`): replaces or removes one line, found by text the
 *   executor requires to occur exactly once, so a concurrent edit of that line makes
 *   the job fail instead of overwriting it, and a commented copy of the same line
 *   (`# minlen = 8`) is never what gets patched;
 * - a new text for a fileWrite (`appendLine`, `withoutLines`): for files rewritten
 *   whole (their text is re-read at execute time where the action says so).
 *
 * Lines are the text split on '\n', counted from 0, as every parser here counts them.
 */
import { filePatch, type FilePatchStep } from '../mechanism.js';

/** How often `s` occurs in `text`, overlapping occurrences included (as the executor counts them for a filePatch). */
export function occurrences(text: string, s: string): number {
  let n = 0;
  for (let at = text.indexOf(s); at >= 0; at = text.indexOf(s, at + 1)) n++;
  return n;
}

/**
 * A filePatch that replaces line `i` of `text` (or removes it, for null). Its search text
 * is the line with its line breaks, widened by the lines before it (up to 4) until it
 * occurs exactly once; null when even that is not unique.
 */
export function linePatch(path: string, text: string, i: number, replacement: string | null): FilePatchStep | null {
  const lines = text.split('\n');
  const lead = (k: number) => (i - k > 0 ? '\n' : '');
  const trail = i < lines.length - 1 ? '\n' : '';
  for (let k = 0; k <= Math.min(i, 4); k++) {
    const seg = lines.slice(i - k, i + 1);
    const search = lead(k) + seg.join('\n') + trail;
    if (occurrences(text, search) !== 1) continue;
    const kept = replacement === null ? seg.slice(0, -1) : [...seg.slice(0, -1), replacement];
    const replace = kept.length > 0 ? lead(k) + kept.join('\n') + trail : lead(k) && trail ? '\n' : '';
    return filePatch(path, search, replace);
  }
  return null;
}

/** What a filePatch does to a text: used to chain several patches of one file (each built on the text the previous one leaves). */
export const applyPatch = (text: string, p: FilePatchStep): string => text.replace(p.search, () => p.replace);

/** The text with one more line at the end: the text as it is, a newline if it lacked its last one, then the line and a newline. */
export function appendLine(text: string, line: string): string {
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;
}

/** The text without the lines at `indexes`; every other line as it was. */
export function withoutLines(text: string, indexes: Iterable<number>): string {
  const drop = new Set(indexes);
  return text
    .split('\n')
    .filter((_l, i) => !drop.has(i))
    .join('\n');
}
