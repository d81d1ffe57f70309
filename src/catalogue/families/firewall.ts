/**
 * Firewall: three layers, each changed only through its own tool.
 *
 * - nftables. Airlock owns one table, `inet airlock` (base chains `input` and
 *   `forward` on the filter hooks at priority 0), and never touches another. Every
 *   change rebuilds the table's whole desired state from the live table plus the one
 *   change, writes it to /etc/airlock/nftables-airlock.nft, checks it with
 *   `nft --check --file` and loads it with `nft --file`: one kernel transaction
 *   (`flush table` and the table's definition), so the table is never half-updated and
 *   rule handles only grow (a stale handle never names another rule). The same file
 *   is loaded at boot by airlock-nftables.service, which the first change installs.
 * - ufw: rules allowed, denied and deleted with the ufw command (ufw keeps them in
 *   /etc/ufw/user*.rules itself); offered only where ufw is installed.
 * - fail2ban: status, manual bans and unbans with fail2ban-client, and a fixed set of
 *   jail options in the drop-in /etc/fail2ban/jail.d/60-airlock.local, checked with
 *   `fail2ban-client --test` before the jail is reloaded.
 * - firewalld, on Fedora and RHEL where it runs: AllowPort, DenyPort, AllowSource,
 *   DenySource and RemoveFirewallRule (by rule, not by handle) change its default zone
 *   with `firewall-cmd --permanent` and `--reload`, since its own table would still
 *   reject what table inet airlock accepts. SetDefaultPolicy is nft-only (refused where
 *   firewalld runs), and a rule handle always names a rule of table inet airlock.
 *
 * What could cut SSH off is refused: a drop rule or ban covering the peer of an open
 * SSH session, a deny of the SSH port, a default drop policy with no rule accepting SSH.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, ALL_PLATFORMS, RHEL_LIKE, type CommandOutput, type Host } from '../action.js';
import { command, fileWrite, type Step } from '../mechanism.js';
import { params, port, token } from '../params.js';
import { PROGRAMS_FIREWALL } from '../programs/firewall.js';
import { fixedRead } from '../lib/fixed-read.js';
import { listDirectory } from '../lib/host-files.js';

// ---------------------------------------------------------------- addresses

/** An IPv4 or IPv6 network (a single address is a /32 or /128). */
export interface Net {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

const width = (family: 4 | 6) => (family === 4 ? 32 : 128);

function v4Bits(addr: string): bigint {
  return addr.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function v6Bits(addr: string): bigint {
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const hex = addr.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, tail] = hex.includes('::') ? hex.split('::') : [hex, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const words = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return words.reduce((acc, w) => (acc << 16n) | BigInt(parseInt(w, 16)), 0n);
}

/** Parses "ADDRESS" or "ADDRESS/PREFIX"; null for anything else (zone ids, leading zeros, junk). */
export function parseNet(text: string): Net | null {
  const m = /^([0-9A-Fa-f:.]+)(?:\/(0|[1-9][0-9]{0,2}))?$/.exec(text);
  if (!m) return null;
  const family = isIP(m[1]!);
  if (family !== 4 && family !== 6) return null;
  const prefix = m[2] === undefined ? width(family) : Number(m[2]);
  if (prefix > width(family)) return null;
  return { family, bits: family === 4 ? v4Bits(m[1]!) : v6Bits(m[1]!), prefix };
}

const hostMask = (n: Net) => (1n << BigInt(width(n.family) - n.prefix)) - 1n;
export const hasHostBits = (n: Net) => (n.bits & hostMask(n)) !== 0n;

/** True when `inner` lies within `outer` (same family, longer or equal prefix, same leading bits). */
export function netContains(outer: Net, inner: Net): boolean {
  if (outer.family !== inner.family || inner.prefix < outer.prefix) return false;
  const shift = BigInt(width(outer.family) - outer.prefix);
  return outer.bits >> shift === inner.bits >> shift;
}

const netsOverlap = (a: Net, b: Net) => netContains(a, b) || netContains(b, a);

function v4Text(bits: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 255n)).join('.');
}

/** IPv6 text as glibc's inet_ntop (and so nft) prints it: RFC 5952, with ::ffff:a.b.c.d and ::a.b.c.d dotted. */
function v6Text(bits: bigint): string {
  const words = [7, 6, 5, 4, 3, 2, 1, 0].map((i) => Number((bits >> BigInt(i * 16)) & 0xffffn));
  let best = { base: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { base: i, len: j - i };
    i = j;
  }
  if (best.len < 2) best = { base: -1, len: 0 };
  if (best.base === 0 && (best.len === 6 || (best.len === 5 && words[5] === 0xffff))) {
    return `::${best.len === 5 ? 'ffff:' : ''}${v4Text(bits & 0xffffffffn)}`;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best.base < 0) return hex(words);
  return `${hex(words.slice(0, best.base))}::${hex(words.slice(best.base + best.len))}`;
}

/** The canonical text nft prints: a single address without /32 or /128. */
export function netText(n: Net): string {
  const addr = n.family === 4 ? v4Text(n.bits) : v6Text(n.bits);
  return n.prefix === width(n.family) ? addr : `${addr}/${n.prefix}`;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, as ss shows dual-stack peers) as plain IPv4. */
function unmapped(n: Net): Net {
  if (n.family === 6 && n.prefix === 128 && n.bits >> 32n === 0xffffn) return { family: 4, bits: n.bits & 0xffffffffn, prefix: 32 };
  return n;
}

const LOOPBACK = [parseNet('127.0.0.0/8')!, parseNet('::1')!];
const UNSPECIFIED = [parseNet('0.0.0.0')!, parseNet('::')!];
const isLoopback = (n: Net) => LOOPBACK.some((l) => netsOverlap(l, n));

// ---------------------------------------------------------------- parameters

/** An IPv4/IPv6 address or CIDR network, as a firewall rule's source. Not /0 (that is a default policy). */
export const sourceAddress = token(/^[0-9A-Fa-f:.]+(\/[0-9]{1,3})?$/, 'source address', 49)
  .refine((s) => parseNet(s) !== null, 'source must be an IPv4 or IPv6 address or a CIDR network (203.0.113.7, 203.0.113.0/24, 2001:db8::/32)')
  .refine((s) => !hasHostBits(parseNet(s) ?? { family: 4, bits: 0n, prefix: 32 }), 'the network has bits set after its prefix: give the network address (10.0.0.0/8, not 10.0.0.1/8)')
  .refine((s) => (parseNet(s)?.prefix ?? 1) > 0, 'a /0 network matches every address: SetDefaultPolicy decides what happens to all traffic')
  .describe('an IPv4 or IPv6 address or CIDR network (203.0.113.0/24, 2001:db8::/32)');

/** One IPv4 or IPv6 host address (no network, no zone id). */
export const hostAddress = token(/^[0-9A-Fa-f:.]+$/, 'IP address', 45).refine((s) => parseNet(s) !== null, 'must be an IPv4 or IPv6 address');

export const protocol = z.enum(['tcp', 'udp']);
export const ruleHandle = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('the rule handle that ListRuleset shows after `# handle`');
export const jailName = token(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'jail name', 64);

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
export const durationSeconds = (s: string) => Number(s.replace(/[smhdw]$/, '')) * (DURATION_UNITS[s.slice(-1)] ?? 1);
/** A fail2ban time: seconds or a number with s, m, h, d or w; 1 second to 365 days. */
export const duration = token(/^[1-9][0-9]{0,7}[smhdw]?$/, 'duration (600, 10m, 1h, 1d, 1w)', 9).refine((s) => durationSeconds(s) <= 365 * 86400, 'duration must be at most 365 days');

// ---------------------------------------------------------------- sockets: what SSH depends on

export interface Listener {
  proto: string;
  address: string;
  port: number;
  processes: string[];
}

export interface Sockets {
  listeners: Listener[];
  /** Ports sshd listens on (22 when no sshd is seen listening). */
  sshPorts: number[];
  /** Open SSH sessions: the local port and the peer's address. */
  sshPeers: Array<{ port: number; peer: string }>;
}

/** "0.0.0.0:22", "[::]:22", "127.0.0.53%lo:53", "[::ffff:10.0.0.5]:22" -> address and port. */
function parseEndpoint(tok: string): { address: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^\s%[\]]+))(?:%[^\s:]+)?:(\d+)$/.exec(tok);
  return m ? { address: (m[1] ?? m[2])!, port: Number(m[3]) } : null;
}

