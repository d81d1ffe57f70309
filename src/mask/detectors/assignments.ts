/**
 * Values assigned to a name that says secret (names.ts), in the syntaxes hosts use:
 * INI and my.cnf (`password = x`), env files and systemd `Environment=` (`A=b`,
 * `Environment="A=b" "C=d"`), YAML and netplan (`password: "x"`), TOML, JSON
 * (`"client_secret": "x"`, also escaped inside a JSON string), Java properties
 * (`db.password=x`), PHP (`define('DB_PASSWORD', 'x')`, `'password' => 'x'`), HTTP headers
 * (`X-Api-Key: x`), command lines (`--password=x`) and wpa_supplicant (`psk="x"`).
 * Quoted values end at their closing quote (backslash escapes skipped); unquoted ones run
 * to the end of the line, or to the next word that is itself an assignment
 * (`password=x user=y`).
 *
 * The word scan (words.ts) calls `assignmentAt` after every word; it returns at once
 * unless a separator follows and the word could name a secret.
 */
import { kindOfName, secretName } from '../names.js';
import type { Span } from '../span.js';
import { isSecretValue } from '../values.js';

/** Every secret name (names.ts) holds one of these; a word without one is not looked at further. */
const CANDIDATE = /pass|pwd|pw$|secret|token|key|cred|psk|sas|auth|sig|cookie|connectionstring/i;
const REFERENCE = /\$\{[^}\s]*\}/y;
const UNQUOTED = /[^\s"'&,;}\]#][^\s"'&,;}\]]*(?:[ \t]+[^\s"'&,;}\]=:#]+)*/y;

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
const isQuote = (c: string | undefined) => c === '"' || c === "'";

/** The index of the closing quote of the string opened at `open`, or the end of its line. */
function quotedEnd(text: string, open: number, lineEnd: number): number {
  const q = text[open]!;
  for (let i = open + 1; i < lineEnd; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === q) return i;
  }
  return lineEnd;
}

/**
 * Reads `name` (text[nameStart, nameEnd)) as the name of an assignment. When it is one
 * and its value is a secret, adds the value's span. Returns where the scan goes on: after
 * a masked value, or right after the separator, so that an assignment inside the value
 * (`Environment=API_TOKEN=x`) is read too.
 */
export function assignmentAt(text: string, nameStart: number, nameEnd: number, out: Span[]): number {
  let i = nameEnd;
  if (text[i] === '\\' && text[i + 1] === '"') i++;
  const quotedName = isQuote(text[i]) && isQuote(text[nameStart - 1]);
  if (quotedName) i++;
  while (isBlank(text[i])) i++;
  const sep = text[i];
  if (sep === '=') i += text[i + 1] === '>' ? 2 : 1;
  else if (sep === ':') {
    if (text[i + 1] === '=') i += 2;
    else if (text[i + 1] === undefined || text[i + 1] === '\n' || text[i + 1] === '\r' || isBlank(text[i + 1]) || isQuote(text[i + 1])) i += 1;
    else return nameEnd;
  } else if (sep === ',' && quotedName) i += 1;
  else return nameEnd;
  const name = text.slice(nameStart, nameEnd);
  if (!CANDIDATE.test(name)) return i;
  const strength = secretName(name);
  if (strength === null) return i;
  while (isBlank(text[i])) i++;
  let lineEnd = text.indexOf('\n', i);
  if (lineEnd < 0) lineEnd = text.length;
  let start = i;
  let end: number;
  if (text[i] === '\\' && text[i + 1] === '"') {
    start = i + 2; // JSON inside a JSON string: \"password\": \"x\"
    const close = text.indexOf('\\"', start);
    end = close < 0 || close > lineEnd ? lineEnd : close;
  } else if (isQuote(text[i])) {
    start = i + 1;
    end = quotedEnd(text, i, lineEnd);
  } else {
    REFERENCE.lastIndex = i;
    UNQUOTED.lastIndex = i;
    const u = REFERENCE.exec(text) ?? UNQUOTED.exec(text);
    end = u ? Math.min(i + u[0].length, lineEnd) : i;
  }
  if (end > 0 && text[end - 1] === '\r') end--;
  const value = text.slice(start, end);
  if (!isSecretValue(strength, value)) return i;
  out.push({ start, end, kind: kindOfName(name) });
  return end;
}
