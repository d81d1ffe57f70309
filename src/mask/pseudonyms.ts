/**
 * Keyed pseudonyms, by policy: e-mail addresses, IP addresses and host names become
 * `⟦email:1a2b3c4d⟧`, `⟦ip:…⟧`, `⟦host:…⟧`, the first 8 hex digits of an HMAC-SHA256 under
 * a key only the daemon holds. The same value gives the same pseudonym on this host (the
 * agent can still tell that two lines name the same client), and without the key nobody
 * can tell which value it was by trying candidates. Loopback and unspecified addresses
 * identify nobody and stay as they are.
 */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';

export const PSEUDONYM_CLASSES = ['email', 'ip', 'hostname'] as const;
export type PseudonymClass = (typeof PSEUDONYM_CLASSES)[number];

/** An e-mail address's domain, read from just after its '@'. */
const EMAIL_DOMAIN = /(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24}\b/y;
/** The longest local part (before the '@') an address may have. */
const MAX_LOCAL = 64;
const IPV4 = /(?<![\d.])(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(?![\d.])/g;
const IPV6 = /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])/g;
/**
 * Dotted names under a top-level domain hosts commonly use; a file name (`nginx.conf`) ends in none.
 * At most ten labels before it (e-mail domains too): from each start a bounded stretch is read,
 * so a line of `a.a.a.…` costs no more than its length.
 */
const HOSTNAME = /\b(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}(?:com|net|org|io|dev|app|cloud|local|lan|internal|intranet|home|corp|example|test|localdomain|de|uk|fr|nl|eu|us|ca|au|jp|cn|ru|br|in|ch|se|no|fi|dk|pl|it|es|at|be|cz|info|biz|co|me|ai)\b/gi;
const UNIDENTIFYING = new Set(['127.0.0.1', '0.0.0.0', '::1', '::', '255.255.255.255']);

export class Pseudonyms {
  private readonly ipOn: boolean;
  private readonly emailOn: boolean;
  private readonly hostOn: boolean;
  constructor(
    private readonly key: Buffer,
    classes: readonly PseudonymClass[],
  ) {
    this.ipOn = classes.includes('ip');
    this.emailOn = classes.includes('email');
    this.hostOn = classes.includes('hostname');
  }

  get active(): boolean {
    return this.ipOn || this.emailOn || this.hostOn;
  }

  /** The pseudonym of one value of a class; case does not matter for names. */
  of(cls: string, value: string): string {
    const h = createHmac('sha256', this.key).update(`${cls}\0${value.toLowerCase()}`).digest('hex');
    return `⟦${cls}:${h.slice(0, 8)}⟧`;
  }

  /** `text` with each address and name of the enabled classes replaced. E-mail first: its domain is not a host name to hash apart. */
  apply(text: string): string {
    let s = text;
    if (this.emailOn) s = replaceEmails(s, (v) => this.of('email', v));
    if (this.ipOn) {
      s = s.replace(IPV4, (v) => (UNIDENTIFYING.has(v) ? v : this.of('ip', v)));
      s = s.replace(IPV6, (v) => (isIP(v) === 6 && !UNIDENTIFYING.has(v) ? this.of('ip', v) : v));
    }
    if (this.hostOn) s = s.replace(HOSTNAME, (v) => this.of('host', v));
    return s;
  }
}

const isLocalChar = (c: number) => isWordChar(c) || c === 0x2e || c === 0x25 || c === 0x2b || c === 0x2d; // . % + -
const isWordChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
/** Where a regular expression's \b holds: between a word character and another, either way (the text's ends count as not). */
const wordBoundary = (text: string, at: number) => (at > 0 && isWordChar(text.charCodeAt(at - 1))) !== (at < text.length && isWordChar(text.charCodeAt(at)));

/**
 * `text` with each e-mail address replaced: exactly what replacing
 * /\b[A-Za-z0-9._%+-]{1,64}@DOMAIN/g would do (test/unit/pseudonyms.test.ts compares them), read
 * from each '@' instead of from every word boundary. The expression tried a 64-character local
 * part at every boundary of a line of `a.a.a.…` and failed at its end: 20 ms for 64 KB, ten times
 * ordinary output's whole masking. Here each character is read at most twice, whatever the text.
 */
export function replaceEmails(text: string, replace: (address: string) => string): string {
  let out = '';
  let done = 0; // where the last address ended: nothing before it is read again
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > done && at - start < MAX_LOCAL && isLocalChar(text.charCodeAt(start - 1))) start--;
    // The leftmost start the expression would have tried with success: one where \b holds.
    while (start < at && !wordBoundary(text, start)) start++;
    if (start === at) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (!EMAIL_DOMAIN.test(text)) continue;
    out += text.slice(done, start) + replace(text.slice(start, EMAIL_DOMAIN.lastIndex));
    done = EMAIL_DOMAIN.lastIndex;
    at = done - 1;
  }
  return out + text.slice(done);
}
