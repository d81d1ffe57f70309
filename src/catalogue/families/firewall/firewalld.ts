/**
 * firewalld, on Fedora and RHEL where it runs: its default zone as firewall-cmd lists it, the
 * entries Airlock adds and removes there (open ports and rich rules, by rule, not by handle),
 * their refusals, preview and steps (`firewall-cmd --permanent`, then `--reload`).
 */
import { AirlockError } from '../../../protocol/errors.js';
import { RHEL_LIKE, type CommandOutput, type Host, unchanged, type Unchanged } from '../../action.js';
import { netText, parseNet } from '../../lib/net-address.js';
import { firstLine } from '../../lib/text.js';
import { command, type Step } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import { installed } from './installed.js';
import { lockOutError, sshLockout } from './lockout.js';
import type { Policy, ReadRule, SimpleRule } from './simple-rule.js';
import { readSockets, type Sockets } from './sockets.js';

/**
 * On a Fedora or RHEL host where firewalld runs, the firewall is firewalld's: a rule
 * accepted in table inet airlock would still be rejected by firewalld's own table, so
 * rules go into firewalld's default zone instead, with `firewall-cmd --permanent` and a
 * `--reload` that makes the permanent configuration the running one. Elsewhere (Debian,
 * Ubuntu, or firewalld stopped) Airlock's own nftables table is used.
 */
export async function firewalldRunning(host: Host): Promise<boolean> {
  if (host.platform === null || !RHEL_LIKE.includes(host.platform) || !(await installed(host, 'firewall-cmd'))) return false;
  const r = await host.run('firewall-cmd', ['--state']);
  return r.code === 0 && r.stdout.trim() === 'running';
}

const ZONE_NAME = /^[A-Za-z0-9][A-Za-z0-9_+-]{0,31}$/;

export interface ZoneConfig {
  /** default, ACCEPT, DROP or %%REJECT%%: what happens to what no rule accepts. */
  target: string;
  services: string[];
  /** "443/tcp", "8000-8100/udp". */
  ports: string[];
  richRules: string[];
}

