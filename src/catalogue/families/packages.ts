/**
 * Packages: refresh apt's lists, install, remove, hold and inspect Debian packages.
 * Every change is previewed from apt's own simulation (`apt-get -s`) on the real
 * host, and the mechanism pins the exact version the preview showed.
 *
 * apt falls back to regular-expression matching when a name is not an exact
 * package (`apt-get install lib.` would install hundreds), so every action first
 * proves the name is exact: the `apt-cache policy` stanza must be headed by the
 * name itself, or dpkg (which matches literally) must know it.
 */
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command } from '../mechanism.js';
import { packageName, params } from '../params.js';
import { fixedRead } from './shared.js';

export const APT_TIMEOUT_MS = 600_000;

/** Never removed, whatever dpkg says of them: package management, init, remote access, privilege, libc, Airlock's runtime. */
export const PROTECTED_PACKAGES = ['apt', 'dpkg', 'systemd', 'systemd-sysv', 'init', 'openssh-server', 'sudo', 'libc6', 'nodejs'];

/** Same options for the simulation the preview shows and for the real run. */
const INSTALL_OPTS = ['--no-install-recommends', '--no-remove'];
/**
 * A conffile prompt cannot be answered (stdin is closed): keep the admin's file, take
 * the maintainer's default otherwise. No pty for dpkg, so no progress-bar noise.
 */
export const DPKG_NONINTERACTIVE = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0'];

/** A Debian version as apt prints it ([epoch:]upstream[-revision]); anything else is not put in an argv. */
export const DEBIAN_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+~:-]{0,127}$/;

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

export interface AptPolicy {
  /** apt has a package of exactly this name (real or virtual). */
  known: boolean;
  installed: string | null;
  candidate: string | null;
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

export async function aptPolicy(host: Host, name: string): Promise<AptPolicy> {
  const r = await host.run('apt-cache', ['policy', '--', name]);
  if (r.code !== 0) throw new AirlockError('execution', 'apt_cache_failed', `apt-cache policy failed: ${firstError(r.stderr)}`);
  return parsePolicy(name, r.stdout);
}

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

/** Asks apt what `install`/`remove` of this exact spec would do. Takes no lock. apt's refusal is a conflict. */
async function simulate(host: Host, verb: 'install' | 'remove', opts: string[], spec: string): Promise<Simulation> {
  const r = await host.run('apt-get', ['-s', verb, ...opts, '--', spec]);
  if (r.code !== 0) {
    throw new AirlockError('conflict', 'apt_refuses', `apt cannot ${verb} ${spec}: ${firstError(r.stderr) || 'see apt-get output'}`, 'resolve the dependency problem apt reports, then preview again');
  }
  return parseSimulation(r.stdout);
}

export function firstError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim());
  return (lines.find((l) => l.startsWith('E:')) ?? lines[0] ?? '').slice(0, 300);
}

export const isInstalled = (entries: DpkgEntry[]) => entries.some((e) => e.status === 'installed');
export const installedVersion = (entries: DpkgEntry[]) => entries.find((e) => e.status === 'installed')?.version ?? null;
const isHeld = (entries: DpkgEntry[]) => entries.some((e) => e.want === 'hold');
export const list = (pkgs: { name: string; version: string }[]) => pkgs.map((p) => `${p.name} ${p.version}`);

export function requireVersion(name: string, version: string): string {
  if (!DEBIAN_VERSION.test(version)) throw new AirlockError('execution', 'odd_version', `apt reports version ${JSON.stringify(version)} for ${name}, which Airlock will not pass on`);
  return version;
}

/** Why a package may never be removed, or null. */
export function protectedSelf(name: string, dpkg: DpkgEntry[]): string | null {
  if (PROTECTED_PACKAGES.includes(name)) return 'protected (package management, init, remote access, privilege or libc)';
  if (dpkg.some((e) => e.essential)) return 'essential';
  if (dpkg.some((e) => e.priority === 'required')) return 'of priority required';
  return null;
}

