/**
 * Firewall: three layers, each changed only through its own tool.
 *
 * - nftables (nft-table.ts, nft-state.ts, nft-rules.ts, nft-change.ts). Airlock owns one
 *   table, `inet airlock` (base chains `input` and `forward` on the filter hooks at
 *   priority 0), and never touches another. Every change rebuilds the table's whole
 *   desired state from the live table plus the one change, writes it to
 *   /etc/airlock/nftables-airlock.nft, checks it with `nft --check --file` and loads it
 *   with `nft --file`: one kernel transaction (`flush table` and the table's definition),
 *   so the table is never half-updated and rule handles only grow (a stale handle never
 *   names another rule). The same file is loaded at boot by airlock-nftables.service,
 *   which the first change installs.
 * - ufw (ufw-state.ts, ufw.ts): rules allowed, denied and deleted with the ufw command
 *   (ufw keeps them in /etc/ufw/user*.rules itself); offered only where ufw is installed.
 * - fail2ban (fail2ban.ts, jail-options.ts): status, manual bans and unbans with
 *   fail2ban-client, and a fixed set of jail options in the drop-in
 *   /etc/fail2ban/jail.d/60-airlock.local, checked with `fail2ban-client --test` before the
 *   jail is reloaded.
 * - firewalld (firewalld.ts, backend.ts), on Fedora and RHEL where it runs: AllowPort,
 *   DenyPort, AllowSource, DenySource and RemoveFirewallRule (by rule, not by handle) change
 *   its default zone with `firewall-cmd --permanent` and `--reload`, since its own table
 *   would still reject what table inet airlock accepts. SetDefaultPolicy is nft-only
 *   (refused where firewalld runs), and a rule handle always names a rule of table inet airlock.
 *
 * What could cut SSH off is refused (lockout.ts, sockets.ts): a drop rule or ban covering
 * the peer of an open SSH session, a deny of the SSH port, a default drop policy with no
 * rule accepting SSH.
 */
import type { AnyAction } from '../../action.js';
import { setDefaultPolicy } from './default-policy.js';
import { fail2banBan, fail2banStatus, fail2banUnban } from './fail2ban.js';
import { setJailOption } from './jail-options.js';
import { removeFirewallRule } from './remove-rule.js';
import { allowPort, allowSource, denyPort, denySource } from './rules.js';
import { firewallStatus, listRuleset } from './status.js';
import { ufwAllow, ufwDelete, ufwDeny, ufwStatus } from './ufw.js';

/** The firewall family: table inet airlock (or firewalld's default zone), ufw and fail2ban. */
export const actions: readonly AnyAction[] = [
  listRuleset,
  firewallStatus,
  allowPort,
  denyPort,
  allowSource,
  denySource,
  removeFirewallRule,
  setDefaultPolicy,
  ufwStatus,
  ufwAllow,
  ufwDeny,
  ufwDelete,
  fail2banStatus,
  fail2banBan,
  fail2banUnban,
  setJailOption,
];