/** Parses `firewall-cmd [--permanent] --zone=Z --list-all`: "  key: values" lines, then the rich rules one per line. */
export function parseZone(text: string): ZoneConfig {
  const field = (k: string) => new RegExp(`^\\s*${k}:[ \\t]*(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  const words = (k: string) => field(k).split(/\s+/).filter(Boolean);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^\s*rich rules:/.test(l));
  return {
    target: field('target') || 'default',
    services: words('services'),
    ports: words('ports'),
    richRules: at < 0 ? [] : lines.slice(at + 1).map((l) => l.trim()).filter((l) => l.startsWith('rule ')),
  };
}

export interface FirewalldState {
  /** The default zone: where interfaces and sources bound to no other zone belong. */
  zone: string;
  permanent: ZoneConfig;
  runtime: ZoneConfig;
  /** Other zones that have interfaces or sources: their traffic is not the default zone's. */
  otherActiveZones: string[];
  sockets: Sockets;
}

export async function readFirewalld(host: Host): Promise<FirewalldState> {
  const unreadable = (what: string, r: CommandOutput) =>
    new AirlockError('execution', 'firewalld_unreadable', `firewall-cmd could not ${what}: ${firstLine(r.stderr || r.stdout)}`, 'ServiceStatus firewalld.service shows whether firewalld is healthy');
  const def = await host.run('firewall-cmd', ['--get-default-zone']);
  const zone = def.stdout.trim();
  if (def.code !== 0 || !ZONE_NAME.test(zone)) throw unreadable('name its default zone', def);
  const perm = await host.run('firewall-cmd', ['--permanent', `--zone=${zone}`, '--list-all']);
  if (perm.code !== 0) throw unreadable(`list the permanent configuration of zone ${zone}`, perm);
  const rt = await host.run('firewall-cmd', [`--zone=${zone}`, '--list-all']);
  if (rt.code !== 0) throw unreadable(`list zone ${zone}`, rt);
  const active = await host.run('firewall-cmd', ['--get-active-zones']);
  // "public (default)" heads a zone's stanza, its interfaces and sources are indented below.
  const otherActiveZones = active.stdout
    .split('\n')
    .filter((l) => /^\S/.test(l))
    .map((l) => l.split(/\s+/)[0]!)
    .filter((z) => z !== zone);
  return { zone, permanent: parseZone(perm.stdout), runtime: parseZone(rt.stdout), otherActiveZones, sockets: await readSockets(host) };
}

/** The rich rule for a rule shape Airlock writes, as firewalld prints it back: family, source, port, action. */
export function richRule(verdict: Policy, m: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }): string {
  const net = m.source === undefined ? null : parseNet(m.source)!;
  const match = [net ? `family="ipv${net.family}" source address="${netText(net)}"` : '', m.protocol ? `port port="${m.port}" protocol="${m.protocol}"` : ''];
  return ['rule', ...match.filter(Boolean), verdict === 'accept' ? 'accept' : 'drop'].join(' ');
}

/** What a rich rule of those shapes (or `service name="ssh"`) means; null for any other (logging, limits, NOT, priorities). */
export function parseRichRule(text: string): SimpleRule | null {
  const m = /^rule(?: family="ipv([46])" source address="([0-9A-Fa-f:./]+)")?(?: port port="(\d+)" protocol="(tcp|udp)"| service name="(ssh)")? (accept|drop|reject)$/.exec(text);
  if (!m) return null;
  const source = m[2] === undefined ? undefined : parseNet(m[2]);
  if (source === null || (source && String(source.family) !== m[1])) return null;
  const protocol = m[5] ? 'tcp' : (m[4] as 'tcp' | 'udp' | undefined);
  const port = m[5] ? 22 : m[3] === undefined ? undefined : Number(m[3]);
  return { source, protocol, port, verdict: m[6] === 'accept' ? 'accept' : 'drop' };
}

/** A zone's entries as rules, for the SSH checks: the ssh service (tcp/22), ports (ranges that hold an SSH port) and rich rules. */
function zoneRules(z: ZoneConfig, sshPorts: number[]): ReadRule[] {
  const out: ReadRule[] = [];
  if (z.services.includes('ssh')) out.push({ text: 'service ssh', x: { protocol: 'tcp', port: 22, verdict: 'accept' } });
  for (const spec of z.ports) {
    const m = /^(\d+)(?:-(\d+))?\/(tcp|udp)$/.exec(spec);
    if (!m) continue;
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    const ports = m[2] === undefined ? [from] : sshPorts.filter((p) => from <= p && p <= to);
    for (const port of ports) out.push({ text: `port ${spec}`, x: { protocol: m[3] as 'tcp' | 'udp', port, verdict: 'accept' } });
  }
  for (const text of z.richRules) {
    const x = parseRichRule(text);
    if (x) out.push({ text, x });
  }
  return out;
}

const firewalldLockout = (zone: string, z: ZoneConfig, s: Sockets) => sshLockout(zoneRules(z, s.sshPorts), z.target === 'ACCEPT' ? null : `zone ${zone} rejects what no rule accepts`, s);

/** One entry of a zone that Airlock adds or removes: a port, or a rich rule. */
export interface FirewalldEntry {
  kind: 'port' | 'rich-rule';
  value: string;
}

/** The entry AllowPort, DenyPort, AllowSource or DenySource adds: an open port for a plain allow, a rich rule otherwise. */
export function firewalldEntry(verdict: Policy, m: { source?: string; protocol?: 'tcp' | 'udp'; port?: number }): FirewalldEntry {
  if (verdict === 'accept' && m.source === undefined && m.protocol) return { kind: 'port', value: `${m.port}/${m.protocol}` };
  return { kind: 'rich-rule', value: richRule(verdict, m) };
}

const entriesOf = (z: ZoneConfig, e: FirewalldEntry) => (e.kind === 'port' ? z.ports : z.richRules);
export const describeEntry = (e: FirewalldEntry) => `${e.kind === 'port' ? 'port' : 'rich rule'} ${e.value}`;

export interface FirewalldPlan {
  summary: string;
  add?: FirewalldEntry;
  remove?: FirewalldEntry;
  sideEffects?: string[];
  warnings?: string[];
}

/** The permanent configuration of the zone once the plan is applied. */
function zoneAfter(z: ZoneConfig, plan: FirewalldPlan): ZoneConfig {
  const next = { ...z, ports: [...z.ports], richRules: [...z.richRules] };
  if (plan.add) entriesOf(next, plan.add).push(plan.add.value);
  if (plan.remove) {
    const list = entriesOf(next, plan.remove);
    list.splice(list.indexOf(plan.remove.value), 1);
  }
  return next;
}

/** The refusals every firewalld change shares: no no-op, nothing missing, and no new way to cut SSH off. */
export function checkFirewalldChange(cur: FirewalldState, plan: FirewalldPlan): Unchanged | undefined {
  if (plan.add && entriesOf(cur.permanent, plan.add).includes(plan.add.value)) {
    return unchanged(`firewalld zone ${cur.zone} already has ${describeEntry(plan.add)}`);
  }
  if (plan.remove && !entriesOf(cur.permanent, plan.remove).includes(plan.remove.value)) {
    throw new AirlockError('validation', 'no_such_rule', `firewalld zone ${cur.zone} has no ${describeEntry(plan.remove)}`, "FirewallStatus lists the zone's ports and rich rules");
  }
  const before = new Set(firewalldLockout(cur.zone, cur.permanent, cur.sockets));
  const added = firewalldLockout(cur.zone, zoneAfter(cur.permanent, plan), cur.sockets).filter((p) => !before.has(p));
  if (added.length) throw lockOutError(added, `keep SSH reachable first (AllowPort {"port": ${cur.sockets.sshPorts[0]}, "protocol": "tcp"}), or have a person at the console make this change`);
}

const sameEntries = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

export function firewalldWarnings(cur: FirewalldState): string[] {
  const out: string[] = [];
  const p = cur.permanent;
  const r = cur.runtime;
  if (!sameEntries(p.ports, r.ports) || !sameEntries(p.richRules, r.richRules) || !sameEntries(p.services, r.services)) {
    out.push(`zone ${cur.zone} runs with changes that were never made permanent: the reload drops them (running: ${[...r.services, ...r.ports, ...r.richRules].join(', ') || 'nothing'})`);
  }
  if (cur.otherActiveZones.length) out.push(`zones ${cur.otherActiveZones.join(', ')} also have interfaces or sources: traffic that reaches them is not filtered by zone ${cur.zone}`);
  return out;
}

export function firewalldChange(cur: FirewalldState, plan: FirewalldPlan) {
  return {
    firewall: 'firewalld',
    zone: cur.zone,
    ...(plan.add ? { adds: describeEntry(plan.add) } : {}),
    ...(plan.remove ? { removes: describeEntry(plan.remove) } : {}),
    apply: `firewall-cmd --permanent --zone=${cur.zone} changes the stored zone, then firewall-cmd --reload makes the stored configuration the running one`,
  };
}

/**
 * Changes the stored zone, then reloads. Undone last first: the stored zone set back, then the
 * reload that the first step (a read of firewalld's state) carries, so the running zone follows it.
 */
export function firewalldSteps(cur: FirewalldState, plan: FirewalldPlan): Step[] {
  const edit = (verb: 'add' | 'remove', e: FirewalldEntry) => command('firewall-cmd', ['--permanent', `--zone=${cur.zone}`, `--${verb}-${e.kind}=${e.value}`]);
  const step = plan.add ? { ...edit('add', plan.add), undo: edit('remove', plan.add) } : { ...edit('remove', plan.remove!), undo: edit('add', plan.remove!) };
  const reload = command('firewall-cmd', ['--reload']);
  return [command('firewall-cmd', ['--state'], { undo: reload }), step, { ...reload, noUndo: 'undone_earlier' }];
}

/** Whether the zone has the entry, stored and running: the order firewall-cmd lists entries in changes when one is added back, a query's answer does not. */
export function firewalldProbes(cur: FirewalldState, plan: FirewalldPlan): StateProbe[] {
  const e = (plan.add ?? plan.remove)!;
  const query = `--query-${e.kind}=${e.value}`;
  return [
    { program: 'firewall-cmd', args: ['--permanent', `--zone=${cur.zone}`, query] },
    { program: 'firewall-cmd', args: [`--zone=${cur.zone}`, query] },
  ];
}

export const showFirewalld = (cur: FirewalldState) => ({
  firewall: 'firewalld',
  zone: cur.zone,
  target: cur.permanent.target,
  services: cur.permanent.services,
  ports: cur.permanent.ports,
  rich_rules: cur.permanent.richRules,
  other_active_zones: cur.otherActiveZones,
  ssh: { ports: cur.sockets.sshPorts, open_sessions_from: cur.sockets.sshPeers.map((p) => p.peer) },
});
