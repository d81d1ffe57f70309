/**
 * The relay's host list (RELAY_HOSTS_FILE, TOML) and its trusted host keys (RELAY_KNOWN_HOSTS,
 * OpenSSH's known_hosts format): read by the relay, written only by `airlock hosts add` and
 * `remove`, which a person runs as root. One host is
 *
 *   [hosts.web1]
 *   address = "10.0.0.5"
 *   port = 22
 *   user = "airlock-relay"
 *
 * Its key is trusted under the alias `airlock-host-web1` (ssh's HostKeyAlias), so the key is
 * the one a person confirmed for that name, whatever address the name points to later.
 */
import { createHash } from 'node:crypto';
import { parse } from 'smol-toml';
import { AirlockError } from './errors.js';
import { checkHostName, DEFAULT_PROXY_ACCOUNT } from './relay.js';

export interface RelayHost {
  name: string;
  /** An IP address or a DNS name: never an option (no leading '-'), no spaces, no user part. */
  address: string;
  port: number;
  user: string;
}

/** At most this many hosts: a bound on what the relay holds, far above a fleet one person approves at once. */
export const MAX_HOSTS = 1000;

const ADDRESS = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[?[0-9A-Fa-f:.]{2,45}\]?)$/;
const ACCOUNT = /^[a-z_][a-z0-9_-]{0,31}$/;

const bad = (why: string): never => {
  throw new AirlockError('validation', 'bad_hosts_file', why, 'fix it with `sudo airlock hosts add NAME DEST` or `sudo airlock hosts remove NAME`');
};

/** One host as `airlock hosts add NAME [USER@]ADDRESS[:PORT]` gives it. */
export function hostFromDestination(name: string, destination: string): RelayHost {
  checkHostName(name);
  const m = /^(?:([^@]+)@)?(\[[0-9A-Fa-f:.]+\]|[^:@]+)(?::([0-9]{1,5}))?$/.exec(destination);
  if (!m) throw new AirlockError('validation', 'bad_destination', `the destination ${JSON.stringify(destination.slice(0, 80))} is not [USER@]ADDRESS[:PORT]`, 'for example airlock-relay@10.0.0.5:22, or web1.example.org');
  return checkHost({ name, user: m[1] ?? DEFAULT_PROXY_ACCOUNT, address: m[2]!.replace(/^\[|\]$/g, ''), port: m[3] ? Number(m[3]) : 22 });
}

function checkHost(h: RelayHost): RelayHost {
  checkHostName(h.name);
  if (typeof h.address !== 'string' || !ADDRESS.test(h.address) || h.address.startsWith('-')) bad(`host ${h.name}: the address ${JSON.stringify(String(h.address).slice(0, 80))} is not an IP address or a DNS name`);
  if (!Number.isInteger(h.port) || h.port < 1 || h.port > 65535) bad(`host ${h.name}: the port must be 1 to 65535`);
  if (typeof h.user !== 'string' || !ACCOUNT.test(h.user)) bad(`host ${h.name}: the user ${JSON.stringify(String(h.user).slice(0, 40))} is not an account name`);
  return h;
}

export function parseHosts(text: string): Map<string, RelayHost> {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    return bad(`the host list is not TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  for (const k of Object.keys(doc)) if (k !== 'hosts') bad(`the host list has an unknown table ${JSON.stringify(k)}: only [hosts.NAME]`);
  const hosts = new Map<string, RelayHost>();
  const table = (doc.hosts ?? {}) as Record<string, Record<string, unknown>>;
  if (typeof table !== 'object' || Array.isArray(table)) bad('hosts must be a table of [hosts.NAME]');
  for (const [name, h] of Object.entries(table)) {
    if (hosts.size >= MAX_HOSTS) bad(`the host list holds more than ${MAX_HOSTS} hosts`);
    for (const k of Object.keys(h)) if (!['address', 'port', 'user'].includes(k)) bad(`host ${name}: unknown key ${JSON.stringify(k)}`);
    hosts.set(name, checkHost({ name, address: h.address as string, port: (h.port ?? 22) as number, user: (h.user ?? DEFAULT_PROXY_ACCOUNT) as string }));
  }
  return hosts;
}

export function formatHosts(hosts: Map<string, RelayHost>): string {
  const lines = ['# Airlock relay: the hosts an agent may reach by name. Written by `airlock hosts add`; a host is', '# reached only when its key is in known_hosts beside this file.', ''];
  for (const h of [...hosts.values()].sort((a, b) => a.name.localeCompare(b.name))) lines.push(`[hosts.${h.name}]`, `address = ${JSON.stringify(h.address)}`, `port = ${h.port}`, `user = ${JSON.stringify(h.user)}`, '');
  return lines.join('\n');
}

/** The alias a host's key is trusted under in the relay's known_hosts. */
export const hostKeyAlias = (name: string) => `airlock-host-${checkHostName(name)}`;

/** A host key as ssh-keyscan prints it and known_hosts keeps it. */
export interface HostKey {
  type: string;
  /** The key blob, base64. */
  key: string;
}

const KEY_TYPE = /^(ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|ssh-rsa|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/;

/** OpenSSH's fingerprint of a key: SHA256:, then the base64 of the blob's SHA-256 without padding. */
export function fingerprint(k: HostKey): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(k.key, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/** The host keys in ssh-keyscan's output (`ADDRESS TYPE KEY` lines; comments skipped), strictly. */
export function parseScannedKeys(text: string): HostKey[] {
  const keys: HostKey[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [, type, key] = line.trim().split(/\s+/);
    if (type && key && KEY_TYPE.test(type) && /^[A-Za-z0-9+/]+=*$/.test(key)) keys.push({ type, key });
  }
  return keys;
}

/** known_hosts with the keys of `name` replaced by `keys` (none: the host's keys removed). */
export function withHostKeys(knownHosts: string, name: string, keys: HostKey[]): string {
  const alias = hostKeyAlias(name);
  const kept = knownHosts.split('\n').filter((l) => l.trim() && l.split(/\s+/)[0] !== alias);
  return [...kept, ...keys.map((k) => `${alias} ${k.type} ${k.key}`)].join('\n') + '\n';
}

/** The keys trusted for `name`. */
export function hostKeysOf(knownHosts: string, name: string): HostKey[] {
  const alias = hostKeyAlias(name);
  return knownHosts
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[0] === alias && f.length >= 3)
    .map((f) => ({ type: f[1]!, key: f[2]! }));
}
