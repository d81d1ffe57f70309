/**
 * An OpenSSH public key as `ssh-keygen -lf` names it: size in bits, `SHA256:` and the
 * unpadded base64 of the SHA-256 of the key blob, the comment, the type in brackets
 * (`256 SHA256:uZ8… deploy@laptop (ED25519)`). Computed from the blob itself, so what a
 * person compares with their own `ssh-keygen -lf key.pub` is the key that is installed, not
 * what its comment claims. Pure: the daemon (authorized_keys lines in previews) and the CLI
 * (a key in a change or a parameter) share it.
 */
import { createHash } from 'node:crypto';

export interface KeyFingerprint {
  bits: number;
  /** `SHA256:` and 43 base64 characters. */
  sha256: string;
  /** `ED25519`, `RSA`, `ECDSA`, `DSA`, `ED25519-SK`, `ECDSA-SK`. */
  label: string;
  type: string;
  comment: string;
}

const LABELS: Record<string, string> = {
  'ssh-ed25519': 'ED25519',
  'ssh-rsa': 'RSA',
  'ssh-dss': 'DSA',
  'ecdsa-sha2-nistp256': 'ECDSA',
  'ecdsa-sha2-nistp384': 'ECDSA',
  'ecdsa-sha2-nistp521': 'ECDSA',
  'sk-ssh-ed25519@openssh.com': 'ED25519-SK',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ECDSA-SK',
};

/** The key type, its base64 blob and the rest (the comment) anywhere in a line: after authorized_keys options too. */
const KEY_IN_LINE = /(?:^|\s)((?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)) (AAAA[A-Za-z0-9+/]+={0,2})(?:[ \t]+(.*))?$/;

/** The fingerprint of the key in `line` (`type base64 [comment]`, options before it allowed), or null when it holds no well-formed key. */
export function sshKeyFingerprint(line: string): KeyFingerprint | null {
  const m = KEY_IN_LINE.exec(line.trim());
  if (!m) return null;
  const type = m[1]!;
  const blob = Buffer.from(m[2]!, 'base64');
  const fields = sshStrings(blob);
  // The blob names its own type; a line whose blob says another type is not that key.
  if (!fields || fields[0]!.toString('latin1') !== type) return null;
  const bits = keyBits(type, fields);
  if (bits === null) return null;
  const sha256 = 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  return { bits, sha256, label: LABELS[type]!, type, comment: (m[3] ?? '').trim() };
}

/** As `ssh-keygen -lf` prints it: `256 SHA256:… comment (ED25519)`, `no comment` when there is none. */
export function fingerprintText(f: KeyFingerprint): string {
  return `${f.bits} ${f.sha256} ${f.comment || 'no comment'} (${f.label})`;
}

/** The length-prefixed strings of an SSH wire blob (RFC 4251 §5), or null when it does not split exactly into them. */
function sshStrings(blob: Buffer): Buffer[] | null {
  const out: Buffer[] = [];
  for (let at = 0; at < blob.length; ) {
    if (at + 4 > blob.length) return null;
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) return null;
    out.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out.length > 0 ? out : null;
}

/** Bits of an mpint: its magnitude without leading zero bytes. */
function mpintBits(b: Buffer | undefined): number | null {
  if (!b) return null;
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  if (i === b.length) return 0;
  return (b.length - i - 1) * 8 + (32 - Math.clz32(b[i]!));
}

function keyBits(type: string, f: Buffer[]): number | null {
  switch (type) {
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com':
      return f[1]?.length === 32 ? 256 : null;
    case 'ssh-rsa':
      return mpintBits(f[2]); // e, then n
    case 'ssh-dss':
      return mpintBits(f[1]); // p
    default: {
      const curve = /nistp(256|384|521)/.exec(type)![1]!;
      return Number(curve);
    }
  }
}
