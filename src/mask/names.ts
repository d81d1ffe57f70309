/**
 * Whether a name says that its value is a secret: `DB_PASSWORD`, `client_secret`,
 * `apiKey`, `X-Api-Key`, `psk`, `aws_session_token`, `PGPASSWORD`, `--redis.password`,
 * `db_password_replica`: a secret word, last or followed only by qualifiers. Any other
 * word after it makes a setting about the secret: `PasswordAuthentication`,
 * `token_lifetime`, `password_file`, `token_endpoint`. One function, used by the
 * assignment detector and by the catalogue's check that every parameter so named is
 * declared secret (test/unit/secret-params.test.ts).
 *
 * 'strong': the value is a secret whatever it looks like. 'weak' (a name ending in `key`,
 * `auth`, `salt`, `sig`, `cookie`): a secret only when the value looks like key material
 * (entropy.ts), since `key = value` is also how settings are spelled.
 */
export type SecretName = 'strong' | 'weak' | null;

/** Endings of a word that make it a secret word: `password`, `PGPASSWORD`, `apitoken`. */
const SECRET_ENDINGS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials', 'psk', 'pwd'];
/** Words that are secret words only whole (`bypass`, `compass` are not); Redis's `requirepass` and `masterauth`. */
const SECRET_WORDS = new Set(['pass', 'pw', 'creds', 'sas', 'connectionstring', 'requirepass', 'masterauth', 'masterpass', 'bindpw', 'rootpw', 'authtok']);
/** Two words that together name a secret: `private key`, `api key`, `access key`. */
const SECRET_PAIRS = new Set(['secret id', 'private key', 'api key', 'access key', 'secret key', 'signing key', 'encryption key', 'master key', 'auth key', 'client key', 'account key', 'shared key', 'license key', 'session key', 'key data', 'auth token', 'connection string', 'key secret', 'preshared key']);
/**
 * Words that may follow the secret word and leave it the secret's name: which instance of
 * it (`db_password_replica`, `SECRET_KEY_BASE`, `API_TOKEN_VALUE`). Any other word after
 * it makes the name a setting about the secret (`token_lifetime`, `password_file`,
 * `PasswordAuthentication`, `token_endpoint`, `password_encryption`): an allowlist, so a
 * setting is never masked for sounding like one.
 */
const QUALIFIERS = new Set(['replica', 'primary', 'secondary', 'old', 'new', 'prod', 'production', 'dev', 'development', 'staging', 'stage', 'test', 'testing', 'backup', 'main', 'admin', 'root', 'user', 'ro', 'rw', 'readonly', 'read', 'write', 'local', 'remote', 'master', 'slave', 'current', 'next', 'prev', 'previous', 'base', 'base64', 'b64', 'raw', 'plain', 'clear', 'value', 'enc', 'hex', 'live']);
/** Words that hint at key material; `private` and `shared` are netplan's WireGuard keys (`key: private: …`). */
const WEAK_WORDS = new Set(['encrypt', 'key', 'auth', 'salt', 'sig', 'signature', 'cookie', 'hmac', 'sessionid', 'session', 'private', 'shared']);
/**
 * Names that hold a secret word but no secret: nginx's upstream directives (`proxy_pass
 * http://…`), sudo's NOPASSWD tag, and systemd's
 * credential directives, whose value is a credential's name (`LoadCredential=tmpfiles.extra`;
 * `SetCredential=ID:VALUE` does hold one).
 */
const NOT_SECRET = new Set(['proxy_pass', 'fastcgi_pass', 'uwsgi_pass', 'scgi_pass', 'grpc_pass', 'memcached_pass', 'nopasswd', 'load_credential', 'load_credential_encrypted', 'import_credential', 'condition_credential', 'assert_credential']);

/**
 * A word in every name this file judges secret or weak, built from the lists above so it
 * cannot leave one out: the word scan (detectors/words.ts) reads an assignment only after
 * a word this finds, in one pass over the text.
 */
export const NAME_HINT = new RegExp(
  // A pair's words both, except `id`: `secret id` holds `secret`, and `id` alone would hint at every `uid` and `valid`.
  [...new Set(['key', ...SECRET_ENDINGS, ...SECRET_WORDS, ...[...SECRET_PAIRS].flatMap((p) => p.split(' ')).filter((w) => w !== 'id'), ...WEAK_WORDS])].sort((a, b) => b.length - a.length).join('|'),
  'gi',
);

