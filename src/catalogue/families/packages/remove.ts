/** Removing one installed package and what requires it, never a protected, essential or required one. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import type { Simulation } from '../../lib/apt.js';
import { anyPackageName, APT_TIMEOUT_MS, DPKG_NONINTERACTIVE, installedEntries, installedVersion, isHeld, list, PROTECTED, protectedSelf, requireVersion, stepsFor, type PackageManager } from './manager.js';
import { dnfDependents, simulate } from './plans.js';
import { installedState } from './state.js';
import { exact } from '../../rollback.js';
import { debProbes, notRestorable, packageProbes, previousPackages, withReinstallUndo, type PreviousPackage } from './undo.js';

export const removePackage = action({
  name: 'RemovePackage',
  family: 'packages',
  description: 'Remove one installed package (configuration files stay) and what requires it; refuses essential, required and protected packages, also as a consequence.',
  risk: 'high',
  readOnly: false,
  // Undone by installing again, with dpkg, the very .deb files apt kept of the versions it removes (./undo.ts).
  rollback: exact((_p: unknown, cur: { manager: PackageManager; sim: Simulation | null; previous: PreviousPackage[] }) => [...packageProbes((cur.sim?.remove ?? []).map((p) => p.name), cur.manager), ...debProbes(cur.previous)]),
  runsPrograms: false,
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
    // What its undo needs: each one's .deb and automatic mark (dnf keeps no copy of what it removes).
    const previous: PreviousPackage[] = sim && manager === 'apt' ? await previousPackages(host, sim.remove) : [];
    return { name, manager, dpkg, version, sim, removed, previous };
  },
  check: ({ package: name }, cur) => {
    if (!cur.version) return unchanged(`${name} is not installed`);
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
        ...(cur.manager === 'dnf' ? ['a revert will not be possible: dnf keeps no copy of the packages it removes'] : notRestorable(cur.previous) ? [notRestorable(cur.previous)!] : []),
      ],
    };
  },
  // Pinned to the installed version: the name is exact, never a pattern the manager could widen.
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => withReinstallUndo(command('apt-get', ['remove', '-y', ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }), cur.previous, { removes: true }),
      // Dependencies nothing else needs stay installed, as with apt-get remove (Autoremove takes them).
      dnf: () => [command('dnf', ['remove', '-y', '--setopt=clean_requirements_on_remove=False', `${name}-${cur.version}`], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});
