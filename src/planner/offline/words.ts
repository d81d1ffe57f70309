/**
 * The words of an intent, as the offline planner's rules read them: tokens that remember
 * whether a rule used them (what is left over is what the planner did not understand),
 * clauses split at "and"/"then" before a verb, and the extractors every rule shares
 * (unit, package, user and group names, sizes, ports, paths, time zones, host names,
 * addresses, SSH keys, counts). Each extractor takes only tokens no rule used yet.
 */

export interface Token {
  /** The word as written, punctuation around it stripped (a quoted phrase is one token). */
  raw: string;
  /** Lower case, a possessive 's dropped ("alice's" -> "alice"). */
  low: string;
  used: boolean;
  /** Written between quotes, or a whole public key: a value, never a keyword. */
  literal: boolean;
  /** The word was followed by "," or ";" (a possible clause end). */
  comma: boolean;
}

/** Words that carry no meaning for any rule: never reported as not understood. */
export const STOPWORDS = new Set(
  ('a an the this that these those please pls kindly can could would will should you we i me my our us it its them their his her ' +
    'is are was were be been being am do does did done to of on in at for from with by as into onto over under about up here there now ' +
    'just also some any all every each what which who whom how when where why whether if so then and or but not no nor yes ' +
    'let lets want need like go get got have has had make sure quickly currently right machine server host box system ' +
    'thing things one ones too very really bit little much many more most same other another again still only via using use ' +
    'okay ok hey hi thanks thank whatever maybe shall may must tell give than own new old').split(/\s+/),
);

/** Software whose name is also a word some rule triggers on: still a package or unit name when unused. */
const SOFTWARE = new Set(['fail2ban', 'auditd', 'apparmor', 'ufw', 'nftables', 'podman', 'cron', 'ntp', 'sshd', 'lvm2', 'logrotate', 'journald', 'firewalld', 'iptables', 'sudo', 'openssh', 'dnsmasq', 'chrony', 'rsyslog', 'lsof', 'htop', 'ssh', 'curl', 'docker', 'wireguard']);

/** "what's" is "what is", not the possessive of "what". */
const CONTRACTIONS: Record<string, string[]> = {
  "can't": ['can', 'not'], "cannot": ['can', 'not'], "don't": ['do', 'not'], "doesn't": ['does', 'not'], "won't": ['will', 'not'], "isn't": ['is', 'not'], "aren't": ['are', 'not'],
  "what's": ['what', 'is'], "it's": ['it', 'is'], "that's": ['that', 'is'], "who's": ['who', 'is'], "there's": ['there', 'is'], "here's": ['here', 'is'], "where's": ['where', 'is'], "let's": ['let', 'us'], "how's": ['how', 'is'],
};

/** Words that join two requests when a verb follows them. */
const JOINERS = new Set(['and', 'then', 'also', 'afterwards', 'after', 'next', 'finally', 'plus']);

