/** The rule shapes Airlock writes and understands, whichever firewall holds them: a verdict on a source, a port, or both. */
import { netText, parseNet, type Net } from '../../lib/net-address.js';

/** What a rule does with the packets it matches (and what a chain does with the rest). */
export type Policy = 'accept' | 'drop';

/** The rule shapes Airlock writes (and hand-written rules of the same shape). */
export interface SimpleRule {
  source?: Net;
  protocol?: 'tcp' | 'udp';
  port?: number;
  verdict: Policy;
}

/** A rule without its comment: two rules with equal keys match the same packets the same way. */
export const ruleKey = (text: string) => text.replace(/ comment "(?:[^"\\]|\\.)*"$/, '');

/** Whether the rule catches TCP connections to port `p` (a rule without a port catches every port and protocol). */
export const portMatches = (r: SimpleRule, p: number) => r.protocol === undefined || (r.protocol === 'tcp' && r.port === p);

/** A rule as written (nft text or a firewalld entry) and what it means, when Airlock understands it. */
export interface ReadRule {
  text: string;
  x: SimpleRule;
}

/** The ports, sources or both a rule matches, as a person reads them ("tcp/443 from 192.0.2.0/24"). */
export const ruleWhat = (p: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }) =>
  [p.protocol ? `${p.protocol}/${p.port}` : '', p.source ? `from ${netText(parseNet(p.source)!)}` : ''].filter(Boolean).join(' ');
