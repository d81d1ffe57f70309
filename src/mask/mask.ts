/**
 * The masker: every detector over the text, their ranges merged, each merged range
 * replaced by `⟦secret:KIND⟧`. Counts per kind say how much was masked (the signed log
 * records them, never the values). Optional keyed pseudonyms (pseudonyms.ts) then replace
 * e-mail addresses, IP addresses and host names outside the masked ranges.
 *
 * One function for every caller: the daemon's output path (src/daemon/output.ts), its
 * previews and error messages, the MCP server's relay and `airlock mask`.
 */
import { commandLinesAndKeys } from './detectors/command-lines.js';
import { credentialFiles } from './detectors/credential-files.js';
import { httpCredentials } from './detectors/http-credentials.js';
import { serviceKeys } from './detectors/service-keys.js';
import { contextSecrets } from './detectors/transcripts.js';
import { words } from './detectors/words.js';
import { marker, MARKER_SOURCE, type Detector, type Span } from './span.js';

/** Each kind's marker, made once. */
const markers = new Map<string, string>();
const markerOf = (kind: string): string => markers.get(kind) ?? (markers.set(kind, marker(kind)), marker(kind));
import type { Pseudonyms } from './pseudonyms.js';

const MARKERS = new RegExp(MARKER_SOURCE, 'g');
/** SGR colour and style sequences (`ESC [ 36 m`): a coloured log line is read as if plain. */
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * Every detector, in the order their kinds win when two ranges start at the same place.
 * Some share a pass over the text: SQL statements (sql.ts) are found in credentialFiles',
 * private-key armour (private-keys.ts) in the command lines'.
 */
export const DETECTORS: readonly Detector[] = [httpCredentials, credentialFiles, commandLinesAndKeys, words, serviceKeys, contextSecrets];

export type MaskCounts = Record<string, number>;

export interface Masked {
  text: string;
  /** How many secrets of each kind were masked; empty when none. */
  counts: MaskCounts;
}

export interface MaskOptions {
  /** Replaces e-mail addresses, IP addresses and host names with keyed pseudonyms. */
  pseudonyms?: Pseudonyms | null;
}

/** The secret ranges of `text`, sorted and merged (a range inside or overlapping another joins it; the first kind wins). */
export function secretSpans(text: string): Span[] {
  return text.includes('\x1b[') ? withoutColour(text) : secretSpansPlain(text);
}

function secretSpansPlain(text: string): Span[] {
  let found: Span[] = [];
  for (const d of DETECTORS) d(text, found);
  if (found.length === 0) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  if (text.includes('⟦')) found = outsideMarkers(text, found);
  if (found.length === 0) return found;
  // The detectors' own span objects, fresh for this call, are merged in place (no copies: a text of many secrets makes many).
  let n = 0;
  for (let i = 0; i < found.length; i++) {
    const s = found[i]!;
    const last = n > 0 ? found[n - 1]! : null;
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else if (s.end > s.start) found[n++] = s;
  }
  found.length = n;
  return found;
}

/**
 * Masking masked text changes nothing (the MCP server masks what the daemon sent): a span
 * that starts inside a marker starts after it, and one that holds a whole marker and more
 * stays whole (`password=⟦x:y⟧hunter2` hides nothing behind a marker). `found` is sorted
 * by start; one pass over it and the markers together.
 */
function outsideMarkers(text: string, found: Span[]): Span[] {
  // Markers are read one at a time as the spans pass them (no array of them: a text of many secrets holds many).
  MARKERS.lastIndex = 0;
  let marker = MARKERS.exec(text);
  let moved = false;
  for (const s of found) {
    while (marker && marker.index + marker[0].length <= s.start) marker = MARKERS.exec(text);
    if (marker && s.start >= marker.index && s.start < marker.index + marker[0].length) {
      s.start = Math.min(marker.index + marker[0].length, s.end);
      moved = true;
    }
  }
  // What is left of such a span after the marker may be the escaped newline a masked key ended with.
  const kept = found.filter((s) => s.end > s.start && !blankOrEscapes(text, s.start, s.end));
  return moved ? kept.sort((a, b) => a.start - b.start || b.end - a.end) : kept;
}