/** Parses `ss -H -l -n -t -u -p` (listeners) and `ss -H -n -t state established` (sessions). */
export function parseSockets(listening: string, established: string): Sockets {
  const listeners: Listener[] = [];
  for (const line of listening.split('\n')) {
    const toks = line.trim().split(/\s+/);
    const local = toks.map(parseEndpoint).find((e) => e !== null);
    if (!local) continue;
    const processes = [...new Set([...line.matchAll(/\("([^"]+)",/g)].map((m) => m[1]!))];
    listeners.push({ proto: toks[0] === 'udp' ? 'udp' : 'tcp', ...local, processes });
  }
  const sshd = listeners.filter((l) => l.proto === 'tcp' && l.processes.includes('sshd')).map((l) => l.port);
  const sshPorts = sshd.length ? [...new Set(sshd)].sort((a, b) => a - b) : [22];
  const sshPeers: Sockets['sshPeers'] = [];
  for (const line of established.split('\n')) {
    const ends = line.trim().split(/\s+/).flatMap((t) => parseEndpoint(t) ?? []);
    const peer = ends[1] ? parseNet(ends[1].address) : null;
    if (!ends[0] || !peer || !sshPorts.includes(ends[0].port)) continue;
    sshPeers.push({ port: ends[0].port, peer: netText(unmapped(peer)) });
  }
  return { listeners, sshPorts, sshPeers };
}

export async function readSockets(host: Host): Promise<Sockets> {
  const l = await host.run('ss', ['-H', '-l', '-n', '-t', '-u', '-p']);
  const e = await host.run('ss', ['-H', '-n', '-t', 'state', 'established']);
  if (l.code !== 0 || e.code !== 0) {
    throw new AirlockError('execution', 'sockets_unreadable', 'ss could not list the sockets, so Airlock cannot tell whether this change would cut SSH off', 'is iproute2 installed?');
  }
  return parseSockets(l.stdout, e.stdout);
}

const peersOn = (s: Sockets, p: number) => s.sshPeers.filter((x) => x.port === p).map((x) => parseNet(x.peer)!);

function lockOutError(problems: string[], hint: string): AirlockError {
  return new AirlockError('authorization', 'would_lock_out', `this change could cut SSH off: ${problems.join('; ')}`, hint);
}

/** Is a program of the table installed at one of its candidate paths? */
async function installed(host: Host, program: keyof typeof PROGRAMS_FIREWALL): Promise<boolean> {
  for (const p of PROGRAMS_FIREWALL[program]) if ((await host.stat(p))?.isFile) return true;
  return false;
}

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

// ---------------------------------------------------------------- nftables: the table Airlock owns

export const NFT_FILE = '/etc/airlock/nftables-airlock.nft';
export const NFT_UNIT = 'airlock-nftables.service';
const NFT_UNIT_PATH = `/etc/systemd/system/${NFT_UNIT}`;
const NFT_UNIT_LINK = `/etc/systemd/system/sysinit.target.wants/${NFT_UNIT}`;
const NFT_FILES = [NFT_FILE, NFT_UNIT_PATH];

/** Loads the table at boot, after nftables.service (whose `flush ruleset` would drop it) and again whenever that one restarts or reloads. */
export const NFT_UNIT_TEXT = `# Installed by Airlock: loads its firewall table (inet airlock) at boot.
[Unit]
Description=Airlock firewall table (inet airlock)
Documentation=file:${NFT_FILE}
ConditionPathExists=${NFT_FILE}
DefaultDependencies=no
Wants=network-pre.target
Before=network-pre.target shutdown.target
After=nftables.service
PartOf=nftables.service
ReloadPropagatedFrom=nftables.service
Conflicts=shutdown.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/nft --file ${NFT_FILE}
ExecReload=/usr/sbin/nft --file ${NFT_FILE}

[Install]
WantedBy=sysinit.target
`;

export const CHAINS = ['input', 'forward'] as const;
export type ChainName = (typeof CHAINS)[number];
export type Policy = 'accept' | 'drop';
/** A rule as nft prints it; `handle` is absent for a rule this change adds. */
export interface Rule {
  handle?: number;
  text: string;
}
export type TableModel = Record<ChainName, { policy: Policy; rules: Rule[] }>;

export interface LiveTable {
  exists: boolean;
  chains: TableModel;
  /** The base chains the live table has (a chain deleted by hand is missing). */
  present: ChainName[];
  /** What the table holds that Airlock did not write (other chains, sets, changed hooks). */
  unmanaged: string[];
}

const chainHeader = (c: ChainName, p: Policy) => `type filter hook ${c} priority filter; policy ${p};`;
const emptyModel = (): TableModel => ({ input: { policy: 'accept', rules: [] }, forward: { policy: 'accept', rules: [] } });

/** Parses `nft --handle --stateless list table inet airlock`. */
export function parseTable(listing: string): LiveTable {
  const chains = emptyModel();
  const unmanaged: string[] = [];
  const present: ChainName[] = [];
  let chain: ChainName | null = null;
  let headerSeen = false;
  let skipDepth = 0; // inside a block Airlock does not manage
  for (const raw of listing.split('\n')) {
    const m = /^(.*?)(?: # handle (\d+))?$/.exec(raw.trim())!;
    const line = m[1]!;
    const braces = line.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    if (skipDepth > 0) {
      skipDepth += (braces.match(/\{/g) ?? []).length - (braces.match(/\}/g) ?? []).length;
      continue;
    }
    if (line === '' || /^table inet airlock \{$/.test(line)) continue;
    if (chain === null) {
      if (line === '}') continue;
      const c = /^chain (\S+) \{$/.exec(line);
      if (c && (CHAINS as readonly string[]).includes(c[1]!)) {
        chain = c[1] as ChainName;
        present.push(chain);
        headerSeen = false;
        continue;
      }
      unmanaged.push(line.replace(/ \{$/, ''));
      skipDepth = Math.max(0, (braces.match(/\{/g) ?? []).length - (braces.match(/\}/g) ?? []).length);
      continue;
    }
    if (line === '}') {
      chain = null;
      continue;
    }
    if (!headerSeen) {
      headerSeen = true;
      const policy = (['accept', 'drop'] as const).find((p) => line === chainHeader(chain!, p));
      if (policy) {
        chains[chain].policy = policy;
        continue;
      }
      unmanaged.push(`chain ${chain}: ${line}`);
      continue;
    }
    if (m[2] === undefined) unmanaged.push(`chain ${chain}: ${line}`);
    else chains[chain].rules.push({ handle: Number(m[2]), text: line });
  }
  return { exists: true, chains, present, unmanaged };
}

/** The desired-state file: the whole table, loaded in one transaction. */
export function renderTable(t: TableModel): string {
  const chain = (c: ChainName) => [`\tchain ${c} {`, `\t\t${chainHeader(c, t[c].policy)}`, ...t[c].rules.map((r) => `\t\t${r.text}`), '\t}'];
  return [
    '#!/usr/sbin/nft -f',
    '# Managed by Airlock: the desired state of table inet airlock, loaded at boot by',
    `# ${NFT_UNIT}. Airlock rewrites this file from the live table on every firewall`,
    '# change and never touches another table; change this one through Airlock.',
    'table inet airlock',
    'flush table inet airlock',
    'table inet airlock {',
    ...chain('input'),
    ...chain('forward'),
    '}',
    '',
  ].join('\n');
}

export interface NftState {
  table: LiveTable;
  /** Other nftables tables (ufw's and fail2ban's iptables-nft tables, Docker's, ...). */
  otherTables: string[];
  /** The saved desired-state file, or null. */
  saved: string | null;
  unit: { current: boolean; enabled: boolean; masked: boolean };
  sockets: Sockets;
}

export async function readNft(host: Host): Promise<NftState> {
  const r = await host.run('nft', ['--handle', '--stateless', 'list', 'table', 'inet', 'airlock']);
  let table: LiveTable;
  if (r.code === 0) table = parseTable(r.stdout);
  else if (/No such file or directory/.test(r.stderr)) table = { exists: false, chains: emptyModel(), present: [], unmanaged: [] };
  else {
    throw new AirlockError('execution', 'nft_unreadable', `nft could not list table inet airlock (exit status ${r.code}): ${firstLine(r.stderr)}`, 'is the nf_tables kernel module available?');
  }
  const tables = await host.run('nft', ['list', 'tables']);
  const otherTables = tables.stdout
    .split('\n')
    .map((l) => l.replace(/^table /, '').trim())
    .filter((t) => t !== '' && t !== 'inet airlock');
  const unitStat = await host.stat(NFT_UNIT_PATH);
  const masked = unitStat?.isSymlink ?? false;
  const unitText = unitStat?.isFile ? await host.readFile(NFT_UNIT_PATH) : null;
  return {
    table,
    otherTables,
    saved: await host.readFile(NFT_FILE),
    unit: { current: unitText === NFT_UNIT_TEXT, enabled: (await host.stat(NFT_UNIT_LINK))?.isSymlink ?? false, masked },
    sockets: await readSockets(host),
  };
}

/** What previews show of the nft state: the rules, not the whole socket table. */
const showNft = (cur: NftState) => ({
  table: cur.table.exists ? Object.fromEntries(CHAINS.map((c) => [c, { policy: cur.table.chains[c].policy, rules: cur.table.chains[c].rules.map((r) => `${r.text} # handle ${r.handle}`) }])) : 'absent',
  unmanaged: cur.table.unmanaged,
  other_tables: cur.otherTables,
  saved_file: cur.saved === null ? 'absent' : cur.saved === renderTable(cur.table.chains) ? 'matches the live table' : 'differs from the live table',
  boot_unit: cur.unit.enabled && cur.unit.current ? 'enabled' : 'not installed or not enabled',
  ssh: { ports: cur.sockets.sshPorts, open_sessions_from: cur.sockets.sshPeers.map((p) => p.peer) },
});

/** The rule shapes Airlock writes (and hand-written rules of the same shape). */
export interface SimpleRule {
  source?: Net;
  protocol?: 'tcp' | 'udp';
  port?: number;
  verdict: Policy;
}

export function parseSimpleRule(text: string): SimpleRule | null {
  const m = /^(?:(ip6?) saddr (\S+) )?(?:(tcp|udp) dport (\d+) )?(accept|drop)(?: comment "[^"]*")?$/.exec(text);
  if (!m) return null;
  const source = m[2] === undefined ? undefined : parseNet(m[2]);
  if (source === null || (source && (source.family === 4) !== (m[1] === 'ip'))) return null;
  return { source, protocol: m[3] as 'tcp' | 'udp' | undefined, port: m[4] === undefined ? undefined : Number(m[4]), verdict: m[5] as Policy };
}

/** The nft text of a rule Airlock writes, as nft itself prints it back. */
export function ruleText(verdict: Policy, m: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }): string {
  const net = m.source === undefined ? null : parseNet(m.source)!;
  const match = [net ? `${net.family === 4 ? 'ip' : 'ip6'} saddr ${netText(net)}` : '', m.protocol ? `${m.protocol} dport ${m.port}` : ''].filter(Boolean);
  const what = ['airlock:', verdict === 'accept' ? 'allow' : 'deny', m.protocol ? `${m.protocol}/${m.port}` : '', net ? `from ${netText(net)}` : ''].filter(Boolean).join(' ');
  return [...match, verdict, `comment "${what}"`].join(' ');
}

/** A rule without its comment: two rules with equal keys match the same packets the same way. */
const ruleKey = (text: string) => text.replace(/ comment "(?:[^"\\]|\\.)*"$/, '');

/** Accepts traffic this host needs once input drops by default: replies, loopback, IPv6 neighbour discovery. */
export const BASELINE_RULES = [
  'ct state established,related accept comment "airlock: replies to connections already accepted or opened by this host"',
  'iif "lo" accept comment "airlock: loopback"',
  'meta l4proto ipv6-icmp accept comment "airlock: ICMPv6, IPv6 needs it for neighbour discovery"',
];
const ESTABLISHED_KEY = ruleKey(BASELINE_RULES[0]!);

const portMatches = (r: SimpleRule, p: number) => r.protocol === undefined || (r.protocol === 'tcp' && r.port === p);

/** A rule as written (nft text or a firewalld entry) and what it means, when Airlock understands it. */
interface ReadRule {
  text: string;
  x: SimpleRule;
}

/**
 * How rules would cut SSH off: drop rules that catch the SSH port or an open SSH session's
 * peer, and, where what no rule accepts is dropped (`dropsByDefault` says so), no rule accepting SSH.
 */
function sshLockout(rules: ReadRule[], dropsByDefault: string | null, s: Sockets): string[] {
  const out: string[] = [];
  for (const p of s.sshPorts) {
    const peers = peersOn(s, p);
    for (const { text, x } of rules) {
      if (x.verdict !== 'drop' || !portMatches(x, p)) continue;
      if (!x.source) out.push(`\`${ruleKey(text)}\` drops every SSH connection to port ${p}`);
      else for (const peer of peers) if (netContains(x.source, peer)) out.push(`\`${ruleKey(text)}\` drops the open SSH session from ${netText(peer)}`);
    }
    if (dropsByDefault !== null) {
      const accepted = rules.some(
        ({ x }) => x.verdict === 'accept' && portMatches(x, p) && (!x.source || (peers.length ? peers.every((peer) => netContains(x.source!, peer)) : x.protocol === 'tcp')),
      );
      if (!accepted) out.push(`${dropsByDefault} and no rule accepts SSH on tcp/${p}${peers.length ? ` from ${peers.map(netText).join(', ')}` : ''}`);
    }
  }
  return out;
}

/** How a table would cut SSH off: sshLockout, and a default drop that does not accept replies either. */
export function lockoutProblems(t: TableModel, s: Sockets): string[] {
  const rules = t.input.rules.flatMap((r) => {
    const x = parseSimpleRule(r.text);
    return x ? [{ text: r.text, x }] : [];
  });
  const out = sshLockout(rules, t.input.policy === 'drop' ? 'input drops by default' : null, s);
  if (t.input.policy === 'drop' && !t.input.rules.some((r) => ruleKey(r.text) === ESTABLISHED_KEY)) {
    out.push('input drops by default and no rule accepts `ct state established,related`: replies to connections this host opens are dropped');
  }
  return out;
}

/** Handles of the rules that stay (new rules have none). */
const keptHandles = (rules: Rule[]) => new Set(rules.flatMap((r) => (r.handle === undefined ? [] : [r.handle])));

const cloneModel = (t: TableModel): TableModel => ({
  input: { policy: t.input.policy, rules: [...t.input.rules] },
  forward: { policy: t.forward.policy, rules: [...t.forward.rules] },
});

/** The refusals every nft change shares: a table Airlock fully understands, and no new way to cut SSH off. */
function checkNftChange(cur: NftState, next: TableModel): void {
  if (cur.table.unmanaged.length) {
    throw new AirlockError(
      'conflict',
      'unmanaged_table_content',
      `table inet airlock holds what Airlock did not write: ${cur.table.unmanaged.join('; ')}`,
      'Airlock owns that table alone: move your own chains, sets and rules to a table of your own, then try again',
    );
  }
  if (cur.unit.masked) throw new AirlockError('conflict', 'boot_unit_masked', `${NFT_UNIT_PATH} is a symbolic link (masked?), so the table could not be loaded at boot`, `remove the link by hand, then try again`);
  const before = new Set(lockoutProblems(cur.table.chains, cur.sockets));
  const added = lockoutProblems(next, cur.sockets).filter((p) => !before.has(p));
  if (added.length) {
    const sshPort = cur.sockets.sshPorts[0]!;
    throw lockOutError(
      added,
      `keep SSH reachable first (AllowPort {"port": ${sshPort}, "protocol": "tcp"}) and keep accepting replies while input drops by default, or have a person at the console make this change`,
    );
  }
}

/** The concrete change: per chain, the policy, rules added and removed, and the rules in order afterwards. */
function nftChange(cur: NftState, next: TableModel) {
  const chains: Record<string, unknown> = {};
  for (const c of CHAINS) {
    const before = cur.table.chains[c];
    const after = next[c];
    const kept = keptHandles(after.rules);
    const add = after.rules.filter((r) => r.handle === undefined).map((r) => r.text);
    const remove = before.rules.filter((r) => !kept.has(r.handle!)).map((r) => `${r.text} # handle ${r.handle}`);
    if (!add.length && !remove.length && before.policy === after.policy) continue;
    chains[c] = {
      policy: before.policy === after.policy ? after.policy : { from: before.policy, to: after.policy },
      add,
      remove,
      rules_after: after.rules.map((r) => r.text),
    };
  }
  return {
    table: 'inet airlock',
    creates_table: !cur.table.exists,
    chains,
    file: NFT_FILE,
    apply: fullLoad(cur)
      ? `writes ${NFT_FILE}, checks it with \`nft --check --file\`, then loads it with \`nft --file\` in one transaction; no other table is touched`
      : `writes ${NFT_FILE} (the whole table, for boot) and checks it with \`nft --check --file\`, then applies only this difference to the live table in one nft transaction: rules that stay keep their handles; no other table is touched`,
    boot:
      cur.unit.enabled && cur.unit.current
        ? `${NFT_UNIT} (enabled) loads ${NFT_FILE} at boot`
        : `${cur.unit.current ? '' : `writes ${NFT_UNIT_PATH} and `}enables ${NFT_UNIT}, which loads ${NFT_FILE} at boot`,
  };
}

function nftWarnings(cur: NftState): string[] {
  const out: string[] = [];
  if (cur.saved !== null && cur.saved !== renderTable(cur.table.chains)) {
    out.push(`${NFT_FILE} differs from the live table (edited by hand, or not loaded): it is rewritten from the live table, and what only the file holds is lost`);
  }
  return out;
}

/** A missing table or chain has no handles to keep: the whole file is loaded instead of a difference. */
const fullLoad = (cur: NftState) => !cur.table.exists || CHAINS.some((c) => !cur.table.present.includes(c));

/**
 * The argv of one nft invocation (one transaction) that turns the live table into
 * `next`: removed rules deleted by handle, new ones inserted after the nearest rule
 * that stays before them (or first), policies set. Rules that stay keep their handles.
 */
export function nftDelta(cur: TableModel, next: TableModel): string[] {
  const cmds: string[][] = [];
  for (const c of CHAINS) {
    const kept = keptHandles(next[c].rules);
    for (const r of cur[c].rules) if (!kept.has(r.handle!)) cmds.push(['delete', 'rule', 'inet', 'airlock', c, 'handle', String(r.handle)]);
    let anchor: number | undefined;
    let run: string[] = [];
    // Each run of new rules is added in reverse at the same place, so it keeps its order.
    const flush = () => {
      for (const text of run.reverse()) cmds.push(anchor === undefined ? ['insert', 'rule', 'inet', 'airlock', c, text] : ['add', 'rule', 'inet', 'airlock', c, 'position', String(anchor), text]);
      run = [];
    };
    for (const r of next[c].rules) {
      if (r.handle !== undefined) {
        flush();
        anchor = r.handle;
      } else run.push(r.text);
    }
    flush();
    if (cur[c].policy !== next[c].policy) cmds.push(['chain', 'inet', 'airlock', c, `{ policy ${next[c].policy} ; }`]);
  }
  return cmds.flatMap((cmd, i) => (i ? [';', ...cmd] : cmd));
}

/**
 * Writes the desired state, checks it, makes sure it loads at boot, then changes the
 * live table (last: nothing can fail after it, and a failing transaction changes nothing).
 */
export function nftSteps(cur: NftState, next: TableModel): Step[] {
  const steps: Step[] = [fileWrite(NFT_FILE, renderTable(next), { mode: 0o644, parent: { mode: 0o755 } }), command('nft', ['--check', '--file', NFT_FILE])];
  if (!cur.unit.current) steps.push(fileWrite(NFT_UNIT_PATH, NFT_UNIT_TEXT, { mode: 0o644 }));
  if (!cur.unit.enabled) steps.push(command('systemctl', ['enable', '--', NFT_UNIT], { undo: command('systemctl', ['disable', '--', NFT_UNIT]) }));
  steps.push(command('nft', fullLoad(cur) ? ['--file', NFT_FILE] : nftDelta(cur.table.chains, next)));
  return steps;
}

interface NftPlan {
  next: TableModel;
  summary: string;
  sideEffects?: string[];
  warnings?: string[];
}

// ---------------------------------------------------------------- firewalld (Fedora and RHEL)

/**
 * On a Fedora or RHEL host where firewalld runs, the firewall is firewalld's: a rule
 * accepted in table inet airlock would still be rejected by firewalld's own table, so
 * rules go into firewalld's default zone instead, with `firewall-cmd --permanent` and a
 * `--reload` that makes the permanent configuration the running one. Elsewhere (Debian,
 * Ubuntu, or firewalld stopped) Airlock's own nftables table is used.
 */
export async function firewalldRunning(host: Host): Promise<boolean> {
  if (host.platform === null || !RHEL_LIKE.includes(host.platform) || !(await installed(host, 'firewall-cmd'))) return false;
  const r = await host.run('firewall-cmd', ['--state']);
  return r.code === 0 && r.stdout.trim() === 'running';
}

const ZONE_NAME = /^[A-Za-z0-9][A-Za-z0-9_+-]{0,31}$/;

export interface ZoneConfig {
  /** default, ACCEPT, DROP or %%REJECT%%: what happens to what no rule accepts. */
  target: string;
  services: string[];
  /** "443/tcp", "8000-8100/udp". */
  ports: string[];
  richRules: string[];
}

/** Parses `firewall-cmd [--permanent] --zone=Z --list-all`: "  key: values" lines, then the rich rules one per line. */
export function parseZone(text: string): ZoneConfig {
  const field = (k: string) => new RegExp(`^\\s*${k}:[ \\t]*(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  const words = (k: string) => field(k).split(/\s+/).filter(Boolean);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^\s*rich rules:/.test(l));
  return {
    target: field('target') || 'default',
    services: words('services'),
    ports: words('ports'),
    richRules: at < 0 ? [] : lines.slice(at + 1).map((l) => l.trim()).filter((l) => l.startsWith('rule ')),
  };
}

export interface FirewalldState {
  /** The default zone: where interfaces and sources bound to no other zone belong. */
  zone: string;
  permanent: ZoneConfig;
  runtime: ZoneConfig;
  /** Other zones that have interfaces or sources: their traffic is not the default zone's. */
  otherActiveZones: string[];
  sockets: Sockets;
}

export async function readFirewalld(host: Host): Promise<FirewalldState> {
  const unreadable = (what: string, r: CommandOutput) =>
    new AirlockError('execution', 'firewalld_unreadable', `firewall-cmd could not ${what}: ${firstLine(r.stderr || r.stdout)}`, 'ServiceStatus firewalld.service shows whether firewalld is healthy');
  const def = await host.run('firewall-cmd', ['--get-default-zone']);
  const zone = def.stdout.trim();
  if (def.code !== 0 || !ZONE_NAME.test(zone)) throw unreadable('name its default zone', def);
  const perm = await host.run('firewall-cmd', ['--permanent', `--zone=${zone}`, '--list-all']);
  if (perm.code !== 0) throw unreadable(`list the permanent configuration of zone ${zone}`, perm);
  const rt = await host.run('firewall-cmd', [`--zone=${zone}`, '--list-all']);
  if (rt.code !== 0) throw unreadable(`list zone ${zone}`, rt);
  const active = await host.run('firewall-cmd', ['--get-active-zones']);
  // "public (default)" heads a zone's stanza, its interfaces and sources are indented below.
  const otherActiveZones = active.stdout
    .split('\n')
    .filter((l) => /^\S/.test(l))
    .map((l) => l.split(/\s+/)[0]!)
    .filter((z) => z !== zone);
  return { zone, permanent: parseZone(perm.stdout), runtime: parseZone(rt.stdout), otherActiveZones, sockets: await readSockets(host) };
}

/** The rich rule for a rule shape Airlock writes, as firewalld prints it back: family, source, port, action. */
export function richRule(verdict: Policy, m: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }): string {
  const net = m.source === undefined ? null : parseNet(m.source)!;
  const match = [net ? `family="ipv${net.family}" source address="${netText(net)}"` : '', m.protocol ? `port port="${m.port}" protocol="${m.protocol}"` : ''];
  return ['rule', ...match.filter(Boolean), verdict === 'accept' ? 'accept' : 'drop'].join(' ');
}

/** What a rich rule of those shapes (or `service name="ssh"`) means; null for any other (logging, limits, NOT, priorities). */
export function parseRichRule(text: string): SimpleRule | null {
  const m = /^rule(?: family="ipv([46])" source address="([0-9A-Fa-f:./]+)")?(?: port port="(\d+)" protocol="(tcp|udp)"| service name="(ssh)")? (accept|drop|reject)$/.exec(text);
  if (!m) return null;
  const source = m[2] === undefined ? undefined : parseNet(m[2]);
  if (source === null || (source && String(source.family) !== m[1])) return null;
  const protocol = m[5] ? 'tcp' : (m[4] as 'tcp' | 'udp' | undefined);
  const port = m[5] ? 22 : m[3] === undefined ? undefined : Number(m[3]);
  return { source, protocol, port, verdict: m[6] === 'accept' ? 'accept' : 'drop' };
}

/** A zone's entries as rules, for the SSH checks: the ssh service (tcp/22), ports (ranges that hold an SSH port) and rich rules. */
function zoneRules(z: ZoneConfig, sshPorts: number[]): ReadRule[] {
  const out: ReadRule[] = [];
  if (z.services.includes('ssh')) out.push({ text: 'service ssh', x: { protocol: 'tcp', port: 22, verdict: 'accept' } });
  for (const spec of z.ports) {
    const m = /^(\d+)(?:-(\d+))?\/(tcp|udp)$/.exec(spec);
    if (!m) continue;
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    const ports = m[2] === undefined ? [from] : sshPorts.filter((p) => from <= p && p <= to);
    for (const port of ports) out.push({ text: `port ${spec}`, x: { protocol: m[3] as 'tcp' | 'udp', port, verdict: 'accept' } });
  }
  for (const text of z.richRules) {
    const x = parseRichRule(text);
    if (x) out.push({ text, x });
  }
  return out;
}

const firewalldLockout = (zone: string, z: ZoneConfig, s: Sockets) => sshLockout(zoneRules(z, s.sshPorts), z.target === 'ACCEPT' ? null : `zone ${zone} rejects what no rule accepts`, s);

/** One entry of a zone that Airlock adds or removes: a port, or a rich rule. */
export interface FirewalldEntry {
  kind: 'port' | 'rich-rule';
  value: string;
}

/** The entry AllowPort, DenyPort, AllowSource or DenySource adds: an open port for a plain allow, a rich rule otherwise. */
export function firewalldEntry(verdict: Policy, m: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }): FirewalldEntry {
  if (verdict === 'accept' && m.source === undefined && m.protocol) return { kind: 'port', value: `${m.port}/${m.protocol}` };
  return { kind: 'rich-rule', value: richRule(verdict, m) };
}

const entriesOf = (z: ZoneConfig, e: FirewalldEntry) => (e.kind === 'port' ? z.ports : z.richRules);
const describeEntry = (e: FirewalldEntry) => `${e.kind === 'port' ? 'port' : 'rich rule'} ${e.value}`;

interface FirewalldPlan {
  summary: string;
  add?: FirewalldEntry;
  remove?: FirewalldEntry;
  sideEffects?: string[];
  warnings?: string[];
}

/** The permanent configuration of the zone once the plan is applied. */
function zoneAfter(z: ZoneConfig, plan: FirewalldPlan): ZoneConfig {
  const next = { ...z, ports: [...z.ports], richRules: [...z.richRules] };
  if (plan.add) entriesOf(next, plan.add).push(plan.add.value);
  if (plan.remove) {
    const list = entriesOf(next, plan.remove);
    list.splice(list.indexOf(plan.remove.value), 1);
  }
  return next;
}

/** The refusals every firewalld change shares: no no-op, nothing missing, and no new way to cut SSH off. */
function checkFirewalldChange(cur: FirewalldState, plan: FirewalldPlan): void {
  if (plan.add && entriesOf(cur.permanent, plan.add).includes(plan.add.value)) {
    throw new AirlockError('conflict', 'already_present', `firewalld zone ${cur.zone} already has ${describeEntry(plan.add)}`);
  }
  if (plan.remove && !entriesOf(cur.permanent, plan.remove).includes(plan.remove.value)) {
    throw new AirlockError('validation', 'no_such_rule', `firewalld zone ${cur.zone} has no ${describeEntry(plan.remove)}`, "FirewallStatus lists the zone's ports and rich rules");
  }
  const before = new Set(firewalldLockout(cur.zone, cur.permanent, cur.sockets));
  const added = firewalldLockout(cur.zone, zoneAfter(cur.permanent, plan), cur.sockets).filter((p) => !before.has(p));
  if (added.length) throw lockOutError(added, `keep SSH reachable first (AllowPort {"port": ${cur.sockets.sshPorts[0]}, "protocol": "tcp"}), or have a person at the console make this change`);
}

const sameEntries = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

function firewalldWarnings(cur: FirewalldState): string[] {
  const out: string[] = [];
  const p = cur.permanent;
  const r = cur.runtime;
  if (!sameEntries(p.ports, r.ports) || !sameEntries(p.richRules, r.richRules) || !sameEntries(p.services, r.services)) {
    out.push(`zone ${cur.zone} runs with changes that were never made permanent: the reload drops them (running: ${[...r.services, ...r.ports, ...r.richRules].join(', ') || 'nothing'})`);
  }
  if (cur.otherActiveZones.length) out.push(`zones ${cur.otherActiveZones.join(', ')} also have interfaces or sources: traffic that reaches them is not filtered by zone ${cur.zone}`);
  return out;
}

function firewalldChange(cur: FirewalldState, plan: FirewalldPlan) {
  return {
    firewall: 'firewalld',
    zone: cur.zone,
    ...(plan.add ? { adds: describeEntry(plan.add) } : {}),
    ...(plan.remove ? { removes: describeEntry(plan.remove) } : {}),
    apply: `firewall-cmd --permanent --zone=${cur.zone} changes the stored zone, then firewall-cmd --reload makes the stored configuration the running one`,
  };
}

/** Changes the stored zone (undone if the reload fails), then reloads. */
function firewalldSteps(cur: FirewalldState, plan: FirewalldPlan): Step[] {
  const edit = (verb: 'add' | 'remove', e: FirewalldEntry) => command('firewall-cmd', ['--permanent', `--zone=${cur.zone}`, `--${verb}-${e.kind}=${e.value}`]);
  const step = plan.add ? { ...edit('add', plan.add), undo: edit('remove', plan.add) } : { ...edit('remove', plan.remove!), undo: edit('add', plan.remove!) };
  return [step, command('firewall-cmd', ['--reload'])];
}

const showFirewalld = (cur: FirewalldState) => ({
  firewall: 'firewalld',
  zone: cur.zone,
  target: cur.permanent.target,
  services: cur.permanent.services,
  ports: cur.permanent.ports,
  rich_rules: cur.permanent.richRules,
  other_active_zones: cur.otherActiveZones,
  ssh: { ports: cur.sockets.sshPorts, open_sessions_from: cur.sockets.sshPeers.map((p) => p.peer) },
});

// ---------------------------------------------------------------- one action, either firewall

export type FirewallState = ({ backend: 'nft' } & NftState) | ({ backend: 'firewalld' } & FirewalldState);

/** firewalld's default zone where it runs on Fedora or RHEL (unless the request names table inet airlock itself), else the nft table. */
async function readFirewall(host: Host, nftOnly: boolean): Promise<FirewallState> {
  if (!nftOnly && (await firewalldRunning(host))) return { backend: 'firewalld', ...(await readFirewalld(host)) };
  return { backend: 'nft', ...(await readNft(host)) };
}

/**
 * A firewall change: how table inet airlock changes, and how firewalld's zone changes where
 * firewalld runs (a string: why that change is not made through firewalld). Reading,
 * refusals, preview and steps are shared.
 */
function nftAction<P extends Record<string, unknown>>(spec: {
  name: string;
  description: string;
  params: z.ZodType<P>;
  example: P;
  /** Refuses what the parameters alone make unsafe, whichever firewall. */
  refuse?: (p: P) => void;
  /** Refuses what makes this change a no-op or impossible. */
  check?: (p: P, cur: NftState) => void;
  plan: (p: P, cur: NftState) => NftPlan;
  firewalld: ((p: P, cur: FirewalldState) => FirewalldPlan) | string;
  /** Parameters that name a rule of table inet airlock (a handle): the nft table even where firewalld runs. */
  nftOnly?: (p: P) => boolean;
}) {
  const viaFirewalld = (p: P, cur: FirewalldState): FirewalldPlan => {
    if (typeof spec.firewalld === 'string') throw new AirlockError('conflict', 'firewalld_manages', `firewalld runs on this host: ${spec.firewalld}`, 'FirewallStatus shows firewalld\'s zone; a person changes its settings with firewall-cmd at the console');
    return spec.firewalld(p, cur);
  };
  return action<P, FirewallState>({
    name: spec.name,
    family: 'firewall',
    description: spec.description,
    risk: 'high',
    rollback: true,
    readOnly: false,
    platforms: ALL_PLATFORMS,
    params: spec.params,
    files: NFT_FILES,
    example: spec.example,
    current: (p, host) => readFirewall(host, spec.nftOnly?.(p) ?? false),
    shown: (cur) => (cur.backend === 'nft' ? showNft(cur) : showFirewalld(cur)),
    check: (p, cur) => {
      if (cur.backend === 'firewalld') {
        spec.refuse?.(p);
        return checkFirewalldChange(cur, viaFirewalld(p, cur));
      }
      spec.check?.(p, cur);
      spec.refuse?.(p);
      checkNftChange(cur, spec.plan(p, cur).next);
    },
    preview: (p, cur) => {
      if (cur.backend === 'firewalld') {
        const plan = viaFirewalld(p, cur);
        return { summary: plan.summary, change: firewalldChange(cur, plan), sideEffects: plan.sideEffects ?? [], warnings: [...(plan.warnings ?? []), ...firewalldWarnings(cur)] };
      }
      const plan = spec.plan(p, cur);
      return { summary: plan.summary, change: nftChange(cur, plan.next), sideEffects: plan.sideEffects ?? [], warnings: [...(plan.warnings ?? []), ...nftWarnings(cur)] };
    },
    mechanism: (p, cur) => (cur.backend === 'firewalld' ? firewalldSteps(cur, viaFirewalld(p, cur)) : nftSteps(cur, spec.plan(p, cur).next)),
  });
}

/** Refuses a rule the input chain already has (comments aside). */
function refuseDuplicate(cur: NftState, text: string): void {
  const same = cur.table.chains.input.rules.find((r) => ruleKey(r.text) === ruleKey(text));
  if (same) throw new AirlockError('conflict', 'already_present', `chain input already has \`${same.text}\` (handle ${same.handle})`);
}

/** Drop rules that come before an accept rule and catch the same packets, so the accept never applies. */
function shadowingDrops(cur: NftState, accept: SimpleRule): string[] {
  return cur.table.chains.input.rules.flatMap((r) => {
    const x = parseSimpleRule(r.text);
    if (!x || x.verdict !== 'drop') return [];
    const ports = x.protocol === undefined || (x.protocol === accept.protocol && x.port === accept.port);
    const sources = !x.source || (accept.source !== undefined && netContains(x.source, accept.source));
    return ports && sources ? [`\`${r.text}\` (handle ${r.handle}) comes first and drops these packets anyway`] : [];
  });
}

/** Drops go first in chain input (a deny wins over every accept); accepts go last. */
function withRule(cur: NftState, text: string, verdict: Policy): TableModel {
  const next = cloneModel(cur.table.chains);
  if (verdict === 'drop') next.input.rules.unshift({ text });
  else next.input.rules.push({ text });
  return next;
}

/** The ports, sources or both a rule matches, as a person reads them ("tcp/443 from 192.0.2.0/24"). */
const ruleWhat = (p: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }) =>
  [p.protocol ? `${p.protocol}/${p.port}` : '', p.source ? `from ${netText(parseNet(p.source)!)}` : ''].filter(Boolean).join(' ');

/** A rule from a source, a port, or both: AllowPort, DenyPort, AllowSource, DenySource. */
function ruleAction<P extends Record<string, unknown> & { source?: string; protocol?: 'tcp' | 'udp'; port?: number }>(spec: { name: string; verdict: Policy; description: string; params: z.ZodType<P>; example: P }) {
  const deny = spec.verdict === 'drop';
  const what = ruleWhat;
  return nftAction<P>({
    name: spec.name,
    description: spec.description,
    params: spec.params,
    example: spec.example,
    refuse: (p) => {
      if (deny && p.source && isLoopback(parseNet(p.source)!)) {
        throw new AirlockError('authorization', 'loopback', `${p.source} covers loopback addresses: dropping them breaks local services (DNS stub, databases, Airlock itself)`);
      }
    },
    check: (p, cur) => refuseDuplicate(cur, ruleText(spec.verdict, p)),
    plan: (p, cur) => {
      const text = ruleText(spec.verdict, p);
      const open = p.protocol && p.port !== undefined ? cur.sockets.listeners.filter((l) => l.proto === p.protocol && l.port === p.port) : [];
      const serving = open.length ? `${[...new Set(open.flatMap((l) => l.processes))].join(', ') || 'a process'} listens on ${p.protocol}/${p.port}` : '';
      const sideEffects = deny
        ? [
            `new and established packets ${what(p)} are dropped silently, before any accept rule`,
            ...(p.source && !p.protocol ? [`replies from ${netText(parseNet(p.source)!)} to connections this host opens are dropped too`] : []),
          ]
        : [
            cur.table.chains.input.policy === 'drop'
              ? `new connections ${what(p)} are accepted; input drops what no rule accepts`
              : `input accepts everything by default (policy accept), so this rule matters once SetDefaultPolicy sets drop`,
          ];
      if (serving) sideEffects.push(serving);
      const warnings = deny ? [] : shadowingDrops(cur, parseSimpleRule(text)!);
      if (!deny && p.protocol && !open.length) warnings.push(`nothing listens on ${p.protocol}/${p.port} now`);
      return {
        next: withRule(cur, text, spec.verdict),
        summary: `${deny ? 'Drop' : 'Accept'} incoming ${what(p) || 'traffic'} in table inet airlock`,
        sideEffects,
        warnings,
      };
    },
    firewalld: (p, cur) => ({
      summary: `${deny ? 'Drop' : 'Accept'} incoming ${what(p) || 'traffic'} in firewalld zone ${cur.zone}`,
      add: firewalldEntry(spec.verdict, p),
      // firewalld applies a zone's dropping rich rules before its accepting ones and its open ports.
      sideEffects: deny
        ? [`packets ${what(p)} are dropped silently, before the zone's open ports, services and accepting rules`]
        : [cur.permanent.target === 'ACCEPT' ? `zone ${cur.zone} accepts everything already (target ACCEPT)` : `new connections ${what(p)} are accepted in zone ${cur.zone}`],
      warnings: !deny && p.protocol && !cur.sockets.listeners.some((l) => l.proto === p.protocol && l.port === p.port) ? [`nothing listens on ${p.protocol}/${p.port} now`] : [],
    }),
  });
}

const portParams = params({ port, protocol, source: sourceAddress.optional() });

export const listRuleset = {
  ...fixedRead({
    name: 'ListRuleset',
    // Sensitive: the whole nftables ruleset, comments and address sets included.
    sensitive: true,
    reachesNetwork: false,
    family: 'firewall',
    description: 'List the whole nftables ruleset of this host (every table: ufw, fail2ban, firewalld and Docker ones included) with rule handles.',
    summary: 'List the nftables ruleset with rule handles',
    steps: [command('nft', ['--handle', 'list', 'ruleset'])],
  }),
  platforms: ALL_PLATFORMS,
};

type StatusState =
  | { backend: 'nft'; nft: NftState; ufw: boolean; fail2ban: boolean }
  | { backend: 'firewalld'; firewalld: FirewalldState; ufw: boolean; fail2ban: boolean };

export const firewallStatus = action({
  name: 'FirewallStatus',
  family: 'firewall',
  description:
    "Show the firewall's layers: nftables tables, Airlock's table inet airlock and whether it loads at boot (or, where firewalld runs on Fedora or RHEL, firewalld's zones), ufw's status and fail2ban's jails.",
  risk: 'low',
  readOnly: true,
  // Sensitive: firewall rules and zones: network configuration.
  sensitive: true,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host): Promise<StatusState> => {
    const tools = { ufw: await installed(host, 'ufw'), fail2ban: await installed(host, 'fail2ban-client') };
    if (await firewalldRunning(host)) return { backend: 'firewalld', firewalld: await readFirewalld(host), ...tools };
    return { backend: 'nft', nft: await readNft(host), ...tools };
  },
  shown: (cur) => ({ ...(cur.backend === 'nft' ? showNft(cur.nft) : showFirewalld(cur.firewalld)), ufw_installed: cur.ufw, fail2ban_installed: cur.fail2ban }),
  preview: (_p, cur) => {
    const tools = `${cur.ufw ? '; ufw' : ''}${cur.fail2ban ? '; fail2ban' : ''}`;
    if (cur.backend === 'firewalld') {
      const z = cur.firewalld.permanent;
      return { summary: `Firewall status: firewalld, default zone ${cur.firewalld.zone} (target ${z.target}, ${z.ports.length} ports, ${z.services.length} services, ${z.richRules.length} rich rules)${tools}`, change: null };
    }
    const t = cur.nft.table;
    const chains = CHAINS.map((c) => `${c} ${t.chains[c].policy} (${t.chains[c].rules.length} rules)`).join(', ');
    return {
      summary: `Firewall status: table inet airlock ${t.exists ? chains : 'absent'}; ${cur.nft.otherTables.length} other nftables tables${tools}`,
      change: null,
    };
  },
  mechanism: (_p, cur) => [
    ...(cur.backend === 'firewalld'
      ? [
          command('firewall-cmd', ['--state']),
          command('firewall-cmd', ['--get-active-zones']),
          command('firewall-cmd', [`--zone=${cur.firewalld.zone}`, '--list-all']),
          command('firewall-cmd', ['--permanent', `--zone=${cur.firewalld.zone}`, '--list-all']),
        ]
      : [
          command('nft', ['list', 'tables']),
          ...(cur.nft.table.exists ? [command('nft', ['--handle', 'list', 'table', 'inet', 'airlock'])] : []),
          // is-enabled exits 1 for a disabled or missing unit: an answer, not a failure.
          command('systemctl', ['is-enabled', '--', NFT_UNIT], { okCodes: [0, 1] }),
        ]),
    ...(cur.ufw ? [command('ufw', ['status', 'verbose'])] : []),
    ...(cur.fail2ban ? [command('fail2ban-client', ['status'], { okCodes: [0, 255] })] : []),
  ],
});

export const allowPort = ruleAction({
  name: 'AllowPort',
  verdict: 'accept',
  description: 'Accept incoming connections to a TCP or UDP port, optionally only from one address or network, in table inet airlock (or firewalld\'s default zone where firewalld runs).',
  params: portParams,
  example: { port: 443, protocol: 'tcp' },
});

export const denyPort = ruleAction({
  name: 'DenyPort',
  verdict: 'drop',
  description: 'Drop incoming packets to a TCP or UDP port, optionally only from one address or network, ahead of every accept rule in table inet airlock (or as a rich rule of firewalld\'s default zone).',
  params: portParams,
  example: { port: 3306, protocol: 'tcp' },
});

export const allowSource = ruleAction({
  name: 'AllowSource',
  verdict: 'accept',
  description: 'Accept all incoming packets from one address or network in table inet airlock (or as a rich rule of firewalld\'s default zone).',
  params: params({ source: sourceAddress }),
  example: { source: '192.0.2.0/24' },
});

export const denySource = ruleAction({
  name: 'DenySource',
  verdict: 'drop',
  description: 'Drop all incoming packets from one address or network, ahead of every accept rule in table inet airlock (or as a rich rule of firewalld\'s default zone).',
  params: params({ source: sourceAddress }),
  example: { source: '203.0.113.7' },
});

/** Where a handle is: chain and rule. */
function findRule(t: TableModel, handle: number): { chain: ChainName; rule: Rule } | null {
  for (const c of CHAINS) {
    const rule = t[c].rules.find((r) => r.handle === handle);
    if (rule) return { chain: c, rule };
  }
  return null;
}

/** The verb of AllowPort/AllowSource (allow) or DenyPort/DenySource (deny), naming the rule one of them added. */
const RULE_VERBS = { allow: 'accept', deny: 'drop' } as const satisfies Record<string, Policy>;
const removeParams = z.union([
  params({ handle: ruleHandle }),
  params({ rule: z.enum(['allow', 'deny']), port, protocol, source: sourceAddress.optional() }),
  params({ rule: z.enum(['allow', 'deny']), source: sourceAddress }),
]);
type RemoveParams = z.infer<typeof removeParams>;
type RuleSpec = Exclude<RemoveParams, { handle: number }>;

/** The input rule of table inet airlock that the rule named by verb and match is (its text as Airlock writes it, comments aside). */
function findSpecRule(t: TableModel, p: RuleSpec): { chain: ChainName; rule: Rule } | null {
  const key = ruleKey(ruleText(RULE_VERBS[p.rule], p));
  const rule = t.input.rules.find((r) => ruleKey(r.text) === key);
  return rule ? { chain: 'input', rule } : null;
}

const findRemoved = (t: TableModel, p: RemoveParams) => ('handle' in p ? findRule(t, p.handle) : findSpecRule(t, p));
const removedName = (p: RemoveParams) => ('handle' in p ? `rule ${p.handle}` : `rule \`${p.rule} ${ruleWhat(p)}\``);

export const removeFirewallRule = nftAction<RemoveParams>({
  name: 'RemoveFirewallRule',
  description:
    'Remove one rule from table inet airlock, named by its handle or as it was added ({"rule": "allow", "port": 443, "protocol": "tcp"}); where firewalld runs, a rule named the second way is removed from its default zone. Rules of other tables are never touched.',
  params: removeParams,
  example: { handle: 7 },
  nftOnly: (p) => 'handle' in p,
  check: (p, cur) => {
    if (!findRemoved(cur.table.chains, p)) {
      throw new AirlockError('validation', 'no_such_rule', `table inet airlock has no ${removedName(p)}`, 'ListRuleset shows the rules and their handles (`# handle N`); only rules of table inet airlock can be removed');
    }
  },
  plan: (p, cur) => {
    const next = cloneModel(cur.table.chains);
    const found = findRemoved(next, p);
    if (found) next[found.chain].rules = next[found.chain].rules.filter((r) => r.handle !== found.rule.handle);
    const x = found ? parseSimpleRule(found.rule.text) : null;
    return {
      next,
      summary: `Remove rule ${found?.rule.handle ?? ('handle' in p ? p.handle : '?')} from chain ${found?.chain ?? '?'} of table inet airlock`,
      sideEffects: x ? [x.verdict === 'drop' ? 'packets this rule dropped now reach the rules after it' : `packets this rule accepted now fall to the chain's policy (${next[found!.chain].policy})`] : [],
    };
  },
  firewalld: (p, cur) => {
    const spec = p as RuleSpec; // a handle never reaches firewalld (nftOnly)
    const entry = firewalldEntry(RULE_VERBS[spec.rule], spec);
    return {
      summary: `Remove ${describeEntry(entry)} from firewalld zone ${cur.zone}`,
      remove: entry,
      sideEffects: [spec.rule === 'deny' ? 'packets this rule dropped now reach the zone\'s other rules' : `packets this rule accepted now fall to the zone's target (${cur.permanent.target})`],
    };
  },
});

const policyParams = params({ chain: z.enum(CHAINS), policy: z.enum(['accept', 'drop']) });

export const setDefaultPolicy = nftAction<z.infer<typeof policyParams>>({
  name: 'SetDefaultPolicy',
  description: "Set the default policy (accept or drop) of chain input or forward in table inet airlock; drop on input first adds accept rules for replies, loopback and ICMPv6, and is refused while no rule accepts SSH. Not where firewalld runs: its zones reject what no rule accepts already.",
  params: policyParams,
  example: { chain: 'input', policy: 'drop' },
  firewalld:
    "its zones already reject what no rule accepts (target default), and a drop policy in table inet airlock would also drop what firewalld accepts, since a packet must pass both tables",
  check: ({ chain, policy }, cur) => {
    if (cur.table.chains[chain].policy === policy) throw new AirlockError('conflict', 'already_set', `chain ${chain} of table inet airlock already has policy ${policy}${cur.table.exists ? '' : ' (the table does not exist: nothing is filtered)'}`);
  },
  plan: ({ chain, policy }, cur) => {
    const next = cloneModel(cur.table.chains);
    next[chain].policy = policy;
    const warnings: string[] = [];
    const sideEffects: string[] = [];
    if (policy === 'drop' && chain === 'input') {
      const have = new Set(next.input.rules.map((r) => ruleKey(r.text)));
      next.input.rules.push(...BASELINE_RULES.filter((r) => !have.has(ruleKey(r))).map((text) => ({ text })));
      const accepted = (l: Listener) =>
        next.input.rules.some((r) => {
          const x = parseSimpleRule(r.text);
          return x?.verdict === 'accept' && !x.source && (x.protocol === undefined || (x.protocol === l.proto && x.port === l.port));
        });
      const exposed = cur.sockets.listeners.filter((l) => !isLoopback(parseNet(l.address) ?? UNSPECIFIED[0]!) && !accepted(l));
      warnings.push('DEFAULT DROP on input: every new inbound connection that no rule accepts is dropped silently, on every interface');
      if (exposed.length) {
        warnings.push(`these listening services become unreachable from other hosts: ${[...new Set(exposed.map((l) => `${l.proto}/${l.port}${l.processes.length ? ` (${l.processes.join(', ')})` : ''}`))].join(', ')}`);
      }
    } else if (policy === 'drop') {
      warnings.push('DEFAULT DROP on forward: this host stops routing packets; containers and VMs behind it (Docker, libvirt, LXD, Incus) and any router or VPN role lose their traffic');
    } else {
      sideEffects.push(`chain ${chain} accepts every packet that no rule drops`);
    }
    if (policy === 'drop' && cur.otherTables.length) sideEffects.push(`other tables filter too (${cur.otherTables.join(', ')}): a packet must pass every one of them`);
    return { next, summary: `Set the default policy of chain ${chain} in table inet airlock to ${policy}`, sideEffects, warnings };
  },
});

// ---------------------------------------------------------------- ufw

const UFW_DEFAULTS = '/etc/default/ufw';

export interface UfwState {
  installed: boolean;
  active: boolean;
  /** `ufw show added` without the leading "ufw ": "allow 22/tcp". */
  added: string[];
  /** `ufw status numbered` rows (only while ufw is active). */
  numbered: Array<{ number: number; text: string }>;
  /** DEFAULT_INPUT_POLICY of /etc/default/ufw (DROP, REJECT or ACCEPT). */
  defaultInput: string;
  sockets: Sockets;
}

export async function readUfw(host: Host): Promise<UfwState> {
  const none: UfwState = { installed: false, active: false, added: [], numbered: [], defaultInput: '', sockets: { listeners: [], sshPorts: [22], sshPeers: [] } };
  if (!(await installed(host, 'ufw'))) return none;
  const status = await host.run('ufw', ['status', 'numbered']);
  const added = await host.run('ufw', ['show', 'added']);
  if (status.code !== 0 || added.code !== 0) throw new AirlockError('execution', 'ufw_unreadable', `ufw could not report its rules: ${firstLine(status.stderr || added.stderr)}`);
  const defaults = (await host.readFile(UFW_DEFAULTS)) ?? '';
  return {
    installed: true,
    active: /^Status: active$/m.test(status.stdout),
    added: added.stdout.split('\n').flatMap((l) => (l.startsWith('ufw ') ? [l.slice(4).trim()] : [])),
    numbered: [...status.stdout.matchAll(/^\[\s*(\d+)\]\s+(.*?)\s*$/gm)].map((m) => ({ number: Number(m[1]), text: m[2]!.replace(/\s{2,}/g, '  ') })),
    defaultInput: /^DEFAULT_INPUT_POLICY="?([A-Z]+)"?/m.exec(defaults)?.[1] ?? 'DROP',
    sockets: await readSockets(host),
  };
}

function refuseNoUfw(cur: UfwState): void {
  if (!cur.installed) throw new AirlockError('unsupported_platform', 'ufw_missing', 'ufw is not installed on this host', 'manage the firewall with AllowPort, DenyPort and the other nftables actions, or install the ufw package');
}

const showUfw = (cur: UfwState) => ({ installed: cur.installed, active: cur.active, rules: cur.added, numbered: cur.numbered.map((r) => `[${r.number}] ${r.text}`) });

const UFW_VERBS = ['allow', 'deny', 'reject', 'limit'] as const;
type UfwVerb = (typeof UFW_VERBS)[number];

/** The verb of an added rule for exactly this port/protocol, if any ("allow" for `allow 22/tcp`). */
function ufwVerbFor(cur: UfwState, spec: string): UfwVerb | null {
  for (const line of cur.added) {
    const m = /^(allow|deny|reject|limit) (\S+)$/.exec(line);
    if (m && m[2] === spec) return m[1] as UfwVerb;
  }
  return null;
}

/**
 * Is SSH let in by ufw, per IP family, counting numbered rows: a row "22/tcp ALLOW IN
 * Anywhere" (or LIMIT, the port alone, or an OpenSSH profile) for an SSH port.
 */
function ufwSshAllowed(rows: UfwState['numbered'], sshPorts: number[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows) {
    const m = /^(\S+)( \(v6\))?\s+(ALLOW|LIMIT)(?: IN)?\s+Anywhere/.exec(r.text);
    if (!m) continue;
    const to = m[1]!;
    if (sshPorts.some((p) => to === `${p}/tcp` || to === `${p}`) || (sshPorts.includes(22) && /^(OpenSSH|ssh)$/i.test(to))) out.add(m[2] ? 'IPv6' : 'IPv4');
  }
  return out;
}

function refuseUfwLockout(cur: UfwState, rowsAfter: UfwState['numbered']): void {
  if (!cur.active || cur.defaultInput === 'ACCEPT') return;
  const after = ufwSshAllowed(rowsAfter, cur.sockets.sshPorts);
  const lost = [...ufwSshAllowed(cur.numbered, cur.sockets.sshPorts)].filter((f) => !after.has(f));
  if (lost.length) {
    throw lockOutError([`ufw is active with incoming policy ${cur.defaultInput} and would no longer allow SSH over ${lost.join(' and ')}`], 'add another ufw rule that allows SSH first');
  }
}

function ufwRuleAction(verb: 'allow' | 'deny') {
  return action({
    name: verb === 'allow' ? 'UfwAllow' : 'UfwDeny',
    family: 'firewall',
    description:
      verb === 'allow'
        ? 'Add a ufw rule that allows incoming connections to a TCP or UDP port (IPv4 and IPv6).'
        : 'Add a ufw rule that denies incoming connections to a TCP or UDP port (IPv4 and IPv6).',
    risk: 'high',
    rollback: true,
    readOnly: false,
    params: params({ port, protocol }),
    files: [],
    example: { port: verb === 'allow' ? 443 : 3306, protocol: 'tcp' as const },
    current: (_p, host) => readUfw(host),
    shown: showUfw,
    check: ({ port: p, protocol: proto }, cur) => {
      refuseNoUfw(cur);
      const spec = `${p}/${proto}`;
      if (ufwVerbFor(cur, spec) === verb) throw new AirlockError('conflict', 'already_present', `ufw already has \`${verb} ${spec}\``);
      if (verb === 'deny' && proto === 'tcp' && cur.sockets.sshPorts.includes(p) && cur.active) {
        throw lockOutError([`ufw is active and \`deny ${spec}\` blocks SSH on port ${p}`], 'deny SSH only from given sources, with DenySource or fail2ban, never the port as a whole');
      }
    },
    preview: ({ port: p, protocol: proto }, cur) => {
      const spec = `${p}/${proto}`;
      const prior = ufwVerbFor(cur, spec);
      const warnings: string[] = [];
      if (!cur.active) warnings.push('ufw is inactive: the rule is stored and takes effect when a person enables ufw');
      if (verb === 'deny' && proto === 'tcp' && cur.sockets.sshPorts.includes(p)) warnings.push(`port ${p} is SSH: once ufw is enabled this rule blocks every SSH login`);
      return {
        summary: `ufw ${verb} ${spec}`,
        change: prior ? { replaces: `ufw ${prior} ${spec}`, with: `ufw ${verb} ${spec}` } : { adds: `ufw ${verb} ${spec}`, families: 'IPv4 and IPv6' },
        sideEffects: [cur.active ? `applied at once; ufw stores it in /etc/ufw/user.rules and user6.rules` : 'ufw stores it in /etc/ufw/user.rules and user6.rules'],
        warnings,
      };
    },
    mechanism: ({ port: p, protocol: proto }, cur) => {
      const spec = `${p}/${proto}`;
      const prior = ufwVerbFor(cur, spec);
      // ufw takes no `--`; its operands are built from a port number and a fixed word.
      return [command('ufw', [verb, spec], { undo: prior ? command('ufw', [prior, spec]) : command('ufw', ['delete', verb, spec]) })];
    },
  });
}

export const ufwStatus = action({
  name: 'UfwStatus',
  family: 'firewall',
  description: "Show whether ufw is active, its default policies and its rules (numbered while active, as stored while inactive).",
  risk: 'low',
  readOnly: true,
  // Sensitive: ufw's rules with their comments.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readUfw(host),
  shown: showUfw,
  check: (_p, cur) => refuseNoUfw(cur),
  preview: (_p, cur) => ({ summary: `ufw status (${cur.active ? 'active' : 'inactive'}, ${cur.added.length} rules)`, change: null }),
  mechanism: (_p, cur) => [command('ufw', ['status', 'verbose']), command('ufw', cur.active ? ['status', 'numbered'] : ['show', 'added'])],
});

export const ufwAllow = ufwRuleAction('allow');
export const ufwDeny = ufwRuleAction('deny');

export const ufwDelete = action({
  name: 'UfwDelete',
  family: 'firewall',
  description: 'Delete one ufw rule, by its number in `ufw status numbered` (ufw active) or by its spec (verb, port and protocol; IPv4 and IPv6).',
  risk: 'high',
  readOnly: false,
  params: z.union([params({ number: z.number().int().min(1).max(99_999) }), params({ rule: z.enum(UFW_VERBS), port, protocol })]),
  files: [],
  example: { rule: 'allow', port: 443, protocol: 'tcp' },
  current: (_p, host) => readUfw(host),
  shown: showUfw,
  check: (p, cur) => {
    refuseNoUfw(cur);
    if ('number' in p) {
      if (!cur.active) throw new AirlockError('conflict', 'ufw_inactive', 'ufw is inactive, so its rules have no numbers to show', 'name the rule instead: {"rule": "allow", "port": 443, "protocol": "tcp"}');
      if (!cur.numbered.some((r) => r.number === p.number)) throw new AirlockError('validation', 'no_such_rule', `ufw has no rule number ${p.number}`, 'UfwStatus lists the numbered rules');
      refuseUfwLockout(cur, cur.numbered.filter((r) => r.number !== p.number));
    } else {
      const spec = `${p.port}/${p.protocol}`;
      if (ufwVerbFor(cur, spec) !== p.rule) throw new AirlockError('validation', 'no_such_rule', `ufw has no rule \`${p.rule} ${spec}\``, 'UfwStatus lists the rules');
      const row = new RegExp(`^${spec.replace('/', '\\/')}( \\(v6\\))?\\s+${p.rule.toUpperCase()}\\b`);
      refuseUfwLockout(cur, cur.numbered.filter((r) => !row.test(r.text)));
    }
  },
  preview: (p, cur) => {
    const sideEffects = [cur.active ? 'takes effect at once' : 'ufw is inactive: only the stored rule goes'];
    if ('number' in p) {
      const row = cur.numbered.find((r) => r.number === p.number);
      return { summary: `Delete ufw rule ${p.number}`, change: { deletes: `[${p.number}] ${row?.text ?? '?'}`, note: 'only this row: the rule of the other IP family, if any, stays' }, sideEffects };
    }
    return { summary: `Delete ufw rule ${p.rule} ${p.port}/${p.protocol}`, change: { deletes: `ufw ${p.rule} ${p.port}/${p.protocol}`, families: 'IPv4 and IPv6' }, sideEffects };
  },
  mechanism: (p) => {
    // --force skips ufw's "Proceed with operation (y|n)?" question for a numbered delete.
    if ('number' in p) return [command('ufw', ['--force', 'delete', String(p.number)])];
    const spec = `${p.port}/${p.protocol}`;
    return [command('ufw', ['delete', p.rule, spec], { undo: command('ufw', [p.rule, spec]) })];
  },
});

// ---------------------------------------------------------------- fail2ban

const JAIL_DIR = '/etc/fail2ban/jail.d';
export const JAIL_DROPIN = `${JAIL_DIR}/60-airlock.local`;
const JAIL_SOURCES = ['/etc/fail2ban/jail.conf', '/etc/fail2ban/jail.local'];

export interface Fail2banState {
  installed: boolean;
  running: boolean;
  /** Jails the server runs. */
  jails: string[];
  /** Banned addresses of the jail asked about, when it runs. */
  banned: string[];
}

export async function readFail2ban(host: Host, jail?: string): Promise<Fail2banState> {
  if (!(await installed(host, 'fail2ban-client'))) return { installed: false, running: false, jails: [], banned: [] };
  const status = await host.run('fail2ban-client', ['status']);
  if (status.code !== 0) return { installed: true, running: false, jails: [], banned: [] };
  const jails = (/Jail list:[ \t]*(.*)$/m.exec(status.stdout)?.[1] ?? '').split(/[,\s]+/).filter(Boolean);
  let banned: string[] = [];
  if (jail && jails.includes(jail)) {
    const js = await host.run('fail2ban-client', ['--', 'status', jail]);
    banned = (/Banned IP list:[ \t]*(.*)$/m.exec(js.stdout)?.[1] ?? '').split(/\s+/).filter(Boolean);
  }
  return { installed: true, running: true, jails, banned };
}

function refuseFail2banDown(cur: Fail2banState, jail?: string): void {
  if (!cur.installed) throw new AirlockError('unsupported_platform', 'fail2ban_missing', 'fail2ban is not installed on this host', 'install the fail2ban package');
  if (!cur.running) throw new AirlockError('conflict', 'fail2ban_not_running', 'the fail2ban server is not running', 'StartService fail2ban.service starts it; UnitLogs fail2ban.service shows why it stopped');
  if (jail !== undefined && !cur.jails.includes(jail)) {
    throw new AirlockError('validation', 'no_such_jail', `fail2ban runs no jail ${jail} (running: ${cur.jails.join(', ') || 'none'})`, 'Fail2banStatus lists the jails; SetJailOption enables one');
  }
}

export const fail2banStatus = action({
  name: 'Fail2banStatus',
  family: 'firewall',
  // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
  platforms: ALL_PLATFORMS,
  description: "Show fail2ban's jails, or one jail's failure counts and banned addresses.",
  risk: 'low',
  readOnly: true,
  // Sensitive: the addresses banned or failing: other people's addresses.
  sensitive: true,
  reachesNetwork: false,
  params: params({ jail: jailName.optional() }),
  files: [],
  example: { jail: 'sshd' },
  current: ({ jail }, host) => readFail2ban(host, jail),
  shown: (cur) => ({ running: cur.running, jails: cur.jails }),
  check: ({ jail }, cur) => refuseFail2banDown(cur, jail),
  preview: ({ jail }, cur) => ({ summary: jail ? `fail2ban status of jail ${jail}` : `fail2ban status (${cur.jails.length} jails)`, change: null }),
  mechanism: ({ jail }) => [command('fail2ban-client', ['--', 'status', ...(jail ? [jail] : [])])],
});

/** A ban or an unban: the jail runs, the address is or is not banned there; a ban never catches loopback or an open SSH session. */
function banAction(ban: boolean) {
  const verb = ban ? 'banip' : 'unbanip';
  return action({
    name: ban ? 'Fail2banBan' : 'Fail2banUnban',
    family: 'firewall',
    // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
    platforms: ALL_PLATFORMS,
    description: ban ? 'Ban one IP address in a running fail2ban jail now, for the jail\'s bantime.' : 'Lift the ban of one IP address in a running fail2ban jail.',
    // A ban is access control that can lock someone out; an unban restores what the jail took away.
    risk: ban ? 'high' : 'medium',
    rollback: true,
    readOnly: false,
    params: params({ jail: jailName, ip: hostAddress }),
    files: [],
    example: { jail: 'sshd', ip: '203.0.113.7' },
    current: async ({ jail }, host) => ({ ...(await readFail2ban(host, jail)), sockets: ban ? await readSockets(host) : null }),
    shown: (cur) => ({ running: cur.running, jails: cur.jails, banned: cur.banned }),
    check: ({ jail, ip }, cur) => {
      refuseFail2banDown(cur, jail);
      const addr = parseNet(ip)!;
      const isBanned = cur.banned.some((b) => { const n = parseNet(b); return n !== null && netText(n) === netText(addr); });
      if (!ban) {
        if (!isBanned) throw new AirlockError('conflict', 'not_banned', `${ip} is not banned in jail ${jail}`);
        return;
      }
      if (isBanned) throw new AirlockError('conflict', 'already_banned', `${ip} is already banned in jail ${jail}`);
      if (isLoopback(addr) || UNSPECIFIED.some((u) => netText(u) === netText(addr))) {
        throw new AirlockError('authorization', 'loopback', `${ip} is a loopback or unspecified address: banning it breaks local services`);
      }
      const peer = cur.sockets?.sshPeers.find((s) => netContains(addr, parseNet(s.peer)!));
      if (peer) throw lockOutError([`${ip} has an open SSH session to port ${peer.port} of this host`], 'a person bans it by hand if that session is really hostile');
    },
    preview: ({ jail, ip }, cur) => ({
      summary: `${ban ? 'Ban' : 'Unban'} ${ip} in fail2ban jail ${jail}`,
      // Not the count of banned addresses: fail2ban changes it by itself between preview and execution.
      change: { jail, [ban ? 'bans' : 'unbans']: ip },
      sideEffects: ban ? [`packets from ${ip} to what jail ${jail} protects are rejected until its bantime ends or Fail2banUnban`] : [`${ip} can reach what jail ${jail} protects again; new failures can ban it again`],
    }),
    mechanism: ({ jail, ip }) => [command('fail2ban-client', ['--', 'set', jail, verb, ip], { undo: command('fail2ban-client', ['--', 'set', jail, ban ? 'unbanip' : 'banip', ip]) })],
  });
}

export const fail2banBan = banAction(true);
export const fail2banUnban = banAction(false);

/** Jail sections of an INI text, options in order; null when a line is not `[section]`, `key = value`, blank or a comment. */
export function parseJailIni(text: string): Map<string, Map<string, string>> | null {
  const out = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[([^\]]+)\]$/.exec(line);
    if (head) {
      section = out.get(head[1]!) ?? new Map();
      out.set(head[1]!, section);
      continue;
    }
    const kv = /^([A-Za-z0-9_.]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!kv || !section || /^\s/.test(raw)) return null;
    section.set(kv[1]!, kv[2]!);
  }
  return out;
}

const JAIL_SECTIONS_NOT_JAILS = ['DEFAULT', 'INCLUDES', 'Definition', 'Init'];
const jailSections = (text: string | null) => [...text?.matchAll(/^\[([^\]]+)\]\s*$/gm) ?? []].map((m) => m[1]!).filter((s) => !JAIL_SECTIONS_NOT_JAILS.includes(s));

