/**
 * Packages: refresh the package lists, install, remove, hold and inspect packages.
 * Each action is declared once; its mechanism is apt and dpkg's on Debian and Ubuntu
 * and dnf and rpm's on Fedora and RHEL, chosen from the distribution the daemon
 * detected (`packageManager`), which the state records so the preview says which runs.
 *
 * apt: every change is previewed from apt's own simulation (`apt-get -s`) on the real
 * host, and the mechanism pins the exact version the preview showed. apt falls back to
 * regular-expression matching when a name is not an exact package (`apt-get install
 * lib.` would install hundreds), so every action first proves the name is exact: the
 * `apt-cache policy` stanza must be headed by the name itself, or dpkg (which matches
 * literally) must know it.
 *
 * dnf: the installed state comes from rpm (`rpm --query`, literal names) and the
 * candidate from dnf's metadata cache (`dnf --cacheonly repoquery`, kept only when the
 * answer names exactly the package asked for); the mechanism names the exact
 * name-version-release.arch. dnf has no simulation with a stable format, so an install
 * preview names the package and says that dnf resolves its dependencies when it runs;
 * it never removes a package to make room (no --allowerasing). dnf's argv carries no
 * `--`: dnf5's parser refuses a bare `--` as an unknown argument (and never takes a
 * word that starts with '-' as a package), and every name here is validated not to
 * start with '-'. dnf has no purge and holds need its versionlock plugin: PurgePackage,
 * HoldPackage and UnholdPackage stay Debian-only.
 */
import { AirlockError } from '../../protocol/errors.js';
import { action, ALL_PLATFORMS, RHEL_LIKE, type Host, type Platform, type ReadDeclaration } from '../action.js';
import { command, type Step } from '../mechanism.js';
import { absolutePath, packageName, params, token } from '../params.js';
import { fixedRead } from '../lib/fixed-read.js';
import { linkTarget } from '../lib/host-files.js';
import { dpkgEntries, firstError, type DpkgEntry } from '../lib/apt.js';
import { PROTECTED_PACKAGES, PROTECTED_RPMS } from '../lib/guards.js';

export const APT_TIMEOUT_MS = 600_000;

// ---------------------------------------------------------------- which package manager

export type PackageManager = 'apt' | 'dnf';
/** dnf and rpm on Fedora and RHEL; apt and dpkg on Debian, Ubuntu and (for reads) an unrecognised distribution. */
export const packageManager = (platform: Platform | null): PackageManager => (platform !== null && RHEL_LIKE.includes(platform) ? 'dnf' : 'apt');

/** The one place an action's mechanisms differ: its steps per package manager, the host's taken. */
export const stepsFor = (manager: PackageManager, steps: Record<PackageManager, () => Step[]>): Step[] => steps[manager]();

/**
 * A package name as either manager spells it: RPM names may have capitals and '_'
 * (NetworkManager, perl-Data-Dumper). `requireName` then holds each host to its own rule.
 */
export const anyPackageName = token(/^[A-Za-z0-9][A-Za-z0-9_+.-]{1,99}$/, 'package name', 100);

function requireName(manager: PackageManager, name: string): void {
  if (manager === 'apt' && !packageName.safeParse(name).success) {
    throw new AirlockError('validation', 'bad_params', `${name} is not a Debian package name (lower-case letters, digits, '+', '.' and '-')`, 'Debian package names are lower-case');
  }
}

const PROTECTED: Record<PackageManager, string[]> = { apt: PROTECTED_PACKAGES, dnf: PROTECTED_RPMS };

/** Same options for the simulation the preview shows and for the real run. */
const INSTALL_OPTS = ['--no-install-recommends', '--no-remove'];
/** dnf's --no-install-recommends; it removes nothing unless given --allowerasing, which it never is. */
export const DNF_INSTALL_OPTS = ['--setopt=install_weak_deps=False'];
/**
 * A conffile prompt cannot be answered (stdin is closed): keep the admin's file, take
 * the maintainer's default otherwise. No pty for dpkg, so no progress-bar noise.
 */
