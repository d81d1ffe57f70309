/**
 * Private key material in every armour a host prints: PEM of every type (RSA, EC, DSA,
 * PKCS#8, ENCRYPTED, OPENSSH), PGP private key blocks, OpenVPN static keys (tls-auth,
 * tls-crypt), PuTTY key files and age identities. A block is masked from its BEGIN line
 * to its END line, also when its newlines are escaped (`\n` inside a JSON string, as in a
 * GCP service-account file). A block whose END never comes (cut output) is masked to the
 * end of the text: fail closed.
 */
import type { Span } from '../span.js';

/** The BEGIN line of a key armour; group 1 is its label, which its END line repeats. */
export const KEY_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V1)-----/g;
/** The END line that closes a BEGIN of this label. */
export const keyEnd = (label: string) => `-----END ${label}-----`;
const AGE = /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g;
/** PuTTY .ppk: the private part follows "Private-Lines: N" up to the MAC line. */
const PUTTY = /^Private-Lines: \d+\r?\n[\s\S]*?(?=^Private-MAC:|$(?![\s\S]))/gm;

/**
 * The armours' literals. Which of them a text holds is learnt in the command-line pass
 * (command-lines.ts), which looks for these beside its own flags (one pass over both costs
 * less than two), and each armour is read only when its literal is there.
 */
export const ARMOUR_LITERALS = '-----BEGIN |AGE-SECRET-KEY-1|Private-Lines:';

/** The armours a text holds, by the first character of the literal found: `-`, `A` or `P`. */
export interface Armours {
  begin: boolean;
  age: boolean;
  putty: boolean;
}

/** Notes the armour whose literal `found` (one of ARMOUR_LITERALS) is. */
export function noteArmour(found: string, into: Armours): void {
  if (found[0] === '-') into.begin = true;
  else if (found[0] === 'A') into.age = true;
  else into.putty = true;
}

/** Adds the key blocks of the armours `text` holds (`armours`: what its literals said). */
export function privateKeys(text: string, armours: Armours, out: Span[]): void {
  if (armours.begin) {
    KEY_BEGIN.lastIndex = 0;
    for (let m; (m = KEY_BEGIN.exec(text)); ) {
      const endMarker = keyEnd(m[1]!);
      const at = text.indexOf(endMarker, m.index + m[0].length);
      const end = at < 0 ? text.length : at + endMarker.length;
      out.push({ start: m.index, end, kind: 'private_key' });
      KEY_BEGIN.lastIndex = end;
    }
  }
  if (armours.age) {
    AGE.lastIndex = 0;
    for (let m; (m = AGE.exec(text)); ) out.push({ start: m.index, end: m.index + m[0].length, kind: 'private_key' });
  }
  if (armours.putty) {
    PUTTY.lastIndex = 0;
    for (let m; (m = PUTTY.exec(text)); ) {
      if (m[0].length === 0) PUTTY.lastIndex++;
      else out.push({ start: m.index, end: m.index + m[0].length, kind: 'private_key' });
    }
  }
}