/** jail.conf, jail.local and the jail.d files fail2ban reads (*.conf, *.local). */
async function jailFiles(host: Host): Promise<string[]> {
  const names = ((await listDirectory(host, JAIL_DIR)) ?? []).filter((n) => /^[A-Za-z0-9_.-]+\.(conf|local)$/.test(n));
  return [...JAIL_SOURCES, ...names.map((n) => `${JAIL_DIR}/${n}`)];
}

export function renderJailDropin(d: Map<string, Map<string, string>>): string {
  const lines = [
    '# Managed by Airlock (SetJailOption): jail options set through Airlock.',
    '# Read after jail.conf, jail.local and the other jail.d files, so these values win.',
  ];
  for (const [jail, opts] of d) {
    if (opts.size === 0) continue;
    lines.push('', `[${jail}]`, ...[...opts].map(([k, v]) => `${k} = ${v}`));
  }
  return lines.join('\n') + '\n';
}

interface JailOptionState extends Fail2banState {
  dropin: Map<string, Map<string, string>> | null;
  dropinExists: boolean;
  /** Jails any config file defines. */
  configured: string[];
  /** The running jail's value of the option, as fail2ban-client get reports it. */
  live: string | null;
}

const jailOptionParams = z.discriminatedUnion('option', [
  params({ jail: jailName, option: z.literal('bantime'), value: duration }),
  params({ jail: jailName, option: z.literal('findtime'), value: duration }),
  params({ jail: jailName, option: z.literal('maxretry'), value: z.number().int().min(1).max(100) }),
  params({ jail: jailName, option: z.literal('enabled'), value: z.boolean() }),
]);
type JailOption = z.infer<typeof jailOptionParams>;

