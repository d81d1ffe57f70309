/** /etc/hosts, read and parsed the one way every family does (identity and network edit it). */
import type { Host } from '../action.js';

/** One entry of /etc/hosts: address, names as written (compare them lower-cased) and any trailing comment. */
export interface HostsEntry {
  ip: string;
  names: string[];
  comment: string;
}

/** Parses one /etc/hosts line; null for blank and comment-only lines. */
export function parseHostsLine(line: string): HostsEntry | null {
  const hash = line.indexOf('#');
  const body = hash < 0 ? line : line.slice(0, hash);
  const [ip, ...names] = body.trim().split(/\s+/).filter(Boolean);
  if (!ip) return null;
  return { ip, names, comment: hash < 0 ? '' : line.slice(hash) };
}

/** /etc/hosts as text (empty when absent) and its parsed entries. */
export async function readHostsFile(host: Host): Promise<{ exists: boolean; text: string; entries: HostsEntry[] }> {
  const text = await host.readFile('/etc/hosts');
  const entries = (text ?? '').split('\n').flatMap((l) => parseHostsLine(l) ?? []);
  return { exists: text !== null, text: text ?? '', entries };
}
