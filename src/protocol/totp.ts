/**
 * TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA1, 30-second steps, 6 digits, the
 * parameters every authenticator app assumes. The daemon alone holds the secrets
 * and checks the codes; this module is the arithmetic only, shared with the demo
 * and the tests, which play the authenticator app.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const STEP_SECONDS = 30;
export const DIGITS = 6;
/** Steps either side of now that still count: clocks drift and people type slowly. */
export const DRIFT_STEPS = 1;
const SECRET_BYTES = 20; // 160 bits, the size RFC 4226 recommends for HMAC-SHA1

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(buf: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = BASE32.indexOf(ch);
    if (i < 0) throw new Error('not base32');
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export const newSecret = (): string => base32Encode(randomBytes(SECRET_BYTES));

/**
 * The check code of a secret (XXXX-XXXX, 40 bits of an HMAC keyed by it): shown to the person
 * who proved it, read out to the approver, given with `totp.approve`. It says which secret is
 * approved, without revealing it: an enrolment swapped in by an agent running as the person
 * has another check code, and is refused.
 */
export function enrolmentCheck(secretB32: string): string {
  const mac = createHmac('sha256', base32Decode(secretB32)).update('airlock enrolment check v1').digest();
  const text = base32Encode(mac.subarray(0, 5));
  return `${text.slice(0, 4)}-${text.slice(4, 8)}`;
}

export const stepAt = (ms: number): number => Math.floor(ms / 1000 / STEP_SECONDS);

/** HOTP value of one counter, as a zero-padded string of `digits` digits. */
export function hotp(secret: Buffer, counter: number, digits = DIGITS): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(bin).padStart(digits, '0');
}

export const codeAt = (secretB32: string, ms: number): string => hotp(base32Decode(secretB32), stepAt(ms));

/** A code that matched a step of the window: `spent` when that step was used already (it approves nothing). */
export interface StepMatch {
  step: number;
  spent: boolean;
}

/**
 * The step a code belongs to, among now ± DRIFT_STEPS, or null. A step no later than
 * `usedStep` comes back `spent`: it cannot be spent again, but the person typed a right
 * code and is told to wait for the next one rather than that it was wrong. Compares in
 * constant time.
 */
export function matchStep(secretB32: string, code: string, nowMs: number, usedStep: number): StepMatch | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const secret = base32Decode(secretB32);
  const now = stepAt(nowMs);
  let fresh: number | null = null;
  let spent: number | null = null;
  for (let s = now - DRIFT_STEPS; s <= now + DRIFT_STEPS; s++) {
    // Every candidate is computed and compared, so timing does not tell which one matched.
    const same = timingSafeEqual(Buffer.from(hotp(secret, s)), Buffer.from(code));
    if (same && s > usedStep && fresh === null) fresh = s;
    if (same && s <= usedStep) spent = s;
  }
  if (fresh !== null) return { step: fresh, spent: false };
  return spent === null ? null : { step: spent, spent: true };
}

/** Whole seconds from `nowMs` until the step after `usedStep` begins (0 when it has). */
export const secondsUntilStepAfter = (usedStep: number, nowMs: number): number => Math.max(0, Math.ceil(((usedStep + 1) * STEP_SECONDS * 1000 - nowMs) / 1000));

/** The otpauth:// URI authenticator apps read from the QR code. */
export function otpauthUri(secretB32: string, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secretB32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${STEP_SECONDS}`;
}
