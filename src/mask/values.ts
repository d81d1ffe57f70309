/**
 * Whether the value under a secret-sounding name is a secret, or a reference to one, a
 * setting or public material. One predicate for the assignment detector and for JSON
 * values under such a key (deep.ts).
 */
import { looksLikeKeyMaterial } from './entropy.js';
import type { SecretName } from './names.js';

/** A reference, not a value: ${X}, $X, %X%, %(x)s, {{ x }}, <password>, ***, xxx, [redacted], an earlier mask. */
export const PLACEHOLDER = /^(?:\$\{[^}]*\}(?:\/\S*)?|\$[A-Za-z_][A-Za-z0-9_]*\/\S*|\$\(.*|`.*|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?|%[A-Za-z_][A-Za-z0-9_]*%|%\([^)]*\)s|\{\{.*\}\}|<[^<>]*>|\*+|x{3,}|X{3,}|\.{3}|\[?redacted\]?|\[?masked\]?|⟦[^⟧]*⟧)$/i;
const NOT_A_VALUE = /^(?:true|false|yes|no|on|off|none|null|nil|undefined|required|optional|prompt|empty|-|[|>][+-]?)$/i;
/** A path to where the secret is kept, not the secret: `/run/secrets/db`, `~/.pgpass`, `./key.pem`. */
const PATH = /^(?:\/|~\/|\.{1,2}\/)\S*$/;
/** Public key material under a name such as `key`: SSH public keys, PGP and X.509 armour. */
const PUBLIC = /^(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-|sk-(?:ssh|ecdsa)|-----BEGIN (?:CERTIFICATE|PUBLIC|PGP PUBLIC))/;

export function isSecretValue(strength: SecretName, value: string): boolean {
  if (strength === null || value === '' || PLACEHOLDER.test(value) || NOT_A_VALUE.test(value) || PATH.test(value) || PUBLIC.test(value)) return false;
  return strength === 'strong' || looksLikeKeyMaterial(value);
}