export const DPKG_NONINTERACTIVE = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0'];

/** A Debian version as apt prints it ([epoch:]upstream[-revision]); anything else is not put in an argv. */
export const DEBIAN_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+~:-]{0,127}$/;
/** An RPM [epoch:]version-release as rpm and dnf print it. */
export const RPM_EVR = /^([0-9]{1,10}:)?[0-9A-Za-z._+~^]{1,64}-[0-9A-Za-z._+~^]{1,64}$/;
/** An RPM architecture as rpm and dnf print it (x86_64, noarch, i686). */
export const ARCH = /^[A-Za-z0-9_]{1,32}$/;

// ---------------------------------------------------------------- installed packages: dpkg and rpm

/** rpm's EVR, with the epoch only when the package has one (as dnf prints it). */
const RPM_FORMAT = '%{NAME}\t%{ARCH}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n';

/** Lines of `rpm --query --queryformat=RPM_FORMAT` for exactly these names (rpm also matches name-version forms). */
export function parseRpmEntries(stdout: string, names: string[]): DpkgEntry[] {
  return stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 3 && names.includes(f[0]!))
    .map(([name, arch, version]) => ({ name: name!, arch: arch!, version: version!, want: 'install', status: 'installed', essential: false, priority: '' }));
}

export async function rpmEntries(host: Host, names: string[]): Promise<DpkgEntry[]> {
  if (names.length === 0) return [];
  const r = await host.run('rpm', ['--query', `--queryformat=${RPM_FORMAT}`, '--', ...names]);
  // The exit status counts the names not installed ("package X is not installed" on stdout): an answer. Errors go to stderr.
  if (/^error:/m.test(r.stderr)) throw new AirlockError('execution', 'rpm_query_failed', `rpm --query failed: ${firstError(r.stderr)}`);
  return parseRpmEntries(r.stdout, names);
}

export const installedEntries = (host: Host, manager: PackageManager, names: string[]) => (manager === 'apt' ? dpkgEntries(host, names) : rpmEntries(host, names));

// ---------------------------------------------------------------- candidates: apt-cache policy and dnf repoquery