/** State of one package as dpkg and apt see it. */
interface PackageState {
  name: string;
  dpkg: DpkgEntry[];
  policy: AptPolicy;
}

async function packageState(host: Host, name: string): Promise<PackageState> {
  return { name, dpkg: await dpkgEntries(host, [name]), policy: await aptPolicy(host, name) };
}

/** Refuses a name apt does not know exactly (a typo, or a pattern apt would expand). */
function requireKnown(cur: PackageState): void {
  if (!cur.policy.known && cur.dpkg.length === 0) {
    throw new AirlockError('validation', 'no_such_package', `apt knows no package named ${cur.name}`, 'check the name, or refresh the lists with AptUpdate');
  }
}

// ---------------------------------------------------------------------------

export const aptUpdate = action({
  name: 'AptUpdate',
  family: 'packages',
  description: "Refresh apt's package lists from the configured repositories (apt-get update).",
  risk: 'medium',
  readOnly: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const r = await host.run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) [$(TARGET_OF)]']);
    if (r.code !== 0) throw new AirlockError('execution', 'apt_failed', `apt-get indextargets failed: ${firstError(r.stderr)}`);
    return { repositories: [...new Set(r.stdout.split('\n').filter((l) => l.trim()))].sort() };
  },
  check: (_p, cur) => {
    if (cur.repositories.length === 0) throw new AirlockError('validation', 'no_sources', 'apt has no repositories configured', 'add a source under /etc/apt/sources.list.d first');
  },
  preview: (_p, cur) => ({
    summary: `Refresh package lists from ${cur.repositories.length} repository section(s)`,
    change: { refreshes: cur.repositories, directory: '/var/lib/apt/lists' },
    sideEffects: ['downloads index files from the network', 'later install and upgrade previews see the new candidate versions'],
  }),
  // Error-Mode=any (= --error-on=any): a repository that fails to refresh fails the job instead of
  // leaving stale lists silently. As a config key, older apt ignores it rather than refusing the run.
  mechanism: () => [command('apt-get', ['update', '-o', 'APT::Update::Error-Mode=any'], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
});

export const installPackage = action({
  name: 'InstallPackage',
  family: 'packages',
  description: "Install one package at its current candidate version, with its dependencies but without recommends, never removing anything.",
  risk: 'medium',
  readOnly: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'htop' },
  current: async ({ package: name }, host) => {
    const cur = await packageState(host, name);
    const installable = cur.policy.known && cur.policy.candidate !== null && !isInstalled(cur.dpkg);
    const version = installable ? requireVersion(name, cur.policy.candidate!) : null;
    const sim = version ? await simulate(host, 'install', INSTALL_OPTS, `${name}=${version}`) : null;
    return { ...cur, version, sim };
  },
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'already_installed', `${name} ${installedVersion(cur.dpkg)} is already installed`, 'see ListUpgradable for newer versions');
    if (!cur.version || !cur.sim) {
      throw new AirlockError('validation', 'no_candidate', `apt has no installable version of ${name} (a virtual package, or not in the configured repositories)`, 'refresh the lists with AptUpdate, or install a package that provides it');
    }
    if (cur.sim.remove.length > 0) {
      throw new AirlockError('conflict', 'would_remove', `installing ${name} would remove ${list(cur.sim.remove).join(', ')}`, 'remove those with RemovePackage first if that is really wanted');
    }
  },
  preview: ({ package: name }, cur) => {
    const sim = cur.sim ?? { install: [], upgrade: [], remove: [] };
    const deps = sim.install.filter((p) => p.name !== name);
    return {
      summary: `Install ${name} ${cur.version ?? ''}`.trim() + (deps.length ? ` with ${deps.length} new dependenc${deps.length === 1 ? 'y' : 'ies'}` : ''),
      change: {
        install: list(sim.install),
        upgrade: sim.upgrade.map((p) => `${p.name} ${p.from} -> ${p.to}`),
        remove: [],
      },
      sideEffects: ['package maintainer scripts run as root', 'services shipped by the new packages may be started'],
      warnings: sim.upgrade.length ? [`also upgrades ${sim.upgrade.length} installed package(s) the new ones need`] : [],
    };
  },
  mechanism: ({ package: name }, cur) => [
    command('apt-get', ['install', '-y', ...INSTALL_OPTS, ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }),
  ],
});

