/** Rules from a source, to a port, or both: AllowPort, DenyPort, AllowSource, DenySource. */
import type { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { netContains, netText, parseNet } from '../../lib/net-address.js';
import { params, port } from '../../params.js';
import { isLoopback } from './addresses.js';
import { nftAction } from './backend.js';
import { firewalldEntry } from './firewalld.js';
import { cloneModel } from './nft-change.js';
import { parseSimpleRule, ruleText } from './nft-rules.js';
import type { NftState } from './nft-state.js';
import type { TableModel } from './nft-table.js';
import { protocol, sourceAddress } from './params.js';
import { ruleKey, ruleWhat, type Policy, type SimpleRule } from './simple-rule.js';
import { unchanged, type Unchanged } from '../../action.js';

/** No change when the input chain already has the rule (comments aside). */
function unchangedIfPresent(cur: NftState, text: string): Unchanged | undefined {
  const same = cur.table.chains.input.rules.find((r) => ruleKey(r.text) === ruleKey(text));
  if (same) return unchanged(`chain input already has \`${same.text}\` (handle ${same.handle})`);
  return undefined;
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

/** A rule from a source, a port, or both: AllowPort, DenyPort, AllowSource, DenySource. */
function ruleAction<P extends Record<string, unknown> & { source?: string; protocol?: 'tcp' | 'udp'; port?: number }>(spec: { name: string; verdict: Policy; description: string; params: z.ZodType<P>; example: P }) {
  const deny = spec.verdict === 'drop';
  const what = ruleWhat;
  return nftAction<P>({
    name: spec.name,
    // RemoveFirewallRule takes the rule out again (named as it was added, or by firewalld's entry).
    inverse: 'RemoveFirewallRule',
    description: spec.description,
    params: spec.params,
    example: spec.example,
    refuse: (p) => {
      if (deny && p.source && isLoopback(parseNet(p.source)!)) {
        throw new AirlockError('authorization', 'loopback', `${p.source} covers loopback addresses: dropping them breaks local services (DNS stub, databases, Airlock itself)`);
      }
    },
    check: (p, cur) => unchangedIfPresent(cur, ruleText(spec.verdict, p)),
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