export interface AptPolicy {
  /** The manager has a package of exactly this name (real or virtual). */
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

/** A version dnf offers in its metadata cache. */
export interface DnfCandidate {
  arch: string;
  evr: string;
}

/**
 * The newest available build of exactly `name` from `repoquery --latest-limit=1` ("name arch evr"
 * lines, one per architecture): the installed architecture's, else a native one over 32-bit multilib.
 */
export function parseRepoquery(name: string, stdout: string, installedArch?: string): DnfCandidate | null {
  const all = stdout
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((f) => f.length === 3 && f[0] === name)
    .map(([, arch, evr]) => ({ arch: arch!, evr: evr! }));
  return all.find((c) => c.arch === installedArch) ?? all.find((c) => c.arch !== 'i686') ?? all[0] ?? null;
}

async function dnfCandidate(host: Host, name: string, installedArch?: string): Promise<DnfCandidate | null> {
  // dnf5 expands \n in a query format but not \t: fields are separated by spaces.
  const r = await host.run('dnf', ['--cacheonly', 'repoquery', '--available', '--latest-limit=1', '--queryformat=%{name} %{arch} %{evr}\n', name]);
  if (r.code !== 0) {
    throw new AirlockError('execution', 'dnf_cache_unreadable', `dnf could not read its metadata cache: ${firstError(r.stderr)}`, 'refresh the metadata with AptUpdate (dnf makecache)');
  }
  return parseRepoquery(name, r.stdout, installedArch);
}


// ---------------------------------------------------------------- simulations

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

/**
 * What `dnf remove` of `name` takes with it: the installed packages that require it, directly
 * or not (repoquery --whatrequires --recursive; dnf keeps any whose need another package meets).
 */
async function dnfDependents(host: Host, name: string): Promise<{ name: string; version: string }[]> {
  const r = await host.run('dnf', ['--cacheonly', 'repoquery', '--installed', `--whatrequires=${name}`, '--recursive', '--queryformat=%{name} %{evr}\n']);
  if (r.code !== 0) throw new AirlockError('execution', 'dnf_failed', `dnf repoquery failed: ${firstError(r.stderr)}`);
  const seen = new Map<string, string>();
  for (const [n, evr] of r.stdout.split('\n').map((l) => l.trim().split(' '))) if (n && evr && n !== name) seen.set(n, evr);
  return [...seen].map(([n, version]) => ({ name: n, version }));
}

export const isInstalled = (entries: DpkgEntry[]) => entries.some((e) => e.status === 'installed');
export const installedVersion = (entries: DpkgEntry[]) => entries.find((e) => e.status === 'installed')?.version ?? null;
const isHeld = (entries: DpkgEntry[]) => entries.some((e) => e.want === 'hold');
export const list = (pkgs: { name: string; version: string }[]) => pkgs.map((p) => `${p.name} ${p.version}`);

export function requireVersion(name: string, version: string, manager: PackageManager = 'apt'): string {
  if (!(manager === 'apt' ? DEBIAN_VERSION : RPM_EVR).test(version)) {
    throw new AirlockError('execution', 'odd_version', `${manager} reports version ${JSON.stringify(version)} for ${name}, which Airlock will not pass on`);
  }
  return version;
}

/** Why a package may never be removed, or null. */
export function protectedSelf(name: string, entries: DpkgEntry[], manager: PackageManager = 'apt'): string | null {
  if (PROTECTED[manager].includes(name)) return 'protected (package management, init, remote access, privilege or libc)';
  if (entries.some((e) => e.essential)) return 'essential';
  if (entries.some((e) => e.priority === 'required')) return 'of priority required';
  return null;
}

/** State of one package as the package database and the manager's lists see it. */
interface PackageState {
  name: string;
  manager: PackageManager;
  /** dpkg's entries, or rpm's on a dnf host. */
  dpkg: DpkgEntry[];
  policy: AptPolicy;
  /** dnf: the build the candidate is (its architecture). */
  candidateArch: string | null;
}

async function packageState(host: Host, name: string): Promise<PackageState> {
  const manager = packageManager(host.platform);
  requireName(manager, name);
  if (manager === 'apt') return { name, manager, dpkg: await dpkgEntries(host, [name]), policy: await aptPolicy(host, name), candidateArch: null };
  const dpkg = await rpmEntries(host, [name]);
  const cand = await dnfCandidate(host, name, dpkg[0]?.arch);
  return { name, manager, dpkg, policy: { known: cand !== null || dpkg.length > 0, installed: installedVersion(dpkg), candidate: cand?.evr ?? null }, candidateArch: cand?.arch ?? null };
}

/** Refuses a name the manager does not know exactly (a typo, or a pattern apt would expand). */
function requireKnown(cur: PackageState): void {
  if (!cur.policy.known && cur.dpkg.length === 0) {
    throw new AirlockError('validation', 'no_such_package', `${cur.manager} knows no package named ${cur.name}`, 'check the name, or refresh the lists with AptUpdate');
  }
}

/** The installed entries of one package, for reads that need it installed. */
async function installedState(host: Host, name: string) {
  const manager = packageManager(host.platform);
  requireName(manager, name);
  return { name, manager, dpkg: await installedEntries(host, manager, [name]) };
}

function requireInstalled(cur: { name: string; dpkg: DpkgEntry[] }): void {
  if (!isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'not_installed', `${cur.name} is not installed`, 'see ListInstalledPackages');
}

/**
 * A parameterless read whose steps depend only on the package manager: declared like
 * fixedRead, with the manager as its state so the preview shows which one runs.
 */
function managerRead(spec: { name: string; description: string; summary: string; steps: Record<PackageManager, Step[]> } & Omit<ReadDeclaration, 'readOnly'>) {
  return {
    ...fixedRead({ ...spec, family: 'packages', steps: spec.steps.apt }),
    platforms: ALL_PLATFORMS,
    current: async (_p: Record<string, never>, host: Host) => ({ manager: packageManager(host.platform) }),
    mechanism: (_p: Record<string, never>, cur: { manager: PackageManager }) => structuredClone(spec.steps[cur.manager]),
  };
}

// ---------------------------------------------------------------------------

const DNF_REPO_ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Repository ids of `dnf repolist --enabled` (a header line "repo id  repo name", then one repository per line). */
export function parseRepolist(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => !/^repo id\b/.test(l))
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((id) => DNF_REPO_ID.test(id));
}

