/**
 * Key material for the masking corpus: private keys (planted) and their public look-alikes (which must stay), in the
 * armour real tools write. The bodies are random bytes behind a plausible header; none is a usable key.
 */
import { CRYPT, Rng, crc24, derLike, sshString, wrap } from './corpus-random.js';

export interface Armoured {
  text: string;
  /** The longest base64 body line (a middle one, as every full line has the same length): the value a test looks for. */
  line: string;
  body: string[];
}

function pickLine(body: string[]): string {
  const longest = Math.max(...body.map((l) => l.length));
  const full = body.filter((l) => l.length === longest);
  return full[Math.floor(full.length / 2)] ?? '';
}

/** A PEM block. `headers` are RFC 1421 lines such as Proc-Type (legacy encrypted keys). */
export function pem(label: string, der: Buffer, headers: string[] = []): Armoured {
  const body = wrap(der.toString('base64'));
  const head = headers.length ? [...headers, ''] : [];
  const text = [`-----BEGIN ${label}-----`, ...head, ...body, `-----END ${label}-----`].join('\n') + '\n';
  return { text, line: pickLine(body), body };
}

export const rsaPrivate = (rng: Rng, bits = 2048) => pem('RSA PRIVATE KEY', derLike(rng, bits === 4096 ? 2349 : 1191, [0x02, 0x01, 0x00]));
export const ecPrivate = (rng: Rng) => pem('EC PRIVATE KEY', Buffer.concat([Buffer.from([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]), rng.bytes(114)]));
export const pkcs8Private = (rng: Rng) => pem('PRIVATE KEY', derLike(rng, 1218, [0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]));
export const encryptedPkcs8 = (rng: Rng) => pem('ENCRYPTED PRIVATE KEY', derLike(rng, 1298, [0x30, 0x4e, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d]));
export const dsaPrivate = (rng: Rng) => pem('DSA PRIVATE KEY', derLike(rng, 446, [0x02, 0x01, 0x00]));
export const legacyEncryptedRsa = (rng: Rng) =>
  pem('RSA PRIVATE KEY', rng.bytes(1192), ['Proc-Type: 4,ENCRYPTED', `DEK-Info: AES-256-CBC,${rng.hex(32).toUpperCase()}`]);

/** An OpenSSH private key: "openssh-key-v1\0", cipher, kdf, the public key and a random private section, at 70 columns. */
export function opensshPrivate(rng: Rng, type: 'ed25519' | 'rsa', encrypted = false, comment = 'user@host'): Armoured {
  const pub = type === 'ed25519' ? Buffer.concat([sshString('ssh-ed25519'), sshString(rng.bytes(32))]) : Buffer.concat([sshString('ssh-rsa'), sshString(Buffer.from([1, 0, 1])), sshString(rng.bytes(385))]);
  const kdf = encrypted ? Buffer.concat([sshString(rng.bytes(16)), Buffer.from([0, 0, 0, 24])]) : Buffer.alloc(0);
  const blob = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString(encrypted ? 'aes256-ctr' : 'none'),
    sshString(encrypted ? 'bcrypt' : 'none'),
    sshString(kdf),
    Buffer.from([0, 0, 0, 1]),
    sshString(pub),
    sshString(Buffer.concat([rng.bytes(type === 'ed25519' ? 136 : 1640), Buffer.from(comment)])),
  ]);
  const body = wrap(blob.toString('base64'), 70);
  const text = ['-----BEGIN OPENSSH PRIVATE KEY-----', ...body, '-----END OPENSSH PRIVATE KEY-----'].join('\n') + '\n';
  return { text, line: pickLine(body), body };
}

/** OpenPGP armour: header lines, a blank line, 64-column base64 and the CRC-24 line. */
export function pgpBlock(rng: Rng, kind: 'PRIVATE KEY' | 'PUBLIC KEY', size: number): Armoured {
  const data = Buffer.concat([Buffer.from(kind === 'PRIVATE KEY' ? [0x95, 0x07, 0x58, 0x04] : [0x99, 0x02, 0x0d, 0x04]), rng.bytes(size)]);
  const body = wrap(data.toString('base64'));
  const text = [`-----BEGIN PGP ${kind} BLOCK-----`, '', ...body, crc24(data), `-----END PGP ${kind} BLOCK-----`].join('\n') + '\n';
  return { text, line: pickLine(body), body };
}

export const certificate = (rng: Rng, size = 1000) => pem('CERTIFICATE', derLike(rng, size, [0x30, 0x82, (size - 260) >> 8, (size - 260) & 0xff, 0xa0, 0x03, 0x02, 0x01, 0x02]));

export function sshPublic(rng: Rng, type: 'ed25519' | 'rsa' | 'ecdsa'): string {
  if (type === 'ed25519') return 'ssh-ed25519 ' + Buffer.concat([sshString('ssh-ed25519'), sshString(rng.bytes(32))]).toString('base64');
  if (type === 'ecdsa') return 'ecdsa-sha2-nistp256 ' + Buffer.concat([sshString('ecdsa-sha2-nistp256'), sshString('nistp256'), sshString(Buffer.concat([Buffer.from([4]), rng.bytes(64)]))]).toString('base64');
  return 'ssh-rsa ' + Buffer.concat([sshString('ssh-rsa'), sshString(Buffer.from([1, 0, 1])), sshString(Buffer.concat([Buffer.from([0]), rng.bytes(384)]))]).toString('base64');
}

/** Password hashes as /etc/shadow holds them: yescrypt, sha512crypt, sha256crypt, bcrypt, md5crypt. */
export function shadowHash(rng: Rng, scheme: 'y' | '6' | '5' | '2b' | '1'): string {
  switch (scheme) {
    case 'y': return `$y$j9T$${rng.str(CRYPT, 22)}$${rng.str(CRYPT, 43)}`;
    case '6': return `$6$${rng.str(CRYPT, 16)}$${rng.str(CRYPT, 86)}`;
    case '5': return `$5$rounds=535000$${rng.str(CRYPT, 16)}$${rng.str(CRYPT, 43)}`;
    case '2b': return `$2b$12$${rng.str(CRYPT, 53)}`;
    case '1': return `$1$${rng.str(CRYPT, 8)}$${rng.str(CRYPT, 22)}`;
  }
}
