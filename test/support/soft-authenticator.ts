/**
 * A software passkey authenticator for tests of the daemon's side: it does what a browser and a
 * platform authenticator do with the options the daemon gives (WebAuthn Level 3, attestation
 * `none`, ES256 on P-256), with real keys and real signatures, and returns what
 * `PublicKeyCredential.toJSON()` returns. The daemon verifies it with @simplewebauthn/server as
 * it would a phone's. Each knob is one thing a real client could get wrong or an attacker could
 * forge: the origin the page claims, the RP ID, user verification, the counter, the challenge.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** Minimal CBOR (RFC 8949) for what an attestation holds: integers, byte and text strings, maps. */
function cbor(v: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (v instanceof Map) return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
  throw new Error(`cbor: cannot encode ${typeof v}`);
}

const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface Ceremony {
  /** The page's origin as the browser reports it in clientDataJSON. */
  origin?: string;
  /** The RP ID whose hash the authenticator signs (a browser uses the options' rpId). */
  rpId?: string;
  /** Whether the person was verified (PIN, biometrics). */
  userVerified?: boolean;
  /** Sign over this challenge instead of the options' one (an assertion made for something else). */
  challenge?: string;
}

interface Credential {
  id: Buffer;
  key: KeyObject;
  userHandle: string;
  rpId: string;
  counter: number;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  /** Added to the counter at each assertion; 0 for an authenticator that keeps none. */
  counterStep = 1;

  constructor(readonly origin = 'http://localhost:7443') {}

  /** navigator.credentials.create({ publicKey: options }).toJSON() */
  create(options: Record<string, unknown>, c: Ceremony = {}): Record<string, unknown> {
    const rp = options.rp as { id: string };
    const user = options.user as { id: string };
    const rpId = c.rpId ?? rp.id;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const id = randomBytes(32);
    const counter = 0;
    const flags = UP | AT | (c.userVerified === false ? 0 : UV);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([flags]), u32(counter), Buffer.alloc(16), len, id, cose]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: c.challenge ?? options.challenge, origin: c.origin ?? this.origin, crossOrigin: false });
    this.credentials.push({ id, key: createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })), userHandle: user.id, rpId, counter });
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientData),
        attestationObject: b64u(cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]))),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get({ publicKey: options }).toJSON(), with the first allowed credential this authenticator holds. */
  get(options: Record<string, unknown>, c: Ceremony = {}): Record<string, unknown> {
    const allowed = ((options.allowCredentials as Array<{ id: string }> | undefined) ?? []).map((a) => a.id);
    const cred = this.credentials.find((k) => allowed.length === 0 || allowed.includes(b64u(k.id)));
    if (!cred) throw new Error('no credential of this authenticator is allowed');
    return this.assert(cred, String(c.challenge ?? options.challenge), c);
  }

  /** An assertion by `cred` over `challenge`: what get() makes, or a forgery's parts. */
  assert(cred: Credential, challenge: string, c: Ceremony = {}): Record<string, unknown> {
    cred.counter += this.counterStep;
    const flags = UP | (c.userVerified === false ? 0 : UV);
    const authData = Buffer.concat([sha256(c.rpId ?? cred.rpId), Buffer.from([flags]), u32(cred.counter)]);
    const clientData = JSON.stringify({ type: 'webauthn.get', challenge, origin: c.origin ?? this.origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), cred.key);
    return {
      id: b64u(cred.id),
      rawId: b64u(cred.id),
      type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: cred.userHandle },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
