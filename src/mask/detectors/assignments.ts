/**
 * Values assigned to a name that says secret (names.ts), in the syntaxes hosts use:
 * INI and my.cnf (`password = x`), env files and systemd `Environment=` (`A=b`,
 * `Environment="A=b" "C=d"`), YAML and netplan (`password: "x"`), TOML (also `"""x"""`),
 * JSON (`"client_secret": "x"`, also escaped inside a JSON string), Java properties
 * (`db.password=x`), PHP (`define('DB_PASSWORD', 'x')`), HTTP headers (`X-Api-Key: x`),
 * URL queries (`?token=x&`), command lines (`--password=x`, `--redis.password x`,
 * `"--requirepass", "x"`), space-separated directives (`requirepass x`, `SetEnv
 * DB_PASSWORD x`, `fastcgi_param DB_PASSWORD "x";`) and wpa_supplicant (`psk="x"`).
 *
 * Quoted values end at their closing quote (backslash escapes skipped); an unquoted value
 * inside a quoted pair (`"A=b c"`) ends at that pair's quote; otherwise it runs to the end
 * of the line, or to the next word that is itself an assignment (`password=x user=y`).
 *
 * The word scan (words.ts) calls `assignmentAt` after every word; it returns at once
 * unless a separator follows and the word could name a secret.
 */
import { kindOfName, secretName, secretWordLast, type SecretName } from '../names.js';
import type { Span } from '../span.js';
import { tokenAt } from './tokens.js';
import { looksLikeKeyMaterial } from '../entropy.js';
import { isSecretValue } from '../values.js';

/** Every secret name (names.ts) holds one of these; a word without one is not looked at further. */
const CANDIDATE = /pass|pwd|pw$|secret|token|key|cred|psk|sas|auth|salt|sig|cookie|connectionstring/i;
const REFERENCE = /\$\w*\{[^}\s]*\}/y;
/** An unquoted value: words up to the end of the line, stopping before a word that is an assignment of its own. */
const UNQUOTED = /[^\s"'&,;}\]#][^\s"'&,;}\]]*(?:[ \t]+[^\s"'&,;}\]=:#]+(?=[\s"'&,;}\]#]|$))*/y;
/** One token: in a URL query, after a flag, in a space-separated directive. */
const TOKEN = /[^\s"'&;#]+/y;
/**
 * What a value given after a blank alone must look like: not a word of prose. At least
 * 6 characters; a digit, a symbol inside, or a capital after the first letter (`Revocation`
 * is a word, `I5fGT21O` is not); and no sentence or pattern punctuation at its end
 * (`... such as SRP and PSK authentication.`).
 */
const SECRETISH = /^(?=\S{6,}$)(?!.*[.,:;!?)$\\]$)(?=.*[0-9]|.+[^A-Za-z0-9].|.+[A-Z]).*$/;

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
const isQuote = (c: string | undefined) => c === '"' || c === "'";
const endsLine = (c: string | undefined) => c === undefined || c === '\n' || c === '\r';

/** The index of the quote that closes the string opened at `open` (`"""` and `'''` too), or the end of its line. */
function quotedEnd(text: string, open: number, lineEnd: number, width: number): number {
  const q = text.slice(open, open + width);
  for (let i = open + width; i < lineEnd; i++) {
    if (text[i] === '\\') i++;
    else if (text.startsWith(q, i)) return i;
  }
  return lineEnd;
}

interface Separated {
  /** Where the value begins (after the separator and any blanks). */
  at: number;
  /** The separator was only blanks: the value must be one quoted string or one token that ends the statement. */
  blankOnly: boolean;
  /** `X-Api-Key:VALUE`, no blank after the colon: only key material counts (`token:ci` names a principal). */
  tight?: boolean;
  /** `"A=b c"`: an unquoted name opens a quoted string and `=` follows it; the value ends at that string's quote. */
  inQuotedPair?: boolean;
  /** A JSON literal follows a quoted key (not a string): never masked. */
  jsonLiteral?: boolean;
}

