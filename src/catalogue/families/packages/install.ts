/** Installing one package at its candidate version (see ./manager.ts for how apt and dnf are held to exact names). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { ARCH } from '../../lib/dnf.js';
import { anyPackageName, APT_TIMEOUT_MS, DNF_INSTALL_OPTS, DPKG_NONINTERACTIVE, INSTALL_OPTS, installedVersion, isInstalled, list, requireVersion, stepsFor, type PackageManager } from './manager.js';
import { simulate } from './plans.js';
import type { Simulation } from '../../lib/apt.js';
import { packageState, requireKnown } from './state.js';
import { compensating } from '../../rollback.js';
import { debProbes, installUndo, packageProbes, withInstallUndo, type InstallUndo } from './undo.js';

export const installPackage = action({
  name: 'InstallPackage',
  family: 'packages',
  description: 'Install one package at its current candidate version, with its dependencies but without recommends (weak dependencies), never removing anything.',
  risk: 'medium',
  readOnly: false,
  // Undone by purging what it added (dpkg --purge, as PurgePackage does) and installing again the former versions
  // of what it upgraded: dpkg reads as before, but what the maintainer scripts did beyond the packages' files
  // (a system user made, a service started) is equivalent, not undone byte for byte.
  rollback: compensating('PurgePackage', (_p: unknown, cur: { manager: PackageManager; sim: Simulation | null; undo: InstallUndo | null }) => [
    ...packageProbes(cur.sim ? [...cur.sim.install, ...cur.sim.upgrade].map((p) => p.name) : [], cur.manager),
    ...debProbes(cur.undo?.upgraded ?? []),
  ]),
  runsPrograms: true,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'htop' },
  current: async ({ package: name }, host) => {
    const cur = await packageState(host, name);
    const installable = cur.policy.known && cur.policy.candidate !== null && !isInstalled(cur.dpkg);
    const version = installable ? requireVersion(name, cur.policy.candidate!, cur.manager) : null;
    if (cur.candidateArch !== null && !ARCH.test(cur.candidateArch)) throw new AirlockError('execution', 'odd_arch', `dnf reports architecture ${JSON.stringify(cur.candidateArch)} for ${name}`);
    // dnf: only the package itself is known before it runs (see ./manager.ts).
    const sim = !version ? null : cur.manager === 'apt' ? await simulate(host, 'install', INSTALL_OPTS, `${name}=${version}`) : { install: [{ name, version }], upgrade: [], remove: [] };
    // What its undo needs (./undo.ts); dnf keeps no copy of what it replaces, so there it has none.
    const undo = sim && cur.manager === 'apt' ? await installUndo(host, sim) : null;
    return { ...cur, version, sim, undo };
  },
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (isInstalled(cur.dpkg)) return unchanged(`${name} ${installedVersion(cur.dpkg)} is already installed`);
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
        ...(cur.manager === 'dnf' ? ['a revert will not be possible: Airlock undoes installs with dpkg only'] : cur.undo?.impossible ? [cur.undo.impossible] : []),
      ],
    };
  },
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => withInstallUndo(command('apt-get', ['install', '-y', ...INSTALL_OPTS, ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }), cur.undo!),
      dnf: () => [command('dnf', ['install', '-y', ...DNF_INSTALL_OPTS, `${name}-${cur.version}.${cur.candidateArch}`], { timeoutMs: APT_TIMEOUT_MS })],
    }),
  effects: ({ package: name }) => [{ kind: 'package', package: name }],
});