export const aptUpdate = action({
  name: 'AptUpdate',
  family: 'packages',
  description: "Refresh the package lists from the configured repositories (apt-get update; on Fedora and RHEL, dnf makecache --refresh).",
  risk: 'medium',
  readOnly: false,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const manager = packageManager(host.platform);
    const r =
      manager === 'apt'
        ? await host.run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) [$(TARGET_OF)]'])
        : await host.run('dnf', ['--cacheonly', 'repolist', '--enabled']);
    if (r.code !== 0) throw new AirlockError('execution', `${manager}_failed`, `listing the repositories failed: ${firstError(r.stderr)}`);
    const repositories = manager === 'apt' ? r.stdout.split('\n').filter((l) => l.trim()) : parseRepolist(r.stdout);
    return { manager, repositories: [...new Set(repositories)].sort() };
  },
  check: (_p, cur) => {
    if (cur.repositories.length === 0) {
      throw new AirlockError('validation', 'no_sources', `${cur.manager} has no repositories configured`, cur.manager === 'apt' ? 'add a source under /etc/apt/sources.list.d first' : 'enable a repository in /etc/yum.repos.d first');
    }
  },
  preview: (_p, cur) => ({
    summary: `Refresh package lists from ${cur.repositories.length} ${cur.manager === 'apt' ? 'repository section(s)' : 'enabled dnf repositories'}`,
    change: { refreshes: cur.repositories, directory: cur.manager === 'apt' ? '/var/lib/apt/lists' : "dnf's metadata cache (/var/cache/dnf or /var/cache/libdnf5)" },
    sideEffects: ['downloads index files from the network', 'later install and upgrade previews see the new candidate versions'],
  }),
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      // Error-Mode=any (= --error-on=any): a repository that fails to refresh fails the job instead of
      // leaving stale lists silently. As a config key, older apt ignores it rather than refusing the run.
      apt: () => [command('apt-get', ['update', '-o', 'APT::Update::Error-Mode=any'], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
      // --refresh expires the cache first; an unreachable repository fails the job rather than being skipped.
      dnf: () => [command('dnf', ['makecache', '--refresh', '--setopt=skip_if_unavailable=False'], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});

export const installPackage = action({
  name: 'InstallPackage',
  family: 'packages',
  description: 'Install one package at its current candidate version, with its dependencies but without recommends (weak dependencies), never removing anything.',
  risk: 'medium',
  readOnly: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'htop' },
  current: async ({ package: name }, host) => {
    const cur = await packageState(host, name);
    const installable = cur.policy.known && cur.policy.candidate !== null && !isInstalled(cur.dpkg);
    const version = installable ? requireVersion(name, cur.policy.candidate!, cur.manager) : null;
    if (cur.candidateArch !== null && !ARCH.test(cur.candidateArch)) throw new AirlockError('execution', 'odd_arch', `dnf reports architecture ${JSON.stringify(cur.candidateArch)} for ${name}`);
    // dnf: only the package itself is known before it runs (see the file comment).
    const sim = !version ? null : cur.manager === 'apt' ? await simulate(host, 'install', INSTALL_OPTS, `${name}=${version}`) : { install: [{ name, version }], upgrade: [], remove: [] };
    return { ...cur, version, sim };
  },
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'already_installed', `${name} ${installedVersion(cur.dpkg)} is already installed`, 'see ListUpgradable for newer versions');
    if (!cur.version || !cur.sim) {
      throw new AirlockError('validation', 'no_candidate', `${cur.manager} has no installable version of ${name} (a virtual package, or not in the configured repositories)`, 'refresh the lists with AptUpdate, or install a package that provides it');
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
      warnings: [
        ...(sim.upgrade.length ? [`also upgrades ${sim.upgrade.length} installed package(s) the new ones need`] : []),
        ...(cur.manager === 'dnf' ? ['dnf resolves the dependencies when it runs: packages it adds for them are not listed here; it removes none to make room (no --allowerasing)'] : []),
      ],
    };
  },
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-get', ['install', '-y', ...INSTALL_OPTS, ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
      dnf: () => [command('dnf', ['install', '-y', ...DNF_INSTALL_OPTS, `${name}-${cur.version}.${cur.candidateArch}`], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});

export const removePackage = action({
  name: 'RemovePackage',
  family: 'packages',
  description: 'Remove one installed package (configuration files stay) and what requires it; refuses essential, required and protected packages, also as a consequence.',
  risk: 'high',
  readOnly: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'htop' },
  current: async ({ package: name }, host) => {
    const { manager, dpkg } = await installedState(host, name);
    const version = installedVersion(dpkg);
    const plan = async (v: string): Promise<Simulation> =>
      manager === 'apt' ? simulate(host, 'remove', [], `${name}=${v}`) : { install: [], upgrade: [], remove: [{ name, version: v }, ...(await dnfDependents(host, name))] };
    // A protected package is refused by check() without asking the manager (apt refuses some of them itself, less clearly).
    const sim = version && !protectedSelf(name, dpkg, manager) ? await plan(requireVersion(name, version, manager)) : null;
    // Everything that would go, as the package database describes it (essential flag, priority).
    const removed = sim ? await installedEntries(host, manager, [...new Set(sim.remove.map((p) => p.name))]) : [];
    return { name, manager, dpkg, version, sim, removed };
  },
  check: ({ package: name }, cur) => {
    if (!cur.version) throw new AirlockError('conflict', 'not_installed', `${name} is not installed`, 'see ListInstalledPackages');
    const self = protectedSelf(name, cur.dpkg, cur.manager);
    if (self) throw new AirlockError('authorization', 'protected_package', `${name} is ${self}; Airlock never removes it`, 'this needs a person at the console');
    if (!cur.sim) throw new AirlockError('execution', 'no_simulation', `${cur.manager} did not plan the removal of ${name}`);
    if (isHeld(cur.dpkg)) throw new AirlockError('conflict', 'held', `${name} is on hold`, 'release it with UnholdPackage first');
    const bad = [...new Set(cur.sim.remove.map((p) => p.name.replace(/:.*$/, '')).filter((n) => PROTECTED[cur.manager].includes(n)))];
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
  // Pinned to the installed version: the name is exact, never a pattern the manager could widen.
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-get', ['remove', '-y', ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
      // Dependencies nothing else needs stay installed, as with apt-get remove (Autoremove takes them).
      dnf: () => [command('dnf', ['remove', '-y', '--setopt=clean_requirements_on_remove=False', `${name}-${cur.version}`], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});

/** rpm's answer in the same shape as dpkg's: name, version, architecture. */
const RPM_LIST_FORMAT = '%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE} %{ARCH}\n';

export const listInstalledPackages = managerRead({
  name: 'ListInstalledPackages',
  sensitive: false,
  reachesNetwork: false,
  description: 'List the installed packages with their version (dpkg: with their state, ii = installed, rc = removed, config kept; rpm: with their architecture).',
  summary: 'List installed packages (package database)',
  steps: {
    apt: [command('dpkg-query', ['-W', '--showformat=${db:Status-Abbrev} ${binary:Package} ${Version}\n'])],
    dnf: [command('rpm', ['--query', '--all', `--queryformat=${RPM_LIST_FORMAT}`])],
  },
});

export const listUpgradable = managerRead({
  name: 'ListUpgradable',
  sensitive: false,
  reachesNetwork: false,
  description: 'Show what an upgrade would do now, without changing anything: `apt-get -s upgrade` ("Inst NAME [OLD] (NEW ...)" lines), or `dnf check-update` from the metadata cache.',
  summary: 'List upgradable packages (as of the last AptUpdate)',
  steps: {
    // A simulation takes no dpkg lock, so it needs no resource.
    apt: [command('apt-get', ['-s', 'upgrade'], { timeoutMs: APT_TIMEOUT_MS })],
    // check-update exits 100 when there are updates: an answer, not a failure.
    dnf: [command('dnf', ['--cacheonly', 'check-update'], { okCodes: [0, 100], timeoutMs: APT_TIMEOUT_MS })],
  },
});

export const packagePolicy = action({
  name: 'PackagePolicy',
  family: 'packages',
  description: "Show a package's installed and candidate versions and the repositories offering it (apt-cache policy; dnf list --showduplicates).",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: (_p, cur) => requireKnown(cur),
  preview: ({ package: name }, cur) => ({
    summary: `Show the versions of ${name} (installed ${installedVersion(cur.dpkg) ?? 'no'}, candidate ${cur.policy.candidate ?? 'none'})`,
    change: null,
  }),
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['policy', '--', name])],
      dnf: () => [command('dnf', ['--cacheonly', 'list', '--showduplicates', name])],
    }),
});

