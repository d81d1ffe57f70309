/**
 * One pass over the text's words (runs of letters, digits and `_ . -`) serves the two
 * detectors that look at words: a long word is tried as a credential of known shape
 * (tokens.ts), and a word followed by a separator as the name of an assignment
 * (assignments.ts). A character loop over a lookup table is the cheapest way to visit
 * every word once; a regular expression per detector would read the text once each.
 */
import { MARKER_SOURCE, type Detector } from '../span.js';
import { NAME_HINT } from '../names.js';
import { assignmentAt, forgetLine, PAIR_NAMES } from './assignments.js';
import { MIN_TOKEN, tokenAt } from './tokens.js';

const OPEN_MARKER = '⟦'.charCodeAt(0);
const MARKER = new RegExp(MARKER_SOURCE, 'y');
const WORD = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-') WORD[ch.charCodeAt(0)] = 1;

export const words: Detector = (text, out) => {
  const n = text.length;
  let i = 0;
  // The next secret word's place (NAME_HINT, one pass ahead of the scan): a word holding none names no secret.
  const hints = new RegExp(NAME_HINT.source, NAME_HINT.flags);
  let hint = hints.exec(text)?.index ?? n;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128 || WORD[c] === 0) {
      if (c === OPEN_MARKER) {
        // A marker this masker wrote is opaque: its words are no name. Followed by a value
        // (`⟦secret:password⟧=x`, planted), it names a secret, so the value is masked.
        MARKER.lastIndex = i;
        const m = MARKER.exec(text);
        if (m) {
          const end = i + m[0].length;
          i = text[end] === '=' || text[end] === ':' ? Math.max(end, assignmentAt(text, i, end, out, 'strong')) : end;
          continue;
        }
      }
      i++;
      continue;
    }
    const start = i;
    do i++;
    while (i < n && text.charCodeAt(i) < 128 && WORD[text.charCodeAt(i)] === 1);
    if (i - start >= MIN_TOKEN) {
      const t = tokenAt(text, start);
      if (t) {
        out.push(t);
        i = Math.max(i, t.end);
        continue;
      }
    }
    while (hint < start) {
      hints.lastIndex = Math.max(hints.lastIndex, start);
      hint = hints.exec(text)?.index ?? n;
    }
    if (hint < i || (i - start <= 4 && PAIR_NAMES.has(text.slice(start, i)))) i = Math.max(i, assignmentAt(text, start, i, out));
  }
  forgetLine();
};
