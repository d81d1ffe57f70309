/** ufw as Airlock reads it: active or not, its rules as added and as numbered, its incoming policy; and what would cut SSH off. */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { firstLine } from '../../lib/text.js';
import { installed } from './installed.js';
import { lockOutError } from './lockout.js';
import { readSockets, type Sockets } from './sockets.js';

const UFW_DEFAULTS = '/etc/default/ufw';
/** Where ufw keeps its rules, one `### tuple ###` comment per rule, in order: IPv4 and IPv6. */
export const UFW_RULES = { v4: '/etc/ufw/user.rules', v6: '/etc/ufw/user6.rules' } as const;
export const TUPLE = '### tuple ### ';

export interface UfwState {
  installed: boolean;
  active: boolean;
  /** `ufw show added` without the leading "ufw ": "allow 22/tcp". */
  added: string[];
  /** `ufw status numbered` rows (only while ufw is active). */
  numbered: Array<{ number: number; text: string }>;
  /** DEFAULT_INPUT_POLICY of /etc/default/ufw (DROP, REJECT or ACCEPT). */
  defaultInput: string;
  /** The rules as ufw stores them, per family, in order: "allow tcp 8080 0.0.0.0/0 any 0.0.0.0/0 in". */
  tuples: { v4: string[]; v6: string[] };
  sockets: Sockets;
}

export async function readUfw(host: Host): Promise<UfwState> {
  const none: UfwState = { installed: false, active: false, added: [], numbered: [], defaultInput: '', tuples: { v4: [], v6: [] }, sockets: { listeners: [], sshPorts: [22], sshPeers: [] } };
  if (!(await installed(host, 'ufw'))) return none;
  const status = await host.run('ufw', ['status', 'numbered']);
  const added = await host.run('ufw', ['show', 'added']);
  if (status.code !== 0 || added.code !== 0) throw new AirlockError('execution', 'ufw_unreadable', `ufw could not report its rules: ${firstLine(status.stderr || added.stderr)}`);
  const defaults = (await host.readFile(UFW_DEFAULTS)) ?? '';
  return {
    installed: true,
    active: /^Status: active$/m.test(status.stdout),
    added: added.stdout.split('\n').flatMap((l) => (l.startsWith('ufw ') ? [l.slice(4).trim()] : [])),
    numbered: [...status.stdout.matchAll(/^\[\s*(\d+)\]\s+(.*?)\s*$/gm)].map((m) => ({ number: Number(m[1]), text: m[2]!.replace(/\s{2,}/g, '  ') })),
    defaultInput: /^DEFAULT_INPUT_POLICY="?([A-Z]+)"?/m.exec(defaults)?.[1] ?? 'DROP',
    tuples: { v4: tuplesOf(await host.readFile(UFW_RULES.v4)), v6: tuplesOf(await host.readFile(UFW_RULES.v6)) },
    sockets: await readSockets(host),
  };
}

const tuplesOf = (text: string | null) => (text ?? '').split('\n').flatMap((l) => (l.startsWith(TUPLE) ? [l.slice(TUPLE.length).trim()] : []));

export function refuseNoUfw(cur: UfwState): void {
  if (!cur.installed) throw new AirlockError('unsupported_platform', 'ufw_missing', 'ufw is not installed on this host', 'manage the firewall with AllowPort, DenyPort and the other nftables actions, or install the ufw package');
}

export const showUfw = (cur: UfwState) => ({ installed: cur.installed, active: cur.active, rules: cur.added, numbered: cur.numbered.map((r) => `[${r.number}] ${r.text}`) });

export const UFW_VERBS = ['allow', 'deny', 'reject', 'limit'] as const;
export type UfwVerb = (typeof UFW_VERBS)[number];

/** The verb of an added rule for exactly this port/protocol, if any ("allow" for `allow 22/tcp`). */
export function ufwVerbFor(cur: UfwState, spec: string): UfwVerb | null {
  for (const line of cur.added) {
    const m = /^(allow|deny|reject|limit) (\S+)$/.exec(line);
    if (m && m[2] === spec) return m[1] as UfwVerb;
  }
  return null;
}

/**
 * Is SSH let in by ufw, per IP family, counting numbered rows: a row "22/tcp ALLOW IN
 * Anywhere" (or LIMIT, the port alone, or an OpenSSH profile) for an SSH port.
 */
function ufwSshAllowed(rows: UfwState['numbered'], sshPorts: number[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows) {
    const m = /^(\S+)( \(v6\))?\s+(ALLOW|LIMIT)(?: IN)?\s+Anywhere/.exec(r.text);
    if (!m) continue;
    const to = m[1]!;
    if (sshPorts.some((p) => to === `${p}/tcp` || to === `${p}`) || (sshPorts.includes(22) && /^(OpenSSH|ssh)$/i.test(to))) out.add(m[2] ? 'IPv6' : 'IPv4');
  }
  return out;
}

export function refuseUfwLockout(cur: UfwState, rowsAfter: UfwState['numbered']): void {
  if (!cur.active || cur.defaultInput === 'ACCEPT') return;
  const after = ufwSshAllowed(rowsAfter, cur.sockets.sshPorts);
  const lost = [...ufwSshAllowed(cur.numbered, cur.sockets.sshPorts)].filter((f) => !after.has(f));
  if (lost.length) {
    throw lockOutError([`ufw is active with incoming policy ${cur.defaultInput} and would no longer allow SSH over ${lost.join(' and ')}`], 'add another ufw rule that allows SSH first');
  }
}