export const packageInfo = action({
  name: 'PackageInfo',
  family: 'packages',
  description: "Show a package's record: description, dependencies, size, maintainer (apt-cache show; dnf info).",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (!cur.policy.candidate && !cur.policy.installed) {
      throw new AirlockError('validation', 'no_versions', `${name} has no version to describe (a virtual package, or removed and no longer in the repositories)`, 'PackagePolicy shows what the package manager knows of it');
    }
  },
  preview: ({ package: name }) => ({ summary: `Show the package record of ${name}`, change: null }),
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['show', '--', name])],
      dnf: () => [command('dnf', ['--cacheonly', 'info', name])],
    }),
});

// ---------------------------------------------------------------- what a package holds

/** dpkg needs name:arch when several architectures of a package are installed (libc6:amd64 and libc6:i386). */
function dpkgInstances(cur: { name: string; dpkg: DpkgEntry[] }): string[] {
  const inst = cur.dpkg.filter((e) => e.status === 'installed');
  if (inst.length <= 1) return [cur.name];
  for (const e of inst) if (!/^[a-z0-9-]{1,32}$/.test(e.arch)) throw new AirlockError('execution', 'odd_arch', `dpkg reports architecture ${JSON.stringify(e.arch)} for ${cur.name}`);
  return inst.map((e) => `${cur.name}:${e.arch}`);
}

