/** /etc/hosts: the static host name table, read, and edited one line or one name at a time (never the loopback entries). */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { parseHostsLine, readHostsFile } from '../../lib/hosts-file.js';
import { fileScan, fileWrite } from '../../mechanism.js';
import { fqdn, ipAddress, params } from '../../params.js';
import { appendLine } from '../../lib/line-patch.js';
import { exact } from '../../rollback.js';

const HOSTS = '/etc/hosts';
/** Names that must keep resolving to the loopback address; no action maps or unmaps them. */
const LOCALHOST_NAMES = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback'];
const LOOPBACK = ['127.0.0.1', '::1'];

const sameIp = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export const listHostsEntries = fixedRead({
  name: 'ListHostsEntries',
  // Sensitive: /etc/hosts in full, comments included.
  sensitive: true,
  reachesNetwork: false,
  family: 'network',
  description: 'Show the static host name table /etc/hosts.',
  summary: 'Read /etc/hosts',
  files: [HOSTS],
  steps: [fileScan(HOSTS)],
});

const hostsNames = z
  .array(fqdn)
  .min(1, 'give at least one name')
  .max(8, 'at most 8 names per line')
  .refine((ns) => new Set(ns).size === ns.length, 'names must not repeat');

/** Appends a line to the file's text, adding the missing final newline first. */
const hostsLine = (ip: string, names: string[]) => `${ip}\t${names.join(' ')}`;

export const addHostsEntry = action({
  name: 'AddHostsEntry',
  family: 'network',
  description: 'Append one "address names..." line to /etc/hosts.',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ ip: ipAddress, names: hostsNames }),
  files: [HOSTS],
  rebuildsAtExecute: { files: [HOSTS] },
  example: { ip: '10.0.0.12', names: ['db.internal', 'db'] },
  current: (_p, host) => readHostsFile(host),
  check: ({ ip, names }, cur) => {
    const reserved = names.filter((n) => LOCALHOST_NAMES.includes(n));
    if (reserved.length > 0) {
      throw new AirlockError('authorization', 'protected_name', `${reserved.join(', ')} must keep resolving to the loopback address; Airlock does not map it`);
    }
    const dup = cur.entries.some((e) => sameIp(e.ip, ip) && e.names.length === names.length && e.names.every((n, i) => sameName(n, names[i]!)));
    if (dup) return unchanged(`${HOSTS} already has the line ${hostsLine(ip, names)}`);
  },
  preview: ({ ip, names }, cur) => {
    const elsewhere = cur.entries.flatMap((e) =>
      sameIp(e.ip, ip) ? [] : e.names.filter((n) => names.some((m) => sameName(n, m))).map((n) => `${n} already maps to ${e.ip}; the earlier line wins, so the new mapping has no effect for ${n}`),
    );
    return {
      summary: `Map ${names.join(', ')} to ${ip} in ${HOSTS}`,
      change: { file: HOSTS, append_line: hostsLine(ip, names), creates_file: !cur.exists },
      sideEffects: ['programs resolve these names to this address from the next lookup; nscd or systemd-resolved caches may hold the old answer briefly'],
      warnings: elsewhere,
    };
  },
  mechanism: ({ ip, names }, cur) => [fileWrite(HOSTS, appendLine(cur.text, hostsLine(ip, names)), { mode: 0o644 })],
});

/** The file with `name` removed from every line of `ip`; a line left without names goes. Pure. */
export function removeHostsName(text: string, ip: string, name: string): { text: string; removed: string[]; rewritten: string[] } {
  const removed: string[] = [];
  const rewritten: string[] = [];
  const out = text.split('\n').flatMap((line) => {
    const e = parseHostsLine(line);
    if (!e || !sameIp(e.ip, ip) || !e.names.some((n) => sameName(n, name))) return [line];
    const rest = e.names.filter((n) => !sameName(n, name));
    if (rest.length === 0) {
      removed.push(line);
      return [];
    }
    const next = `${hostsLine(e.ip, rest)}${e.comment ? ` ${e.comment}` : ''}`;
    rewritten.push(`${line} => ${next}`);
    return [next];
  });
  return { text: out.join('\n'), removed, rewritten };
}

export const removeHostsEntry = action({
  name: 'RemoveHostsEntry',
  family: 'network',
  description: 'Remove a name from the /etc/hosts lines of an address, dropping lines left without names.',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ ip: ipAddress, name: fqdn }),
  files: [HOSTS],
  rebuildsAtExecute: { files: [HOSTS] },
  example: { ip: '10.0.0.12', name: 'db.internal' },
  current: async ({ ip, name }, host) => {
    const hosts = await readHostsFile(host);
    return { ...removeHostsName(hosts.text, ip, name), exists: hosts.exists };
  },
  check: ({ ip, name }, cur) => {
    if (LOOPBACK.some((l) => sameIp(l, ip)) && LOCALHOST_NAMES.includes(name)) {
      throw new AirlockError('authorization', 'protected_entry', `${name} on ${ip} is the loopback entry every host needs; Airlock does not remove it`);
    }
    if (cur.removed.length + cur.rewritten.length === 0) {
      return unchanged(`${HOSTS} has no line mapping ${name} to ${ip}`);
    }
  },
  preview: ({ ip, name }, cur) => ({
    summary: `Unmap ${name} from ${ip} in ${HOSTS}`,
    change: { file: HOSTS, remove_lines: cur.removed, rewrite_lines: cur.rewritten },
    sideEffects: [`${name} resolves through DNS (or not at all) from the next lookup`],
  }),
  mechanism: (_p, cur) => [fileWrite(HOSTS, cur.text, { mode: 0o644 })],
});
