/** What an nft change starts from: the live table, the other tables, the saved file, the boot unit and the SSH sockets. */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { firstLine } from '../../lib/text.js';
import { CHAINS, emptyModel, NFT_FILE, NFT_UNIT_LINK, NFT_UNIT_PATH, NFT_UNIT_TEXT, parseTable, renderTable, type LiveTable } from './nft-table.js';
import { readSockets, type Sockets } from './sockets.js';

export interface NftState {
  table: LiveTable;
  /** Other nftables tables (ufw's and fail2ban's iptables-nft tables, Docker's, ...). */
  otherTables: string[];
  /** The saved desired-state file, or null. */
  saved: string | null;
  unit: { current: boolean; enabled: boolean; masked: boolean };
  sockets: Sockets;
}

export async function readNft(host: Host): Promise<NftState> {
  const r = await host.run('nft', ['--handle', '--stateless', 'list', 'table', 'inet', 'airlock']);
  let table: LiveTable;
  if (r.code === 0) table = parseTable(r.stdout);
  else if (/No such file or directory/.test(r.stderr)) table = { exists: false, chains: emptyModel(), present: [], unmanaged: [] };
  else {
    throw new AirlockError('execution', 'nft_unreadable', `nft could not list table inet airlock (exit status ${r.code}): ${firstLine(r.stderr)}`, 'is the nf_tables kernel module available?');
  }
  const tables = await host.run('nft', ['list', 'tables']);
  const otherTables = tables.stdout
    .split('\n')
    .map((l) => l.replace(/^table /, '').trim())
    .filter((t) => t !== '' && t !== 'inet airlock');
  const unitStat = await host.stat(NFT_UNIT_PATH);
  const masked = unitStat?.isSymlink ?? false;
  const unitText = unitStat?.isFile ? await host.readFile(NFT_UNIT_PATH) : null;
  return {
    table,
    otherTables,
    saved: await host.readFile(NFT_FILE),
    unit: { current: unitText === NFT_UNIT_TEXT, enabled: (await host.stat(NFT_UNIT_LINK))?.isSymlink ?? false, masked },
    sockets: await readSockets(host),
  };
}

/** What previews show of the nft state: the rules, not the whole socket table. */
export const showNft = (cur: NftState) => ({
  table: cur.table.exists ? Object.fromEntries(CHAINS.map((c) => [c, { policy: cur.table.chains[c].policy, rules: cur.table.chains[c].rules.map((r) => `${r.text} # handle ${r.handle}`) }])) : 'absent',
  unmanaged: cur.table.unmanaged,
  other_tables: cur.otherTables,
  saved_file: cur.saved === null ? 'absent' : cur.saved === renderTable(cur.table.chains) ? 'matches the live table' : 'differs from the live table',
  boot_unit: cur.unit.enabled && cur.unit.current ? 'enabled' : 'not installed or not enabled',
  ssh: { ports: cur.sockets.sshPorts, open_sessions_from: cur.sockets.sshPeers.map((p) => p.peer) },
});
