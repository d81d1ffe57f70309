/**
 * Secrets that services keep in line formats of their own, where no name says "password":
 * - ntp.keys(5) and chrony.keys: `KEYID TYPE KEY` (`1 SHA1 9a…`, `7 MD5 HEX:…`, `3 ASCII:…`);
 * - Net-SNMP's snmpd.conf: `rocommunity COMMUNITY [SOURCE]`, `com2sec NAME SOURCE COMMUNITY`,
 *   `createUser NAME SHA AUTHPASS AES PRIVPASS` (the well-known `public` and `private`
 *   communities are defaults, not secrets, and stay);
 * - Synapse's signing key file: `ed25519 KEYID BASE64`;
 * - `vault operator init`: `Unseal Key N: …`, `Recovery Key N: …`;
 * - google-authenticator's `~/.google_authenticator`: the base32 secret on the line before its
 *   `" OPTION` lines, the 8-digit scratch codes after them;
 * - Consul's ACL tokens in a `tokens { agent = "…" }` block (HCL or JSON);
 * - oath-toolkit's `/etc/users.oath`: `HOTP/T30/6 USER PIN SEED`.
 * Each format is found by a literal it must hold and read from its line's start with a
 * bounded expression (sticky), so no input makes this more than linear.
 */
import type { Detector, Span } from '../span.js';

/** The digests ntpd and chronyd accept (ntp.keys(5), chrony.conf(5) `keyfile`). */
const DIGEST = 'MD5|SHA1|SHA|SHA224|SHA256|SHA384|SHA512|SHA3-224|SHA3-256|SHA3-384|SHA3-512|RMD160|TIGER|WHIRLPOOL|AES128|AES256|AES128CMAC|AES-128-CMAC|SM3';
/** A key line: its id, a digest (chrony may leave it out, then `HEX:`/`ASCII:` says the encoding), the key, then a comment or the end. */
const KEY_LINE = new RegExp(`[ \\t]{0,16}\\d{1,5}[ \\t]{1,16}(?:(?:${DIGEST}|M)[ \\t]{1,16}(?:(?:HEX|ASCII):)?|(?:HEX|ASCII):)([!-~]{1,128})[ \\t]*(?:#[^\\n]*)?(?=\\r?\\n|$)`, 'y');

const COMMUNITY = /[ \t]{0,16}(?:ro|rw)community6?[ \t]{1,16}([^\s#]{1,128})/y;
const COM2SEC = /[ \t]{0,16}com2sec6?[ \t]{1,16}(?:-Cn[ \t]{1,16}\S{1,64}[ \t]{1,16})?\S{1,64}[ \t]{1,16}\S{1,128}[ \t]{1,16}([^\s#]{1,128})/y;
const CREATE_USER = /[ \t]{0,16}createUser[ \t]{1,16}(?:-e[ \t]{1,16}\S{1,64}[ \t]{1,16})?\S{1,64}[ \t]{1,16}(?:MD5|SHA|SHA-224|SHA-256|SHA-384|SHA-512)[ \t]{1,16}(?:"([^"\n]{1,128})"|(\S{1,128}))(?:[ \t]{1,16}(?:DES|AES|AES-128|AES-192|AES-256)(?:[ \t]{1,16}(?:"([^"\n]{1,128})"|(\S{1,128})))?)?/y;
/** Defaults every device ships with: known to all, no secret. */
const DEFAULT_COMMUNITIES = new Set(['public', 'private']);

const SIGNING_KEY = /ed25519 [A-Za-z0-9_]{1,32} ([A-Za-z0-9+/]{43}=?)(?![A-Za-z0-9+/])/y;
const VAULT_KEY = /(?:Unseal|Recovery) Key \d{1,3}: ([A-Za-z0-9+/=]{16,256})/y;

/** oath-toolkit's users file (pam_oath): `HOTP/T30/6 USER PIN SEED`, the seed in hex. */
const OATH_USER = /HOTP(?:\/[A-Z0-9]{1,8}){0,3}[ \t]+\S{1,64}[ \t]+\S{1,64}[ \t]+([0-9a-fA-F]{16,256})(?![0-9a-fA-F])/y;

/** The option lines of a ~/.google_authenticator file. */
const GA_SECRET = /^[A-Z2-7]{16,128}\r?$/;
const GA_CODE = /^\d{8}\r?$/;

/** The ~/.google_authenticator file whose first option line starts at `first`; returns where its codes end. */
function googleAuthenticator(text: string, first: number, out: Span[]): number {
  let after = first;
  // The rest of this block of option lines.
  for (let n; (n = text.startsWith('" ', after) ? text.indexOf('\n', after) : -1) >= 0; ) after = n + 1;
  if (after === first) return first + 1;
  const prevStart = text.lastIndexOf('\n', first - 2) + 1;
  const prev = text.slice(prevStart, Math.max(prevStart, first - 1));
  if (first > 0 && GA_SECRET.test(prev)) out.push({ start: prevStart, end: prevStart + prev.replace(/\r$/, '').length, kind: 'totp_secret' });
  for (let k = 0; k < 32 && after < text.length; k++) {
    let end = text.indexOf('\n', after);
    if (end < 0) end = text.length;
    if (!GA_CODE.test(text.slice(after, end))) break;
    out.push({ start: after, end: after + 8, kind: 'recovery_code' });
    after = end + 1;
  }
  return after;
}

/** Consul's ACL `tokens` block: `tokens {` (HCL) or `"tokens": {` (JSON), closed by `}` within CONSUL_BLOCK characters. */
const CONSUL_BLOCK = 2048;
const CONSUL_ENTRY = /"?(agent|default|initial_management|master|replication|agent_recovery|agent_master|config_file_service_registration|dns)"?[ \t]*[:=][ \t]*"([^"\n]{8,256})"/g;