export const removePackage = action({
  name: 'RemovePackage',
  family: 'packages',
  description: 'Remove one installed package (configuration files stay); refuses essential, required and protected packages, also as a consequence.',
  risk: 'high',
  readOnly: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'htop' },
  current: async ({ package: name }, host) => {
    const dpkg = await dpkgEntries(host, [name]);
    const version = installedVersion(dpkg);
    // A protected package is refused by check() without asking apt (which refuses some of them itself, less clearly).
    const sim = version && !protectedSelf(name, dpkg) ? await simulate(host, 'remove', [], `${name}=${requireVersion(name, version)}`) : null;
    // Everything apt would take away, as dpkg describes it (essential flag, priority).
    const removed = sim ? await dpkgEntries(host, [...new Set(sim.remove.map((p) => p.name))]) : [];
    return { name, dpkg, version, sim, removed };
  },
  check: ({ package: name }, cur) => {
    if (!cur.version) throw new AirlockError('conflict', 'not_installed', `${name} is not installed`, 'see ListInstalledPackages');
    const self = protectedSelf(name, cur.dpkg);
    if (self) throw new AirlockError('authorization', 'protected_package', `${name} is ${self}; Airlock never removes it`, 'this needs a person at the console');
    if (!cur.sim) throw new AirlockError('execution', 'no_simulation', `apt did not simulate the removal of ${name}`);
    if (isHeld(cur.dpkg)) throw new AirlockError('conflict', 'held', `${name} is on hold`, 'release it with UnholdPackage first');
    const bad = [...new Set(cur.sim.remove.map((p) => p.name.replace(/:.*$/, '')).filter((n) => PROTECTED_PACKAGES.includes(n)))];
    for (const e of cur.removed) if (e.essential || e.priority === 'required') bad.push(`${e.name} (${e.essential ? 'essential' : 'priority required'})`);
    if (bad.length > 0) {
      throw new AirlockError('authorization', 'protected_package', `removing ${name} would remove ${bad.join(', ')}, which Airlock never removes`, 'this needs a person at the console');
    }
  },
  preview: ({ package: name }, cur) => {
    const gone = cur.sim?.remove ?? [];
    const also = gone.filter((p) => p.name !== name);
    const important = cur.removed.filter((e) => e.priority === 'important').map((e) => e.name);
    return {
      summary: `Remove ${name} ${cur.version ?? ''}`.trim() + (also.length ? ` and ${also.length} package(s) that depend on it` : ''),
      change: { remove: list(gone), keeps: 'configuration files (no purge)' },
      sideEffects: ['services shipped by the removed packages are stopped', 'package maintainer scripts run as root'],
      warnings: [
        ...(also.length ? [`also removes ${also.map((p) => p.name).join(', ')}`] : []),
        ...(important.length ? [`removes priority-important package(s): ${important.join(', ')}`] : []),
      ],
    };
  },
  // Pinned to the installed version: the name is exact, never a pattern apt could widen.
  mechanism: ({ package: name }, cur) => [command('apt-get', ['remove', '-y', ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
});

export const listInstalledPackages = fixedRead({
  name: 'ListInstalledPackages',
  family: 'packages',
  description: 'List the packages dpkg knows, with their state (ii = installed, rc = removed, config kept) and version.',
  summary: 'List installed packages (dpkg database)',
  steps: [command('dpkg-query', ['-W', '--showformat=${db:Status-Abbrev} ${binary:Package} ${Version}\n'])],
});

export const listUpgradable = fixedRead({
  name: 'ListUpgradable',
  family: 'packages',
  description: 'Show what `apt-get upgrade` would do now (a simulation: "Inst NAME [OLD] (NEW ...)" lines), without changing anything.',
  summary: 'Simulate an upgrade to list upgradable packages (as of the last AptUpdate)',
  // A simulation takes no dpkg lock, so it needs no resource.
  steps: [command('apt-get', ['-s', 'upgrade'], { timeoutMs: APT_TIMEOUT_MS })],
});

export const packagePolicy = action({
  name: 'PackagePolicy',
  family: 'packages',
  description: "Show a package's installed and candidate versions and the repositories offering it (apt-cache policy).",
  risk: 'low',
  readOnly: true,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: (_p, cur) => requireKnown(cur),
  preview: ({ package: name }, cur) => ({
    summary: `Show apt policy for ${name} (installed ${installedVersion(cur.dpkg) ?? 'no'}, candidate ${cur.policy.candidate ?? 'none'})`,
    change: null,
  }),
  mechanism: ({ package: name }) => [command('apt-cache', ['policy', '--', name])],
});

export const packageInfo = action({
  name: 'PackageInfo',
  family: 'packages',
  description: "Show a package's control record: description, dependencies, size, maintainer (apt-cache show).",
  risk: 'low',
  readOnly: true,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (!cur.policy.candidate && !cur.policy.installed) {
      throw new AirlockError('validation', 'no_versions', `${name} has no version to describe (a virtual package, or removed and no longer in the repositories)`, 'PackagePolicy shows what apt knows of it');
    }
  },
  preview: ({ package: name }) => ({ summary: `Show the package record of ${name}`, change: null }),
  mechanism: ({ package: name }) => [command('apt-cache', ['show', '--', name])],
});

const mark = (verb: 'hold' | 'unhold', name: string) => command('apt-mark', [verb, '--', name], { resource: 'dpkg' });

export const holdPackage = action({
  name: 'HoldPackage',
  family: 'packages',
  description: 'Put an installed package on hold so upgrades leave it at its current version.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'linux-image-amd64' },
  current: async ({ package: name }, host) => ({ name, dpkg: await dpkgEntries(host, [name]) }),
  check: ({ package: name }, cur) => {
    if (!isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'not_installed', `${name} is not installed`, 'see ListInstalledPackages');
    if (isHeld(cur.dpkg)) throw new AirlockError('conflict', 'already_held', `${name} is already on hold`);
  },
  preview: ({ package: name }, cur) => ({
    summary: `Hold ${name} at ${installedVersion(cur.dpkg)}`,
    change: { package: name, selection: { from: 'install', to: 'hold' } },
    sideEffects: [`security updates for ${name} are no longer installed until it is released with UnholdPackage`],
  }),
  mechanism: ({ package: name }) => [{ ...mark('hold', name), undo: mark('unhold', name) }],
});

export const unholdPackage = action({
  name: 'UnholdPackage',
  family: 'packages',
  description: 'Release a held package so upgrades may change it again.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'linux-image-amd64' },
  current: async ({ package: name }, host) => ({ name, dpkg: await dpkgEntries(host, [name]) }),
  check: ({ package: name }, cur) => {
    if (!isHeld(cur.dpkg)) throw new AirlockError('conflict', 'not_held', `${name} is not on hold`);
  },
  preview: ({ package: name }, cur) => ({
    summary: `Release the hold on ${name}`,
    change: { package: name, selection: { from: 'hold', to: 'install' }, installed: installedVersion(cur.dpkg) },
    sideEffects: [`the next upgrade may move ${name} to a newer version`],
  }),
  mechanism: ({ package: name }) => [{ ...mark('unhold', name), undo: mark('hold', name) }],
});
