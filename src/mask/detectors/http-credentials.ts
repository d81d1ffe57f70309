/**
 * Credentials carried the way HTTP carries them: an `Authorization:` header (Bearer,
 * Basic, Token, Digest and other schemes), a bare `Bearer <token>` in a log line, the
 * password in a URL's userinfo (`postgres://app:PASSWORD@db/`), webhook URLs whose path
 * is the credential (Slack, Discord), and the signature of an Azure shared access
 * signature (`sig=`). The scheme, the user name and the host stay, so the line still
 * says what was used where; only the secret part is masked.
 *
 * Each expression starts with a literal, which the regular-expression engine finds with
 * a fast skip search; the rest is matched only where the literal is.
 */
import type { Detector, Span } from '../span.js';
import { isReference } from '../values.js';

/** `Authorization: Basic dXNlcjpwYXNz`, `proxy-authorization=Bearer x`, `"Authorization": "token x"`. */
const HEADER = /authorization["']?(?:[ \t]*[:=][ \t]*["']?(?:(basic|bearer|token|bot|digest|negotiate|ntlm|aws4-hmac-sha256|apikey|sso-key)[ \t]+)?|[ \t]+["']?(basic|bearer|token|bot|digest|negotiate|ntlm|aws4-hmac-sha256|apikey|sso-key)[ \t]+)([^\s"',;]{4,}(?:,\s*[A-Za-z]+=[^\s,"']+)*)/iy;
/** A bearer token anywhere: `curl -H 'Bearer x'`, `token=Bearer x`. */
const BEARER = /bearer[ \t]+([A-Za-z0-9._~+/=-]{8,})/iy;
/** A bare `Basic <base64>` (an access log's header field): only when it decodes to `user:password`. */
const BASIC = /basic[ \t]+([A-Za-z0-9+/]{6,}={0,2})/iy;
/** Go's MySQL driver DSN: `user:PASSWORD@tcp(host:3306)/db`. */
const MYSQL_DSN = /[\w.-]{1,64}:([^\s@/:"']{1,256})@(?:tcp|unix|udp)\(/g;
/** Webhook URLs whose path is the credential. */
const WEBHOOK = /(?:hooks\.slack\.com\/(?:services|workflows|triggers)|discord(?:app)?\.com\/api\/webhooks)\/([A-Za-z0-9_/-]{20,})/y;
/** Azure SAS and other signed URLs: `sig=` up to the next parameter. */
const SAS_SIG = /sig=([A-Za-z0-9%+/=_-]{16,})/y;
/**
 * Where any of the expressions above may start: one pass finds these places, and each
 * expression is tried only where its own literal is (sticky), not in a pass of its own.
 */
const GATE = /[Aa]uthorization|AUTHORIZATION|[Bb]earer|BEARER|[Bb]asic|BASIC|hooks\.slack\.com|discord|sig=/g; // the spellings headers use: case-sensitive alternatives scan faster than /i

/**
 * Where each expression's last match ended: a place inside it is not tried again (a value
 * is not read again from each `sig=` inside it), as a global expression's pass would skip it.
 */
const matchedTo = new Map<RegExp, number>();

/** Adds the last group of `re`'s match at `at` (sticky), if any, as a span of `kind` (or of what `kindOf` says). */
function groupAt(text: string, at: number, re: RegExp, out: Span[], kindOf: (m: RegExpExecArray) => string | null): void {
  if (at < (matchedTo.get(re) ?? 0)) return;
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return;
  matchedTo.set(re, m.index + m[0].length);
  const value = m[m.length - 1]!;
  const kind = kindOf(m);
  if (kind === null || isReference(value)) return;
  const start = m.index + m[0].length - value.length;
  out.push({ start, end: start + value.length, kind });
}

const SCHEME_KIND: Record<string, string> = { basic: 'basic_auth', bearer: 'bearer' };
const startsWord = (text: string, at: number) => at === 0 || !/[A-Za-z0-9_]/.test(text[at - 1]!);

const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
/** The characters that end a URL's user (`[\s/:@"'<>]`) and its password (`[\s/"'<>]`), by code: read for every character of every URL's authority. */
const USER_END = new Uint8Array(128);
const PASSWORD_END = new Uint8Array(128);
for (const c of '/"\'<>') USER_END[c.charCodeAt(0)] = PASSWORD_END[c.charCodeAt(0)] = 1;
USER_END[58] = USER_END[64] = 1; // : @
/** Whether the character at `i` ends the part `table` is for; any white space (\s, also beyond ASCII) ends both. */
function endsAuthority(text: string, i: number, table: Uint8Array): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return table[c] === 1 || c === 32 || (c >= 9 && c <= 13);
  return /\s/.test(text[i]!);
}

/**
 * `scheme://user:PASSWORD@host`: the password of a URL's userinfo. The user may be empty
 * (redis://:pw@host), and the password may hold an `@` left unencoded: it runs to the last
 * `@` before the host. Read by hand from each `://`, at most 1 KiB on: one pass over the text.
 */
function urlPasswords(text: string, out: Span[]): void {
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    if (at === 0 || !SCHEME_CHAR.test(text[at - 1]!)) continue;
    let i = at + 3;
    const limit = Math.min(text.length, i + 1024);
    while (i < limit && !endsAuthority(text, i, USER_END)) i++; // the user
    if (text[i] !== ':') continue;
    const start = i + 1;
    let end = start;
    while (end < limit && !endsAuthority(text, end, PASSWORD_END)) end++; // to the end of the authority
    const lastAt = start + text.slice(start, end).lastIndexOf('@'); // within the authority only: linear
    if (lastAt < start + 1) continue; // no password, or `host:port` with no userinfo
    const value = text.slice(start, lastAt);
    if (!isReference(value)) out.push({ start, end: lastAt, kind: 'url_password' });
  }
}

const headerKind = (text: string) => (m: RegExpExecArray) => (startsWord(text, m.index) || text[m.index - 1] === '-' ? (SCHEME_KIND[(m[1] ?? m[2] ?? '').toLowerCase()] ?? 'authorization') : null);

export const httpCredentials: Detector = (text, out) => {
  matchedTo.clear();
  GATE.lastIndex = 0;
  for (let g; (g = GATE.exec(text)); ) {
    const at = g.index;
    switch (g[0].charCodeAt(0) | 32) {
      case 97: // a
        groupAt(text, at, HEADER, out, headerKind(text));
        break;
      case 98: // b
        if (g[0].length === 6) groupAt(text, at, BEARER, out, (m) => (startsWord(text, m.index) ? 'bearer' : null));
        else groupAt(text, at, BASIC, out, (m) => (startsWord(text, m.index) && /^[^:\s]{1,64}:\S/.test(Buffer.from(m[1]!, 'base64').toString('latin1')) ? 'basic_auth' : null));
        break;
      case 115: // s
        groupAt(text, at, SAS_SIG, out, (m) => (m.index > 0 && '?&;'.includes(text[m.index - 1]!) ? 'azure_sas' : null));
        break;
      default: // hooks.slack.com, discord
        groupAt(text, at, WEBHOOK, out, () => 'webhook');
    }
  }
  urlPasswords(text, out);
  if (text.includes('@tcp(') || text.includes('@unix(') || text.includes('@udp(')) {
    MYSQL_DSN.lastIndex = 0;
    for (let m; (m = MYSQL_DSN.exec(text)); ) {
      const start = m.index + m[0].length - m[1]!.length;
      if (!isReference(m[1]!)) out.push({ start, end: start + m[1]!.length, kind: 'url_password' });
    }
  }
};
