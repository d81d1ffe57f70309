/**
 * Values assigned to a name that says secret (names.ts), in the syntaxes hosts use:
 * INI and my.cnf (`password = x`), env files, shells and systemd `Environment=` (`A=b`,
 * `PGPASSWORD=x psql`, `Environment="A=b" "C=d"`), YAML and netplan (`password: "x"`),
 * TOML (also `"""x"""`), JSON (`"client_secret": "x"`, also escaped inside a JSON string),
 * LDIF (`olcRootPW:: x`), XML (`<password>x</password>`), name/value pairs (Kubernetes'
 * `- name: DB_PASSWORD` then `value: x`, `<add key="DbPassword" value="x"/>`), Java
 * properties, PHP (`define('DB_PASSWORD', 'x')`), HTTP headers (`X-Api-Key: x`), URL
 * queries (`?token=x&`), command lines (`--password x --port 1`, `"--requirepass", "x"`),
 * Go's `%+v` (`&{User:app Password:x}`, `map[password:x]`), space-separated directives
 * (`requirepass x`, `bindpw x`, `SetEnv DB_PASSWORD x`) and wpa_supplicant (`psk="x"`).
 *
 * The word scan (words.ts) calls `assignmentAt` after a word that names a secret (or a
 * pair's `name`/`key`) and is followed by what may be a separator; it returns at once
 * unless a separator follows. A name that names no secret masks nothing here.
 */
import { looksLikeKeyMaterial } from '../entropy.js';
import { kindOfName as kindOfNameImported, MAX_NAME, NAME_HINT, secretName as secretNameImported, secretWordLast as secretWordLastImported, type SecretName } from '../names.js';
import type { Span } from '../span.js';
import { isSecretValue as isSecretValueImported, JUDGE_LIMIT } from '../values.js';
import { tokenAt as tokenAtImported } from './tokens.js';

// The imported functions as constants of this module: read for every candidate name, and a
// loader that compiles imports to getters (tsx, which `npm run bench` runs under) would pay a call each time.
const secretName = secretNameImported;
const secretWordLast = secretWordLastImported;
const kindOfName = kindOfNameImported;
const isSecretValue = isSecretValueImported;
const tokenAt = tokenAtImported;

/** A reference that holds blanks, read whole: `${{ secrets.X }}`, `${X}`, a template's `{{ .Values.password }}`. */
const REFERENCE = /\$\{\{[^}\n]{0,256}\}\}|\$\w{0,64}\{[^}\s]{0,256}\}|\{\{[^}\n]{0,256}\}\}/y;

/**
 * The runs values are made of, read by hand: a run's end is found once, and any later
 * value that starts inside the same run (`key=key=key=…`, each `key=` a name whose value
 * runs to the end of the line) gets it from the last run read, so a line is read once
 * however many names it holds. Each table is the set of characters that end its run.
 */
class Run {
  private readonly stops = new Uint8Array(128);
  private text = '';
  private from = 0;
  private end = -1;
  constructor(stopChars: string) {
    for (const c of stopChars) this.stops[c.charCodeAt(0)] = 1;
  }
  /** Whether the character at `i` ends this kind of run. */
  stopsAt(text: string, i: number): boolean {
    const c = text.charCodeAt(i);
    return c < 128 && this.stops[c] === 1;
  }
  /** Where the run that starts at `i` ends (i when the character at i stops it). */
  endFrom(text: string, i: number): number {
    if (this.text === text && i >= this.from && i <= this.end) return this.end;
    let j = i;
    const n = text.length;
    while (j < n && !this.stopsAt(text, j)) j++;
    this.text = text;
    this.from = i;
    this.end = j;
    return j;
  }
  forget(): void {
    this.text = '';
    this.end = -1;
  }
}
/** One token: in a URL query, after a flag, in a space-separated directive, a shell's `A=b cmd`. */
const TOKEN = new Run(' \t\n\r\v\f"\'&;#');
/** A key pasted after a colon with no blank (`X-Api-Key:abc`, `Password:abc` in Go's %+v): ends at `@ , } ]`. */
const TIGHT = new Run(' \t\n\r\v\f"\'&;#@,}]');
/** The first word of an unquoted value. */
const FIRST_WORD = new Run(' \t\n\r\v\f"\'&,;}]');
/** A later word of an unquoted value: never a name of its own (no `=`, `:` or `#`). */
const MORE_WORD = new Run(' \t\n\r\v\f"\'&,;}]=:#');
/** What may follow a later word of an unquoted value. */
const AFTER_WORD = new Run(' \t\n\r\v\f"\'&,;}]#');

