/**
 * Lines of files that hold credentials by their format rather than by a name: password
 * hashes as shadow, htpasswd, crypt(3) and LDAP (`{SSHA}`) print them, `.pgpass` lines
 * (host:port:database:user:password), Postfix's sasl_passwd and `.netrc` entries
 * (`machine h login u password p`).
 * A locked or empty shadow field (`*`, `!`, `!*`) has no hash and is left alone.
 */
import type { Detector, Span } from '../span.js';
import { SQL_KEYWORDS, statementAt } from './sql.js';

/**
 * crypt(3) hashes: yescrypt, gost-yescrypt, scrypt, SHA-512/256 crypt, bcrypt, MD5 crypt, Apache's apr1.
 * Every field is bounded (a parameter or salt field at most 64 characters, at most three of
 * them, the hash at most 128): from each `$` the expression reads a bounded stretch, so a
 * line of `$6$` repeated costs no more than its length.
 */
const CRYPT = /\$(?:y|gy|7|6|5|1|apr1|md5|sha1|argon2id|argon2i|argon2d|scrypt|pbkdf2(?:-sha\d{1,3})?|bcrypt-sha256|sha256|sha512)\$(?:[./A-Za-z0-9=,+]{1,64}\$){1,3}[./A-Za-z0-9+]{8,128}|\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}/y;
/** LDAP and Dovecot scheme-tagged hashes: `{SSHA}…` in slapd and LDIF, `{SHA}…` in htpasswd. */
const SCHEMED = /\{(?:SHA|SSHA|SHA256|SSHA256|SHA512|SSHA512|MD5|SMD5|CRYPT|PBKDF2(?:-SHA\d+)?|ARGON2I?D?|BLF-CRYPT|SHA512-CRYPT|SHA256-CRYPT)\}[A-Za-z0-9+/=.$,-]{8,}/y;
/**
 * Password hashes with a scheme of their own: PostgreSQL's SCRAM verifier and md5 (pg_authid,
 * pgbouncer's userlist.txt), Django's `algorithm$iterations$salt$hash`.
 */
