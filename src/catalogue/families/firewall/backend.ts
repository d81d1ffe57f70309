/**
 * One firewall action, either firewall: table inet airlock, or firewalld's default zone where
 * firewalld runs on Fedora or RHEL (its own table would still reject what table inet airlock
 * accepts). Reading, refusals, preview and steps are shared by the rule actions.
 */
import type { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, type Host, type Unchanged } from '../../action.js';
import { checkFirewalldChange, firewalldChange, firewalldProbes, firewalldRunning, firewalldSteps, firewalldWarnings, readFirewalld, showFirewalld, type FirewalldPlan, type FirewalldState } from './firewalld.js';
import { checkNftChange, nftChange, nftProbes, nftSteps, nftWarnings, type NftPlan } from './nft-change.js';
import { readNft, showNft, type NftState } from './nft-state.js';
import { NFT_FILES } from './nft-table.js';
import { compensating } from '../../rollback.js';

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
export function nftAction<P extends Record<string, unknown>>(spec: {
  name: string;
  description: string;
  params: z.ZodType<P>;
  example: P;
  /** Refuses what the parameters alone make unsafe, whichever firewall. */
  refuse?: (p: P) => void;
  /** Refuses what makes this change a no-op or impossible. */
  check?: (p: P, cur: NftState) => Unchanged | void;
  plan: (p: P, cur: NftState) => NftPlan;
  firewalld: ((p: P, cur: FirewalldState) => FirewalldPlan) | string;
  /** Parameters that name a rule of table inet airlock (a handle): the nft table even where firewalld runs. */
  nftOnly?: (p: P) => boolean;
  /**
   * The action whose mechanism undoes this one (issue 27). Compensating: nft gives the rules an
   * undo puts back new handles (nft-change.ts, nftUndo), and firewalld lists an entry added back
   * last; the rules, their order and the policies read as before.
   */
  inverse: string;
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
    rollback: compensating<P, FirewallState>(spec.inverse, (p, cur) => (cur.backend === 'nft' ? nftProbes() : firewalldProbes(cur, viaFirewalld(p, cur)))),
    readOnly: false,
    runsPrograms: false,
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
      const held = spec.check?.(p, cur);
      if (held) return held;
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
