/**
 * One pass over the text's words (runs of letters, digits and `_ . -`) serves the two
 * detectors that look at words: a long word is tried as a credential of known shape
 * (tokens.ts), and a word followed by a separator as the name of an assignment
 * (assignments.ts). A character loop over a lookup table is the cheapest way to visit
 * every word once; a regular expression per detector would read the text once each.
 */
import { MARKER_SOURCE, type Detector } from '../span.js';
import { NAME_HINT, secretName } from '../names.js';
import { assignmentAt, forgetLine, PAIR_NAMES } from './assignments.js';
import { MIN_TOKEN, tokenAt } from './tokens.js';

const OPEN_MARKER = '⟦'.charCodeAt(0);
const MARKER = new RegExp(MARKER_SOURCE, 'y');
/** Each UTF-16 code unit's class: 1 a word character, 2 the opening of a marker, 0 anything else. */
const CLASS = new Uint8Array(65536);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-') CLASS[ch.charCodeAt(0)] = 1;
CLASS[OPEN_MARKER] = 2;
const WORD = 1;
const OPEN = 2;
/**
 * The first three characters of every hint (NAME_HINT's words, lower case; a two-letter
 * hint after any character): a word in which none of these occurs holds no hint, so the
 * scan knows from the characters it reads anyway, with no second pass over the text,
 * which words are worth judging as names. Indexed by three 7-bit codes.
 */
const HINT_START = new Uint8Array(1 << 21);
for (const w of NAME_HINT.source.split('|')) {
  const c = [...w.slice(0, 3)].map((ch) => ch.charCodeAt(0));
  if (c.length === 3) HINT_START[(c[0]! << 14) | (c[1]! << 7) | c[2]!] = 1;
  else for (let x = 0; x < 128; x++) HINT_START[(x << 14) | (c[0]! << 7) | c[1]!] = 1;
}
/**
 * What can follow a name that has a value (assignments.ts, separator()): a blank, `=`, `:`,
 * `,` (a quoted name's), a closing quote or `\"`, an element's `>`. After any other
 * character (`/`, `(`, `.` at a line's end…) no word is a name, and is not judged as one.
 */
const AFTER_NAME = new Uint8Array(128);
for (const ch of ' \t=:,"\'\\>') AFTER_NAME[ch.charCodeAt(0)] = 1;
const TOKEN_MIN = MIN_TOKEN; // imported bindings read once: the loop below reads them for every word
const tokenAtFn = tokenAt;
const assignmentAtFn = assignmentAt;
const secretNameFn = secretName;

/** `name`, `Name`, `key` or `Key` (PAIR_NAMES) at [start, end), read without making a string of every short word. */
function isPairName(text: string, start: number, end: number): boolean {
  const len = end - start;
  return (len === 4 || len === 3) && (text.charCodeAt(start) | 32) === (len === 4 ? 110 : 107) && PAIR_NAMES.has(text.slice(start, end));
}

export const words: Detector = (text, out) => {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let code = text.charCodeAt(i);
    let c = CLASS[code]!;
    if (c !== WORD) {
      if (c === OPEN) {
        // A marker this masker wrote is opaque: its words are no name. Followed by a value
        // (`⟦secret:password⟧=x`, planted), it names a secret, so the value is masked.
        MARKER.lastIndex = i;
        const m = MARKER.exec(text);
        if (m) {
          const end = i + m[0].length;
          i = text[end] === '=' || text[end] === ':' ? Math.max(end, assignmentAtFn(text, i, end, out, 'strong')) : end;
          continue;
        }
      }
      i++;
      continue;
    }
    const start = i;
    let h = code | 32; // the last three characters, lower case (letters; other word characters stay distinct)
    let hinted = 0;
    // Never a read past the end: one (NaN) in the type feedback of any earlier call makes the
    // compiled loop treat every character as a double, at half the speed.
    while (++i < n) {
      code = text.charCodeAt(i);
      if (CLASS[code] !== WORD) break;
      h = ((h << 7) | (code | 32)) & 0x1fffff;
      hinted |= HINT_START[h]!;
    }
    if (i - start >= TOKEN_MIN) {
      const t = tokenAtFn(text, start);
      if (t) {
        out.push(t);
        i = Math.max(i, t.end);
        continue;
      }
    }
    if (hinted === 1 || isPairName(text, start, i)) {
      const next = i < n ? text.charCodeAt(i) : 0;
      if (next < 128 && AFTER_NAME[next] === 1) {
        const name = text.slice(start, i);
        if (PAIR_NAMES.has(name) || namesSecret(name)) i = Math.max(i, assignmentAtFn(text, start, i, out, undefined, name));
      }
    }
  }
  forgetLine();
};

const HINT = new RegExp(NAME_HINT.source, 'i');
/**
 * Whether a word (the three characters said a hint may start in it) holds a hint and names
 * a secret, strong or weak: only such a name (or a pair's `name`/`key`) can make
 * assignmentAt mask anything, so no other word is read as an assignment.
 */
function namesSecret(name: string): boolean {
  return HINT.test(name) && secretNameFn(name) !== null;
}