/** A low read about one installed package: its state, a refusal when it is not installed, its steps per manager. */
function installedPackageRead(
  spec: { name: string; description: string; summary: (name: string) => string; steps: Record<PackageManager, (name: string, cur: Awaited<ReturnType<typeof installedState>>) => Step[]> } & Omit<ReadDeclaration, 'readOnly'>,
) {
  return action({
    name: spec.name,
    family: 'packages',
    description: spec.description,
    risk: 'low',
    readOnly: true,
    sensitive: spec.sensitive,
    reachesNetwork: spec.reachesNetwork,
    platforms: ALL_PLATFORMS,
    params: params({ package: anyPackageName }),
    files: [],
    example: { package: 'openssh-server' },
    current: ({ package: name }, host) => installedState(host, name),
    check: (_p, cur) => requireInstalled(cur),
    preview: ({ package: name }) => ({ summary: spec.summary(name), change: null }),
    mechanism: ({ package: name }, cur) => spec.steps[cur.manager](name, cur),
  });
}

export const listPackageFiles = installedPackageRead({
  name: 'ListPackageFiles',
  sensitive: false,
  reachesNetwork: false,
  description: 'List the files an installed package put on this host (dpkg-query --listfiles; rpm --query --list).',
  summary: (name) => `List the files of ${name}`,
  steps: {
    apt: (_name, cur) => [command('dpkg-query', ['--listfiles', '--', ...dpkgInstances(cur)])],
    dnf: (name) => [command('rpm', ['--query', '--list', '--', name])],
  },
});

