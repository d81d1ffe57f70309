/** SetDefaultPolicy: what chain input or forward of table inet airlock does with packets no rule matches. */
import { z } from 'zod';
import { parseNet } from '../../lib/net-address.js';
import { params } from '../../params.js';
import { isLoopback, UNSPECIFIED } from './addresses.js';
import { nftAction } from './backend.js';
import { cloneModel } from './nft-change.js';
import { BASELINE_RULES, parseSimpleRule } from './nft-rules.js';
import { CHAINS } from './nft-table.js';
import { ruleKey } from './simple-rule.js';
import type { Listener } from './sockets.js';
import { unchanged } from '../../action.js';

const policyParams = params({ chain: z.enum(CHAINS), policy: z.enum(['accept', 'drop']) });

export const setDefaultPolicy = nftAction<z.infer<typeof policyParams>>({
  name: 'SetDefaultPolicy',
  // The policy set back; the baseline rules a drop on input added go with it.
  inverse: 'SetDefaultPolicy',
  description: "Set the default policy (accept or drop) of chain input or forward in table inet airlock; drop on input first adds accept rules for replies, loopback and ICMPv6, and is refused while no rule accepts SSH. Not where firewalld runs: its zones reject what no rule accepts already.",
  params: policyParams,
  example: { chain: 'input', policy: 'drop' },
  firewalld:
    "its zones already reject what no rule accepts (target default), and a drop policy in table inet airlock would also drop what firewalld accepts, since a packet must pass both tables",
  check: ({ chain, policy }, cur) => {
    if (cur.table.chains[chain].policy === policy) return unchanged(`chain ${chain} of table inet airlock already has policy ${policy}${cur.table.exists ? '' : ' (the table does not exist: nothing is filtered)'}`);
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
