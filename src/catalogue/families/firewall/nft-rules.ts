/** The rules Airlock writes in table inet airlock, as nft prints them back, and how a table would cut SSH off. */
import { netText, parseNet } from '../../lib/net-address.js';
import { sshLockout } from './lockout.js';
import type { TableModel } from './nft-table.js';
import { ruleKey, type Policy, type SimpleRule } from './simple-rule.js';
import type { Sockets } from './sockets.js';

/** What a rule means when it has one of the shapes Airlock writes; null for any other (sets, other matches: not guessed at). */
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

/** Accepts traffic this host needs once input drops by default: replies, loopback, IPv6 neighbour discovery. */
export const BASELINE_RULES = [
  'ct state established,related accept comment "airlock: replies to connections already accepted or opened by this host"',
  'iif "lo" accept comment "airlock: loopback"',
  'meta l4proto ipv6-icmp accept comment "airlock: ICMPv6, IPv6 needs it for neighbour discovery"',
];
const ESTABLISHED_KEY = ruleKey(BASELINE_RULES[0]!);

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
