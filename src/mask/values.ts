/**
 * Whether the value under a secret-sounding name is a secret, or a reference to one, a
 * setting or public material. One predicate for the assignment detector and for JSON
 * values under such a key (deep.ts).
 */
import { looksLikeKeyMaterial } from './entropy.js';
import type { SecretName } from './names.js';
import { MARKER_SOURCE } from './span.js';

/**
 * A reference, not a value: ${X}, ${{ secrets.X }} (GitHub Actions), $X, $__env{X}
 * (Grafana), $dir/x and $section::name (openssl.cnf), %X%, %(x)s, {{ x }} (Jinja, Go),
 * var.x and data.x (Terraform), <password>, ***, xxx, [redacted], `sk-...` (elided).
 */
const PLACEHOLDER =
  /^(?:\$\{\{.*\}\}|\$\w*\{[^}]*\}(?:\/\S*)?|\$[A-Za-z_][A-Za-z0-9_]*(?:\/\S*|(?:::\w+)+)|\$\(.*|`.*|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?|%[A-Za-z_][A-Za-z0-9_]*%|%\([^)]*\)s|\{\{.*\}\}|(?:var|local|data|module|each)\.[\w.\[\]"-]+|<[^<>]*>|\*+|x{3,}|X{3,}|\S{0,12}(?:\.{3}|…)|\[?redacted\]?|\[?masked\]?)$/i;
/**
 * Placeholders that documentation and example files put where a secret goes: `changeme`,
 * `your-token-here`, `<stripe secret key>`, Ansible's no_log marker, Terraform's
 * `(sensitive value)`, and `kubectl describe secret`'s `34 bytes`. No secret is spelled
 * so. (A documented example key id, `AKIAIOSFODNN7EXAMPLE`, is left by tokens.ts; a value
 * under a secret's name is masked even when it is a documented example: fail closed.)
 */
const PLACEHOLDER_WORDS =
  /^(?:change[-_]?(?:me|it)|placeholder|dummy|please[-_]?change[-_\w]*|(?:your|my|insert|enter|put|replace)[-_ ][-\w ]*|[-\w]*[-_ ]here|value_specified_in_no_log_parameter|\((?:sensitive(?: value)?|known after apply|hidden|redacted)\)|\d+ bytes)$/i;
/** A URL with no user information is an address (nginx's `proxy_pass http://…`), not a password. */
const PLAIN_URL = /^[a-z][a-z0-9+.-]{1,15}:\/\/[^\s/@]*(?:[/?#][^\s@]*)?$/i;
/** A marker this masker wrote (span.ts): already masked. */
const MASKED = new RegExp(`^${MARKER_SOURCE}$`);
/** Flags, states, nothing, and /etc/services' `kpasswd 464/udp`. */
const NOT_A_VALUE = /^(?:true|false|yes|no|on|off|none|null|nil|undefined|required|optional|prompt|empty|expired|revoked|unset|invalid|enabled|disabled|default|auto|inherit|~|-|[|>][+-]?|\d{1,5}\/(?:tcp|udp|sctp|dccp))$/i;
/** nsswitch.conf's `passwd: files systemd` lists sources, not a password. */
const NSS_SOURCES = /^(?:(?:files|systemd|compat|db|nis|nisplus|ldap|sss|winbind|dns|mdns4_minimal|mdns4|mdns|myhostname|resolve|mymachines|hesiod|usrfiles|altfiles|cache|extrausers)\s*(?:\[[^\]]*\]\s*)?)+$/;
/**
 * Where the secret is kept, not the secret: `/run/secrets/db`, `~/.pgpass`, `./key.pem`,
 * and systemd's `LoadCredential=ID:PATH`. An absolute path must start at a directory
 * hosts keep files in, and holds no `+` or `=`: base64 key material may start with `/`.
 */
const PATH = /^(?:[\w.-]+:)?(?:~\/|\.{1,2}\/|\/(?:etc|run|var|srv|opt|home|root|usr|tmp|mnt|media|data|secrets|proc|dev|app|config|certs|keys|vault|workspace|lib|snap)(?:\/|$))[^\s+=]*$/;
/** Public key material under a name such as `key`: SSH public keys, PGP and X.509 armour. */
const PUBLIC = /^(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-|sk-(?:ssh|ecdsa)|-----BEGIN (?:CERTIFICATE|PUBLIC|PGP PUBLIC))/;

/**
 * How much of a value is judged. A longer value is no reference, path or setting (those are
 * short): under a strong name it is a secret, under a weak one key material when its first
 * JUDGE_LIMIT characters are. Judging a bounded part keeps each judgement's cost bounded.
 */
export const JUDGE_LIMIT = 256;
const MARKERS = new RegExp(MARKER_SOURCE, 'g');

/** How a long reference starts: a command's output, a template. */
const LONG_REFERENCE = /^(?:\$\(|`|\$\{\{|\{\{)/;

/**
 * Which characters each expression's match can start with (ASCII; both cases where it is
 * case-insensitive), read from its alternatives. A value is judged once per candidate name,
 * and an input can hold a candidate every few bytes: a look-up in a table rules most
 * expressions out for a fraction of a call's cost. Each guard only skips an expression that
 * could not match, so the verdicts are those of the expressions alone.
 */
function firstChars(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (const c of chars) t[c.charCodeAt(0)] = 1;
  return t;
}
/** PLACEHOLDER: `$`, a backquote, `%`, `{{`, `var.`/`local.`/`data.`/`module.`/`each.`, `<`, `*`, `xxx`, `[redacted]`, `redacted`, `masked` (and its `x...` alternative ends in dots). */
const PLACEHOLDER_FIRST = firstChars('$`%{<*[xXvVlLdDmMeErR');
/** PLACEHOLDER_WORDS: change…, placeholder, please…, dummy, your/my/insert/enter/put/replace…, value_specified…, `(sensitive…)`, `34 bytes` (and its `…-here` alternative ends in `here`). */
const PLACEHOLDER_WORDS_FIRST = firstChars('cCpPdDyYmMiIeErRvV(0123456789');
/** NSS_SOURCES: a lower-case source name. */
const NSS_FIRST = firstChars('abcdefghijklmnopqrstuvwxyz');
/** PUBLIC: `ssh-`, `sk-`, `ecdsa-`, `-----BEGIN`. */
const PUBLIC_FIRST = firstChars('se-');
/** NOT_A_VALUE's longest match: `65535/sctp`. */
const NOT_A_VALUE_MAX = 10;

const startsWithOne = (table: Uint8Array, value: string) => {
  const c = value.charCodeAt(0);
  return c < 128 && table[c] === 1;
};
const mayBePlaceholder = (v: string) => startsWithOne(PLACEHOLDER_FIRST, v) || v.endsWith('.') || v.endsWith('…');
const endsInHere = (v: string) => {
  const n = v.length; // `here` in either case, read with no string made (`| 32`: a letter's lower case)
  return n >= 4 && (v.charCodeAt(n - 4) | 32) === 104 && (v.charCodeAt(n - 3) | 32) === 101 && (v.charCodeAt(n - 2) | 32) === 114 && (v.charCodeAt(n - 1) | 32) === 101;
};
const mayBePlaceholderWords = (v: string) => startsWithOne(PLACEHOLDER_WORDS_FIRST, v) || endsInHere(v);
const isPath = (v: string) => v.includes('/') && PATH.test(v);

/** A reference to a secret, or a secret already masked: never masked (again). */
export function isReference(value: string): boolean {
  return (mayBePlaceholder(value) && PLACEHOLDER.test(value)) || (value.charCodeAt(0) === 0x27e6 && MASKED.test(value)) || (mayBePlaceholderWords(value) && PLACEHOLDER_WORDS.test(value)) || filled(value);
}

/** `ghp_xxxxxxxxxxxxxxxx`, `sk-****************`: a value that ends in a dozen of one filler character is a placeholder. */
function filled(value: string): boolean {
  if (value.length < 12) return false;
  const c = value[value.length - 1]!;
  if (!'xX*#.0'.includes(c)) return false;
  for (let i = value.length - 12; i < value.length; i++) if (value[i] !== c) return false;
  return true;
}

/** The value's first word when more follows it (`$dir/x # comment`, `path,uid=1000`): up to a blank or a comma. */
function firstWord(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === ' ' || c === '\t' || c === ',') return i > 0 ? value.slice(0, i) : undefined;
    if (c === '\n' || c === '\r' || c === '\v' || c === '\f' || (c! > '\x7f' && /\s/.test(c!))) return undefined; // any other blank ends the word with nothing after it
  }
  return undefined;
}

export function isSecretValue(strength: SecretName, whole: string): boolean {
  // What a weak name holds is judged without what was masked in it already: masking masked text changes nothing.
  const value = strength === 'weak' && whole.includes('⟦') ? whole.replace(MARKERS, '') : whole;
  if (value.length > JUDGE_LIMIT) return strength !== null && !PUBLIC.test(value) && !LONG_REFERENCE.test(value) && (strength === 'strong' || looksLikeKeyMaterial(value.slice(0, JUDGE_LIMIT)));
  if (
    strength === null ||
    value === '' ||
    (strength === 'weak' && !looksLikeKeyMaterial(value)) ||
    isReference(value) ||
    (value.length <= NOT_A_VALUE_MAX && NOT_A_VALUE.test(value)) ||
    (startsWithOne(NSS_FIRST, value) && NSS_SOURCES.test(value)) ||
    isPath(value) ||
    (startsWithOne(PUBLIC_FIRST, value) && PUBLIC.test(value)) ||
    (value.includes('://') && PLAIN_URL.test(value))
  )
    return false;
  // `$dir/private/cakey.pem # The private key`, fstab's `credentials=/etc/samba/x.cred,uid=1000`:
  // a value that starts with a reference or a path is one.
  const first = firstWord(value);
  if (first !== undefined && (isReference(first) || isPath(first))) return false;
  return true; // strong, or weak with key material (checked first: it is the cheaper test)
}