/** Whether text[start, end) is only white space and escapes of it (a backslash then n, r or t), read with no string made. */
function blankOrEscapes(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < end && (text[i + 1] === 'n' || text[i + 1] === 'r' || text[i + 1] === 't')) i++;
    else if (!WHITE.test(c)) return false;
  }
  return true;
}
const WHITE = /\s/;

/** Detection on the text without its SGR sequences, the spans mapped back onto the text with them. */
function withoutColour(text: string): Span[] {
  const at: number[] = []; // at[i]: where the plain text's character i is in `text`
  let plain = '';
  let last = 0;
  for (const m of text.matchAll(SGR)) {
    for (let i = last; i < m.index; i++) at.push(i);
    plain += text.slice(last, m.index);
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i++) at.push(i);
  plain += text.slice(last);
  at.push(text.length);
  if (plain === text) return secretSpansPlain(text);
  return secretSpansPlain(plain).map((s) => ({ start: at[s.start]!, end: s.end >= plain.length ? text.length : at[s.end - 1]! + 1, kind: s.kind }));
}

export function maskText(text: string, opts: MaskOptions = {}): Masked {
  const counts: MaskCounts = {};
  return { text: maskLines([text], opts, counts)[0]!, counts };
}

/**
 * Lines masked as one text (a preview's lines, a diff's): the spans of the lines joined,
 * each line keeping what no span covers; a span's marker goes where it starts, and the
 * lines it runs on into lose what it covers. Counts are added to `counts`. One line is
 * what maskText masks.
 */
export function maskLines(items: string[], opts: MaskOptions, counts: MaskCounts): string[] {
  const joined = items.length === 1 ? items[0]! : items.join('\n');
  const spans = secretSpans(joined);
  if (spans.length === 0 && !opts.pseudonyms) return items;
  const plain = (s: string) => (opts.pseudonyms ? opts.pseudonyms.apply(s) : s);
  const out: string[] = [];
  let k = 0;
  let pos = 0;
  for (const item of items) {
    const a = pos;
    const b = pos + item.length;
    let s = '';
    let at = a;
    while (k < spans.length && spans[k]!.start <= b) {
      const sp = spans[k]!;
      if (sp.start >= a) {
        s += plain(joined.slice(at, sp.start)) + markerOf(sp.kind);
        counts[sp.kind] = (counts[sp.kind] ?? 0) + 1;
      }
      at = Math.max(at, Math.min(sp.end, b));
      if (sp.end > b) break; // it runs on into the next line
      k++;
    }
    out.push(s + plain(joined.slice(at, b)));
    pos = b + 1;
  }
  return out;
}

/**
 * `text` masked as what follows `context` (text already released, not repeated): the spans
 * are found in both together, so a secret that only the lines before it name (a command and
 * its output, a heading and its codes, a name alone on its line) is still masked when the
 * text arrives apart from them. A span that starts in the context masks what of it is in `text`.
 */
export function maskAfter(context: string, text: string, opts: MaskOptions = {}): Masked {
  if (context === '') return maskText(text, opts);
  const joined = context + text;
  const counts: MaskCounts = {};
  const plain = (s: string) => (opts.pseudonyms ? opts.pseudonyms.apply(s) : s);
  let out = '';
  let at = context.length;
  for (const sp of secretSpans(joined)) {
    if (sp.end <= at) continue;
    out += plain(joined.slice(at, Math.max(at, sp.start))) + markerOf(sp.kind);
    counts[sp.kind] = (counts[sp.kind] ?? 0) + 1;
    at = sp.end;
  }
  return { text: out + plain(joined.slice(at)), counts };
}

/** Adds `more` into `into` (counts of several texts). */
export function addCounts(into: MaskCounts, more: MaskCounts): MaskCounts {
  for (const [k, n] of Object.entries(more)) into[k] = (into[k] ?? 0) + n;
  return into;
}

/** Counts as the signed log records them: `kind:count`, sorted by kind (an empty list when nothing was masked). */
export function countsForLog(counts: MaskCounts): string[] {
  return Object.keys(counts)
    .sort()
    .map((k) => `${k}:${counts[k]}`);
}
