/** RemoveFirewallRule: one rule of table inet airlock by handle, or a rule named as it was added (also from firewalld's zone). */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { params, port } from '../../params.js';
import { nftAction } from './backend.js';
import { describeEntry, firewalldEntry } from './firewalld.js';
import { cloneModel } from './nft-change.js';
import { parseSimpleRule, ruleText } from './nft-rules.js';
import { CHAINS, type ChainName, type Rule, type TableModel } from './nft-table.js';
import { protocol, ruleHandle, sourceAddress } from './params.js';
import { ruleKey, ruleWhat, type Policy } from './simple-rule.js';

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
  // The rule put back where it was: what AllowPort (or DenyPort, AllowSource, DenySource, by the rule's shape) adds.
  inverse: 'AllowPort',
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