const optionValue = (p: JailOption) => String(p.value);
/** A jail that runs and keeps running reloads alone; enabling, disabling or a stopped jail reloads the whole configuration. */
const reloadsAll = (p: JailOption, cur: JailOptionState) => p.option === 'enabled' || !cur.jails.includes(p.jail);

export const setJailOption = action({
  name: 'SetJailOption',
  family: 'firewall',
  // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
  platforms: ALL_PLATFORMS,
  description: `Set bantime, findtime, maxretry or enabled for one fail2ban jail in ${JAIL_DROPIN}, check the configuration with fail2ban-client --test, and reload.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: jailOptionParams,
  files: [JAIL_DROPIN],
  example: { jail: 'sshd', option: 'maxretry', value: 3 },
  current: async (p, host): Promise<JailOptionState> => {
    const f2b = await readFail2ban(host);
    const text = await host.readFile(JAIL_DROPIN);
    const dropin = text === null ? new Map<string, Map<string, string>>() : parseJailIni(text);
    const configured = new Set([...f2b.jails, ...(dropin ? dropin.keys() : [])]);
    for (const f of await jailFiles(host)) for (const j of jailSections(await host.readFile(f))) configured.add(j);
    let live: string | null = null;
    if (p.option !== 'enabled' && f2b.jails.includes(p.jail)) {
      const r = await host.run('fail2ban-client', ['--', 'get', p.jail, p.option]);
      live = r.code === 0 ? r.stdout.trim() : null;
    }
    return { ...f2b, dropin, dropinExists: text !== null, configured: [...configured], live };
  },
  shown: (cur) => ({ running: cur.running, jails: cur.jails, dropin: cur.dropin ? Object.fromEntries([...cur.dropin].map(([j, o]) => [j, Object.fromEntries(o)])) : 'unreadable', live: cur.live }),
  check: (p, cur) => {
    refuseFail2banDown(cur);
    if (!cur.configured.includes(p.jail)) {
      throw new AirlockError('validation', 'no_such_jail', `no fail2ban configuration file defines jail ${p.jail}`, `jails come from ${JAIL_SOURCES.join(', ')} and ${JAIL_DIR}; Fail2banStatus lists the running ones`);
    }
    if (!cur.dropin) throw new AirlockError('conflict', 'unrecognised_dropin', `${JAIL_DROPIN} holds lines Airlock did not write`, 'a person fixes or removes it by hand');
    if (cur.dropin.get(p.jail)?.get(p.option) === optionValue(p)) throw new AirlockError('conflict', 'already_set', `${JAIL_DROPIN} already sets ${p.option} = ${optionValue(p)} for jail ${p.jail}`);
    if (p.option === 'enabled' && p.value === cur.jails.includes(p.jail)) {
      throw new AirlockError('conflict', p.value ? 'already_enabled' : 'not_enabled', `jail ${p.jail} is ${p.value ? 'already running' : 'not running'}`);
    }
  },
  preview: (p, cur) => {
    const from = cur.dropin?.get(p.jail)?.get(p.option) ?? cur.live ?? (p.option === 'enabled' ? String(cur.jails.includes(p.jail)) : 'the default');
    const warnings: string[] = [];
    if (p.option === 'enabled' && !p.value) warnings.push(`jail ${p.jail} stops: its bans are lifted and it protects nothing until enabled again`);
    if (p.option === 'bantime' && durationSeconds(p.value) < 60) warnings.push('a ban shorter than a minute barely slows an attacker');
    if (p.option === 'maxretry' && p.value === 1) warnings.push('one failure bans: a mistyped password locks a person out for the bantime');
    return {
      summary: `Set ${p.option} = ${optionValue(p)} for fail2ban jail ${p.jail}`,
      change: {
        file: JAIL_DROPIN,
        creates_file: !cur.dropinExists,
        jail: p.jail,
        option: p.option,
        value: { from, to: optionValue(p) },
        checks: 'fail2ban-client --test (the file is restored when it fails)',
        reloads: reloadsAll(p, cur) ? 'the whole fail2ban configuration (fail2ban-client reload)' : `jail ${p.jail} (fail2ban-client reload ${p.jail})`,
      },
      sideEffects: ['bans in force stay in force'],
      warnings,
    };
  },
  mechanism: (p, cur) => {
    const next = new Map([...(cur.dropin ?? [])].map(([j, o]) => [j, new Map(o)]));
    const opts = next.get(p.jail) ?? new Map<string, string>();
    opts.set(p.option, optionValue(p));
    next.set(p.jail, opts);
    return [
      fileWrite(JAIL_DROPIN, renderJailDropin(next), { mode: 0o644 }),
      command('fail2ban-client', ['--test']),
      command('fail2ban-client', reloadsAll(p, cur) ? ['--', 'reload'] : ['--', 'reload', p.jail]),
    ];
  },
});

