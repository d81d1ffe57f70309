/**
 * Ed25519 keys kept as 32-byte seeds in files of mode 0600 (and the same checks for
 * any other 32-byte key file the daemon keeps). A key file that group or others can
 * read is refused: the daemon will not start with it.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { writeFileSafely } from '../protocol/safe-write.js';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicRaw: Buffer;
  /** First 16 hex digits of SHA-256 of the raw public key. */
  readonly keyId: string;
}

export function signingKeyFromSeed(seed: Buffer): SigningKey {
  if (seed.length !== 32) throw new AirlockError('integrity', 'bad_key', 'an Ed25519 seed is exactly 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const publicRaw = rawPublicKey(publicKey);
  return { privateKey, publicKey, publicRaw, keyId: keyIdOf(publicRaw) };
}

/** The 32 raw bytes of an Ed25519 public key (what key ids and the public key file are made of). */
export function rawPublicKey(publicKey: KeyObject): Buffer {
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);
}

export function keyIdOf(publicRaw: Buffer): string {
  return createHash('sha256').update(publicRaw).digest('hex').slice(0, 16);
}

export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new AirlockError('validation', 'bad_pubkey', 'an Ed25519 public key is exactly 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** Public key file: one line "ed25519:<64 hex>" (a bare 64-hex line is accepted too). */
export function formatPublicKey(raw: Buffer): string {
  return `ed25519:${raw.toString('hex')}\n`;
}

export function parsePublicKey(text: string): Buffer {
  const m = /^(?:ed25519:)?([0-9a-f]{64})\s*$/i.exec(text.trim());
  if (!m) throw new AirlockError('validation', 'bad_pubkey', 'public key file must hold "ed25519:" and 64 hex digits', 'export it with `airlock audit pubkey`');
  return Buffer.from(m[1]!, 'hex');
}

/** The most keys one key file may list (a key a month for eighty years): the verifier holds them all. */
export const MAX_KEYS_IN_FILE = 1000;

/**
 * A key file of one or several keys: one "ed25519:<64 hex>" (or bare 64-hex) per line, first
 * column only, so a history file (`audit-keys.pub`: "ed25519:<hex>  <key id>  from seq N") reads
 * as well as a one-key file. Blank lines and lines starting with "#" are skipped; anything else
 * that is not a key is refused rather than skipped, since a mangled line may be the key needed.
 */
export function parsePublicKeys(text: string): Buffer[] {
  const keys: Buffer[] = [];
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    const first = t.split(/\s+/)[0]!;
    const raw = parsePublicKey(first);
    if (seen.has(raw.toString('hex'))) continue;
    seen.add(raw.toString('hex'));
    keys.push(raw);
    if (keys.length > MAX_KEYS_IN_FILE) throw new AirlockError('validation', 'bad_pubkey', `a public key file lists at most ${MAX_KEYS_IN_FILE} keys`);
  }
  if (keys.length === 0) throw new AirlockError('validation', 'bad_pubkey', 'public key file must hold "ed25519:" and 64 hex digits', 'export it with `airlock audit pubkey`');
  return keys;
}

/** One line of a key history file: the key, its id, and the first entry it signs. */
export function formatHistoryLine(raw: Buffer, fromSeq: number): string {
  return `ed25519:${raw.toString('hex')}  ${keyIdOf(raw)}  from seq ${fromSeq}\n`;
}

/** Loads a seed file, creating it (mode 0600, O_EXCL) when absent and `create` is set. */
export function loadSeedFile(path: string, create: boolean): SigningKey {
  return signingKeyFromSeed(loadKeyFile(path, { create }));
}

/**
 * The bytes of a file that holds a secret: never read through a link, refused when group or
 * others can access it, another uid than this process's owns it, or it is over `limit` bytes.
 * An open that fails (ENOENT among others) throws as it came, for the caller to judge.
 */
export function readSecretFile(path: string, limit: number): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new AirlockError('integrity', 'key_permissions', `${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0) {
      throw new AirlockError('integrity', 'key_permissions', `${path} has mode ${(st.mode & 0o777).toString(8)}: group or others can read it`, `run \`chmod 600 ${path}\`, and treat what it holds as exposed: replace it if anyone else could read it`);
    }
    if (process.getuid && st.uid !== process.getuid()) {
      throw new AirlockError('integrity', 'key_owner', `${path} is owned by uid ${st.uid}, not by the daemon's uid ${process.getuid()}`);
    }
    if (st.size > limit) throw new AirlockError('integrity', 'bad_key', `${path} holds ${st.size} bytes: at most ${limit} are expected`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a 32-byte secret key file (readSecretFile). Absent, it is created (32 random bytes,
 * mode 0600, O_EXCL) when `create` is set; otherwise `missing` says why that is an error.
 */
export function loadKeyFile(path: string, o: { create: boolean; missing?: () => AirlockError }): Buffer {
  let key: Buffer;
  try {
    key = readSecretFile(path, 32);
  } catch (e) {
    if (e instanceof AirlockError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !o.create && o.missing) throw o.missing();
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !o.create) {
      throw new AirlockError('integrity', 'key_unreadable', `cannot open key file ${path}: ${(e as Error).message}`, 'run `sudo airlock install` to create keys');
    }
    key = randomBytes(32);
    writeFileSafely(path, key, { mode: 0o600, exclusive: true });
    return key;
  }
  if (key.length !== 32) throw new AirlockError('integrity', 'bad_key', `key file ${path} holds ${key.length} bytes: a key is exactly 32 bytes`);
  return key;
}

/** A signature is stored as exactly 128 lower-case hex digits: one spelling, as every other field has. */
export const SIGNATURE_HEX = /^[0-9a-f]{128}$/;

export const ed25519Sign = (key: SigningKey, message: Buffer): Buffer => sign(null, message, key.privateKey);
export const ed25519Verify = (publicKey: KeyObject, message: Buffer, signature: Buffer): boolean => {
  try {
    return signature.length === 64 && verify(null, message, publicKey, signature);
  } catch {
    return false;
  }
};
