/**
 * Armoured key and certificate bodies with the real DER/OpenSSH framing at the front and random
 * material after it, so they look and wrap like the real thing (64 columns PEM, 70 OpenSSH).
 */
import { wrap, type Rng } from './rng.js';

export type PemKind = 'rsa' | 'ec' | 'pkcs8' | 'cert';

const HEADS: Record<PemKind, { head: number[]; rest: number }> = {
  // SEQUENCE, INTEGER 0, INTEGER n (257 bytes): PKCS#1 RSA 2048.
  rsa: { head: [0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00], rest: 1180 },
  // SEC1 EC P-256: SEQUENCE, INTEGER 1, OCTET STRING(32).
  ec: { head: [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20], rest: 114 },
  // PKCS#8 wrapping an RSA key: SEQUENCE, INTEGER 0, rsaEncryption AlgorithmIdentifier, OCTET STRING.
  pkcs8: { head: [0x30, 0x82, 0x04, 0xbd, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x04, 0x82, 0x04, 0xa7], rest: 1191 },
  // X.509: SEQUENCE { SEQUENCE { [0] { INTEGER 2 } ...
  cert: { head: [0x30, 0x82, 0x03, 0x5d, 0x30, 0x82, 0x02, 0x45, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14], rest: 853 },
};

/** The base64 lines between BEGIN and END (no header or footer), joined by "\n". */
export function pemBody(r: Rng, kind: PemKind): string {
  const h = HEADS[kind];
  return wrap(Buffer.concat([Buffer.from(h.head), r.bytes(h.rest)]).toString('base64'), 64);
}

const LABELS: Record<PemKind, string> = { rsa: 'RSA PRIVATE KEY', ec: 'EC PRIVATE KEY', pkcs8: 'PRIVATE KEY', cert: 'CERTIFICATE' };

export function pemBlock(kind: PemKind, body: string): string {
  return `-----BEGIN ${LABELS[kind]}-----\n${body}\n-----END ${LABELS[kind]}-----`;
}

const u32 = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const sshString = (b: Buffer | string): Buffer => { const x = Buffer.isBuffer(b) ? b : Buffer.from(b); return Buffer.concat([u32(x.length), x]); };

/** An unencrypted ed25519 OpenSSH key in the openssh-key-v1 layout, and its public line. */
export function opensshEd25519(r: Rng, comment: string): { body: string; publicLine: string } {
  const pub = r.bytes(32);
  const seed = r.bytes(32);
  const pubBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = r.bytes(4);
  let priv = Buffer.concat([check, check, sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  const padLen = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: padLen }, (_, i) => i + 1))]);
  const all = Buffer.concat([Buffer.from('openssh-key-v1\0'), sshString('none'), sshString('none'), sshString(''), u32(1), sshString(pubBlob), sshString(priv)]);
  return { body: wrap(all.toString('base64'), 70), publicLine: `ssh-ed25519 ${pubBlob.toString('base64')} ${comment}` };
}

/** A public ssh-ed25519 line (nothing secret). */
export function sshPublicLine(r: Rng, comment: string): string {
  return `ssh-ed25519 ${Buffer.concat([sshString('ssh-ed25519'), sshString(r.bytes(32))]).toString('base64')} ${comment}`;
}
