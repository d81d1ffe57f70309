/**
 * OpenPGP public keys (RFC 9580): Airlock reads the armor and the packet framing itself, so
 * a preview can show fingerprints before anything is written. The key's self-signatures
 * are not verified here; apt verifies every repository signature against such a key anyway.
 */
import { createHash } from 'node:crypto';
import { boundedString } from '../params.js';

export const ARMOR_BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
export const ARMOR_END = '-----END PGP PUBLIC KEY BLOCK-----';
export const MAX_KEY_BYTES = 64 * 1024;

export interface OpenPgpKey {
  version: number;
  fingerprint: string;
  algorithm: string;
  /** Creation date of the primary key, YYYY-MM-DD. */
  created: string;
  userIds: string[];
  subkeys: { fingerprint: string; algorithm: string }[];
}

class KeyFormatError extends Error {}

/** Parses an ASCII-armored public key block; the reason it is refused otherwise. */
export function parseArmoredPublicKey(text: string): OpenPgpKey[] | string {
  try {
    return readPublicKeys(dearmor(text));
  } catch (e) {
    if (e instanceof KeyFormatError) return e.message;
    throw e;
  }
}

export const armoredPublicKey = boundedString(MAX_KEY_BYTES, `key must be at most ${MAX_KEY_BYTES} bytes`)
  .superRefine((s, ctx) => {
    const r = parseArmoredPublicKey(s);
    if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: `not an ASCII-armored OpenPGP public key: ${r}` });
  });

/** Parsed keys of a validated key parameter. */
export const keysOf = (armored: string) => parseArmoredPublicKey(armored) as OpenPgpKey[];

function dearmor(text: string): Buffer {
  if (/[^\n\x20-\x7e]/.test(text)) throw new KeyFormatError('only printable ASCII and \\n line ends may appear');
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines[0] !== ARMOR_BEGIN) {
    throw new KeyFormatError(/PRIVATE KEY/.test(lines[0] ?? '') ? 'this is a PRIVATE key: send the public key only' : `must begin with ${ARMOR_BEGIN}`);
  }
  let i = 1;
  for (; i < lines.length && lines[i] !== ''; i++) {
    if (!/^[A-Za-z][A-Za-z0-9-]{0,31}: [\x20-\x7e]{0,256}$/.test(lines[i]!)) throw new KeyFormatError(`line ${i + 1} is neither an armor header nor the blank line before the data`);
  }
  if (i >= lines.length) throw new KeyFormatError('no blank line between the armor headers and the data');
  const body: string[] = [];
  for (i++; i < lines.length && /^[A-Za-z0-9+/]+={0,2}$/.test(lines[i]!) && lines[i]!.length <= 128; i++) body.push(lines[i]!);
  const crc = i < lines.length ? /^=([A-Za-z0-9+/]{4})$/.exec(lines[i]!) : null;
  if (crc) i++;
  if (lines[i] !== ARMOR_END || i !== lines.length - 1) throw new KeyFormatError(`line ${i + 1} should be ${ARMOR_END}, the last line`);
  const b64 = body.join('');
  const data = Buffer.from(b64, 'base64');
  if (b64.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || data.toString('base64') !== b64) throw new KeyFormatError('the data is not canonical base64');
  if (crc && Buffer.from(crc[1]!, 'base64').readUIntBE(0, 3) !== crc24(data)) throw new KeyFormatError('the armor checksum does not match the data');
  return data;
}