export const verifyPackage = installedPackageRead({
  name: 'VerifyPackage',
  sensitive: false,
  reachesNetwork: false,
  description: "Check an installed package's files against the package database (checksums; rpm also size, mode, owner): dpkg --verify, rpm --verify. Lists only what differs.",
  summary: (name) => `Verify the installed files of ${name}`,
  steps: {
    apt: (_name, cur) => [command('dpkg', ['--verify', '--', ...dpkgInstances(cur)])],
    // rpm exits 1 when a file differs: that is the answer asked for.
    dnf: (name) => [command('rpm', ['--verify', '--', name], { okCodes: [0, 1] })],
  },
});

/**
 * A path to look up in the package database: absolute, normalised, and without the glob
 * characters dpkg-query --search would expand, nor spaces.
 */
export const ownedPath = absolutePath
  .refine((p) => /^(\/[A-Za-z0-9._+@,:~%=-]+)+$/.test(p), 'path may hold letters, digits and . _ + @ , : ~ % = - between slashes (no glob characters or spaces)')
  .describe('an absolute path, e.g. /usr/bin/ssh');

const MERGED_DIRS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * Where dpkg may have recorded `path`: on a merged-/usr host (/bin -> usr/bin) packages
 * built before the merge list /bin/ls, others /usr/bin/ls, and both name the same file.
 */
async function dpkgSpellings(host: Host, path: string): Promise<string[]> {
  const m = /^(\/usr)?\/([a-z0-9]+)(\/.+)$/.exec(path);
  if (!m || !MERGED_DIRS.includes(m[2]!)) return [path];
  if ((await linkTarget(host, `/${m[2]}`)) !== `/usr/${m[2]}`) return [path];
  return [path, m[1] ? `/${m[2]}${m[3]}` : `/usr/${m[2]}${m[3]}`];
}

export const whichPackageOwns = action({
  name: 'WhichPackageOwns',
  family: 'packages',
  description: 'Name the installed package that owns a file (dpkg-query --search, also under the other spelling on a merged-/usr host; rpm --query --file). No package owning it is an answer, not a failure: dpkg then prints nothing, rpm says so.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ path: ownedPath }),
  files: [],
  example: { path: '/usr/sbin/sshd' },
  current: async ({ path }, host) => {
    const manager = packageManager(host.platform);
    return { manager, spellings: manager === 'apt' ? await dpkgSpellings(host, path) : [path] };
  },
  preview: ({ path }, cur) => ({ summary: `Find the package that owns ${path}${cur.spellings.length > 1 ? ` (dpkg may list it as ${cur.spellings[1]})` : ''}`, change: null }),
  // Run as nobody: rpm looks at the file itself, and must not tell whether a path under /root exists.
  mechanism: ({ path }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('dpkg-query', ['--search', '--', ...cur.spellings], { okCodes: [0, 1], unprivileged: true })],
      dnf: () => [command('rpm', ['--query', '--file', '--', path], { okCodes: [0, 1], unprivileged: true })],
    }),
});

// ---------------------------------------------------------------- holds (apt only: dnf needs its versionlock plugin)

const mark = (verb: 'hold' | 'unhold', name: string) => command('apt-mark', [verb, '--', name], { resource: 'dpkg' });

export const holdPackage = action({
  name: 'HoldPackage',
  family: 'packages',
  description: 'Put an installed package on hold so upgrades leave it at its current version (apt; dnf would need its versionlock plugin).',
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
  description: 'Release a held package so upgrades may change it again (apt).',
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