/** The separator after a name, or null when what follows is not an assignment. */
function separator(text: string, nameStart: number, nameEnd: number, strength: SecretName): Separated | null {
  let i = nameEnd;
  if (text[i] === '\\' && text[i + 1] === '"') i++;
  const quotedName = isQuote(text[i]) && isQuote(text[nameStart - 1]);
  if (quotedName) i++;
  const afterName = i;
  while (isBlank(text[i])) i++;
  const c = text[i];
  if (c === '=') i += text[i + 1] === '>' ? 2 : 1;
  else if (c === ':') {
    // `key:value` with no blank is `host:port`, `sshd:auth`, `SHA256:x`, except after a name that says secret.
    const next = text[i + 1];
    if (next === '=') i += 2;
    else if (isBlank(next) || isQuote(next) || endsLine(next)) i += 1;
    else if (strength === 'strong' && secretWordLast(text.slice(nameStart, nameEnd))) return { at: i + 1, blankOnly: false, tight: true };
    else return null;
  } else if (c === ',' && quotedName && (text[nameStart] === '-' || /define\(\s*["']$/.test(text.slice(Math.max(0, nameStart - 12), nameStart)))) i += 1;
  else if (i > afterName && strength === 'strong' && !endsLine(c) && (nameStart === 0 || /[\s"'-]/.test(text[nameStart - 1]!))) return { at: i, blankOnly: true };
  else return null;
  const inQuotedPair = !quotedName && c === '=' && isQuote(text[nameStart - 1]);
  while (isBlank(text[i])) i++;
  // JSON: after a quoted key, a value not in quotes is a number, true, false or null: no secret, and masking it would break the document.
  if (quotedName && c === ':' && !isQuote(text[i]) && !(text[i] === '\\' && text[i + 1] === '"')) return { at: i, blankOnly: false, jsonLiteral: true };
  return { at: i, blankOnly: false, inQuotedPair };
}

/**
 * Reads `name` (text[nameStart, nameEnd)) as the name of an assignment. When it is one
 * and its value is a secret, adds the value's span. Returns where the scan goes on: after
 * the value of a secret name, or right after the separator of any other name, so that an
 * assignment inside its value (`Environment=API_TOKEN=x`) is read too.
 */
export function assignmentAt(text: string, nameStart: number, nameEnd: number, out: Span[]): number {
  const name = text.slice(nameStart, nameEnd);
  const strength = CANDIDATE.test(name) ? secretName(name) : null;
  const sep = separator(text, nameStart, nameEnd, strength);
  if (!sep) return nameEnd;
  if (strength === null || sep.jsonLiteral) return sep.at;
  if (strength === 'weak' && /public[ _-]?$/i.test(text.slice(Math.max(0, nameStart - 7), nameStart))) return sep.at; // WireGuard's `public key:`
  const i = sep.at;
  let lineEnd = text.indexOf('\n', i);
  if (lineEnd < 0) lineEnd = text.length;
  let start = i;
  let end: number;
  const triple = text.startsWith('"""', i) || text.startsWith("'''", i);
  if (text[i] === '\\' && text[i + 1] === '"') {
    start = i + 2; // JSON inside a JSON string: \"password\": \"x\"
    const close = text.indexOf('\\"', start);
    end = close < 0 || close > lineEnd ? lineEnd : close;
  } else if (isQuote(text[i])) {
    start = i + (triple ? 3 : 1);
    end = quotedEnd(text, i, lineEnd, triple ? 3 : 1);
  } else if (sep.inQuotedPair) {
    // "DB_PASSWORD=x y" inside a quoted pair: the value runs to the pair's closing quote.
    const close = text.indexOf(text[nameStart - 1]!, i);
    end = close < 0 || close > lineEnd ? lineEnd : close;
  } else if (sep.blankOnly || text[nameStart - 1] === '?' || text[nameStart - 1] === '&' || text[nameStart] === '-') {
    TOKEN.lastIndex = i;
    end = i + (TOKEN.exec(text)?.[0].length ?? 0);
  } else {
    REFERENCE.lastIndex = i;
    UNQUOTED.lastIndex = i;
    const u = REFERENCE.exec(text) ?? UNQUOTED.exec(text);
    end = u ? Math.min(i + u[0].length, lineEnd) : i;
  }
  if (end > start && text[end - 1] === '\r') end--;
  const value = text.slice(start, end);
  if (sep.blankOnly) {
    // After a blank alone, only a quoted value, or one token that ends the statement and is not a word of prose.
    const quoted = isQuote(text[i]);
    let after = quoted ? end + 1 : end;
    while (isBlank(text[after])) after++;
    if (!endsLine(text[after]) && text[after] !== ';') return nameEnd;
    if (!quoted && !SECRETISH.test(value)) return nameEnd;
  }
  if (sep.tight && !looksLikeKeyMaterial(value)) return nameEnd;
  if (!isSecretValue(strength, value)) return Math.max(end, sep.at);
  // A credential of known shape keeps its own kind (`CI_TOKEN glpat-...` is a GitLab token).
  const shaped = tokenAt(text, start);
  out.push(shaped && shaped.end === end ? shaped : { start, end, kind: kindOfName(name) });
  return end;
}
