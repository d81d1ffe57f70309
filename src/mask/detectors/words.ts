/**
 * One pass over the text's words (runs of letters, digits and `_ . -`) serves the two
 * detectors that look at words: a long word is tried as a credential of known shape
 * (tokens.ts), and a word followed by a separator as the name of an assignment
 * (assignments.ts). A character loop over a lookup table is the cheapest way to visit
 * every word once; a regular expression per detector would read the text once each.
 */
import type { Detector } from '../span.js';
import { assignmentAt } from './assignments.js';
import { MIN_TOKEN, tokenAt } from './tokens.js';

const OPEN_MARKER = '⟦'.charCodeAt(0);
const WORD = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-') WORD[ch.charCodeAt(0)] = 1;

export const words: Detector = (text, out) => {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128 || WORD[c] === 0) {
      // A marker (⟦secret:KIND⟧) is opaque: its words are no name to read a value after.
      const close = c === OPEN_MARKER ? text.indexOf('⟧', i) : -1;
      i = close > i && close - i <= 48 ? close + 1 : i + 1;
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
    i = Math.max(i, assignmentAt(text, start, i, out));
  }
};
