/**
 * Which package manager a host has, and what every packages action shares about it.
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
import { AirlockError } from '../../../protocol/errors.js';
import { RHEL_LIKE, type Host, type Platform } from '../../action.js';
import type { Step } from '../../mechanism.js';
import { packageName, token } from '../../params.js';
import { dpkgEntries, requireDebianVersion, type DpkgEntry } from '../../lib/apt.js';
import { requireEvr, rpmEntries } from '../../lib/dnf.js';
import { PROTECTED_PACKAGES, PROTECTED_RPMS } from '../../lib/guards.js';

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

export function requireName(manager: PackageManager, name: string): void {
  if (manager === 'apt' && !packageName.safeParse(name).success) {
    throw new AirlockError('validation', 'bad_params', `${name} is not a Debian package name (lower-case letters, digits, '+', '.' and '-')`, 'Debian package names are lower-case');
  }
}

/** What each manager may never remove (lib/guards.ts). */
export const PROTECTED: Record<PackageManager, string[]> = { apt: PROTECTED_PACKAGES, dnf: PROTECTED_RPMS };

/** Same options for the simulation the preview shows and for the real run. */
export const INSTALL_OPTS = ['--no-install-recommends', '--no-remove'];
/** dnf's --no-install-recommends; it removes nothing unless given --allowerasing, which it never is. */
export const DNF_INSTALL_OPTS = ['--setopt=install_weak_deps=False'];
/**
 * A conffile prompt cannot be answered (stdin is closed): keep the admin's file, take
 * the maintainer's default otherwise. No pty for dpkg, so no progress-bar noise.
 */
export const DPKG_NONINTERACTIVE = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0'];

// ---------------------------------------------------------------- installed packages: dpkg and rpm

export const installedEntries = (host: Host, manager: PackageManager, names: string[]) => (manager === 'apt' ? dpkgEntries(host, names) : rpmEntries(host, names));

export const isInstalled = (entries: DpkgEntry[]) => entries.some((e) => e.status === 'installed');
export const installedVersion = (entries: DpkgEntry[]) => entries.find((e) => e.status === 'installed')?.version ?? null;
export const isHeld = (entries: DpkgEntry[]) => entries.some((e) => e.want === 'hold');
export const list = (pkgs: { name: string; version: string }[]) => pkgs.map((p) => `${p.name} ${p.version}`);

/** A version the manager printed, checked by that manager's rule before it goes into an argv. */
export const requireVersion = (name: string, version: string, manager: PackageManager = 'apt'): string =>
  manager === 'apt' ? requireDebianVersion(name, version) : requireEvr(name, version);

/** Why a package may never be removed, or null. */
export function protectedSelf(name: string, entries: DpkgEntry[], manager: PackageManager = 'apt'): string | null {
  if (PROTECTED[manager].includes(name)) return 'protected (package management, init, remote access, privilege or libc)';
  if (entries.some((e) => e.essential)) return 'essential';
  if (entries.some((e) => e.priority === 'required')) return 'of priority required';
  return null;
}
