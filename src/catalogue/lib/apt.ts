/**
 * dpkg and apt as the families read them: what is installed, what apt would install
 * (`apt-cache policy`), what a simulation (`apt-get -s`) plans, and apt's own error line.
 * Readers only: what an action refuses on their answers is the action's.
 */
import { AirlockError } from '../../protocol/errors.js';
import type { Host } from '../action.js';
import { clip } from './text.js';

/** The line of a package manager's stderr that says what went wrong (apt's `E:`, dnf's `Error:`), else its first. */
export function firstError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim());
  return clip(lines.find((l) => /^(E|Error):/.test(l)) ?? lines[0] ?? '', 300);
}

/** The refusal of a version a package manager printed that does not look like one (never put in an argv). */
export const oddVersion = (manager: 'apt' | 'dnf', name: string, version: string) =>
  new AirlockError('execution', 'odd_version', `${manager} reports version ${JSON.stringify(version)} for ${name}, which Airlock will not pass on`);

/** A Debian version as apt prints it ([epoch:]upstream[-revision]); anything else is not put in an argv. */
export const DEBIAN_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+~:-]{0,127}$/;

export function requireDebianVersion(name: string, version: string): string {
  if (!DEBIAN_VERSION.test(version)) throw oddVersion('apt', name, version);
  return version;
}

// ---------------------------------------------------------------- installed packages: dpkg

/** One installed package instance. rpm's carry want 'install', no essential flag and no priority (rpm has neither). */
export interface DpkgEntry {
  name: string;
  arch: string;
  version: string;
  /** Selection: install, hold, deinstall, purge, unknown. */
  want: string;
  /** installed, config-files, half-installed, not-installed, ... */
  status: string;
  essential: boolean;
  priority: string;
}

const DPKG_FORMAT = '${Package}\t${Architecture}\t${Version}\t${db:Status-Want}\t${db:Status-Status}\t${Essential}\t${Priority}\n';

export function parseDpkgEntries(stdout: string): DpkgEntry[] {
  return stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 7 && f[0])
    .map(([name, arch, version, want, status, essential, priority]) => ({
      name: name!,
      arch: arch!,
      version: version!,
      want: want!,
      status: status!,
      essential: essential === 'yes',
      priority: priority!,
    }));
}

/** What dpkg knows about these packages (all architectures). dpkg matches names literally; unknown names are simply absent. */
export async function dpkgEntries(host: Host, names: string[]): Promise<DpkgEntry[]> {
  if (names.length === 0) return [];
  const r = await host.run('dpkg-query', ['-W', `--showformat=${DPKG_FORMAT}`, '--', ...names]);
  // 1 = some name is unknown to dpkg, which is an answer, not a failure.
  if (r.code !== 0 && r.code !== 1) throw new AirlockError('execution', 'dpkg_query_failed', `dpkg-query failed: ${firstError(r.stderr)}`);
  return parseDpkgEntries(r.stdout);
}

// ---------------------------------------------------------------- candidates: apt-cache policy

export interface AptPolicy {
  /** The manager has a package of exactly this name (real or virtual). */
  known: boolean;
  installed: string | null;
  candidate: string | null;
}

/** `apt-cache policy` of one exact package: the usual fields plus its version table. */
export interface PolicyWithVersions extends AptPolicy {
  versions: { version: string; priority: number }[];
}

/** Reads `apt-cache policy` output for exactly `name`: other stanzas (apt's regex fallback) are not this package. */
export function parsePolicy(name: string, stdout: string): AptPolicy {
  const lines = stdout.split('\n');
  const at = lines.indexOf(`${name}:`);
  if (at < 0) return { known: false, installed: null, candidate: null };
  const fields: Record<string, string> = {};
  for (let i = at + 1; i < lines.length && /^\s/.test(lines[i]!); i++) {
    const m = /^ {2}(Installed|Candidate): (.+)$/.exec(lines[i]!);
    if (m) fields[m[1]!] = m[2]!.trim();
  }
  const version = (v: string | undefined) => (v === undefined || v === '(none)' ? null : v);
  return { known: true, installed: version(fields.Installed), candidate: version(fields.Candidate) };
}

/** Reads the "Version table:" of the stanza headed by exactly `name` (apt's regex fallback adds others). */
export function parseVersionTable(name: string, stdout: string): { version: string; priority: number }[] {
  const lines = stdout.split('\n');
  const at = lines.indexOf(`${name}:`);
  const out: { version: string; priority: number }[] = [];
  if (at < 0) return out;
  for (let i = at + 1; i < lines.length && /^\s/.test(lines[i]!); i++) {
    const m = /^ (?:\*\*\*| {3}) (\S+) (-?\d+)$/.exec(lines[i]!);
    if (m) out.push({ version: m[1]!, priority: Number(m[2]) });
  }
  return out;
}

async function policyOutput(host: Host, name: string): Promise<string> {
  const r = await host.run('apt-cache', ['policy', '--', name]);
  if (r.code !== 0) throw new AirlockError('execution', 'apt_cache_failed', `apt-cache policy failed: ${firstError(r.stderr)}`);
  return r.stdout;
}

export const aptPolicy = async (host: Host, name: string): Promise<AptPolicy> => parsePolicy(name, await policyOutput(host, name));

export async function policyWithVersions(host: Host, name: string): Promise<PolicyWithVersions> {
  const stdout = await policyOutput(host, name);
  return { ...parsePolicy(name, stdout), versions: parseVersionTable(name, stdout) };
}

// ---------------------------------------------------------------- simulations: apt-get -s

export interface Simulation {
  install: { name: string; version: string }[];
  upgrade: { name: string; from: string; to: string }[];
  remove: { name: string; version: string }[];
}

/** Parses the `Inst`/`Remv`/`Purg` lines of `apt-get -s` (a stable, documented format). */
export function parseSimulation(stdout: string): Simulation {
  const sim: Simulation = { install: [], upgrade: [], remove: [] };
  for (const line of stdout.split('\n')) {
    let m = /^Inst (\S+) (?:\[(\S+)\] )?\((\S+)/.exec(line);
    if (m) {
      if (m[2]) sim.upgrade.push({ name: m[1]!, from: m[2], to: m[3]! });
      else sim.install.push({ name: m[1]!, version: m[3]! });
      continue;
    }
    m = /^(?:Remv|Purg) (\S+)(?: \[(\S+)\])?/.exec(line);
    if (m) sim.remove.push({ name: m[1]!, version: m[2] ?? '' });
  }
  return sim;
}

/** Package names apt would print as "kept back" after an upgrade simulation. */
export function parseKeptBack(stdout: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('The following packages have been kept back'));
  if (at < 0) return [];
  const names: string[] = [];
  for (let i = at + 1; i < lines.length && lines[i]!.startsWith('  '); i++) names.push(...lines[i]!.trim().split(/\s+/));
  return names;
}
