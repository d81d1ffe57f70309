/**
 * The catalogue as data, for clients with no daemon to ask: `airlock actions` and
 * `airlock describe` when the daemon is unreachable, and the MCP server's listing tools.
 *
 * The data is src/protocol/catalogue-metadata.json, generated from the declarations by
 * scripts/gen-catalogue-metadata.ts (`npm run docs`; test/unit/catalogue-metadata.test.ts
 * fails when it is stale). Reading it costs a file read, where importing src/catalogue
 * costs every family, zod and the schema conversion: a client that only lists the
 * catalogue has no reason to pay that.
 *
 * What only the daemon knows is absent: whether this host supports an action, and the
 * risk its policy raises. `risk` and `min_role` here are the catalogue's, which a host's
 * policy may raise and never lower.
 */
import { readFileSync } from 'node:fs';
import { AirlockError, textOfWireValue } from './errors.js';
import type { ActionDescription } from './messages.js';
import { didYouMean, nearestNames } from './nearest.js';

/** An action as its declaration describes it: ActionDescription less `supported_here`, with the catalogue's risk. */
export type ActionMetadata = Omit<ActionDescription, 'supported_here'>;

/** The whole file. */
export interface CatalogueMetadata {
  /** Every declared family, in the catalogue's order (some may have no action yet). */
  families: string[];
  /** Every action, in the order the daemon's `actions.list` returns them. */
  actions: ActionMetadata[];
}

/**
 * The same path from src/protocol/ (run through tsx) and from dist/protocol/ (compiled):
 * the JSON is data, not compiled, so the one committed file serves both.
 */
export const CATALOGUE_METADATA_URL = new URL('../../src/protocol/catalogue-metadata.json', import.meta.url);

let cached: CatalogueMetadata | null = null;

/** The metadata, read once on first use. */
export function catalogueMetadata(): CatalogueMetadata {
  cached ??= JSON.parse(readFileSync(CATALOGUE_METADATA_URL, 'utf8')) as CatalogueMetadata;
  return cached;
}

/** Every action, or only those of `family` (an unknown family lists nothing, as `airlock actions --family` does). */
export function listActionMetadata(family?: string): ActionMetadata[] {
  const all = catalogueMetadata().actions;
  return family === undefined ? all : all.filter((a) => a.family === family);
}

/** One line per family, for the headers of `airlock actions`. */
export const FAMILY_DESCRIPTIONS: Readonly<Record<string, string>> = {
  system: 'the host at a glance: release, disks, memory, uptime, processes',
  services: 'systemd services and timers: state, logs, start, stop, enable, configure',
  users: 'local accounts, groups, password ageing, sessions',
  ssh: 'authorised keys and the SSH server configuration',
  packages: 'packages, repositories, pins and automatic updates',
  kernel: 'kernel parameters (sysctl) and modules',
  identity: 'host name, time zone, locale and clock',
  network: 'addresses, routes, links, resolvers and reachability',
  files: 'reading the configuration files an allowlist names',
  privilege: 'sudo grants and who may use them',
  firewall: 'ports, rules and the default policy, fail2ban',
  logging: 'the journal, journald, kernel messages and logrotate',
  processes: 'processes: list, inspect, signal',
  scheduling: 'cron jobs and systemd timers',
  security: 'password policy, the audit system, AppArmor, SELinux, certificates',
  storage: 'disks, file systems, mounts, swap and LVM',
  containers: 'Podman containers and images: list, inspect, logs, start, stop',
  revert: 'undoing a finished change (or plan) from the pre-state it kept',
};

/**
 * The refusal of an action name nobody declared, with the nearest names (`installpackage`:
 * did you mean InstallPackage?): the one error the daemon and every client give.
 */
export function unknownActionError(name: unknown, known: readonly string[]): AirlockError {
  const typed = textOfWireValue(name, 64);
  return new AirlockError('validation', 'unknown_action', `there is no action named ${JSON.stringify(typed)}${didYouMean(typed, known)}`, 'list actions with `airlock actions`', { next: { method: 'actions.list', params: {} } });
}

/** The declared name `name` means: itself, or the one name equal to it but for case; else null. */
export function resolveActionName(name: string): string | null {
  const names = catalogueMetadata().actions.map((a) => a.name);
  if (names.includes(name)) return name;
  const near = nearestNames(name, names);
  return near.length === 1 && near[0]!.toLowerCase() === name.toLowerCase() ? near[0]! : null;
}

/** One action by name (or by its name in other case); refuses an unknown name with the error the daemon gives. */
export function describeActionMetadata(name: string): ActionMetadata {
  const resolved = resolveActionName(name);
  const a = catalogueMetadata().actions.find((x) => x.name === resolved);
  if (!a) throw unknownActionError(name, catalogueMetadata().actions.map((x) => x.name));
  return a;
}