/**
 * An unquoted value: words up to the end of the line, stopping before a word that is an
 * assignment of its own. Its length from `i` (0 when none starts there).
 */
function unquotedLength(text: string, i: number): number {
  if (FIRST_WORD.stopsAt(text, i) || text[i] === '#' || i >= text.length) return 0;
  let end = FIRST_WORD.endFrom(text, i);
  for (;;) {
    let j = end;
    while (isBlank(text[j])) j++;
    if (j === end) break;
    const k = MORE_WORD.endFrom(text, j);
    if (k === j || (k < text.length && !AFTER_WORD.stopsAt(text, k))) break;
    end = k;
  }
  return end - i;
}
/** The value of a name/value pair, up to 200 characters after the name: `value: x`, `"value": "x"`, `value="x"`. */
const PAIRED_VALUE = /["']?value["']?[ \t]*[:=][ \t]*/g;
/**
 * What a value given after a blank alone must look like: not a word of prose. At least
 * 6 characters; a digit, a symbol inside, or a capital after the first letter (`Revocation`
 * is a word, `I5fGT21O` is not); and no sentence or pattern punctuation at its end.
 */
const SECRETISH = /^(?=\S{6,}$)(?!.*[.,:;!?)$\\]$)(?=.*[0-9]|.+[^A-Za-z0-9].|.+[A-Z]).*$/;
/** Names whose value names another field's secret: Kubernetes' `name:`, .NET's `key=`, Hibernate's `name=`. */
export const PAIR_NAMES = new Set(['name', 'key', 'Name', 'Key', 'keyName', 'KeyName']);

/**
 * The line that holds `i`: where it starts and ends. The scan asks for every assignment in
 * order, and a search per call would read a long line once per word on it (quadratic):
 * the last line found serves every `i` on it, so each line is searched once.
 */