const SCHEME_HASH = /(?:SCRAM-SHA-256\$\d{1,7}:[A-Za-z0-9+/=]{8,128}\$[A-Za-z0-9+/=]{20,128}:[A-Za-z0-9+/=]{20,128}|(?:pbkdf2_sha256|pbkdf2_sha1|bcrypt_sha256|argon2|scrypt)\$[A-Za-z0-9$=,+/.]{20,256})/y;
/** The names SCHEME_HASH starts with, each read back from its `$`. */
const SCHEME_NAMES = ['SCRAM-SHA-256', 'pbkdf2_sha256', 'pbkdf2_sha1', 'bcrypt_sha256', 'argon2', 'scrypt'];
/** The first characters of CRYPT's identifiers after its `$` (`y`, `gy`, `7`, `6`, `5`, `1`, `apr1`, `md5`, `sha…`, `argon2…`, `scrypt`, `pbkdf2…`, `bcrypt…`, `2a`…). */
const CRYPT_NEXT = new Uint8Array(128);
for (const c of 'yg7651amspb2') CRYPT_NEXT[c.charCodeAt(0)] = 1;
/** The last characters of SCHEME_NAMES, just before their `$`. */
const SCHEME_LAST = new Uint8Array(128);
for (const name of SCHEME_NAMES) SCHEME_LAST[name.charCodeAt(name.length - 1)] = 1;
const PG_MD5 = /md5[0-9a-f]{32}(?![0-9a-f])/y;
/** Postfix's sasl_passwd: `[smtp.example.com]:587 user:PASSWORD`. */
const SASL_PASSWD = /\[[^\]\s]+\](?::[\w-]{1,32})?[ \t]+[^\s:]+:(\S+)[ \t]*$/my; // the port by number or name (`:submission`)
/** host:port:database:user:password, port a number or `*`. */
const PGPASS = /^[^:\s#][^:\s]*:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:((?:[^:\s\\]|\\.)+)[ \t]*$/my;
/** netrc: `machine H login U password P` on one line, or `password P` alone on its line. */
const NETRC = /^[ \t]*(?:(?:machine[ \t]+\S+|default|login[ \t]+\S+)(?:[ \t]+\S+[ \t]+\S+)*?[ \t]+password[ \t]+(\S+)|password[ \t]+(\S+)[ \t]*$)/my;

const wordStart = (text: string, at: number) => at === 0 || !/[\w$]/.test(text[at - 1]!);

/** Every `$`: a crypt(3) hash starts there, or a scheme's name ends there (`SCRAM-SHA-256$`, Django's `pbkdf2_sha256$`). */
function dollarHashes(text: string, out: Span[]): void {
  for (let at = text.indexOf('$'); at >= 0; at = text.indexOf('$', at + 1)) {
    // What must follow the `$` for CRYPT, and precede it for a scheme's name, checked first: a run of `$` is none.
    const next = at + 1 < text.length ? text.charCodeAt(at + 1) : 0;
    const before = at > 0 ? text.charCodeAt(at - 1) : 0;
    const crypt = next < 128 && CRYPT_NEXT[next] === 1;
    if (!crypt && !(before < 128 && SCHEME_LAST[before] === 1)) continue;
    CRYPT.lastIndex = at;
    let m = crypt ? CRYPT.exec(text) : null;
    if (!m) {
      for (const name of SCHEME_NAMES) {
        const from = at - name.length;
        if (from < 0 || !text.startsWith(name, from) || !wordStart(text, from)) continue;
        SCHEME_HASH.lastIndex = from;
        m = SCHEME_HASH.exec(text);
        if (m) break;
      }
    }
    if (!m) continue;
    out.push({ start: m.index, end: m.index + m[0].length, kind: 'password_hash' });
    at = m.index + m[0].length - 1;
  }
}

/**
 * The literals of the formats below in one pass (a pass costs about the same whatever it
 * looks for): a scheme tag's `}` before hash characters, a `.pgpass` line's port between
 * colons and two more fields, `password` (netrc), a sasl_passwd line's `[` at a line's start,
 * `md5` and 32 hex digits; and the keywords of SQL statements (sql.ts: `password` in any
 * case, `identified`), which share this pass rather than make one of their own. Each format
 * is then read from its line's start (once per line) or from the match (sticky). Every
 * alternative starts with one character (the port's alternative with its colon, not with a
 * digit): one led by a digit class is tried at every digit (twice the pass's cost).
 */
const GATE = new RegExp(`\\}[A-Za-z0-9+/]|:(?:\\d{1,5}|\\*):[^:\\s]+:[^:\\s]+:|${SQL_KEYWORDS}|\\n\\[|md5[0-9a-f]`, 'gi');

/** A sticky match of `re` at `at`: its group (the first that matched) as a span of `kind`. */
function lineFormat(text: string, at: number, re: RegExp, kind: string, out: Span[], valueAt: (m: RegExpExecArray) => number): void {
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return;
  const value = m[1] ?? m[2]!;
  const start = valueAt(m);
  out.push({ start, end: start + value.length, kind });
}

const pgpassValue = (m: RegExpExecArray) => {
  let colon = -1;
  for (let k = 0; k < 4; k++) colon = m[0].indexOf(':', colon + 1);
  return m.index + colon + 1; // the password is all after the fourth colon
};
const lastGroup = (m: RegExpExecArray) => m.index + m[0].lastIndexOf(m[1] ?? m[2]!);

export const credentialFiles: Detector = (text, out) => {
  dollarHashes(text, out);
  if (text[0] === '[') lineFormat(text, 0, SASL_PASSWD, 'password', out, lastGroup);
  let pgpassDone = -1; // where the last line read as .pgpass (or netrc) ends: each line is read once for each
  let netrcDone = -1;
  let sqlDone = -1; // where the last SQL statement ends
  const statements: Span[] = []; // added after this pass's own spans: a hash and a statement's string on the same range keep the hash's kind
  GATE.lastIndex = 0;
  for (let g; (g = GATE.exec(text)); ) {
    const at = g.index;
    const c = g[0][0]!;
    const lower = c.charCodeAt(0) | 32;
    if (lower === 105 || (lower === 112 && g[0].length === 8)) {
      // `identified` or `password`, any case: an SQL statement's keyword, and `password` netrc's too.
      if (at >= sqlDone) sqlDone = Math.max(sqlDone, statementAt(text, at, statements));
      if (g[0] !== 'password' || at < netrcDone) continue;
      netrcDone = text.indexOf('\n', at) >>> 0;
      lineFormat(text, text.lastIndexOf('\n', at) + 1, NETRC, 'password', out, lastGroup);
    } else if (c === '}') {
      const back = Math.max(0, at - 20); // a bounded look-back: `}x}x}x…` with no `{` reads 20 characters each
      const found = text.slice(back, at).lastIndexOf('{');
      if (found < 0) continue;
      const open = back + found;
      SCHEMED.lastIndex = open;
      const m = SCHEMED.exec(text);
      if (!m) continue;
      out.push({ start: open, end: open + m[0].length, kind: 'password_hash' });
      GATE.lastIndex = Math.max(GATE.lastIndex, open + m[0].length);
    } else if (c === '\n') lineFormat(text, at + 1, SASL_PASSWD, 'password', out, lastGroup);
    else if (lower === 109) {
      PG_MD5.lastIndex = at; // case-sensitive: `MD5…` (the gate's any case) is no PostgreSQL hash
      const m = wordStart(text, at) ? PG_MD5.exec(text) : null;
      if (m) out.push({ start: at, end: at + m[0].length, kind: 'password_hash' });
    } else {
      // The port's colon: the fields after it are read again from the next character, so a keyword in them is still found.
      GATE.lastIndex = at + 1;
      if (at < pgpassDone) continue;
      pgpassDone = text.indexOf('\n', at) >>> 0;
      lineFormat(text, text.lastIndexOf('\n', at) + 1, PGPASS, 'password', out, pgpassValue);
    }
  }
  for (const s of statements) out.push(s);
};
