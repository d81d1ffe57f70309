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

/** A name a staged check's messages may locate a problem by, and what a person reads instead. */
export interface LocatedName {
  /** Matched anywhere in the line (a path), or only at its start followed by ": " (a unit's name). */
  text: string;
  at: 'anywhere' | 'start';
  shownAs: string;
}

/** nginx's own log prefix (`2026/12/07 16:46:44 [emerg] 26817#26817: `): the time and pids say nothing to a person. */
const NGINX_LOG_PREFIX = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d (\[[a-z]+\]) \d+#\d+: /;

/**
 * The lines of a staged check's output that locate a problem in the staged copy (or the wrapper the
 * daemon wrote beside it), with those names replaced by what a person knows them as; at most `max`,
 * each clipped to `chars`. Every other line is left out and counted: the copy may include any file
 * root can read, and the checker quotes what it cannot parse there (sshd -t quotes every line of an
 * included /etc/shadow), so only what the text itself holds is quoted. Linear in the output.
 */
export function locatedDiagnostics(output: string, names: readonly LocatedName[], max: number, chars: number): { lines: string[]; left: number } {
  const lines: string[] = [];
  let left = 0;
  for (const raw of output.split('\n')) {
    const line = raw.trimEnd().replace(NGINX_LOG_PREFIX, '$1 ');
    if (line.trim() === '') continue;
    const hits = names.filter((n) => (n.at === 'anywhere' ? line.includes(n.text) : line.startsWith(`${n.text}: `)));
    if (hits.length === 0 || lines.length >= max) {
      left++;
      continue;
    }
    let shown = line;
    for (const n of names) if (n.at === 'anywhere') shown = shown.split(n.text).join(n.shownAs);
    for (const n of names) if (n.at === 'start' && shown.startsWith(`${n.text}: `)) shown = n.shownAs + shown.slice(n.text.length);
    lines.push(clip(shown, chars));
  }
  return { lines, left };
}
