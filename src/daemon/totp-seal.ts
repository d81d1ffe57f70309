/**
 * Second-factor secrets at rest: each approver's TOTP secret is stored sealed with
 * AES-256-GCM under a key file kept beside the signing keys (totp.key, 32 bytes, the
 * same ownership and mode checks), so a copied or backed-up database carries no usable
 * secret. Each secret gets a random 96-bit nonce, and the approver's name is the
 * additional authenticated data: a sealed value moved to another approver's row does
 * not open. Sealed text: "v1:" + base64(nonce || ciphertext || tag).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { loadKeyFile } from '../audit/keys.js';
import { AirlockError } from '../protocol/errors.js';
import type { Store } from '../store/store.js';

const PREFIX = 'v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Domain separation: this key seals nothing else, and the AAD says what the bytes are. */
const AAD_DOMAIN = 'airlock totp secret v1\0';

export class TotpSeal {
  private constructor(private readonly key: Buffer) {}

  /** A seal over a raw 32-byte key (tests); the daemon uses `openTotpSeal`. */
  static fromKey(key: Buffer): TotpSeal {
    if (key.length !== 32) throw new AirlockError('integrity', 'bad_key', 'an AES-256 key is exactly 32 bytes');
    return new TotpSeal(Buffer.from(key));
  }

  seal(approver: string, secret: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const c = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
    c.setAAD(aad(approver));
    const body = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
    return PREFIX + Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64');
  }

  /** The secret, or an integrity error: the value was altered, moved from another approver, sealed under another key, or never sealed. */
  open(approver: string, sealed: string): string {
    const bad = () =>
      new AirlockError(
        'integrity',
        'totp_secret_unreadable',
        `the second-factor secret stored for ${approver} does not open under the daemon's key: it was altered, moved from another approver or sealed under another key`,
        `root deletes it with \`sudo airlock totp reset --user NAME\`, then the person enrols again`,
      );
    if (!sealed.startsWith(PREFIX)) throw bad();
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    if (raw.length <= NONCE_BYTES + TAG_BYTES) throw bad();
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      d.setAAD(aad(approver));
      d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([d.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), d.final()]).toString('utf8');
    } catch {
      throw bad();
    }
  }
}

const aad = (approver: string) => Buffer.from(AAD_DOMAIN + approver, 'utf8');

/**
 * Opens the seal for this store at start. A store not yet marked sealed (a new one, or
 * one from before sealing, whose secrets are in clear) gets its key file now and has
 * every secret sealed in place, in one store transaction. A sealed store whose key file
 * is missing stops the daemon: a fresh key would open nothing.
 */
export async function openTotpSeal(store: Store, keyPath: string, log: (m: string) => void): Promise<TotpSeal> {
  const sealed = await store.totpSecretsSealed();
  const key = loadKeyFile(keyPath, {
    create: !sealed,
    missing: () =>
      new AirlockError(
        'integrity',
        'totp_key_missing',
        `the store's second-factor secrets are sealed under ${keyPath}, and that file is missing: without it no approver's code can be checked`,
        `restore ${keyPath} (mode 0600, owned by root) from the backup of ${dirname(keyPath)} it was kept in; if it is lost, see "Second-factor secrets at rest" in docs/security.md`,
      ),
  });
  const seal = TotpSeal.fromKey(key);
  if (!sealed) {
    const n = await store.sealTotpSecrets((approver, secret) => seal.seal(approver, secret));
    if (n > 0) log(`sealed ${n} second-factor secret(s) that this store held in clear (under ${keyPath})`);
  }
  return seal;
}
