/**
 * What one package is on this host: the package database's entries (dpkg, or rpm on a dnf
 * host) and what the manager's lists offer (apt-cache policy, or dnf's metadata cache), read
 * for exactly the name asked for. The refusals the packages actions share on that state.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { aptPolicy, dpkgEntries, firstError, type AptPolicy, type DpkgEntry } from '../../lib/apt.js';
import { parseRepoquery, rpmEntries, type DnfCandidate } from '../../lib/dnf.js';
import { installedEntries, installedVersion, isInstalled, packageManager, requireName, type PackageManager } from './manager.js';

/** The build of exactly `name` that dnf's metadata cache offers (no network); an unusable cache is refused. */
async function dnfCandidate(host: Host, name: string, installedArch?: string): Promise<DnfCandidate | null> {
  // dnf5 expands \n in a query format but not \t: fields are separated by spaces.
  const r = await host.run('dnf', ['--cacheonly', 'repoquery', '--available', '--latest-limit=1', '--queryformat=%{name} %{arch} %{evr}\n', name]);
  if (r.code !== 0) {
    throw new AirlockError('execution', 'dnf_cache_unreadable', `dnf could not read its metadata cache: ${firstError(r.stderr)}`, 'refresh the metadata with AptUpdate (dnf makecache)');
  }
  return parseRepoquery(name, r.stdout, installedArch);
}

/** State of one package as the package database and the manager's lists see it. */
export interface PackageState {
  name: string;
  manager: PackageManager;
  /** dpkg's entries, or rpm's on a dnf host. */
  dpkg: DpkgEntry[];
  policy: AptPolicy;
  /** dnf: the build the candidate is (its architecture). */
  candidateArch: string | null;
}

export async function packageState(host: Host, name: string): Promise<PackageState> {
  const manager = packageManager(host.platform);
  requireName(manager, name);
  if (manager === 'apt') return { name, manager, dpkg: await dpkgEntries(host, [name]), policy: await aptPolicy(host, name), candidateArch: null };
  const dpkg = await rpmEntries(host, [name]);
  const cand = await dnfCandidate(host, name, dpkg[0]?.arch);
  return { name, manager, dpkg, policy: { known: cand !== null || dpkg.length > 0, installed: installedVersion(dpkg), candidate: cand?.evr ?? null }, candidateArch: cand?.arch ?? null };
}

/** Refuses a name the manager does not know exactly (a typo, or a pattern apt would expand). */
export function requireKnown(cur: PackageState): void {
  if (!cur.policy.known && cur.dpkg.length === 0) {
    throw new AirlockError('validation', 'no_such_package', `${cur.manager} knows no package named ${cur.name}`, 'check the name, or refresh the lists with AptUpdate');
  }
}

/** The installed entries of one package, for reads that need it installed. */
export async function installedState(host: Host, name: string) {
  const manager = packageManager(host.platform);
  requireName(manager, name);
  return { name, manager, dpkg: await installedEntries(host, manager, [name]) };
}

export function requireInstalled(cur: { name: string; dpkg: DpkgEntry[] }): void {
  if (!isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'not_installed', `${cur.name} is not installed`, 'see ListInstalledPackages');
}
