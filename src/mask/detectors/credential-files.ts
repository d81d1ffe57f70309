/**
 * Lines of files that hold credentials by their format rather than by a name: password
 * hashes as shadow, htpasswd, crypt(3) and LDAP (`{SSHA}`) print them, `.pgpass` lines
 * (host:port:database:user:password), Postfix's sasl_passwd and `.netrc` entries
 * (`machine h login u password p`).
 * A locked or empty shadow field (`*`, `!`, `!*`) has no hash and is left alone.
 */
import type { Detector } from '../span.js';

/**
 * crypt(3) hashes: yescrypt, gost-yescrypt, scrypt, SHA-512/256 crypt, bcrypt, MD5 crypt, Apache's apr1.
 * Every field is bounded (a parameter or salt field at most 64 characters, at most three of
 * them, the hash at most 128): from each `$` the expression reads a bounded stretch, so a
 * line of `$6$` repeated costs no more than its length.
 */
const CRYPT = /\$(?:y|gy|7|6|5|1|apr1|md5|sha1)\$(?:[./A-Za-z0-9=,]{1,64}\$){1,3}[./A-Za-z0-9]{8,128}|\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}/g;
/** LDAP and Dovecot scheme-tagged hashes: `{SSHA}…` in slapd and LDIF, `{SHA}…` in htpasswd. */
const SCHEMED = /\{(?:SHA|SSHA|SHA256|SSHA256|SHA512|SSHA512|MD5|SMD5|CRYPT|PBKDF2(?:-SHA\d+)?|ARGON2I?D?|BLF-CRYPT|SHA512-CRYPT|SHA256-CRYPT)\}[A-Za-z0-9+/=.$,-]{8,}/g;
/** Postfix's sasl_passwd: `[smtp.example.com]:587 user:PASSWORD`. */
const SASL_PASSWD = /^\[[^\]\s]+\](?::\d+)?[ \t]+[^\s:]+:(\S+)[ \t]*$/gm;
/** host:port:database:user:password, port a number or `*`. */
const PGPASS = /^[^:\s#][^:\s]*:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:((?:[^:\s\\]|\\.)+)[ \t]*$/my;
/** What a .pgpass line holds after its host: a port (or `*`) and two more fields; lines without it are not read as one. */
const PGPASS_GATE = /:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:/g;
/** netrc: `machine H login U password P` on one line, or `password P` alone on its line. */
const NETRC = /^[ \t]*(?:(?:machine[ \t]+\S+|default|login[ \t]+\S+)(?:[ \t]+\S+[ \t]+\S+)*?[ \t]+password[ \t]+(\S+)|password[ \t]+(\S+)[ \t]*$)/my;

export const credentialFiles: Detector = (text, out) => {
  if (text.includes('$')) {
    CRYPT.lastIndex = 0;
    for (let m; (m = CRYPT.exec(text)); ) out.push({ start: m.index, end: m.index + m[0].length, kind: 'password_hash' });
  }
  if (text.includes('}')) {
    SCHEMED.lastIndex = 0;
    for (let m; (m = SCHEMED.exec(text)); ) out.push({ start: m.index, end: m.index + m[0].length, kind: 'password_hash' });
  }
  if (text.includes(']:') || text.includes('] ')) {
    SASL_PASSWD.lastIndex = 0;
    for (let m; (m = SASL_PASSWD.exec(text)); ) {
      const start = m.index + m[0].lastIndexOf(m[1]!);
      out.push({ start, end: start + m[1]!.length, kind: 'password' });
    }
  }
  // .pgpass and netrc lines are read from their start, and only the lines that hold what they must.
  eachLineWith(text, PGPASS_GATE, (lineStart) => {
    PGPASS.lastIndex = lineStart;
    const m = PGPASS.exec(text);
    if (!m) return;
    let colon = -1;
    for (let k = 0; k < 4; k++) colon = m[0].indexOf(':', colon + 1);
    const start = m.index + colon + 1; // the password is all after the fourth colon
    out.push({ start, end: start + m[1]!.length, kind: 'password' });
  });
  eachLineWith(text, NETRC_GATE, (lineStart) => {
    NETRC.lastIndex = lineStart;
    const m = NETRC.exec(text);
    if (!m) return;
    const value = m[1] ?? m[2]!;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind: 'password' });
  });
};

const NETRC_GATE = /password/g;

/** Calls `read` with the start of each line that `gate` matches in, once per line, in order. */
function eachLineWith(text: string, gate: RegExp, read: (lineStart: number) => void): void {
  gate.lastIndex = 0;
  for (let m; (m = gate.exec(text)); ) {
    read(text.lastIndexOf('\n', m.index) + 1);
    const lineEnd = text.indexOf('\n', m.index);
    if (lineEnd < 0) return;
    gate.lastIndex = lineEnd;
  }
}