/** The block opened by the match `m` (its `{` is its last character); returns where it closes. */
function consulTokens(text: string, m: RegExpExecArray, out: Span[]): number {
  const from = m.index + m[0].length;
  let close = text.indexOf('}', from);
  if (close < 0 || close > from + CONSUL_BLOCK) close = Math.min(text.length, from + CONSUL_BLOCK);
  const block = text.slice(from, close);
  CONSUL_ENTRY.lastIndex = 0;
  for (let e; (e = CONSUL_ENTRY.exec(block)); ) {
    const start = from + e.index + e[0].length - 1 - e[2]!.length;
    out.push({ start, end: start + e[2]!.length, kind: 'token' });
  }
  return close;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at) + 1;

/** Each group of a sticky match at `at` that matched, as a span of `kind`. */
function stickyGroups(text: string, at: number, re: RegExp, kind: string, out: Span[], keep: (v: string) => boolean = () => true): number {
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return -1;
  let from = m.index;
  for (let g = 1; g < m.length; g++) {
    const v = m[g];
    if (v === undefined) continue;
    const start = text.indexOf(v, from);
    from = start + v.length;
    if (keep(v)) out.push({ start, end: start + v.length, kind });
  }
  return m.index + m[0].length;
}

/**
 * Every format's literal in one pass (each pass over the text costs about as much as the
 * next, whatever it looks for): a line that starts with a key id and a capital (key files;
 * a key file's first line is read by KEY_AT_START), snmpd.conf's directives, a signing key's algorithm, vault's key lines, an option
 * line of ~/.google_authenticator, a Consul `tokens` block.
 */
const GATE = new RegExp(`\\n[ \\t]{0,16}\\d{1,5}[ \\t]+[A-Z]|community|com2sec|createUser|ed25519 |(?:Unseal|Recovery) Key \\d|HOTP[/ \\t]|\\n" [A-Z_]{8}|tokens"?[ \\t]*[:=]?[ \\t]*\\{`, 'g');

/** The value group of a sticky match at `at` as a span of `kind`. */
function value(text: string, at: number, re: RegExp, kind: string, out: Span[]): void {
  re.lastIndex = at;
  const m = re.exec(text);
  if (m) out.push({ start: m.index + m[0].length - m[1]!.length, end: m.index + m[0].length, kind });
}

/** A key line at the text's start (GATE finds one after a newline). */
const KEY_AT_START = /[ \t]{0,16}\d{1,5}[ \t]+[A-Z]/y;

export const serviceKeys: Detector = (text, out) => {
  KEY_AT_START.lastIndex = 0;
  if (KEY_AT_START.test(text)) stickyGroups(text, 0, KEY_LINE, 'ntp_key', out);
  let lineDone = -1; // where the last line read as a key or snmpd.conf line ends: each line is read once
  const keep = (v: string) => !DEFAULT_COMMUNITIES.has(v);
  GATE.lastIndex = 0;
  for (let m; (m = GATE.exec(text)); ) {
    const at = m.index;
    const g = m[0];
    if (g.startsWith('ed25519')) {
      if (at === 0 || !/[\w-]/.test(text[at - 1]!)) value(text, at, SIGNING_KEY, 'private_key', out);
    } else if (g.startsWith('Unseal') || g.startsWith('Recovery')) value(text, at, VAULT_KEY, 'vault_key', out);
    else if (g.startsWith('HOTP')) {
      if (at === 0 || text[at - 1] === '\n') value(text, at, OATH_USER, 'totp_secret', out);
    } else if (g.startsWith('\n"')) GATE.lastIndex = Math.max(GATE.lastIndex, googleAuthenticator(text, at + 1, out));
    else if (g.startsWith('tokens')) {
      if (at === 0 || !/\w/.test(text[at - 1]!)) GATE.lastIndex = Math.max(GATE.lastIndex, consulTokens(text, m, out));
    } else {
      if (at < lineDone) continue;
      const start = g[0] === '\n' ? at + 1 : lineStart(text, at);
      lineDone = text.indexOf('\n', start) >>> 0; // the line's end (no newline: past any index)
      if (g[0] === 'c') {
        if (stickyGroups(text, start, COMMUNITY, 'snmp_community', out, keep) < 0 && stickyGroups(text, start, COM2SEC, 'snmp_community', out, keep) < 0) stickyGroups(text, start, CREATE_USER, 'password', out);
      } else stickyGroups(text, start, KEY_LINE, 'ntp_key', out);
    }
  }
};
