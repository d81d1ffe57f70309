/**
 * Whole-system changes: upgrading every package that has a newer candidate, and removing
 * what nothing needs any more. Both are previewed from the manager's own plan (./plans.ts);
 * the exact package list is the `change`, so the daemon refuses to execute when the list
 * rebuilt at execution differs from the one a person approved.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import type { DpkgEntry } from '../../lib/apt.js';
import { nevraSpec } from '../../lib/dnf.js';
import { APT_TIMEOUT_MS, DNF_INSTALL_OPTS, DPKG_NONINTERACTIVE, installedEntries, list, protectedSelf, stepsFor, type PackageManager } from './manager.js';
import { plan } from './plans.js';
import { exact } from '../../rollback.js';
import { debProbes, notRestorable, packageProbes, previousPackages, withReinstallUndo, type PreviousPackage } from './undo.js';
import type { Plan } from './plans.js';

/**
 * Plain `upgrade`: never installs a new package and never removes one (both also forced off,
 * whatever apt.conf says), so what needs either is kept back rather than done behind a person's back.
 */
const UPGRADE_OPTS = ['-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove'];
const UPGRADE_TIMEOUT_MS = 1_800_000;

/** Packages whose upgrade only takes full effect after a reboot. */
const NEEDS_REBOOT: Record<PackageManager, RegExp> = { apt: /^(linux-image-|libc6$|systemd$|dbus$)/, dnf: /^(kernel(-core|-modules)?|glibc|systemd|dbus|dbus-broker)$/ };

/** dnf installs a new kernel next to the old ones rather than upgrading it, and removes the oldest beyond installonly_limit. */
const KERNEL = /^kernel(-core)?$/;

/** The preview's warning when the change will not be revertible: dnf keeps no copy of what it replaces, apt may have lost one. */
const notRevertible = (manager: PackageManager, previous: readonly PreviousPackage[]): string[] =>
  manager === 'dnf' ? ['a revert will not be possible: dnf keeps no copy of the versions it replaces'] : notRestorable(previous) ? [notRestorable(previous)!] : [];

export const upgradeAll = action({
  name: 'UpgradeAll',
  family: 'packages',
  description:
    'Upgrade every installed package that has a newer candidate, exactly the list the preview shows (apt-get upgrade: nothing new installed, nothing removed; dnf upgrade of each build dnf check-update lists, installing what they need).',
  risk: 'high',
  readOnly: false,
  // Undone by installing again, with dpkg, the .deb files apt kept of the versions it replaces (./undo.ts).
  rollback: exact((_p: unknown, cur: Plan & { previous: PreviousPackage[] }) => [...packageProbes(cur.sim.upgrade.map((u) => u.name), cur.manager), ...debProbes(cur.previous)]),
  runsPrograms: true,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const p = await plan(host, 'upgrade', UPGRADE_OPTS);
    // What its undo needs: the .deb of each version it replaces (dnf keeps no copy of them).
    const previous: PreviousPackage[] = p.manager === 'apt' ? await previousPackages(host, p.sim.upgrade.map((u) => ({ name: u.name, version: u.from }))) : [];
    return { ...p, previous };
  },
  check: (_p, cur) => {
    if (cur.sim.upgrade.length === 0) {
      return unchanged(`no installed package has a newer candidate${cur.keptBack.length ? ` (kept back: ${cur.keptBack.join(', ')})` : ''}`);
    }
    if (cur.sim.install.length || cur.sim.remove.length) {
      throw new AirlockError('conflict', 'unexpected_changes', 'apt plans to install or remove packages during a plain upgrade', 'inspect the apt configuration (ListUpgradable shows the plan)');
    }
  },
  preview: (_p, cur) => {
    // Package names without the architecture (apt's simulation says name[:arch]).
    const names = cur.manager === 'apt' ? cur.sim.upgrade.map((u) => u.name.replace(/:.*$/, '')) : cur.builds.map((p) => p.name);
    const reboot = cur.manager === 'apt' ? names.filter((n) => NEEDS_REBOOT.apt.test(n)) : cur.builds.filter((p) => NEEDS_REBOOT.dnf.test(p.name)).map((p) => `${p.name}.${p.arch}`);
    return {
      summary: `Upgrade ${cur.sim.upgrade.length} installed package(s) to their candidate versions`,
      change: { upgrade: cur.sim.upgrade.map((u) => `${u.name} ${u.from} -> ${u.to}`), install: [], remove: [] },
      sideEffects:
        cur.manager === 'apt'
          ? ['downloads the new packages', 'package maintainer scripts run as root; services of upgraded packages may restart', 'conffiles an administrator changed are kept (the new default is saved as .dpkg-dist)']
          : [
              'downloads the new packages',
              'package scriptlets run as root; services of upgraded packages may restart',
              'configuration files an administrator changed are kept where the package marks them noreplace (the new default is saved as .rpmnew), otherwise replaced (the edited copy is saved as .rpmsave)',
            ],
      warnings: [
        ...(cur.keptBack.length ? [`kept back (they need new or removed packages): ${cur.keptBack.join(', ')}`] : []),
        ...(reboot.length ? [`${reboot.join(', ')} only take full effect after a reboot`] : []),
        ...(cur.manager === 'dnf' ? ['dnf resolves the dependencies when it runs: new packages an upgrade needs are installed and not listed here; it removes none to make room (no --allowerasing)'] : []),
        ...(cur.manager === 'dnf' && names.some((n) => KERNEL.test(n)) ? ['a new kernel is installed next to the running one; dnf removes the oldest kernels beyond installonly_limit'] : []),
        ...notRevertible(cur.manager, cur.previous),
      ],
    };
  },
  // dnf: exactly the previewed builds, by name-version-release.arch, so nothing else it offers comes along.
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      apt: () => withReinstallUndo(command('apt-get', ['upgrade', '-y', ...UPGRADE_OPTS, ...DPKG_NONINTERACTIVE], { resource: 'dpkg', timeoutMs: UPGRADE_TIMEOUT_MS }), cur.previous, { removes: false }),
      dnf: () => [command('dnf', ['upgrade', '-y', ...DNF_INSTALL_OPTS, ...cur.builds.map(nevraSpec)], { timeoutMs: UPGRADE_TIMEOUT_MS })],
    }),
});

