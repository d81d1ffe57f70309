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

const EMAIL = /\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24}\b/g;
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
    if (this.emailOn) s = s.replace(EMAIL, (v) => this.of('email', v));
    if (this.ipOn) {
      s = s.replace(IPV4, (v) => (UNIDENTIFYING.has(v) ? v : this.of('ip', v)));
      s = s.replace(IPV6, (v) => (isIP(v) === 6 && !UNIDENTIFYING.has(v) ? this.of('ip', v) : v));
    }
    if (this.hostOn) s = s.replace(HOSTNAME, (v) => this.of('host', v));
    return s;
  }
}
