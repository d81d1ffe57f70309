/**
 * Whether a name says that its value is a secret: `DB_PASSWORD`, `client_secret`,
 * `apiKey`, `X-Api-Key`, `psk`, `aws_session_token`, `PGPASSWORD`. The name's LAST word
 * decides, so `PasswordAuthentication`, `token_lifetime`, `password_file` and
 * `PermitEmptyPasswords` are settings, not secrets. One function, used by the
 * assignment detector and by the catalogue's check that every parameter so named is
 * declared secret (test/unit/secret-params.test.ts).
 *
 * 'strong': the value is a secret whatever it looks like. 'weak' (a name ending in `key`,
 * `auth`, `sig`, `signature`, `cookie`): a secret only when the value looks like key
 * material (entropy.ts), since `key = value` is also how settings are spelled.
 */
export type SecretName = 'strong' | 'weak' | null;

/** Last words (or endings of a last word) that make a name a secret's. */
const STRONG_ENDINGS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials', 'psk', 'pwd'];
/** Last words that are secret only as a whole word (`bypass`, `compass` are not). */
const STRONG_WORDS = new Set(['pass', 'pw', 'creds', 'sas', 'connectionstring']);
/** Two last words that together name a secret: `private key`, `api key`, `access key`. */
const STRONG_PAIRS = new Set(['private key', 'api key', 'access key', 'secret key', 'signing key', 'encryption key', 'master key', 'auth key', 'client key', 'account key', 'shared key', 'license key', 'session key', 'key data', 'auth token', 'connection string', 'private key', 'key secret']);
const WEAK_WORDS = new Set(['key', 'auth', 'sig', 'signature', 'cookie', 'hmac', 'sessionid', 'session']);
/** Names that end in a strong word but hold no secret in any syntax Airlock reads. */
const NOT_SECRET = new Set(['oldpwd', 'pwd', 'passwd']); // PWD=/root, nsswitch's `passwd: files`

/** Splits `DB_PASSWORD`, `apiKey`, `X-Api-Key`, `db.password` and `client-key-data` into lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !/^\d+$/.test(w));
}

/** The `⟦secret:KIND⟧` kind for a value under this name. */
export function kindOfName(name: string): string {
  const words = nameWords(name);
  const last = words[words.length - 1] ?? '';
  const pair = words.length >= 2 ? `${words[words.length - 2]} ${last}` : '';
  if (/(?:pass|passwd|password|passphrase|pwd|pw)$/.test(last)) return 'password';
  if (last.endsWith('token')) return 'token';
  if (last === 'psk') return 'psk';
  if (pair === 'private key' || pair === 'key data' || last.endsWith('privatekey')) return 'private_key';
  if (pair === 'api key' || last.endsWith('apikey')) return 'api_key';
  if (/cred/.test(last)) return 'credentials';
  if (last.endsWith('secret')) return 'secret';
  return secretName(name) === 'weak' ? 'key' : 'secret';
}

export function secretName(name: string): SecretName {
  const words = nameWords(name);
  const last = words[words.length - 1];
  if (last === undefined) return null;
  if (words.length === 1 && NOT_SECRET.has(last)) return null;
  if (words.includes('public') || words.includes('pub')) return null; // public_key, pubkey: public material
  const pair = words.length >= 2 ? `${words[words.length - 2]} ${last}` : '';
  if (STRONG_PAIRS.has(pair) || STRONG_WORDS.has(last)) return 'strong';
  for (const end of STRONG_ENDINGS) if (last.endsWith(end)) return 'strong';
  // `client-key-data` (kubeconfig), `privatekey`, `secretkey`: the key itself.
  if (/(?:private|secret|access|signing|master|account)key$/.test(last)) return 'strong';
  if (WEAK_WORDS.has(last) || last.endsWith('key')) return 'weak';
  return null;
}