function crc24(data: Buffer): number {
  let crc = 0xb704ce;
  for (const b of data) {
    crc ^= b << 16;
    for (let k = 0; k < 8; k++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** The packet stream, framing checked: old and new formats, no partial or indeterminate lengths. */
function readPackets(data: Buffer): { tag: number; body: Buffer }[] {
  const out: { tag: number; body: Buffer }[] = [];
  const truncated = () => new KeyFormatError('a packet runs past the end of the data');
  let at = 0;
  while (at < data.length) {
    const h = data[at++]!;
    if ((h & 0x80) === 0) throw new KeyFormatError('the data is not an OpenPGP packet sequence');
    let tag: number;
    let len: number;
    if (h & 0x40) {
      tag = h & 0x3f;
      const b = data[at++];
      if (b === undefined) throw truncated();
      if (b < 192) len = b;
      else if (b < 224) {
        const b2 = data[at++];
        if (b2 === undefined) throw truncated();
        len = ((b - 192) << 8) + b2 + 192;
      } else if (b === 255) {
        if (at + 4 > data.length) throw truncated();
        len = data.readUInt32BE(at);
        at += 4;
      } else throw new KeyFormatError('partial-length packets do not occur in keys');
    } else {
      tag = (h >> 2) & 0x0f;
      const size = [1, 2, 4][h & 3];
      if (size === undefined) throw new KeyFormatError('indeterminate-length packets do not occur in keys');
      if (at + size > data.length) throw truncated();
      len = data.readUIntBE(at, size);
      at += size;
    }
    if (at + len > data.length) throw truncated();
    out.push({ tag, body: data.subarray(at, at + len) });
    at += len;
  }
  return out;
}

const TAG = { signature: 2, secretKey: 5, publicKey: 6, secretSubkey: 7, trust: 12, userId: 13, publicSubkey: 14, userAttribute: 17 };
const ALLOWED_TAGS = new Set([TAG.signature, TAG.publicKey, TAG.trust, TAG.userId, TAG.publicSubkey, TAG.userAttribute]);

function readPublicKeys(data: Buffer): OpenPgpKey[] {
  const keys: OpenPgpKey[] = [];
  for (const p of readPackets(data)) {
    if (p.tag === TAG.secretKey || p.tag === TAG.secretSubkey) throw new KeyFormatError('it holds secret key material: send the public key only');
    if (!ALLOWED_TAGS.has(p.tag)) throw new KeyFormatError(`packet type ${p.tag} does not belong in a public key`);
    const key = keys[keys.length - 1];
    if (p.tag === TAG.publicKey) keys.push({ ...keyPacket(p.body), userIds: [], subkeys: [] });
    else if (!key) throw new KeyFormatError('it does not start with a public key packet');
    else if (p.tag === TAG.publicSubkey) {
      const { fingerprint, algorithm } = keyPacket(p.body);
      key.subkeys.push({ fingerprint, algorithm });
    } else if (p.tag === TAG.userId) key.userIds.push(p.body.toString('utf8').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd').slice(0, 200));
  }
  if (keys.length === 0) throw new KeyFormatError('it holds no public key');
  return keys;
}

/** Version, fingerprint (v4: SHA-1, v6: SHA-256 over the framed packet), algorithm and creation date. */
function keyPacket(body: Buffer): { version: number; fingerprint: string; algorithm: string; created: string } {
  const version = body[0] ?? 0;
  const head = version === 4 ? 6 : version === 6 ? 10 : -1;
  if (head < 0) throw new KeyFormatError(`version ${version} keys are not accepted (version 4 or 6 only)`);
  if (body.length <= head || body.length > 0xffff) throw new KeyFormatError('a key packet has an impossible length');
  const prefix = version === 4 ? Buffer.from([0x99, body.length >> 8, body.length & 0xff]) : Buffer.concat([Buffer.from([0x9b]), u32(body.length)]);
  const fingerprint = createHash(version === 4 ? 'sha1' : 'sha256')
    .update(prefix)
    .update(body)
    .digest('hex')
    .toUpperCase();
  const created = new Date(body.readUInt32BE(1) * 1000).toISOString().slice(0, 10);
  return { version, fingerprint, algorithm: algorithmName(body[5]!, body.subarray(head)), created };
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

const CURVES: Record<string, string> = {
  '2b06010401da470f01': 'Ed25519',
  '2b060104019755010501': 'Curve25519',
  '2a8648ce3d030107': 'NIST P-256',
  '2b81040022': 'NIST P-384',
  '2b81040023': 'NIST P-521',
  '2b2403030208010107': 'brainpoolP256r1',
  '2b240303020801010b': 'brainpoolP384r1',
  '2b240303020801010d': 'brainpoolP512r1',
};

function algorithmName(alg: number, material: Buffer): string {
  const bits = material.length >= 2 ? material.readUInt16BE(0) : 0;
  const curve = () => {
    const oid = material.subarray(1, 1 + (material[0] ?? 0)).toString('hex');
    return CURVES[oid] ?? `curve ${oid}`;
  };
  switch (alg) {
    case 1:
    case 2:
    case 3:
      return `RSA ${bits}`;
    case 16:
      return `Elgamal ${bits}`;
    case 17:
      return `DSA ${bits}`;
    case 18:
      return `ECDH ${curve()}`;
    case 19:
      return `ECDSA ${curve()}`;
    case 22:
      return `EdDSA ${curve()}`;
    default:
      return { 25: 'X25519', 26: 'X448', 27: 'Ed25519', 28: 'Ed448' }[alg] ?? `algorithm ${alg}`;
  }
}