const QUOTE = /^["'“”‘’`]|["'“”‘’`]$/g;
const EDGE_PUNCT = /^[(\[{<"'“”‘’`]+|[)\]}>"'“”‘’`.,;:!?]+$/g;

/** Public key types OpenSSH writes in authorized_keys (the key is public: not a secret). */
const SSH_KEY = /\b(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\s+[A-Za-z0-9+/]{16,}={0,3}(?:\s+[A-Za-z0-9._@+-]*@[A-Za-z0-9._+-]+)?/g;

/** At most this many tokens are read from one intent (the intent's length is capped before, too). */
export const MAX_TOKENS = 400;

/** Split an intent into tokens: public keys and quoted phrases whole, other words at white space. */
export function tokenize(intent: string): Token[] {
  const tokens: Token[] = [];
  const pieces: { text: string; literal: boolean }[] = [];
  // Public keys and quoted phrases first: their spaces are part of the value.
  const literal = new RegExp(`${SSH_KEY.source}|"[^"\\n]{1,200}"|“[^”\\n]{1,200}”`, 'g');
  let last = 0;
  for (const m of intent.matchAll(literal)) {
    pieces.push({ text: intent.slice(last, m.index), literal: false });
    pieces.push({ text: m[0], literal: true });
    last = m.index + m[0].length;
  }
  pieces.push({ text: intent.slice(last), literal: false });
  for (const p of pieces) {
    if (p.literal) {
      const raw = p.text.replace(QUOTE, '').trim();
      tokens.push({ raw, low: raw.toLowerCase(), used: false, literal: true, comma: false });
      continue;
    }
    for (const word of p.text.split(/\s+/)) {
      if (word === '') continue;
      const comma = /[,;]$/.test(word);
      const raw = word.replace(EDGE_PUNCT, '');
      if (raw === '') {
        const prev = tokens[tokens.length - 1];
        if (comma && prev) prev.comma = true;
        continue;
      }
      const lower = raw.toLowerCase().replace(/’/g, "'");
      const contraction = CONTRACTIONS[lower];
      if (contraction !== undefined) {
        for (const w of contraction) tokens.push({ raw: w, low: w, used: false, literal: false, comma: false });
        if (comma) tokens[tokens.length - 1]!.comma = true;
        continue;
      }
      const low = lower.replace(/'s$/, '');
      tokens.push({ raw, low, used: false, literal: false, comma });
    }
  }
  return tokens.slice(0, MAX_TOKENS);
}

/** Words that point back at a thing named before: after a joiner, "WORD it" is a request ("and frobnicate it"), never a name in a list. */
const POINTING_BACK = new Set(['it', 'its', 'them', 'him', 'her', 'their']);

/**
 * Split at a joiner ("and", "then", a comma) that a request follows: a verb some rule knows
 * ("restart nginx and show its logs" is two requests, "install htop and curl" is one), any
 * word then a pronoun ("install nginx and frobnicate it": a request no rule knows, which
 * must not pass for a package name), or anything after "then".
 */
export function splitClauses(tokens: Token[], verbs: ReadonlySet<string>): Token[][] {
  const clauses: Token[][] = [[]];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    let j = i + 1;
    while (j < tokens.length && JOINERS.has(tokens[j]!.low)) j++;
    const next = tokens[j];
    const nextIsVerb = next !== undefined && !next.literal && (verbs.has(next.low) || (!STOPWORDS.has(next.low) && POINTING_BACK.has(tokens[j + 1]?.low ?? '')) || (t.low === 'then' && !t.literal));
    if (!t.literal && JOINERS.has(t.low)) {
      const prev = clauses[clauses.length - 1]!;
      if (nextIsVerb && prev.length > 0) {
        t.used = true;
        clauses.push([]);
        continue;
      }
    }
    clauses[clauses.length - 1]!.push(t);
    if (t.comma && nextIsVerb) clauses.push([]);
  }
  return clauses.filter((c) => c.length > 0);
}

/** One request: its tokens and what the rules took from them. */
export class Clause {
  constructor(
    readonly tokens: Token[],
    /** Every word some rule triggers on: never taken as a name. */
    private readonly keywords: ReadonlySet<string>,
  ) {}

  /** Where a phrase ("disk space") starts among the unused tokens, or -1. */
  find(phrase: string): number {
    const words = phrase.split(' ');
    outer: for (let i = 0; i + words.length <= this.tokens.length; i++) {
      for (let k = 0; k < words.length; k++) {
        const t = this.tokens[i + k]!;
        if (t.literal || t.used || t.low !== words[k]) continue outer;
      }
      return i;
    }
    return -1;
  }

  /** The phrase is in the clause, used or not (a trigger can also carry a value: "bring eth1 down"). */
  said(phrase: string): boolean {
    const words = phrase.split(' ');
    for (let i = 0; i + words.length <= this.tokens.length; i++) {
      if (words.every((w, k) => !this.tokens[i + k]!.literal && this.tokens[i + k]!.low === w)) {
        for (let k = 0; k < words.length; k++) this.tokens[i + k]!.used = true;
        return true;
      }
    }
    return false;
  }

  /** The first of the phrases said, used or not (marked used). */
  saidAny(phrases: readonly string[]): string | null {
    for (const p of phrases) if (this.said(p)) return p;
    return null;
  }

  has(phrase: string): boolean {
    return this.find(phrase) >= 0;
  }

  /** Mark a phrase used; true when it was there. */
  take(phrase: string): boolean {
    const i = this.find(phrase);
    if (i < 0) return false;
    for (let k = 0; k < phrase.split(' ').length; k++) this.tokens[i + k]!.used = true;
    return true;
  }

  /** The first of the phrases present (taken), or null. */
  takeAny(phrases: readonly string[]): string | null {
    for (const p of phrases) if (this.take(p)) return p;
    return null;
  }

  /** The first unused token that passes `test` (taken), its raw text. */
  takeToken(test: (t: Token, i: number) => boolean): string | null {
    const i = this.tokens.findIndex((t, k) => !t.used && test(t, k));
    if (i < 0) return null;
    this.tokens[i]!.used = true;
    return this.tokens[i]!.raw;
  }

  /** Every unused token that passes `test` (taken). */
  takeTokens(test: (t: Token) => boolean): string[] {
    const out: string[] = [];
    for (const t of this.tokens) {
      if (!t.used && test(t)) {
        t.used = true;
        out.push(t.raw);
      }
    }
    return out;
  }

  /** The unused token right after a word ("user alice", "group docker"), taken with it. */
  after(words: readonly string[], test: (t: Token) => boolean): string | null {
    for (let i = 0; i + 1 < this.tokens.length; i++) {
      const w = this.tokens[i]!;
      const t = this.tokens[i + 1]!;
      if (words.includes(w.low) && !w.literal && !t.used && test(t)) {
        w.used = true;
        t.used = true;
        return t.raw;
      }
    }
    return null;
  }

  /** The unused token right before a word ("docker group"), taken with it. */
  before(words: readonly string[], test: (t: Token) => boolean): string | null {
    for (let i = 1; i < this.tokens.length; i++) {
      const w = this.tokens[i]!;
      const t = this.tokens[i - 1]!;
      if (words.includes(w.low) && !w.literal && !t.used && test(t)) {
        w.used = true;
        t.used = true;
        return t.raw;
      }
    }
    return null;
  }

  /** A plain word that could be a name: not a stopword, not a keyword (unless it names software), not a literal. */
  isName(t: Token): boolean {
    return !t.literal && !STOPWORDS.has(t.low) && (!this.keywords.has(t.low) || SOFTWARE.has(t.low));
  }

  /** Words no rule used and that mean something: what the planner did not understand. */
  leftover(): string[] {
    return this.tokens.filter((t) => !t.used && !t.literal && !STOPWORDS.has(t.low) && !/^[^\p{L}\p{N}]+$/u.test(t.low)).map((t) => t.raw);
  }
}

// ---- Shapes of values, as the catalogue's schemas take them ----

export const NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
export const UNIT = /^[A-Za-z0-9:_.@-]{1,240}\.(service|socket|timer|target|path|mount)$/;
export const UNIT_BASE = /^[a-z0-9][a-z0-9:_.@-]{0,230}$/;
export const PACKAGE = /^[a-z0-9][a-z0-9+.-]{1,99}$/;
export const PATH = /^\/[A-Za-z0-9_.*@+:,=/-]*$/;
export const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
export const IPV6 = /^[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}$/i;
export const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
export const LABEL = /^(?=.{1,63}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const SYSCTL = /^(net|kernel|vm|fs|dev|user|abi|crypto)(\.[a-z0-9_-]+)+$/;
export const DATE = /^(19[7-9]\d|2\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
export const INTERFACE = /^(eth|ens|enp|eno|wlan|wlp|br|bond|vlan|wg|tun|tap|veth|docker|virbr)[A-Za-z0-9_.-]{0,12}$/;

export function isIp(s: string): boolean {
  return IPV4.test(s) || (s.includes(':') && IPV6.test(s));
}

export function isCidr(s: string): boolean {
  const [ip, bits, extra] = s.split('/');
  return extra === undefined && bits !== undefined && /^\d{1,3}$/.test(bits) && isIp(ip!);
}

// ---- Extractors: each reads the unused tokens of a clause ----

/** An unused IP address (or, with `cidr`, a CIDR network too). */
export function takeIp(c: Clause, opts: { cidr?: boolean } = {}): string | null {
  return c.takeToken((t) => isIp(t.low) || (opts.cidr === true && isCidr(t.low)));
}

export function takeCidr(c: Clause): string | null {
  return c.takeToken((t) => isCidr(t.low));
}

/** A path token; `under` keeps only those starting with one of the prefixes. */
export function takePath(c: Clause, under: readonly string[] = ['/']): string | null {
  return c.takeToken((t) => !t.literal && PATH.test(t.raw) && t.raw.length > 1 && under.some((u) => u === '/' || t.raw === u || t.raw.startsWith(`${u}/`)));
}

/** A count: "last 50 lines", "50 lines", "top 20" (taken with its noun). */
export function takeCount(c: Clause, nouns: readonly string[] = ['lines', 'line', 'entries', 'messages', 'errors']): number | null {
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i]!;
    if (t.used || !/^\d{1,5}$/.test(t.low)) continue;
    const next = c.tokens[i + 1];
    const prev = c.tokens[i - 1];
    if ((next && nouns.includes(next.low)) || (prev && ['last', 'latest', 'recent', 'top', 'first'].includes(prev.low))) {
      t.used = true;
      if (next && nouns.includes(next.low)) next.used = true;
      if (prev && ['last', 'latest', 'recent', 'top'].includes(prev.low)) prev.used = true;
      return Number(t.low);
    }
  }
  return null;
}

/** A plain integer token (taken), optionally only within a range. */
export function takeNumber(c: Clause, min = 0, max = Number.MAX_SAFE_INTEGER): number | null {
  const s = c.takeToken((t) => /^\d{1,9}$/.test(t.low) && Number(t.low) >= min && Number(t.low) <= max);
  return s === null ? null : Number(s);
}

/** A number just before one of the words ("90 days", "14 rotations"): taken with the word. */
export function takeNumberBefore(c: Clause, words: readonly string[]): number | null {
  const n = c.before(words, (t) => /^\d{1,9}$/.test(t.low));
  return n === null ? null : Number(n);
}

/** A number just after one of the words ("keep 14", "maxretry 3"). */
export function takeNumberAfter(c: Clause, words: readonly string[]): number | null {
  const n = c.after(words, (t) => /^\d{1,9}$/.test(t.low));
  return n === null ? null : Number(n);
}

export interface Size {
  value: number;
  /** K, M, G or T. */
  unit: 'K' | 'M' | 'G' | 'T';
}

const SIZE = /^(\d{1,7})\s*([kmgt])(?:i?b)?$/i;
const SIZE_UNIT = /^([kmgt])(?:i?b)?$/i;

/** A size: "10G", "500M", "2 GB", "512MiB". */
export function takeSize(c: Clause): Size | null {
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i]!;
    if (t.used || t.literal) continue;
    const m = SIZE.exec(t.low);
    if (m) {
      t.used = true;
      return { value: Number(m[1]), unit: m[2]!.toUpperCase() as Size['unit'] };
    }
    const next = c.tokens[i + 1];
    const u = next && !next.used ? SIZE_UNIT.exec(next.low) : null;
    if (/^\d{1,7}$/.test(t.low) && u) {
      t.used = true;
      next!.used = true;
      return { value: Number(t.low), unit: u[1]!.toUpperCase() as Size['unit'] };
    }
  }
  return null;
}

export function sizeInMiB(s: Size): number {
  return s.unit === 'K' ? Math.ceil(s.value / 1024) : s.unit === 'M' ? s.value : s.unit === 'G' ? s.value * 1024 : s.value * 1024 * 1024;
}

/** Well-known services by the name a person says, to their port. */
const SERVICE_PORTS: Record<string, { port: number; protocol: 'tcp' | 'udp' }> = {
  https: { port: 443, protocol: 'tcp' },
  http: { port: 80, protocol: 'tcp' },
  ssh: { port: 22, protocol: 'tcp' },
  smtp: { port: 25, protocol: 'tcp' },
  dns: { port: 53, protocol: 'udp' },
  mysql: { port: 3306, protocol: 'tcp' },
  mariadb: { port: 3306, protocol: 'tcp' },
  postgres: { port: 5432, protocol: 'tcp' },
  postgresql: { port: 5432, protocol: 'tcp' },
  redis: { port: 6379, protocol: 'tcp' },
  imaps: { port: 993, protocol: 'tcp' },
  ntp: { port: 123, protocol: 'udp' },
  wireguard: { port: 51820, protocol: 'udp' },
};

export interface Port {
  port: number;
  protocol: 'tcp' | 'udp';
  /** How the person said it, for the step's reason. */
  from: string;
}

/** A port: "443/tcp", "port 53 udp", "8080", or a service name ("https"). */
export function takePort(c: Clause, opts: { byName?: boolean } = { byName: true }): Port | null {
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i]!;
    if (t.used || t.literal) continue;
    const m = /^(\d{1,5})(?:\/(tcp|udp))?$/.exec(t.low);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= 65535) {
      const prev = c.tokens[i - 1];
      const isPort = m[2] !== undefined || (prev !== undefined && ['port', 'ports', 'on'].includes(prev.low));
      if (!isPort) continue;
      t.used = true;
      if (prev && ['port', 'ports'].includes(prev.low)) prev.used = true;
      let protocol = (m[2] as 'tcp' | 'udp' | undefined) ?? null;
      const next = c.tokens[i + 1];
      if (protocol === null && next && !next.used && (next.low === 'tcp' || next.low === 'udp')) {
        next.used = true;
        protocol = next.low;
      }
      if (protocol === null) protocol = c.take('udp') ? 'udp' : (c.take('tcp'), 'tcp');
      for (const name of Object.keys(SERVICE_PORTS)) if (SERVICE_PORTS[name]!.port === Number(m[1])) c.take(name);
      return { port: Number(m[1]), protocol, from: t.raw };
    }
  }
  if (opts.byName !== false) {
    // "open port 443 for https": the service name is understood, the number decides.
    for (const t of c.tokens) {
      const known = !t.used && !t.literal ? SERVICE_PORTS[t.low] : undefined;
      if (known) {
        t.used = true;
        return { ...known, from: t.raw };
      }
    }
  }
  return null;
}

/** A time zone: "Europe/Paris", "UTC", or a city a person names. */
const CITY_ZONES: Record<string, string> = {
  paris: 'Europe/Paris', london: 'Europe/London', berlin: 'Europe/Berlin', madrid: 'Europe/Madrid', rome: 'Europe/Rome',
  amsterdam: 'Europe/Amsterdam', brussels: 'Europe/Brussels', zurich: 'Europe/Zurich', vienna: 'Europe/Vienna', stockholm: 'Europe/Stockholm',
  tokyo: 'Asia/Tokyo', singapore: 'Asia/Singapore', sydney: 'Australia/Sydney', chicago: 'America/Chicago', denver: 'America/Denver',
  'new_york': 'America/New_York', 'los_angeles': 'America/Los_Angeles', toronto: 'America/Toronto', 'sao_paulo': 'America/Sao_Paulo',
};

/** A time zone is named in the clause (a zone, UTC or a known city). */
export function hasTimezone(c: Clause): boolean {
  return c.tokens.some((t) => !t.literal && (/^[A-Z][A-Za-z_+-]*\/[A-Za-z0-9_+-]+/.test(t.raw) || t.low === 'utc' || CITY_ZONES[t.low] !== undefined)) || c.has('new york') || c.has('los angeles');
}

export function takeTimezone(c: Clause): string | null {
  const explicit = c.takeToken((t) => !t.literal && (/^(UTC|[A-Z][A-Za-z_+-]*(\/[A-Za-z0-9_+-]+){1,2})$/.test(t.raw) || t.low === 'utc'));
  if (explicit !== null) return explicit.toLowerCase() === 'utc' ? 'UTC' : explicit;
  for (const two of [['new', 'york'], ['los', 'angeles'], ['sao', 'paulo']] as const) {
    if (c.take(two.join(' '))) return CITY_ZONES[two.join('_')]!;
  }
  const city = c.takeToken((t) => !t.literal && CITY_ZONES[t.low] !== undefined);
  return city === null ? null : CITY_ZONES[city.toLowerCase()]!;
}

/** A duration as systemd and journald write it: "2 weeks" -> "2weeks", "30d" -> "30d". */
export function takeDuration(c: Clause): string | null {
  const units: Record<string, string> = {
    s: 's', sec: 's', secs: 's', second: 's', seconds: 's', min: 'min', mins: 'min', minute: 'min', minutes: 'min', h: 'h', hour: 'h', hours: 'h',
    d: 'd', day: 'days', days: 'days', w: 'w', week: 'weeks', weeks: 'weeks', month: 'months', months: 'months', year: 'years', years: 'years',
  };
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i]!;
    if (t.used || t.literal) continue;
    const one = /^([1-9]\d{0,5})(s|min|h|d|w|days|weeks|months|years)$/.exec(t.low);
    if (one) {
      t.used = true;
      return `${one[1]}${one[2]}`;
    }
    const next = c.tokens[i + 1];
    if (/^[1-9]\d{0,5}$/.test(t.low) && next && !next.used && units[next.low] !== undefined) {
      t.used = true;
      next.used = true;
      return `${t.low}${units[next.low]}`;
    }
  }
  return null;
}

/** An OpenSSH public key, written whole in the intent. */
export function takeSshKey(c: Clause): string | null {
  return c.takeToken((t) => t.literal && /^(ssh-|ecdsa-|sk-)/.test(t.raw));
}

/** A quoted phrase. */
export function takeQuoted(c: Clause): string | null {
  return c.takeToken((t) => t.literal && !/^(ssh-|ecdsa-|sk-)/.test(t.raw));
}

/** On/off words: true for on/enable, false for off/disable, null when neither is said. */
export function takeSwitch(c: Clause): boolean | null {
  if (c.takeAny(['enable', 'enabled', 'on', 'activate', 'turn on', 'switch on', 'start', 'yes'])) return true;
  if (c.takeAny(['disable', 'disabled', 'off', 'deactivate', 'turn off', 'switch off', 'stop', 'no'])) return false;
  return null;
}