export const autoremove = action({
  name: 'Autoremove',
  family: 'packages',
  description: 'Remove the packages that were installed only as dependencies and are no longer needed (apt-get autoremove; dnf remove of each build dnf repoquery --unneeded lists), exactly the set the preview shows.',
  risk: 'high',
  readOnly: false,
  // Undone by installing again, with dpkg, the .deb files apt kept of the versions it removes, then marking them automatic again (./undo.ts).
  rollback: exact((_p: unknown, cur: Plan & { previous: PreviousPackage[] }) => [...packageProbes(cur.sim.remove.map((p) => p.name), cur.manager), ...debProbes(cur.previous)]),
  runsPrograms: false,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const { manager, sim, builds } = await plan(host, 'autoremove', []);
    // The package database's description of each (dpkg: essential flag, priority), to refuse what must stay.
    const removed = await installedEntries(host, manager, [...new Set(sim.remove.map((p) => p.name))]);
    // What its undo needs: each one's .deb and automatic mark (dnf keeps no copy of what it removes).
    const previous: PreviousPackage[] = manager === 'apt' ? await previousPackages(host, sim.remove) : [];
    return { manager, sim, builds, removed, previous };
  },
  check: (_p, cur) => {
    if (cur.sim.remove.length === 0) return unchanged('no package is unused: there is nothing to autoremove');
    if (cur.sim.install.length || cur.sim.upgrade.length) throw new AirlockError('conflict', 'unexpected_changes', 'apt plans to install or upgrade packages during an autoremove');
    const bad = cur.sim.remove
      .map((p) => p.name)
      .flatMap((n) => {
        const why = protectedSelf(n.replace(/:.*$/, ''), cur.removed.filter((e: DpkgEntry) => e.name === n.replace(/:.*$/, '')), cur.manager);
        return why ? [`${n} (${why})`] : [];
      });
    if (bad.length) {
      const hint = cur.manager === 'apt' ? 'mark them as manually installed (apt-mark manual) at the console' : 'mark them as installed by the user (dnf mark install; dnf5: dnf mark user) at the console';
      throw new AirlockError('authorization', 'protected_package', `autoremove would remove ${bad.join(', ')}, which Airlock never removes`, hint);
    }
  },
  preview: (_p, cur) => ({
    summary: `Remove ${cur.sim.remove.length} package(s) nothing depends on any more`,
    change:
      cur.manager === 'apt'
        ? { remove: list(cur.sim.remove), keeps: 'configuration files (no purge)' }
        : { remove: cur.builds.map(nevraSpec), keeps: 'configuration files an administrator changed (saved as .rpmsave)' },
    sideEffects: ['services shipped by the removed packages are stopped', `package ${cur.manager === 'apt' ? 'maintainer scripts' : 'scriptlets'} run as root`],
    warnings: [...cur.removed.filter((e) => e.priority === 'important').map((e) => `removes priority-important package ${e.name}`), ...notRevertible(cur.manager, cur.previous)],
  }),
  // dnf: exactly the previewed builds, and nothing they leave unneeded (clean_requirements_on_remove off): the set is closed anyway, since dnf lists a dependency only with all that needs it.
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      apt: () => withReinstallUndo(command('apt-get', ['autoremove', '-y', ...DPKG_NONINTERACTIVE], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }), cur.previous, { removes: true }),
      dnf: () => [command('dnf', ['remove', '-y', '--setopt=clean_requirements_on_remove=False', ...cur.builds.map(nevraSpec)], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});