/** Splits `DB_PASSWORD`, `apiKey`, `X-Api-Key`, `db.password` and `client-key-data` into lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !/^\d+$/.test(w));
}

const isSecretWord = (w: string) => SECRET_WORDS.has(w) || SECRET_ENDINGS.some((e) => w.endsWith(e)) || /(?:private|secret|access|signing|master|account)key$/.test(w);

/** Whether the secret word of `name` is its last word (qualifiers aside, none follow). */
export function secretWordLast(name: string): boolean {
  let v = lastWords.get(name);
  if (v === undefined) {
    if (lastWords.size >= 4096) lastWords.clear();
    const words = nameWords(name);
    v = secretAt(words) === words.length - 1;
    lastWords.set(name, v);
  }
  return v;
}
/** secretWordLast's verdicts, kept like secretName's (names repeat). */
const lastWords = new Map<string, boolean>();

/** Where in `words` the secret begins (the index of its secret word or pair), or -1. */
function secretAt(words: string[]): number {
  for (let i = words.length - 1; i >= 0; i--) {
    if (isSecretWord(words[i]!)) return i;
    if (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${words[i]}`)) return i;
  }
  return -1;
}

/** Names repeat (every `key:` of a YAML file): their verdicts are kept, up to this many. */
const MEMO_LIMIT = 4096;
const memo = new Map<string, SecretName>();

/** The longest name judged: a longer "name" is a run of text (`key=key=…` read as one), not a name. */
export const MAX_NAME = 128;

export function secretName(name: string): SecretName {
  if (name.length > MAX_NAME) return null;
  let v = memo.get(name);
  if (v === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    v = judgeName(name);
    memo.set(name, v);
  }
  return v;
}

function judgeName(name: string): SecretName {
  const words = nameWords(name);
  const last = words[words.length - 1];
  if (last === undefined || NOT_SECRET.has(words.join('_'))) return null;
  // Base64 split at its case changes (`Smi8uuTGFOCrHuS05SKeuSG3qPw`, a hashed known_hosts entry) is no name:
  // several of its words mix letters and digits, as no name's words do (`oauth2_token` has one).
  if (name.length >= 20 && words.filter((w) => w.length >= 3 && /[a-z]\d|\d[a-z]/.test(w)).length >= 2) return null;
  // public_key, pubkey: public material (a salt or secret named after what it protects, `PublicLinkSalt`, is not).
  if ((words.includes('public') || words.includes('pub')) && !words.some((w) => /salt|secret|token|pass|pwd|psk/.test(w))) return null;
  // Helm's `existingSecret`, `existingPasswordSecret`: the name of a Secret object holding it, not the secret.
  if (words.includes('existing')) return null;
  const at = secretAt(words);
  // db_password_replica: a secret word, then a qualifier; token_lifetime: a setting about one.
  if (at >= 0 && words.slice(at + 1).every((w) => QUALIFIERS.has(w))) return 'strong';
  if (at < 0 && (WEAK_WORDS.has(last) || last.endsWith('key'))) return 'weak';
  return null;
}

const kinds = new Map<string, string>();

/** The `⟦secret:KIND⟧` kind for a value under this name (kept like secretName's verdicts). */
export function kindOfName(name: string): string {
  let k = kinds.get(name);
  if (k === undefined) {
    if (kinds.size >= MEMO_LIMIT) kinds.clear();
    k = judgeKind(name);
    kinds.set(name, k);
  }
  return k;
}

function judgeKind(name: string): string {
  const words = nameWords(name);
  const at = secretAt(words);
  if (at < 0) return 'key';
  const w = words[at]!;
  const pair = at > 0 ? `${words[at - 1]} ${w}` : '';
  if (/(?:pass|passwd|password|passphrase|pwd|pw|requirepass|masterauth|masterpass)$/.test(w)) return 'password';
  if (w.endsWith('token')) return 'token';
  if (w === 'psk' || pair === 'preshared key') return 'psk';
  if (pair === 'private key' || pair === 'key data' || w.endsWith('privatekey')) return 'private_key';
  if (pair === 'api key' || w.endsWith('apikey')) return 'api_key';
  if (/cred/.test(w)) return 'credentials';
  return 'secret';
}
