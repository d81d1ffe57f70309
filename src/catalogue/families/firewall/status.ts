/** The firewall as it is: the whole nftables ruleset, and each layer's state (nft or firewalld, ufw, fail2ban). */
import { action, ALL_PLATFORMS } from '../../action.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { firewalldRunning, readFirewalld, showFirewalld, type FirewalldState } from './firewalld.js';
import { installed } from './installed.js';
import { readNft, showNft, type NftState } from './nft-state.js';
import { CHAINS, NFT_UNIT } from './nft-table.js';

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
