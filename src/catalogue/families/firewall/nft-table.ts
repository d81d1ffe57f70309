/**
 * nftables: the one table Airlock owns, `inet airlock` (base chains `input` and `forward` on
 * the filter hooks at priority 0), as nft lists it and as the desired-state file holds it,
 * and the unit that loads that file at boot.
 */
import type { Policy } from './simple-rule.js';

export const NFT_FILE = '/etc/airlock/nftables-airlock.nft';
export const NFT_UNIT = 'airlock-nftables.service';
export const NFT_UNIT_PATH = `/etc/systemd/system/${NFT_UNIT}`;
export const NFT_UNIT_LINK = `/etc/systemd/system/sysinit.target.wants/${NFT_UNIT}`;
export const NFT_FILES = [NFT_FILE, NFT_UNIT_PATH];

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

export const chainHeader = (c: ChainName, p: Policy) => `type filter hook ${c} priority filter; policy ${p};`;
export const emptyModel = (): TableModel => ({ input: { policy: 'accept', rules: [] }, forward: { policy: 'accept', rules: [] } });

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