let lastLine = { text: '', start: 0, end: -1 };
/** Lets go of the last text (the word scan calls it when done): it may hold secrets, and be large. */
export function forgetLine(): void {
  lastLine = { text: '', start: 0, end: -1 };
  for (const r of [TOKEN, TIGHT, FIRST_WORD, MORE_WORD, AFTER_WORD]) r.forget();
  for (const n of [NEXT_CLOSE_TAG, NEXT_ESCAPED_QUOTE, ...Object.values(NEXT_QUOTE)]) n.forget();
  lastQuoted = { text: '', from: 0, end: -1, q: '' };
  weakValueEnd = -1;
  tightValueEnd = -1;
}
function lineAt(text: string, i: number): { start: number; end: number } {
  if (lastLine.text !== text || i < lastLine.start || i > lastLine.end) {
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    lastLine = { text, start: text.lastIndexOf('\n', i - 1) + 1, end };
  }
  return lastLine;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
const isQuote = (c: string | undefined) => c === '"' || c === "'";
const endsLine = (c: string | undefined) => c === undefined || c === '\n' || c === '\r';

/**
 * The next place of a string from a position on, remembered: a later search from a place
 * before the last answer gets the same answer, so searches for a value's end from many
 * names before it (`<key><key><key>…`) read the text once.
 */
class Next {
  private text = '';
  private from = 0;
  private at = -1;
  constructor(private readonly needle: string) {}
  from_(text: string, i: number): number {
    if (this.text === text && i >= this.from && (this.at < 0 || i <= this.at)) return this.at;
    this.text = text;
    this.from = i;
    this.at = text.indexOf(this.needle, i);
    return this.at;
  }
  forget(): void {
    this.text = '';
  }
}
const NEXT_CLOSE_TAG = new Next('</');
const NEXT_ESCAPED_QUOTE = new Next('\\"');
const NEXT_QUOTE: Record<string, Next> = { '"': new Next('"'), "'": new Next("'") };
const nextIn = (next: Next, text: string, i: number, lineEnd: number) => {
  const at = next.from_(text, i);
  return at < 0 || at > lineEnd ? lineEnd : at;
};

/** The last quoted string read to its end: a value that opens inside it with the same quote ends where it did. */
let lastQuoted = { text: '', from: 0, end: -1, q: '' };

/** The index of the quote that closes the string opened at `open` (`"""` and `\'\'\'` too), or the end of its line. */
function quotedEnd(text: string, open: number, lineEnd: number, width: number): number {
  const q = width === 1 ? text[open]! : text.slice(open, open + width);
  if (lastQuoted.text === text && lastQuoted.q === q && open >= lastQuoted.from && open < lastQuoted.end) return lastQuoted.end;
  const quote = q.charCodeAt(0);
  let end = lineEnd;
  for (let i = open + width; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++; // a backslash escapes what follows
    else if (c === quote && (width === 1 || text.startsWith(q, i))) {
      end = i;
      break;
    }
  }
  // Updated in place: a value is quoted every few bytes in some inputs (`"--password",` repeated).
  lastQuoted.text = text;
  lastQuoted.from = open;
  lastQuoted.end = end;
  lastQuoted.q = q;
  return end;
}

type Form =
  /** `name = value`, `name: value`: the value may be several words. */
  | 'spaced'
  /** `NAME=value` (shell, env file, systemd): one token. */
  | 'shell'
  /** `name value` (a directive, a flag): one token; a directive's must end the statement. */
  | 'blank'
  /** `name:value` with no blank: key material, or any token inside Go's `{…}` and `map[…]`. */
  | 'tight'
  /** `"A=b c"`: the name opens a quoted string; the value ends at its quote. */
  | 'quoted-pair'
  /** `<name>value</name>`. */
  | 'element'
  /** A JSON literal after a quoted key (`"Passwd": true`): never masked, and masking it would break the document. */
  | 'json-literal';

interface Separated {
  /** Where the value begins. */
  at: number;
  form: Form;
}

/**
 * The one answer of separator() and of valueRange(), reused: they run for every candidate
 * name, and an input can hold one every few bytes (`token: token: …`), where an object made
 * per answer would be most of the work. Each caller reads an answer before asking again.
 */
const SEPARATED: Separated = { at: 0, form: 'spaced' };
const separated = (at: number, form: Form): Separated => ((SEPARATED.at = at), (SEPARATED.form = form), SEPARATED);
const RANGE = { start: 0, end: 0, quoted: false };
const range = (start: number, end: number, quoted: boolean) => ((RANGE.start = start), (RANGE.end = end), (RANGE.quoted = quoted), RANGE);

/** The separator after a name and the form of the value that follows, or null when this is no assignment (the answer is reused: read it before the next call). */
function separator(text: string, nameStart: number, nameEnd: number, strength: SecretName): Separated | null {
  let i = nameEnd;
  if (text[nameStart - 1] === '<' && text[i] === '>') return separated(i + 1, 'element');
  if (text[i] === '\\' && text[i + 1] === '"') i++;
  const quotedName = isQuote(text[i]) && isQuote(text[nameStart - 1]);
  if (quotedName) i++;
  const afterName = i;
  while (isBlank(text[i])) i++;
  const c = text[i];
  const blankBefore = i > afterName;
  if (c === '=') i += text[i + 1] === '>' ? 2 : 1;
  else if (c === ':') {
    const next = text[i + 1];
    if (next === '=' || next === ':') i += 2; // Go's :=, LDIF's base64 `::`
    else if (isBlank(next) || isQuote(next) || endsLine(next)) i += 1;
    else if (strength === 'strong' && secretWordLast(text.slice(nameStart, nameEnd))) return separated(i + 1, 'tight');
    else return null;
  } else if (c === ',' && quotedName && (text[nameStart] === '-' || /define\(\s*["']$/.test(text.slice(Math.max(0, nameStart - 12), nameStart)))) {
    // PHP's define('DB_PASSWORD', 'x'), and a JSON array's "--requirepass", "x" (its next element may be on the next line).
    i += 1;
    while (/\s/.test(text[i] ?? '') && i < nameEnd + 200) i++;
    return separated(i, 'spaced');
  } else if (blankBefore && !endsLine(c) && (strength === 'strong' || (strength === 'weak' && text[nameStart] === '-')) && (nameStart === 0 || /[\s"'-]/.test(text[nameStart - 1]!))) {
    return separated(i, 'blank'); // a directive or flag of a strong name; a flag of a weak one (`--certificate-key KM`)
  }
  else return null;
  const blankAfter = isBlank(text[i]);
  while (isBlank(text[i])) i++;
  if (quotedName && c === ':' && !isQuote(text[i]) && !(text[i] === '\\' && text[i + 1] === '"')) return separated(i, 'json-literal');
  if (!quotedName && c === '=' && isQuote(text[nameStart - 1])) return separated(i, 'quoted-pair');
  return separated(i, c === '=' && !blankBefore && !blankAfter ? 'shell' : 'spaced');
}

/** The length of a `${…}` or `{{ … }}` reference at `i`, or 0. */
function referenceLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c !== 36 && c !== 123) return 0; // $ or {
  REFERENCE.lastIndex = i;
  return REFERENCE.exec(text)?.[0].length ?? 0;
}

/** Where the value that starts at `i` ends, and where its content starts (after an opening quote). */
function valueRange(text: string, i: number, form: Form, lineEnd: number, pairQuote = '"'): { start: number; end: number; quoted: boolean } {
  if (form === 'element') {
    return range(i, nextIn(NEXT_CLOSE_TAG, text, i, lineEnd), false);
  }
  if (text[i] === '\\' && text[i + 1] === '"') {
    // JSON inside a JSON string: \"password\": \"x\"
    return range(i + 2, nextIn(NEXT_ESCAPED_QUOTE, text, i + 2, lineEnd), true);
  }
  if (isQuote(text[i])) {
    const width = text.startsWith('"""', i) || text.startsWith("'''", i) ? 3 : 1;
    return range(i + width, quotedEnd(text, i, lineEnd, width), true);
  }
  let n: number;
  if (form === 'quoted-pair') {
    n = nextIn(NEXT_QUOTE[pairQuote] ?? NEXT_QUOTE['"']!, text, i, lineEnd) - i;
  } else if (form === 'tight') n = TIGHT.endFrom(text, i) - i;
  else if (form === 'blank' || form === 'shell') n = referenceLength(text, i) || TOKEN.endFrom(text, i) - i;
  else n = referenceLength(text, i) || unquotedLength(text, i);
  return range(i, Math.min(i + n, lineEnd), false);
}

/**
 * Reads `name` (text[nameStart, nameEnd)) as the name of an assignment. When it is one
 * and its value is a secret, adds the value's span. Returns where the scan goes on: after
 * the value of a secret name, or right after the separator of any other name, so that an
 * assignment inside its value (`Environment=API_TOKEN=x`) is read too. `forced`: the
 * name's strength when it is no word (a marker followed by `=x`); `name`: the name's text
 * when the caller has it already.
 */
export function assignmentAt(text: string, nameStart: number, nameEnd: number, out: Span[], forced?: SecretName, known?: string): number {
  // Not a default parameter: a function with one is compiled less well, and this one runs for every candidate name.
  const name = known ?? text.slice(nameStart, nameEnd);
  const strength = forced ?? secretName(name);
  // Inside the value of a weak name that was no key material, only a strong name is read again (see rejectWeak).
  if (nameStart < weakValueEnd && strength !== 'strong') return nameEnd;
  const sep = separator(text, nameStart, nameEnd, strength);
  if (!sep) return nameEnd;
  if (sep.form === 'json-literal') return sep.at;
  const lineEnd = lineAt(text, sep.at).end;
  if (sep.at >= lineEnd - 1 && strength !== null && text[sep.at - 1] === ':' && valueOnNextLine(text, lineEnd, strength, kindOfName(name), out)) return sep.at;
  if (PAIR_NAMES.has(name) && pairedValue(text, sep, lineEnd, out, name === 'keyName' || name === 'KeyName')) return sep.at;
  if (strength === null) return sep.at;
  if (strength === 'weak' && afterPublic(text, nameStart)) return sep.at; // WireGuard's `public key:`
  // A flag takes the next word whatever follows (`--password x --port 1`); a directive's value must end its statement.
  const flag = text[nameStart] === '-';
  const form: Form = sep.form === 'blank' && flag ? 'shell' : text[nameStart - 1] === '?' || text[nameStart - 1] === '&' ? 'shell' : sep.form;
  const { start, end: rawEnd, quoted } = valueRange(text, sep.at, form, lineEnd, text[nameStart - 1]);
  const end = rawEnd > start && text[rawEnd - 1] === '\r' ? rawEnd - 1 : rawEnd;
  // Key material is 16 characters or more (entropy.ts): a weak name's shorter value is judged no further.
  if (strength === 'weak' && end - start < 16 && form !== 'tight') return rejectWeak(sep.at, end);
  const value = text.slice(start, end);
  if (sep.form === 'element' && nextIn(NEXT_CLOSE_TAG, text, sep.at, lineEnd) === lineEnd) return nameEnd; // `<key>@host`: no element
  if (!quoted && text[start] === '<' && angleReference(text, start, lineEnd)) return strength === 'weak' ? rejectWeak(sep.at, end) : Math.max(end, sep.at);
  if (sep.form === 'blank' && !flag) {
    let after = quoted ? end + 1 : end;
    while (isBlank(text[after])) after++;
    if (!endsLine(text[after]) && text[after] !== ';') return nameEnd;
    if (!quoted && !SECRETISH.test(value)) return nameEnd;
  }
  if (sep.form === 'blank' && flag && value.startsWith('-')) return nameEnd;
  if (form === 'tight') {
    // Inside a tight value that was no key material, a tight name's value ends where it did (`secret:secret:…`): not judged again.
    if (nameStart < tightValueEnd) return nameEnd;
    if (!looksLikeKeyMaterial(value) && !inGoValue(text, nameStart)) {
      tightValueEnd = end;
      return nameEnd;
    }
  }
  if (!quoted && isProse(text, nameStart, value)) return strength === 'weak' ? rejectWeak(sep.at, end) : sep.at;
  if (!isSecretValue(strength, value)) return strength === 'strong' ? Math.max(end, sep.at) : rejectWeak(sep.at, end);
  push(text, start, end, kindOfName(name), out);
  return end;
}

/**
 * The end of the last value of a weak name (`key=`, `auth=`) that was no key material.
 * The scan goes on inside such a value (it may hold `password=x`), but reads only strong
 * names there: a weak name inside it has a value that ends where the rejected one did,
 * and reading each (`key=key=key=…`) would read the rest of the line once per name.
 */
let weakValueEnd = -1;
/** The end of the last `name:value` (no blank) whose value was no key material. */
let tightValueEnd = -1;
function rejectWeak(resume: number, valueEnd: number): number {
  weakValueEnd = Math.max(weakValueEnd, valueEnd);
  return resume;
}

/**
 * `Using certificate key:` with the key alone on the next line (kubeadm, `vault` and other
 * tools print a secret so): the next line, one token, is the value. A YAML mapping under the
 * name has `:` in its lines, a list starts with `-`: neither is one token.
 */
function valueOnNextLine(text: string, lineEnd: number, strength: SecretName, kind: string, out: Span[]): boolean {
  if (text[lineEnd] !== '\n' && text[lineEnd] !== '\r') return false;
  let start = lineEnd + (text[lineEnd] === '\r' && text[lineEnd + 1] === '\n' ? 2 : 1);
  while (isBlank(text[start])) start++;
  const end = TOKEN.endFrom(text, start);
  if (end - start < 8 || !endsLine(text[end]) || text[start] === '-' || text[start] === '#' || text[end - 1] === ':') return false;
  const value = text.slice(start, end);
  if (!isSecretValue(strength, value) || (strength === 'strong' && !SECRETISH.test(value))) return false;
  push(text, start, end, kind, out);
  return true;
}

/** `<set to the key 'password' in secret 'db'>`, `<stripe secret key>`: a description in angle brackets, closed on its line. */
function angleReference(text: string, start: number, lineEnd: number): boolean {
  const limit = Math.min(lineEnd, start + JUDGE_LIMIT);
  for (let i = start + 1; i < limit; i++) {
    if (text[i] === '>') return i > start + 1;
    if (text[i] === '<') return false;
  }
  return false;
}

/** Whether `public`, `public `, `public_` or `public-` (any case) ends right before `nameStart`. */
function afterPublic(text: string, nameStart: number): boolean {
  // Its `c` one or two characters back, checked first: a weak name can come every few bytes (`key: key: …`).
  const c1 = nameStart > 0 ? text.charCodeAt(nameStart - 1) | 32 : 0;
  const c2 = nameStart > 1 ? text.charCodeAt(nameStart - 2) | 32 : 0;
  if (c1 !== 99 && c2 !== 99) return false;
  return /public[ _-]?$/i.test(text.slice(Math.max(0, nameStart - 7), nameStart));
}

/** A hint of a secret name anywhere in a string (NAME_HINT, not global). */
const NAMED_HINT = new RegExp(NAME_HINT.source, 'i');

/** A credential of known shape keeps its own kind (`CI_TOKEN glpat-...` is a GitLab token). */
function push(text: string, start: number, end: number, kind: string, out: Span[]): void {
  const shaped = tokenAt(text, start);
  out.push(shaped && shaped.end === end ? shaped : { start, end, kind });
}

/** `- name: DB_PASSWORD` then `value: x`: when a name/key field names a secret, the value field's value is one. True when it masked one. */
function pairedValue(text: string, sep: Separated, lineEnd: number, out: Span[], weakToo: boolean): boolean {
  const { start, end } = valueRange(text, sep.at, 'shell', lineEnd);
  if (end - start > MAX_NAME || end - start < 2) return false;
  const raw = text.slice(start, end);
  if (!NAMED_HINT.test(raw)) return false; // names no secret: the common case, decided without judging a name
  const last = raw.charCodeAt(raw.length - 1);
  const named = last >= 48 && last <= 57 ? raw.replace(/\d{1,3}$/, '') : raw; // Azure's `"keyName": "key1"`
  const strength = secretName(named);
  // A strong name, or under Azure's `keyName` a weak one (then its value must be key material).
  if (strength === null || (strength === 'weak' && !weakToo)) return false;
  // Within 200 characters: read in that window only, so a long line of names costs no more than its length.
  PAIRED_VALUE.lastIndex = 0;
  const m = PAIRED_VALUE.exec(text.slice(end, end + 200));
  if (!m) return false;
  const at = end + m.index + m[0].length;
  const v = valueRange(text, at, 'spaced', lineAt(text, at).end);
  if (!isSecretValue(strength, text.slice(v.start, v.end))) return false; // under a weak name (`"keyName": "key1"`), key material only
  push(text, v.start, v.end, kindOfName(named), out);
  return true;
}

/** Inside Go's `%+v` of a struct (`&{… Password:x …}`) or a map (`map[password:x]`) on this line. */
function inGoValue(text: string, nameStart: number): boolean {
  const before = text.slice(Math.max(lineAt(text, nameStart).start, nameStart - 400), nameStart); // one line's part: no newline in it
  return /[{[ ]$/.test(before) && (before.includes('&{') || before.includes('map['));
}

/** Little words of English: a value of several words holding one is a sentence (`A challenge password`), not a pass phrase. */
const STOP_WORDS = /(?:^|[ \t])(?:a|an|the|is|are|to|of|for|and|or|your|this|that|it|be|will|with|by|as|in|on|if|no|not|means|every)(?=[ \t]|$)/i;

/** A sentence: a comment's words of letters (`# ... requiring no password: it means that every`), or words of letters with a little word. */
function isProse(text: string, nameStart: number, whole: string): boolean {
  const value = whole.length > JUDGE_LIMIT ? whole.slice(0, whole.lastIndexOf(' ', JUDGE_LIMIT)) : whole; // its first words
  if (!(value.includes(' ') || value.includes('\t')) || !/^[A-Za-z]+(?:[ \t]+[A-Za-z]+)+$/.test(value)) return false; // words need a blank between them
  const lineStart = lineAt(text, nameStart).start;
  return /^[ \t]*(?:#|;|\/\/)/.test(text.slice(lineStart, Math.min(nameStart, lineStart + 64))) || (/[ \t]\S+[ \t]/.test(value) && STOP_WORDS.test(value));
}
