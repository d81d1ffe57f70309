/** How a set of rules would cut SSH off, and the refusal that says so. */
import { AirlockError } from '../../../protocol/errors.js';
import { netContains, netText, parseNet } from '../../lib/net-address.js';
import { portMatches, ruleKey, type ReadRule } from './simple-rule.js';
import type { Sockets } from './sockets.js';

/** The peers of the open SSH sessions to port `p`. */
export const peersOn = (s: Sockets, p: number) => s.sshPeers.filter((x) => x.port === p).map((x) => parseNet(x.peer)!);

/** The refusal of a change that could cut SSH off, naming every way it would. */
export function lockOutError(problems: string[], hint: string): AirlockError {
  return new AirlockError('authorization', 'would_lock_out', `this change could cut SSH off: ${problems.join('; ')}`, hint);
}

/**
 * How rules would cut SSH off: drop rules that catch the SSH port or an open SSH session's
 * peer, and, where what no rule accepts is dropped (`dropsByDefault` says so), no rule accepting SSH.
 */
export function sshLockout(rules: ReadRule[], dropsByDefault: string | null, s: Sockets): string[] {
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
